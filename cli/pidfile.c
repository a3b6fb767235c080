#include "cli/pidfile.h"

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

#include "cli/flock_holder.h"
#include "core/base/file_create.h"
#include "core/base/file_read.h"
#include "core/base/log.h"

/* Rounds of "link ours into place, else replace what is there": each loses only to another start. */
#define CREATE_TRIES 4
#define PID_TEXT_MAX 32

/* The pid the open file names, or 0. */
static pid_t pid_named(int fd)
{
	char text[PID_TEXT_MAX + 1];
	ssize_t n = pread(fd, text, PID_TEXT_MAX, 0);
	char *end;

	if (n <= 0)
		return 0;
	text[n] = '\0';
	long pid = strtol(text, &end, 10);
	return pid > 0 && pid <= INT_MAX && (*end == '\n' || *end == '\0') ? (pid_t)pid : 0;
}

/* Whether the file at `path` belongs to a running mpamd: *ret_pid is it; else `why` says what the file
 * is instead. */
static bool owned_by_live_mpamd(const char *path, pid_t *ret_pid, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	bool live = false;

	*ret_pid = 0;
	if (fd < 0) {
		snprintf(why, len, "%s", errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return false;
	}
	if (fstat(fd, &st) < 0)
		snprintf(why, len, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, len, "it is %s", file_kind_name(st.st_mode));
	else if (st.st_uid != geteuid())
		snprintf(why, len, "it belongs to uid %u, not to mpamd's", (unsigned)st.st_uid);
	else if (!(*ret_pid = pid_named(fd)))
		snprintf(why, len, "it names no process");
	else if (flock_holder(&st) != *ret_pid)
		snprintf(why, len, "process %ld does not hold its lock", (long)*ret_pid);
	else if (!process_is_mpamd(*ret_pid))
		snprintf(why, len, "process %ld, which holds its lock, is not mpamd", (long)*ret_pid);
	else
		live = true;
	close(fd);
	return live;
}

/* This pid, locked, in a new file beside `path` ("PATH.XXXXXX"), to be linked into place. */
static int write_temporary(const char *path, char *tmp, size_t len, struct err *err)
{
	char text[PID_TEXT_MAX];

	snprintf(tmp, len, "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "cannot create a pid file beside %s: %s", path, strerror(errno));
	int n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	if (fchmod(fd, PIDFILE_MODE) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 || write(fd, text, (size_t)n) != n) {
		int r = err_set(err, -errno, "cannot write the pid file %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return r;
	}
	return fd;
}

/* Links `tmp` to `path`, replacing what is there unless a live mpamd owns it. */
static int put_in_place(const char *tmp, const char *path, struct err *err)
{
	char why[160];
	pid_t owner;

	for (int i = 0; i < CREATE_TRIES; i++) {
		if (link(tmp, path) == 0)
			return 0;
		if (errno != EEXIST)
			return err_set(err, -errno, "cannot create pid file %s: %s", path, strerror(errno));
		if (owned_by_live_mpamd(path, &owner, why, sizeof(why)))
			return err_set(err, -EEXIST,
				       "pid file %s names process %ld, an mpamd which is running and holds the file: "
				       "is mpamd running?",
				       path, (long)owner);
		log_warning("pid file %s: %s: replaced", path, why);
		if (unlink(path) < 0 && errno != ENOENT)
			return err_set(err, -errno, "cannot replace pid file %s: %s", path, strerror(errno));
	}
	return err_set(err, -EEXIST, "cannot take over pid file %s: it keeps coming back", path);
}

int pidfile_create(const char *path, struct pidfile *ret, struct err *err)
{
	char tmp[PATH_MAX];
	int fd = write_temporary(path, tmp, sizeof(tmp), err);

	*ret = (struct pidfile){ .path = NULL, .fd = -1 };
	if (fd < 0)
		return fd;
	int r = put_in_place(tmp, path, err);
	unlink(tmp);
	if (r == 0 && !(ret->path = strdup(path)))
		r = err_set(err, -ENOMEM, "out of memory");
	if (r < 0) {
		close(fd);
		return r;
	}
	ret->fd = fd;
	return 0;
}

void pidfile_remove(struct pidfile *pf)
{
	if (!pf->path)
		return;
	if (file_at_path(pf->fd, pf->path))
		unlink(pf->path);
	close(pf->fd);
	free(pf->path);
	*pf = (struct pidfile){ .path = NULL, .fd = -1 };
}
