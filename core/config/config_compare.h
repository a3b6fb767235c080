/* Whether two configurations say the same, key by key, as their files would: what a reload compares
 * to change only the difference. Each key is formatted by its own type (the writer's), so a key added
 * to a table is compared with no code here. */
#ifndef MPAMD_CORE_CONFIG_CONFIG_COMPARE_H
#define MPAMD_CORE_CONFIG_CONFIG_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/config/model.h"
#include "core/config/schema.h"

/* Which keys of a partition to compare. */
enum config_compare_keys {
	CONFIG_COMPARE_GOALS,	 /* the run-time keys (CONFIG_KEY_RUNTIME: the fields of partition_goals) */
	CONFIG_COMPARE_IDENTITY, /* every other key: how the hardware knows it (partid, cgroup, pids...) */
};

/* The first key of section `def` in which objects `a` and `b` differ, or NULL. */
const struct config_key *config_section_diff(const struct config_section_def *def, const void *a, const void *b);

/* The first key (of `which`) in which partition `a` of `ca` and `b` of `cb` differ, or NULL. Both
 * configurations must come from the same schema. */
const struct config_key *config_partition_diff(const struct config *ca, const struct partition_config *a,
					       const struct config *cb, const struct partition_config *b,
					       enum config_compare_keys which);

/* The first difference outside [global] and [partition] sections: the [msc] windows, then each
 * extension's section ([sim], [pmu]...); a sentence in `buf` ("[msc "mem0"] base"), or false. */
bool config_sections_diff(const struct config *a, const struct config *b, char *buf, size_t len);

#endif
