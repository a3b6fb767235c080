/* What placement costs on this host's cgroup v2 hierarchy: the placement actuator with PARTITIONS
 * partitions, one cgroup each under a private subtree, this process and THREADS threads of it in the
 * middle one. It times the proc connector's path (task_event: /proc/TID/cgroup read, the partition
 * found among all, the thread "placed") and a reconcile of that partition (its cgroup listed, its
 * group's members read, the difference placed). The control is a stand-in that counts placements,
 * so the figures are placement's own work plus the kernel's /proc and cgroupfs reads.
 *
 * Usage (root, cgroup v2 at /sys/fs/cgroup/unified or /sys/fs/cgroup):
 *   bench_placement PARTITIONS THREADS EVENTS */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backends/cgroup/cgroup_ops.h"
#include "core/config/config.h"
#include "core/engine/registry.h"

static unsigned long placed;

static int stand_in_place(void *ctx, size_t index, pid_t tid, struct err *err)
{
	(void)ctx;
	(void)index;
	(void)tid;
	(void)err;
	placed++;
	return 0;
}

static int stand_in_members(void *ctx, size_t index, pid_t **ret, size_t *ret_count, struct err *err)
{
	(void)ctx;
	(void)index;
	(void)err;
	*ret = NULL;
	*ret_count = 0; /* an empty group: a reconcile places every thread */
	return 0;
}

static const struct thread_placer stand_in = { NULL, stand_in_place, stand_in_members };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static const char *v2_mount(void)
{
	return access("/sys/fs/cgroup/unified/cgroup.procs", F_OK) == 0 ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup";
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: bench_placement PARTITIONS THREADS EVENTS\n");
		return 2;
	}
	unsigned n = (unsigned)atoi(argv[1]), threads = (unsigned)atoi(argv[2]), events = (unsigned)atoi(argv[3]);
	char root[256], dir[320], *text;
	size_t len, used = 0;

	snprintf(root, sizeof(root), "%s/mpamd-bench-%d", v2_mount(), (int)getpid());
	if (mkdir(root, 0755) < 0) {
		fprintf(stderr, "%s: %s\n", root, strerror(errno));
		return 1;
	}
	FILE *cfg = open_memstream(&text, &len);
	fprintf(cfg, "[global]\nbackend = resctrl\ncgroup_root = %s\n", root);
	for (unsigned i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/p%u", root, i);
		mkdir(dir, 0755);
		fprintf(cfg, "[partition \"p%u\"]\ncgroup = p%u\n", i, i);
	}
	fclose(cfg);
	snprintf(dir, sizeof(dir), "%s/p%u/cgroup.procs", root, n / 2);
	write_file(dir, "0\n");
	for (unsigned t = 0; t < threads; t++) {
		pthread_t id;
		pthread_create(&id, NULL, sleeper, NULL);
	}

	struct diag_list diags;
	struct config *config = NULL;
	struct err err = { "" };
	diag_list_init(&diags, "bench");
	if (config_load_string(text, engine_default_schema(), NULL, &config, &diags) < 0) {
		diag_print(&diags, stderr);
		return 1;
	}
	struct control_shared shared = { .placer = &stand_in };
	struct actuator *a;
	if (actuator_placement_ops.open(config, &shared, &a, &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		return 1;
	}
	double t0 = now_s();
	for (unsigned i = 0; i < n; i++) {
		struct partition_ref ref = { .config = &config->partitions[i], .group_dirfd = -1, .hw_id = -1 };
		actuator_placement_ops.partition_open(a, i, &ref, &err); /* each reconciles once */
	}
	double open_s = now_s() - t0;

	/* Events: this thread executing again and again, in the middle partition of all. */
	struct task_event ev = { .kind = TASK_EVENT_EXEC, .tid = (pid_t)syscall(SYS_gettid), .tgid = getpid() };
	struct task_event gone = { .kind = TASK_EVENT_EXIT, .tid = ev.tid, .tgid = ev.tgid };
	unsigned long before = placed;
	t0 = now_s();
	for (unsigned i = 0; i < events; i++) {
		actuator_placement_ops.task_event(a, &ev);
		actuator_placement_ops.task_event(a, &gone); /* so that the next one is placed again */
	}
	double event_s = (now_s() - t0) / events;
	unsigned long event_placed = placed - before;

	before = placed;
	t0 = now_s();
	actuator_placement_ops.reconcile(a, n / 2, &err);
	double reconcile_s = now_s() - t0;
	used = placed - before;

	printf("partitions %u threads %u: open+reconcile all %.3f ms, event %.2f us (%lu of %u placed), "
	       "reconcile of one %.3f ms (%zu placed)\n",
	       n, threads + 1, open_s * 1e3, event_s * 1e6, event_placed, events, reconcile_s * 1e3, used);
	actuator_placement_ops.free(a);
	config_free(config);
	free(text);
	snprintf(dir, sizeof(dir), "%s/cgroup.procs", v2_mount());
	write_file(dir, "0\n");
	for (unsigned i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/p%u", root, i);
		rmdir(dir);
	}
	rmdir(root);
	return 0;
}
