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
#include "core/engine/compose.h"

/* A claim's id as a file name, readable in ls: "resctrl/sys/fs/resctrl" -> "resctrl-sys-fs-resctrl". */
static void lock_name(const char *id, char *buf, size_t len)
{
	size_t used = 0;

	for (const char *c = id; *c && used + 1 < len; c++) {
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

/* Whether this process holds the lock file `fd` is already (a control and a monitor claiming one
 * resource): a second flock of it would be refused as another holder's. */
static bool held_already(const struct instance_lock *l, int fd)
{
	struct stat st, held;

	if (fstat(fd, &st) < 0)
		return false;
	for (size_t i = 0; i < l->count; i++)
		if (fstat(l->fds[i], &held) == 0 && held.st_dev == st.st_dev && held.st_ino == st.st_ino)
			return true;
	return false;
}

/* Locks DIR/NAME.lock for `resource` and writes this pid into it. */
static int lock_one(struct instance_lock *l, const char *dir, const char *name, const char *resource, struct err *err)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/%s.lock", dir, name);

	if (len < 0 || (size_t)len >= sizeof(path))
		return err_set(err, -ENAMETOOLONG, "the lock for %s would be beyond PATH_MAX under %s", resource, dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return err_set(err, -errno, "cannot open the lock %s: %s", path, strerror(errno));
	if (held_already(l, fd)) {
		close(fd);
		return 0;
	}
	if (l->count >= INSTANCE_LOCK_MAX) {
		close(fd);
		return err_set(err, -E2BIG, "too many resources to lock");
	}
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

struct lock_sink {
	struct instance_lock *lock;
	const char *dir;
	bool dir_made;
};

/* A claim of the composition: its lock, in `dir`, made at the first claim (a composition that claims
 * nothing, the simulator's, leaves no trace). */
static int lock_claim(void *ctx, const char *id, const char *what, struct err *err)
{
	struct lock_sink *s = ctx;
	char name[NAME_MAX - sizeof(".lock") + 1]; /* one file name */

	if (!s->dir_made && mkdir(s->dir, 0755) < 0 && errno != EEXIST)
		return err_set(err, -errno, "cannot create %s for the instance lock: %s", s->dir, strerror(errno));
	s->dir_made = true;
	lock_name(id, name, sizeof(name));
	return lock_one(s->lock, s->dir, name, what, err);
}

int instance_lock_take(const struct engine_registry *registry, const struct config *config, const char *dir,
		       struct instance_lock *ret, struct err *err)
{
	struct lock_sink sink = { .lock = ret, .dir = dir };

	*ret = (struct instance_lock){ .count = 0 };
	int r = composition_claims(registry, config, &(struct claim_sink){ .ctx = &sink, .claim = lock_claim }, err);
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
