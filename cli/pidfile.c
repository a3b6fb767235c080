#include "cli/pidfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The pid a file names, or 0 when it holds none. */
static pid_t read_pid(const char *path)
{
	FILE *f = fopen(path, "re");
	long pid = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1 || pid <= 0)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

int pidfile_create(const char *path, struct err *err)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dprintf(fd, "%ld\n", (long)getpid());
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return err_set(err, -errno, "cannot create pid file %s: %s", path, strerror(errno));
		pid_t owner = read_pid(path);
		if (owner > 0 && (kill(owner, 0) == 0 || errno == EPERM))
			return err_set(err, -EEXIST,
				       "pid file %s names process %ld, which is running: is mpamd running?", path,
				       (long)owner);
		/* Left by a process that is gone: take it over. */
		unlink(path);
	}
	return err_set(err, -EEXIST, "cannot take over pid file %s", path);
}

void pidfile_remove(const char *path)
{
	if (path && read_pid(path) == getpid())
		unlink(path);
}
