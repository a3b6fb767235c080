#include "core/base/file_create.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Rounds of "create, else open what is there": each loses only to a file made or removed in between. */
#define OPEN_TRIES 8

int file_create_new(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode) < 0) { /* the umask took bits away */
		int r = -errno;
		close(fd);
		unlink(path);
		return r;
	}
	return fd;
}

int file_open_nofollow(const char *path, int flags, mode_t mode, bool *ret_created)
{
	for (int i = 0; i < OPEN_TRIES; i++) {
		int fd = file_create_new(path, flags, mode);
		if (fd != -EEXIST) {
			if (ret_created)
				*ret_created = fd >= 0;
			return fd;
		}
		fd = open(path, (flags & ~(O_CREAT | O_EXCL)) | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT) {
			if (ret_created)
				*ret_created = false;
			return fd >= 0 ? fd : -errno;
		}
	}
	return -EAGAIN;
}

bool file_at_path(int fd, const char *path)
{
	struct stat open_st, path_st;

	return fstat(fd, &open_st) == 0 && lstat(path, &path_st) == 0 && open_st.st_dev == path_st.st_dev &&
	       open_st.st_ino == path_st.st_ino;
}

int file_write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

const char *file_open_error(int code)
{
	if (code == -ELOOP)
		return "it is a symbolic link, which mpamd does not follow for a file it writes";
	return strerror(-code);
}
