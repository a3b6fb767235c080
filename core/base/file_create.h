/* Opening the files mpamd writes (the record file, the metrics textfile, the pid file, the instance
 * locks) so that nobody can steer the writes of a root process: a symbolic link at the path is never
 * followed (O_NOFOLLOW: the open fails with ELOOP), and a file mpamd creates gets exactly the mode it
 * asks for, whatever the umask (created with O_EXCL, then fchmod). A file that is already there keeps
 * its owner and mode: whoever made it chose them. */
#ifndef MPAMD_CORE_FILE_CREATE_H
#define MPAMD_CORE_FILE_CREATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Creates `path`, which must not exist, with exactly `mode`; `flags` (O_WRONLY or O_RDWR, and more)
 * get O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC. The fd, or a negative errno (-EEXIST when something is
 * there, a symbolic link too). */
int file_create_new(const char *path, int flags, mode_t mode);

/* Opens `path` without following a symbolic link there, creating it (as file_create_new) when it is
 * missing; *ret_created (may be NULL) says which. The fd, or a negative errno: -ELOOP for a symbolic
 * link. */
int file_open_nofollow(const char *path, int flags, mode_t mode, bool *ret_created);

/* Whether `path` still names the open file `fd`: nobody moved, removed or replaced it since it was
 * opened (a symbolic link at the path is not the file). */
bool file_at_path(int fd, const char *path);

/* Writes all `len` bytes of `data` to `fd` (again after EINTR and short writes): 0 or a negative errno. */
int file_write_all(int fd, const char *data, size_t len);

/* Why an open of a file to write failed, for messages: ELOOP is said as "a symbolic link, which mpamd
 * does not follow", the rest as strerror. `code` is a negative errno. */
const char *file_open_error(int code);

#endif
