#include "core/base/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *file_kind_name(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a regular file";
}

/* Up to max_bytes + 1 bytes, so that a file that grew past its fstat size is still caught. */
static int read_bounded(int fd, size_t max_bytes, char *buf, size_t *ret_len, struct err *err)
{
	size_t len = 0;

	while (len <= max_bytes) {
		ssize_t n = read(fd, buf + len, max_bytes + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(err, -errno, "read error: %s", strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max_bytes)
		return err_set(err, -EFBIG, "larger than %zu bytes, the most a file may hold", max_bytes);
	*ret_len = len;
	return 0;
}

/* fd: file_open_regular's. */
static int read_open_file(int fd, size_t max_bytes, char **ret_data, size_t *ret_len, struct err *err)
{
	char *buf = malloc(max_bytes + 2);
	size_t len = 0;
	if (!buf)
		return err_set(err, -ENOMEM, "out of memory");
	int r = read_bounded(fd, max_bytes, buf, &len, err);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret_data = buf;
	*ret_len = len;
	return 0;
}

int file_open_regular(const char *path, size_t max_bytes, int *ret_fd, struct err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return err_set(err, -errno, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		int saved = errno;
		close(fd);
		return err_set(err, -saved, "cannot stat: %s", strerror(saved));
	}
	int r = 0;
	if (!S_ISREG(st.st_mode))
		r = err_set(err, -EINVAL, "%s, not a regular file", file_kind_name(st.st_mode));
	else if ((uint64_t)st.st_size > max_bytes)
		r = err_set(err, -EFBIG, "%llu bytes, larger than %zu, the most a file may hold",
			    (unsigned long long)st.st_size, max_bytes);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int file_read_regular(const char *path, size_t max_bytes, char **ret_data, size_t *ret_len, struct err *err)
{
	int fd;
	int r = file_open_regular(path, max_bytes, &fd, err);

	if (r < 0)
		return r;
	r = read_open_file(fd, max_bytes, ret_data, ret_len, err);
	close(fd);
	return r;
}
