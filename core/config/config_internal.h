/* Shared by the loader's parts (config_load.c, config_check.c, config_lines.c); not a public API. */
#ifndef MPAMD_CORE_CONFIG_CONFIG_INTERNAL_H
#define MPAMD_CORE_CONFIG_CONFIG_INTERNAL_H

#include "core/config/config.h"
#include "core/config/schema.h"

/* Checks that involve more than one key or section, and the resolution that needs the whole file,
 * once every line is read (then each extension's own check runs). */
void config_check_base(struct config *config, const struct config_schema *schema, struct diag_list *diags);

/* Index of `name` in a section's key table, or -1. */
int config_section_key_index(const struct config_section_def *def, const char *name);

/* Index of `name` among [partition] keys under the config's extensions (base keys first), or -1;
 * *ret_ext is the owning extension's index, or -1 for a base key. */
int config_partition_key_find(const struct config *config, const char *name, int *ret_ext);

/* A deep copy of partition `src` into `dst` (uninitialised), both of `c`'s schema; `key_lines` is how
 * many lines src's origin holds. 0, or a negative errno and why (dst is then empty). */
int config_partition_copy(const struct config *c, struct partition_config *dst, const struct partition_config *src,
			  size_t key_lines, struct err *err);

#endif
