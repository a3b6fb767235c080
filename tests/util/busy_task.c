/* See busy_task.h. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/util/busy_task.h"

pid_t busy_task_spawn(void)
{
	pid_t pid = fork();

	if (pid < 0)
		abort();
	if (pid == 0) {
		volatile uint64_t x = 0;
		for (;;) {
			x++;
			if ((x & 0xfffff) == 0)
				usleep(100); /* a few voluntary context switches */
		}
	}
	return pid;
}

void busy_task_stop(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = -1;
}

void cgroup_dir_remove(char *dir)
{
	if (!dir[0])
		return;
	for (int i = 0; i < 50 && rmdir(dir) != 0 && errno == EBUSY; i++)
		usleep(20000);
	dir[0] = '\0';
}

double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
