/* The single-instance locks; see instance_lock.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/instance_lock.h"
#include "core/base/log.h"

/* "/sys/fs/resctrl" -> "resctrl-sys-fs-resctrl": one file name per resource, readable in ls. */
static void lock_name(const char *kind, const char *what, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s", kind);

	for (const char *c = what; *c && used + 2 < len; c++) {
		bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			     *c == '.' || *c == '_';
		buf[used++] = plain ? *c : '-';
	}
	buf[used] = '\0';
}

static long holder_of(int fd)
{
	char text[32] = "";
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	return n > 0 ? strtol(text, NULL, 10) : 0;
}

/* Locks DIR/NAME.lock for `resource` and writes this pid into it. */
static int lock_one(struct instance_lock *l, const char *dir, const char *name, const char *resource, struct err *err)
{
	char path[PATH_MAX];

	if (l->count >= INSTANCE_LOCK_MAX)
		return err_set(err, -E2BIG, "too many resources to lock");
	snprintf(path, sizeof(path), "%s/%s.lock", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return err_set(err, -errno, "cannot open the lock %s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		long pid = holder_of(fd);
		close(fd);
		if (r != -EBUSY)
			return err_set(err, r, "cannot lock %s: %s", path, strerror(-r));
		return err_set(err, r,
			       "another mpamd (pid %ld) already manages %s (it holds %s); this one exits having "
			       "changed nothing",
			       pid, resource, path);
	}
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	/* The lock holds without its pid too; only the message of a second mpamd is poorer then. */
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		log_warning("%s: cannot write this pid into the lock: %s", path, strerror(errno));
	l->fds[l->count++] = fd;
	return 0;
}

static bool uses_resctrl(const struct config *c)
{
	return !strcmp(c->global.backend, "resctrl") || !strcmp(c->global.monitor, "resctrl");
}

static int lock_resctrl(struct instance_lock *l, const char *dir, const struct config *c, struct err *err)
{
	char real[PATH_MAX], name[PATH_MAX + 16];
	const char *root = realpath(c->global.resctrl_root, real) ? real : c->global.resctrl_root;

	lock_name("resctrl", root, name, sizeof(name));
	return lock_one(l, dir, name, root, err);
}

static int lock_mscs(struct instance_lock *l, const char *dir, const struct config *c, struct err *err)
{
	for (size_t i = 0; i < c->msc_count; i++) {
		char name[64], what[NAME_MAX_LEN + 64];
		snprintf(name, sizeof(name), "msc-0x%llx", (unsigned long long)c->mscs[i].base);
		snprintf(what, sizeof(what), "the MSC window at 0x%llx ([msc \"%s\"])",
			 (unsigned long long)c->mscs[i].base, c->mscs[i].name);
		int r = lock_one(l, dir, name, what, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int instance_lock_take(const struct config *config, const char *dir, struct instance_lock *ret, struct err *err)
{
	int r = 0;

	*ret = (struct instance_lock){ .count = 0 };
	if (!strcmp(config->global.backend, "sim"))
		return 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_set(err, -errno, "cannot create %s for the instance lock: %s", dir, strerror(errno));
	if (uses_resctrl(config))
		r = lock_resctrl(ret, dir, config, err);
	if (r == 0)
		r = lock_mscs(ret, dir, config, err);
	if (r < 0)
		instance_lock_release(ret);
	return r;
}

void instance_lock_release(struct instance_lock *l)
{
	for (size_t i = 0; i < l->count; i++)
		close(l->fds[i]);
	l->count = 0;
}
