/* File access relative to the resctrl root: every path is opened with openat on the root's
 * descriptor, so the root is a parameter and nothing is resolved twice. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "core/base/parse.h"

int resctrl_read_at(int dirfd, const char *path, char *buf, size_t len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int saved = errno;
	char more;
	/* A file that fills the buffer may hold more: a cut one would read as a wrong value. */
	bool cut = n == (ssize_t)len - 1 && read(fd, &more, 1) == 1;
	close(fd);
	if (n < 0)
		return -saved;
	buf[n] = '\0';
	return cut ? -EFBIG : 0;
}

int resctrl_read_uint_at(int dirfd, const char *path, unsigned base, uint64_t *ret)
{
	char buf[64];
	struct err perr;
	int r = resctrl_read_at(dirfd, path, buf, sizeof(buf));

	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	r = base == 16 ? parse_hex(buf, 0, UINT64_MAX, ret, &perr) : parse_uint(buf, 0, UINT64_MAX, ret, &perr);
	return r < 0 ? -EINVAL : 0;
}

int resctrl_write_at(int dirfd, const char *path, const char *text)
{
	int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int saved = errno;
	close(fd);
	if (n < 0)
		return -saved;
	return (size_t)n == len ? 0 : -EIO;
}

void resctrl_last_status(int rootfd, char *buf, size_t len)
{
	if (resctrl_read_at(rootfd, "info/last_cmd_status", buf, len) < 0) {
		buf[0] = '\0';
		return;
	}
	/* Several lines become one, so the status fits in a log line. */
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = p[1] ? ';' : '\0';
}

/* Read at once, before mpamd touches any group file again: from Linux 7.3 on every access to a group's
 * file clears the status (rdtgroup_kn_lock_live), and so may another process's read of a counter in
 * between, which mpamd cannot tell from a kernel that recorded nothing. Either way the status is
 * empty ("ok"), and the error says only that: the cause is not guessed. */
int resctrl_fail_with_status(int rootfd, struct err *err, int r, const char *what)
{
	char status[256];

	resctrl_last_status(rootfd, status, sizeof(status));
	if (!strcmp(status, "ok"))
		return err_set(err, r, "%s: %s (kernel gave no reason: last_cmd_status was empty)", what, strerror(-r));
	if (!status[0])
		return err_set(err, r, "%s: %s (info/last_cmd_status could not be read)", what, strerror(-r));
	return err_set(err, r, "%s: %s (last_cmd_status: %s)", what, strerror(-r), status);
}

bool resctrl_exists_at(int dirfd, const char *path)
{
	struct stat st;

	return fstatat(dirfd, path, &st, 0) == 0;
}
