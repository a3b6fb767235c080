/* Where mpamd writes its record file and its metrics textfile, and why it cannot, in words an operator
 * can act on. Under systemd the usual cause is the unit's sandbox: ProtectSystem=strict mounts every
 * path read-only but those the unit names (StateDirectory=, ReadWritePaths=), so a write elsewhere
 * fails with EROFS however the directory looks from a shell; the fix is a ReadWritePaths= line and a
 * restart (the sandbox is set up when mpamd starts). */
#ifndef MPAMD_CORE_REPORT_OUTPUT_PATH_H
#define MPAMD_CORE_REPORT_OUTPUT_PATH_H

#include <stddef.h>

#include "core/base/error.h"

/* Why writing a file at `path` failed with `code` (a negative errno), for a message: strerror, a
 * symbolic link said as one (file_open_error), and a read-only file system with its likely cause and
 * the ReadWritePaths= line that fixes it. Written into `buf`, which is returned. */
const char *output_path_error(const char *path, int code, char *buf, size_t len);

/* 0 when mpamd could write a file at `path` now: its directory exists, mpamd may write there and the
 * file system is not read-only, and a file already there may be written. Else a negative errno and
 * err naming the directory (or the file) and why, as output_path_error (not `path` itself: the caller
 * says what it is). Nothing is created. */
int output_path_check(const char *path, struct err *err);

#endif
