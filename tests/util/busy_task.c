/* See busy_task.h. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/busy_task.h"

pid_t busy_child = -1;
char busy_cgroup_dir[512];

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

double task_cpu_ms(pid_t pid)
{
	char path[64];
	unsigned long long ns;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	FILE *f = fopen(path, "re");
	int n = f ? fscanf(f, "%llu", &ns) : 0;
	if (f)
		fclose(f);
	return n == 1 ? (double)ns / 1e6 : -1;
}

/* task-clock and the scheduler's sum differ by what the child ran between a counter read and the
 * schedstat read beside it: a time slice each side on a loaded machine. */
void expect_task_cpu_time(double counted_ms, double cpu_ms, double wall)
{
	assert_true(counted_ms > 0 && counted_ms <= wall * 1000 * 1.02 + 5);
	if (cpu_ms < 0) {
		printf("no /proc schedstat: compared with the wall time only\n");
		return;
	}
	if (counted_ms < 0.9 * cpu_ms - 30 || counted_ms > 1.1 * cpu_ms + 30)
		fail_msg("task-clock counted %.1f ms, the scheduler says the child ran %.1f ms", counted_ms, cpu_ms);
}

static bool write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

void busy_task_in_cgroup(void)
{
	char path[600], pid[32];

	if (mkdir(busy_cgroup_dir, 0755) != 0) {
		printf("cannot create %s (%s): cgroup case skipped\n", busy_cgroup_dir, strerror(errno));
		busy_cgroup_dir[0] = '\0';
		skip();
	}
	busy_child = busy_task_spawn();
	snprintf(path, sizeof(path), "%s/cgroup.procs", busy_cgroup_dir);
	snprintf(pid, sizeof(pid), "%d\n", (int)busy_child);
	if (!write_text(path, pid)) {
		printf("cannot move the child into %s (%s): cgroup case skipped\n", busy_cgroup_dir, strerror(errno));
		skip();
	}
}

int busy_task_teardown(void **state)
{
	(void)state;
	busy_task_stop(&busy_child);
	cgroup_dir_remove(busy_cgroup_dir);
	return 0;
}

int busy_task_run_perf_tests(const char *name, const struct CMUnitTest *tests, size_t count)
{
	if (access("/proc/sys/kernel/perf_event_paranoid", R_OK) != 0) {
		printf("no perf_event support in this kernel; skipping\n");
		return 77;
	}
	return _cmocka_run_group_tests(name, tests, count, NULL, NULL);
}
