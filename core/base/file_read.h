/* Reading a whole file that someone else may have put in mpamd's way: only a regular file is read
 * (checked with fstat on the descriptor that was opened, not on the path, so nothing can be swapped in
 * between), within a size limit, and it is opened with O_NONBLOCK, so a FIFO in its place cannot hold
 * open() for ever. A FIFO, a device (/dev/zero behind a symbolic link), a socket or a directory is
 * refused with its kind named. */
#ifndef MPAMD_CORE_FILE_READ_H
#define MPAMD_CORE_FILE_READ_H

#include <stddef.h>
#include <sys/types.h>

#include "core/base/error.h"

/* "a FIFO", "a character device", "a directory"...: what a file of `mode` is, for messages. */
const char *file_kind_name(mode_t mode);

/* The regular file at `path`, whole, NUL-terminated, in *ret_data (malloc'ed) and its length in
 * *ret_len. -EINVAL when it is not a regular file, -EFBIG when it holds more than `max_bytes` (also
 * when it grows past them while being read), else the errno of open or read; err says why, without
 * the path (callers name it their way). Outputs untouched on failure. */
int file_read_regular(const char *path, size_t max_bytes, char **ret_data, size_t *ret_len, struct err *err);

/* The regular file at `path` opened to read (O_CLOEXEC; reads of a regular file do not block, so
 * O_NONBLOCK stays), in *ret_fd, when it holds at most `max_bytes` now; the same refusals as
 * file_read_regular's. A caller reading it in pieces bounds what it reads itself (it may grow). */
int file_open_regular(const char *path, size_t max_bytes, int *ret_fd, struct err *err);

#endif
