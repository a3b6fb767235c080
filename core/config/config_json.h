/* The model as JSON (mpamctl check-config --json, show): every key of every section, null where a
 * key holds no value, plus where each section starts. */
#ifndef MPAMD_CORE_CONFIG_CONFIG_JSON_H
#define MPAMD_CORE_CONFIG_CONFIG_JSON_H

#include <jansson.h>

#include "core/config/model.h"

json_t *config_to_json(const struct config *config);
json_t *partition_config_to_json(const struct config *config, const struct partition_config *p);

#endif
