/* Replacing a small file whole, so that a reader, or the host after a crash, finds the old content or
 * the new and never a part: what mpamd writes for later runs to read (mpamctl set --persist). */
#ifndef MPAMD_CORE_FILE_REPLACE_H
#define MPAMD_CORE_FILE_REPLACE_H

#include <stddef.h>
#include <sys/types.h>

#include "core/base/error.h"

/* Writes `len` bytes of `data` as file `name` of directory `dir`: into a temporary file beside it
 * (".NAME.tmp", created without following a symbolic link and with exactly `mode`, whatever the
 * umask; one left by a crash is replaced), flushed to the disk, renamed over NAME (which replaces a
 * symbolic link there rather than follow it), and the directory flushed so that the rename lasts.
 * `dir` is made (0755) when it is missing, not its parents. 0, or a negative errno and err saying
 * which step failed on which path; NAME is then as it was. */
int file_replace(const char *dir, const char *name, const char *data, size_t len, mode_t mode, struct err *err);

/* Removes file `name` of `dir` (a missing one is fine) and flushes the directory: 0, or a negative
 * errno and why. */
int file_remove(const char *dir, const char *name, struct err *err);

#endif
