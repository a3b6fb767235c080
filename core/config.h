/* Configuration loader: INI text (read with inih) -> struct config, with every finding reported
 * as FILE:LINE: message. See docs/mpamd.ini.5 for the schema. */
#ifndef MPAMD_CORE_CONFIG_H
#define MPAMD_CORE_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include "core/diag.h"
#include "core/error.h"
#include "core/model.h"

#define DEFAULT_RESCTRL_ROOT "/sys/fs/resctrl"
#define DEFAULT_SOCKET_PATH  "/run/mpamd.sock"
/* inih, as Debian builds it, reads lines into a fixed 200-byte buffer. */
#define CONFIG_MAX_LINE 199
/* MSCs one mpamd drives (the engine's domain table; [sim] mscs has the same limit). */
#define CONFIG_MAX_MSCS 64

/* Command-line settings that replace the file's; checked together with the file. */
struct config_overrides {
	bool has_backend;
	enum backend_kind backend;
};

/* Reads a whole config from `in`; findings go to `diags`, whose file name names the input.
 * Returns 0 and a model in *ret_config when there is no error (warnings may be in diags);
 * -EINVAL when the input has errors (all of them are in diags); -ENOMEM; -EIO on a read error.
 * Never exits, never prints. */
int config_load(FILE *in, const struct config_overrides *overrides, struct config **ret_config,
		struct diag_list *diags);

/* Loads a config held in memory (tests, benchmarks); `diags` names it. */
int config_load_string(const char *text, const struct config_overrides *overrides, struct config **ret_config,
		       struct diag_list *diags);

/* Convenience for tools: opens `path` and loads it. On open failure adds a diagnostic naming the
 * path and the reason. */
int config_load_path(const char *path, const struct config_overrides *overrides, struct config **ret_config,
		     struct diag_list *diags);

/* Run-time changes (mpamctl set): one partition key with the file's own parser. Keys that decide
 * which tasks or hardware a partition is (partid, cgroup, pids, cpus, sim_demand) are refused with
 * -EPERM: they take a reload. */
int config_partition_set(struct partition_config *p, const char *key, const char *value, struct err *err);
/* The rules between one partition's keys, as the loader applies them: 0 or -EINVAL and why. */
int config_partition_check(const struct partition_config *p, struct err *err);

/* Lookups by name; NULL when absent. */
const struct partition_config *config_find_partition(const struct config *config, const char *name);

#endif
