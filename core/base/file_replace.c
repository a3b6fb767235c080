#include "core/base/file_replace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/file_create.h"

/* The directory, opened to create and rename in (so that its path is looked up once). */
static int open_dir(const char *dir, struct err *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && mkdir(dir, 0755) == 0)
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "%s: %s", dir, strerror(errno));
	return fd;
}

/* The temporary file, new, with exactly `mode`; one a crash left behind is removed first. */
static int create_temp(int dfd, const char *tmp, mode_t mode)
{
	for (int tries = 0; tries < 2; tries++) {
		int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 && fchmod(fd, mode) == 0)
			return fd;
		int r = -errno;
		if (fd >= 0) {
			close(fd);
			unlinkat(dfd, tmp, 0);
			return r;
		}
		if (r != -EEXIST || unlinkat(dfd, tmp, 0) < 0)
			return r;
	}
	return -EEXIST;
}

/* The temporary file written and on the disk: 0, or the failed step's errno in *step. */
static int write_temp(int dfd, const char *tmp, const char *data, size_t len, mode_t mode, const char **step)
{
	int fd = create_temp(dfd, tmp, mode);

	*step = "cannot be created";
	if (fd < 0)
		return fd;
	int r = file_write_all(fd, data, len);
	*step = "cannot be written";
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		unlinkat(dfd, tmp, 0);
	return r;
}

int file_replace(const char *dir, const char *name, const char *data, size_t len, mode_t mode, struct err *err)
{
	char tmp[NAME_MAX + 1];
	const char *step;

	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= sizeof(tmp))
		return err_set(err, -ENAMETOOLONG, "%s/%s: name too long", dir, name);
	int dfd = open_dir(dir, err);
	if (dfd < 0)
		return dfd;
	int r = write_temp(dfd, tmp, data, len, mode, &step);
	if (r < 0) {
		close(dfd);
		return err_set(err, r, "%s/%s %s: %s", dir, tmp, step, strerror(-r));
	}
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = -errno;
		unlinkat(dfd, tmp, 0);
		close(dfd);
		return err_set(err, r, "%s/%s cannot be renamed to %s: %s", dir, tmp, name, strerror(-r));
	}
	r = fsync(dfd) < 0 ? -errno : 0;
	close(dfd);
	return r < 0 ? err_set(err, r, "%s: cannot be flushed: %s", dir, strerror(-r)) : 0;
}

int file_remove(const char *dir, const char *name, struct err *err)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return errno == ENOENT ? 0 : err_set(err, -errno, "%s: %s", dir, strerror(errno));
	int r = unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (r == 0 && fsync(dfd) < 0)
		r = -errno;
	close(dfd);
	return r < 0 ? err_set(err, r, "%s/%s cannot be removed: %s", dir, name, strerror(-r)) : 0;
}
