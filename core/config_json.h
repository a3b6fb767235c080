/* The configuration model as JSON (jansson): for `check-config --json` and the control socket. */
#ifndef MPAMD_CORE_CONFIG_JSON_H
#define MPAMD_CORE_CONFIG_JSON_H

#include <jansson.h>

#include "core/model.h"

json_t *partition_config_to_json(const struct partition_config *p);
json_t *config_to_json(const struct config *config);

#endif
