/* The single-instance locks; see instance_lock.h. */
#include <dirent.h>
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
#include "cli/flock_holder.h"
#include "core/base/file_create.h"
#include "core/base/log.h"
#include "core/engine/compose.h"

/* Rounds of "open the path, lock it": each loses only to a remover (a stale sweep, a holder leaving). */
#define TAKE_TRIES     8
#define LOCK_FILE_MODE 0644

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

/* Who holds the lock of `fd` (the kernel's word), else the pid its holder wrote into it, else 0. */
static long holder_of(int fd)
{
	char text[32] = "";
	struct stat st;
	pid_t holder = fstat(fd, &st) == 0 ? flock_holder(&st) : 0;

	if (holder > 0)
		return holder;
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

static int refused(int fd, const char *path, const char *resource, int code, struct err *err)
{
	long pid = code == -EBUSY ? holder_of(fd) : 0;

	close(fd);
	if (code != -EBUSY)
		return err_set(err, code, "cannot lock %s: %s", path, strerror(-code));
	return err_set(err, code,
		       "another mpamd (pid %ld) already manages %s (it holds %s); this one exits having changed "
		       "nothing",
		       pid, resource, path);
}

/* Locks the lock file at `path`: *ret_fd holds it, or is -1 when this process holds it already. A file
 * removed (by its holder, or stale_sweep) between the open and the flock is let go and the path opened
 * again: the lock is the file's at the path, never one of a file no path names. */
static int lock_path(const struct instance_lock *l, const char *path, const char *resource, int *ret_fd,
		     struct err *err)
{
	*ret_fd = -1;
	for (int i = 0; i < TAKE_TRIES; i++) {
		int fd = file_open_nofollow(path, O_RDWR, LOCK_FILE_MODE, NULL);
		if (fd < 0)
			return err_set(err, fd, "cannot open the lock %s: %s", path, file_open_error(fd));
		if (held_already(l, fd)) {
			close(fd);
			return 0;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0)
			return refused(fd, path, resource, errno == EWOULDBLOCK ? -EBUSY : -errno, err);
		if (file_at_path(fd, path)) {
			*ret_fd = fd;
			return 0;
		}
		close(fd); /* removed under us: whoever comes next to the path meets the new file's lock */
	}
	return err_set(err, -EAGAIN, "cannot lock %s: it was removed and made again %d times", path, TAKE_TRIES);
}

/* Locks DIR/NAME.lock for `resource` and writes this pid into it. */
static int lock_one(struct instance_lock *l, const char *dir, const char *name, const char *resource, struct err *err)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/%s.lock", dir, name);

	if (len < 0 || (size_t)len >= sizeof(path))
		return err_set(err, -ENAMETOOLONG, "the lock for %s would be beyond PATH_MAX under %s", resource, dir);
	if (l->count >= INSTANCE_LOCK_MAX)
		return err_set(err, -E2BIG, "too many resources to lock");
	char *kept = strdup(path);
	if (!kept)
		return err_set(err, -ENOMEM, "out of memory");
	int fd, r = lock_path(l, path, resource, &fd, err);
	if (r < 0 || fd < 0) {
		free(kept);
		return r;
	}
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	/* The lock holds without its pid too; only the message of a second mpamd is poorer then. */
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		log_warning("%s: cannot write this pid into the lock: %s", path, strerror(errno));
	l->fds[l->count] = fd;
	l->paths[l->count++] = kept;
	return 0;
}

/* Removes DIR/NAME if it is a lock file no process holds: taken first, so that one held is never
 * removed, and a taker that opened it just before sees it gone (lock_path). Whether it went. */
static bool remove_if_stale(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct stat st;
	bool removed = false;

	if (len < 0 || (size_t)len >= sizeof(path))
		return false;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    file_at_path(fd, path))
		removed = unlink(path) == 0;
	close(fd);
	return removed;
}

static bool is_lock_name(const char *name)
{
	size_t len = strlen(name), suffix = strlen(".lock");

	return name[0] != '.' && len > suffix && !strcmp(name + len - suffix, ".lock");
}

/* The lock files under `dir` that no process holds (left by a crash, a kill -9, an mpamd of another
 * resctrl root or other MSC windows) go, so they do not pile up. */
static void stale_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	unsigned removed = 0;

	if (!d)
		return;
	while ((ent = readdir(d)))
		if (is_lock_name(ent->d_name) && remove_if_stale(dir, ent->d_name))
			removed++;
	closedir(d);
	if (removed)
		log_info("%s: removed %u stale lock file(s), which no process held", dir, removed);
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

	if (!s->dir_made) {
		if (mkdir(s->dir, 0755) < 0 && errno != EEXIST)
			return err_set(err, -errno, "cannot create %s for the instance lock: %s", s->dir,
				       strerror(errno));
		stale_sweep(s->dir);
		s->dir_made = true;
	}
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
	for (size_t i = 0; i < l->count; i++) {
		/* Removed while still locked, so that a taker who opened it just before lets it go (lock_path). */
		if (file_at_path(l->fds[i], l->paths[i]))
			unlink(l->paths[i]);
		close(l->fds[i]);
		free(l->paths[i]);
	}
	l->count = 0;
}
