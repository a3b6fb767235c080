/* A pid file, written only when asked for (--pid-file). mpamd holds an flock on it for as long as it
 * runs. A file already at the path is trusted only when it names a live mpamd that holds that lock
 * (the kernel's /proc/locks says which process does, /proc/PID/comm that it is mpamd) and is owned by
 * mpamd's user: then mpamd refuses to start. Anything else (a file left by a crash, one naming some
 * other live process, one another user planted or locks, a symbolic link, a FIFO) is replaced, and
 * the log says why. The file appears whole: it is written and locked under a temporary name and then
 * linked into place, so no reader sees it empty or unlocked. Mode PIDFILE_MODE, whatever the umask. */
#ifndef MPAMD_CLI_PIDFILE_H
#define MPAMD_CLI_PIDFILE_H

#include "core/base/error.h"

#define PIDFILE_MODE 0644

struct pidfile {
	char *path; /* NULL: none */
	int fd;	    /* holds the lock */
};

/* 0, or -EEXIST (a live mpamd owns it) or another negative errno, with err. */
int pidfile_create(const char *path, struct pidfile *ret, struct err *err);
/* Removes the file if it is still this one, and lets go of the lock. A pidfile never created is fine. */
void pidfile_remove(struct pidfile *pf);

#endif
