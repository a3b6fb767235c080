/* The model as JSON (mpamctl check-config --json, show): every key of every section, null where a
 * key holds no value, plus where each section starts. */
#ifndef MPAMD_CORE_CONFIG_CONFIG_JSON_H
#define MPAMD_CORE_CONFIG_CONFIG_JSON_H

#include <jansson.h>

#include "core/config/model.h"

json_t *config_to_json(const struct config *config);
/* Text from a file or a path as a JSON string, which must be UTF-8: bytes that are not become \xHH
 * (utf8_escape), where json_string would return NULL and the value would silently go missing. NULL
 * text is JSON null; NULL only when out of memory. */
json_t *config_json_text(const char *s);
json_t *partition_config_to_json(const struct config *config, const struct partition_config *p);

#endif
