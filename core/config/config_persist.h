/* mpamctl set --persist's files. [global] persist_dir holds one file per partition, NAME.ini: a
 * [partition "NAME"] section with the keys persisted for it. The loader reads them after the main
 * file and the included ones, and each key replaces the main file's value for that partition
 * (config_load.c; the rule is in mpamd.ini(5)). mpamd writes them: the daemon has the privilege and
 * knows the configuration, mpamctl need not have either. */
#ifndef MPAMD_CORE_CONFIG_CONFIG_PERSIST_H
#define MPAMD_CORE_CONFIG_CONFIG_PERSIST_H

#include <stddef.h>

#include "core/base/error.h"

/* Partition `name`'s file in persist_dir: "NAME.ini" (a name is never "." or "..", and has no '/'). */
void config_persist_file(const char *name, char *buf, size_t len);

/* The text of partition `name`'s file at `dir` (*ret NULL when there is none): 0, or a negative errno
 * and why (not a regular file, larger than a configuration file may be, unreadable). */
int config_persist_read(const char *dir, const char *name, char **ret, struct err *err);

/* `old` (the file's text; NULL: no file) with `settings` ("key=value", each key once, checked by the
 * caller as mpamctl set checks them) replacing the same keys or added after them, malloc'ed in *ret.
 * -EINVAL and why when `old` holds what mpamd does not write there (a section of another partition, a
 * line that is not "key = value") or a setting would not read back as one line of the file. */
int config_persist_text(const char *old, const char *name, const char *const *settings, size_t count, char **ret,
			struct err *err);

/* Replaces partition `name`'s file at `dir` with `text` (NULL: removes it), atomically (mode 0644:
 * the configuration is no secret), making `dir` when it is missing. 0, or a negative errno and why. */
int config_persist_write(const char *dir, const char *name, const char *text, struct err *err);

#endif
