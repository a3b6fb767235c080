/* Configuration loader: INI text (read with inih) -> struct config, with every finding reported
 * as FILE:LINE: message. See docs/mpamd.ini.5 for the keys, core/config/schema.h for how they are
 * described. */
#ifndef MPAMD_CORE_CONFIG_CONFIG_H
#define MPAMD_CORE_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include "core/base/diag.h"
#include "core/base/error.h"
#include "core/config/model.h"
#include "core/config/schema.h"

#define DEFAULT_RESCTRL_ROOT "/sys/fs/resctrl"
#define DEFAULT_SOCKET_PATH  "/run/mpamd/mpamd.sock"
#define DEFAULT_CONFIG_PATH  "/etc/mpamd/mpamd.ini"
/* inih, as Debian builds it, reads lines into a fixed 200-byte buffer. */
#define CONFIG_MAX_LINE 199
/* Bytes one configuration file (the main one, each included one) may hold: a file is read whole, and
 * more than this is no configuration (/dev/zero behind a symbolic link). */
#define CONFIG_MAX_FILE_BYTES (1024 * 1024)
/* MSCs one mpamd drives (the engine's domain table; [sim] mscs has the same limit). */
#define CONFIG_MAX_MSCS 64

/* Command-line settings that replace the file's; checked together with the file. */
struct config_overrides {
	const char *backend; /* NULL: the file's */
};

/* Reads a whole config from `in` against `schema`; findings go to `diags`, whose file name names the
 * input. Returns 0 and a model in *ret_config when there is no error (warnings may be in diags);
 * -EINVAL when the input has errors (all of them are in diags); -ENOMEM; -EIO on a read error;
 * -EFBIG when `in` goes on past CONFIG_MAX_FILE_BYTES (it is read no further). A line is held only up
 * to CONFIG_MAX_LINE characters however long it is. Never exits, never prints. `overrides` may be
 * NULL. */
int config_load(FILE *in, const struct config_schema *schema, const struct config_overrides *overrides,
		struct config **ret_config, struct diag_list *diags);

/* Loads a config held in memory (tests, benchmarks); `diags` names it. */
int config_load_string(const char *text, const struct config_schema *schema, const struct config_overrides *overrides,
		       struct config **ret_config, struct diag_list *diags);

/* Loads the file at `path`, which must be a regular file (a FIFO, a device, a directory is refused
 * without blocking: see core/base/file_read.h) of at most CONFIG_MAX_FILE_BYTES, as must each file
 * its include key names. When it cannot be read, one diagnostic without a line says why ("FILE: error:
 * a FIFO, not a regular file") and the errno is returned. */
int config_load_path(const char *path, const struct config_schema *schema, const struct config_overrides *overrides,
		     struct config **ret_config, struct diag_list *diags);

/* Run-time changes (mpamctl set): one partition key with the file's own parser, into `p` (a copy the
 * caller keeps or drops). Keys without CONFIG_KEY_RUNTIME (partid, cgroup, pids, the simulator's...)
 * are refused with -EPERM: they take a reload. An unknown key gets a "did you mean". */
int config_partition_set(const struct config *config, struct partition_config *p, const char *key, const char *value,
			 struct err *err);
/* The page size the [msc] window check holds windows to: the running kernel's, unless set (0 goes
 * back to it), e.g. to check a file for a 64 KiB-page host on a 4 KiB one. */
uint64_t config_page_size(void);
void config_page_size_set(uint64_t bytes);
/* The rules between one partition's goals, as the loader applies them: 0 or -EINVAL and why. */
int config_partition_check(const struct partition_config *p, struct err *err);

/* The line a key was set on (0: not set, or not in the file). */
unsigned config_global_key_line(const struct config *config, const char *key);
unsigned config_partition_key_line(const struct config *config, const struct partition_config *p, const char *key);
unsigned config_ext_key_line(const struct config *config, const struct config_ext *ext, const char *key);

/* A deep copy of `config`, with room for `extra_partitions` more partitions after its own (their
 * slots zeroed): 0 and *ret, or -ENOMEM and why. */
int config_clone(const struct config *config, size_t extra_partitions, struct config **ret, struct err *err);
/* A deep copy of `config`'s sections with `p` (a partition of any configuration of the same schema)
 * as its only partition and no templates: what a partition added at run time keeps alive, rather
 * than the whole desired set it came with. 0 and *ret, or -ENOMEM and why. */
int config_clone_partition(const struct config *config, const struct partition_config *p, struct config **ret,
			   struct err *err);

/* ---- [vm-template "NAME"] (config_template.c) ---- */

/* Why [partition] key `key` may not be in a template (each VM's partition needs its own), or NULL. */
const char *config_template_refuses(const char *key);
/* The first template (in the file's order) whose match takes VM `vm`, or NULL. */
const struct vm_template *config_template_for(const struct config *config, const char *vm);

struct config_instances {
	/* In: told of each VM a template matches that gets no partition (a name that is not a partition
	 * name, or that the file's partitions have already), and why. May be NULL. */
	void (*skipped)(void *ctx, const char *vm, const char *template_name, const char *why);
	void *ctx;
	/* Out: the file's configuration with one partition per VM a template matches after its own,
	 * named after the VM, with the template's keys and vm = the VM; and for each partition what
	 * made it (NULL: the file; else the template's name, in `config`). The caller frees both. */
	struct config *config;
	const char **origins;
};

/* The desired set of partitions for `file` while VMs `vms` (distinct names) run: 0, or -ENOMEM and
 * why. */
int config_instantiate(const struct config *file, const char *const *vms, size_t vm_count, struct config_instances *io,
		       struct err *err);

/* "a | b | c" of a NULL-terminated list of names, for messages. */
void config_names_list(const char *const *names, char *buf, size_t len);

/* Every key of [partition] sections under this config's schema: the base keys, then each extension's
 * in order. *ret_owner (may be NULL) is the extension a key belongs to, NULL for base keys. */
size_t config_partition_key_count(const struct config *config);
const struct config_key *config_partition_key(const struct config *config, size_t index,
					      const struct config_ext **ret_owner);

#endif
