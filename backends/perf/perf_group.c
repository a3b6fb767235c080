/* Opening events as kernel groups with perf_event_open: for one task, for a cgroup on each CPU, or
 * system-wide on given CPUs; read with PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/perf/perf_event.h"

#define READ_FORMAT \
	(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)

/* perf_event_attr with room for config3 (PERF_ATTR_SIZE_VER8, offset 128) on older headers. */
#define ATTR_SIZE_VER7 128
#define ATTR_SIZE_VER8 136
union attr_buf {
	struct perf_event_attr attr;
	unsigned char
		raw[ATTR_SIZE_VER8 > sizeof(struct perf_event_attr) ? ATTR_SIZE_VER8 : sizeof(struct perf_event_attr)];
};

struct perf_group {
	size_t nevents, ncpus;
	int *fds;      /* [cpu * nevents + event] */
	uint64_t *ids; /* same layout */
	uint64_t *buf; /* one read */
	size_t buf_words;
};

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static void fill_attr(union attr_buf *a, const struct perf_event_desc *ev, bool leader)
{
	memset(a, 0, sizeof(*a));
	a->attr.type = ev->type;
	a->attr.size = ATTR_SIZE_VER7;
	a->attr.config = ev->config;
	a->attr.config1 = ev->config1;
	a->attr.config2 = ev->config2;
	if (ev->config3) {
		uint64_t c3 = ev->config3;
		memcpy(a->raw + ATTR_SIZE_VER7, &c3, sizeof(c3));
		a->attr.size = ATTR_SIZE_VER8;
	}
	a->attr.read_format = READ_FORMAT;
	a->attr.disabled = leader;
	a->attr.exclude_user = ev->exclude_user;
	a->attr.exclude_kernel = ev->exclude_kernel;
	a->attr.exclude_hv = ev->exclude_hv;
}

void perf_group_free(struct perf_group *g)
{
	if (!g)
		return;
	if (g->fds)
		for (size_t i = 0; i < g->ncpus * g->nevents; i++)
			if (g->fds[i] >= 0)
				close(g->fds[i]);
	free(g->fds);
	free(g->ids);
	free(g->buf);
	free(g);
}

static int open_failed(const struct perf_event_desc *ev, const struct perf_target *t, int cpu, int errnum,
		       struct err *err)
{
	char advice[400];

	perf_advice(errnum, ev, t->kind, NULL, advice, sizeof(advice));
	if (cpu >= 0)
		return err_set(err, -errnum, "%s on CPU %d: %s (%s)", ev->name, cpu, strerror(errnum), advice);
	return err_set(err, -errnum, "%s: %s (%s)", ev->name, strerror(errnum), advice);
}

int perf_group_new(const struct perf_event_desc *events, size_t nevents, const struct perf_target *target,
		   struct perf_group **ret, struct err *err)
{
	struct perf_group *g;
	int *online = NULL;
	const int *cpus = NULL;
	size_t ncpus = 1;
	int r;

	if (nevents == 0 || nevents > 64)
		return err_set(err, -EINVAL, "a group holds 1 to 64 events, not %zu", nevents);
	if (target->kind != PERF_TARGET_PID) {
		cpus = target->cpus;
		ncpus = target->ncpus;
		if (!cpus) {
			r = perf_online_cpus(NULL, &online, &ncpus, err);
			if (r < 0)
				return r;
			cpus = online;
		}
		if (ncpus == 0) {
			free(online);
			return err_set(err, -ENODEV, "no CPU to open the events on");
		}
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		free(online);
		return err_set(err, -ENOMEM, "out of memory");
	}
	g->nevents = nevents;
	g->ncpus = ncpus;
	g->fds = malloc(ncpus * nevents * sizeof(*g->fds));
	g->ids = calloc(ncpus * nevents, sizeof(*g->ids));
	g->buf_words = 3 + 2 * nevents;
	g->buf = calloc(g->buf_words, sizeof(*g->buf));
	if (!g->fds || !g->ids || !g->buf) {
		free(online);
		perf_group_free(g);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < ncpus * nevents; i++)
		g->fds[i] = -1;

	for (size_t c = 0; c < ncpus; c++) {
		int cpu = cpus ? cpus[c] : -1;
		pid_t pid = -1;
		unsigned long flags = PERF_FLAG_FD_CLOEXEC;
		if (target->kind == PERF_TARGET_PID) {
			pid = target->pid;
		} else if (target->kind == PERF_TARGET_CGROUP) {
			pid = target->cgroup_fd;
			flags |= PERF_FLAG_PID_CGROUP;
		}
		for (size_t e = 0; e < nevents; e++) {
			union attr_buf a;
			int leader = g->fds[c * nevents];
			fill_attr(&a, &events[e], e == 0);
			int fd = sys_perf_event_open(&a.attr, pid, cpu, e == 0 ? -1 : leader, flags);
			if (fd < 0) {
				r = open_failed(&events[e], target, cpu, errno, err);
				free(online);
				perf_group_free(g);
				return r;
			}
			g->fds[c * nevents + e] = fd;
			if (ioctl(fd, PERF_EVENT_IOC_ID, &g->ids[c * nevents + e]) < 0) {
				r = err_set(err, -errno, "%s: PERF_EVENT_IOC_ID: %s", events[e].name, strerror(errno));
				free(online);
				perf_group_free(g);
				return r;
			}
		}
	}
	free(online);
	for (size_t c = 0; c < ncpus; c++) {
		if (ioctl(g->fds[c * nevents], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
			r = err_set(err, -errno, "%s: PERF_EVENT_IOC_ENABLE: %s", events[0].name, strerror(errno));
			perf_group_free(g);
			return r;
		}
	}
	*ret = g;
	return 0;
}

size_t perf_group_events(const struct perf_group *g)
{
	return g->nevents;
}

size_t perf_group_cpus(const struct perf_group *g)
{
	return g->ncpus;
}

int perf_group_read(struct perf_group *g, struct perf_count *counts, struct err *err)
{
	size_t size = g->buf_words * sizeof(*g->buf);

	for (size_t c = 0; c < g->ncpus; c++) {
		ssize_t n = read(g->fds[c * g->nevents], g->buf, size);
		if (n < 0)
			return err_set(err, -errno, "reading a perf group: %s", strerror(errno));
		int r = perf_read_decode(g->buf, (size_t)n, &g->ids[c * g->nevents], g->nevents,
					 &counts[c * g->nevents], err);
		if (r < 0)
			return r;
	}
	return 0;
}
