/* One event of one partition: a perf group per pid, or one cgroup group (an event per CPU), read
 * into deltas scaled for multiplexing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/pmu/pmu_internal.h"

static int alloc_groups(struct pmu_counter *c, size_t n, struct err *err)
{
	memset(c, 0, sizeof(*c));
	c->groups = calloc(n, sizeof(*c->groups));
	c->prev = calloc(n, sizeof(*c->prev));
	c->cur = calloc(n, sizeof(*c->cur));
	c->count = n;
	if (c->groups && c->prev && c->cur)
		return 0;
	pmu_counter_close(c);
	return err_set(err, -ENOMEM, "out of memory");
}

/* Opens group i on `target` with room for its reads. */
static int open_group(struct pmu_counter *c, size_t i, const struct perf_event_desc *ev,
		      const struct perf_target *target, struct err *err)
{
	int r = perf_group_new(ev, 1, target, &c->groups[i], err);

	if (r < 0)
		return r;
	size_t cpus = perf_group_cpus(c->groups[i]);
	c->prev[i] = calloc(cpus, sizeof(**c->prev));
	c->cur[i] = calloc(cpus, sizeof(**c->cur));
	return c->prev[i] && c->cur[i] ? 0 : err_set(err, -ENOMEM, "out of memory");
}

int pmu_counter_open(struct pmu_counter *c, const struct perf_event_desc *ev, int cgroup_fd, const pid_t *pids,
		     size_t pid_count, struct err *err)
{
	size_t n = cgroup_fd >= 0 ? 1 : pid_count;
	int r = n ? alloc_groups(c, n, err) : err_set(err, -EINVAL, "neither a cgroup nor pids to count");

	for (size_t i = 0; r == 0 && i < n; i++) {
		struct perf_target t = { .kind = PERF_TARGET_CGROUP, .cgroup_fd = cgroup_fd };
		if (cgroup_fd < 0)
			t = (struct perf_target){ .kind = PERF_TARGET_PID, .pid = pids[i], .cgroup_fd = -1 };
		struct err inner = { "" };
		if ((r = open_group(c, i, ev, &t, &inner)) < 0 && cgroup_fd < 0)
			err_set(err, r, "pid %d: %s", (int)pids[i], inner.text);
		else if (r < 0)
			err_set(err, r, "%s", inner.text);
	}
	if (r < 0)
		pmu_counter_close(c);
	return r;
}

int pmu_counter_open_cpus(struct pmu_counter *c, const struct perf_event_desc *ev, struct err *err)
{
	struct perf_target t = { .kind = PERF_TARGET_CPUS, .cgroup_fd = -1, .cpus = ev->cpus, .ncpus = ev->ncpus };
	int r = alloc_groups(c, 1, err);

	if (r == 0 && (r = open_group(c, 0, ev, &t, err)) < 0)
		pmu_counter_close(c);
	return r;
}

void pmu_counter_close(struct pmu_counter *c)
{
	for (size_t i = 0; i < c->count; i++) {
		if (c->groups)
			perf_group_free(c->groups[i]);
		if (c->prev)
			free(c->prev[i]);
		if (c->cur)
			free(c->cur[i]);
	}
	free(c->groups);
	free(c->prev);
	free(c->cur);
	memset(c, 0, sizeof(*c));
}

/* Adds one group's delta to the sum. */
static void add_delta(struct pmu_count *sum, const struct perf_delta *d, size_t *counted_groups)
{
	if (!d->counted)
		return;
	sum->counted = true;
	sum->value += d->value;
	sum->running_pct += d->running_pct;
	(*counted_groups)++;
}

int pmu_counter_read(struct pmu_counter *c, struct pmu_count *ret, struct err *err)
{
	size_t counted = 0;

	*ret = (struct pmu_count){ 0 };
	if (!c->count)
		return 0;
	for (size_t i = 0; i < c->count; i++) {
		int r = perf_group_read(c->groups[i], c->cur[i], err);
		if (r < 0)
			return r;
		size_t cpus = perf_group_cpus(c->groups[i]);
		if (c->primed) {
			struct perf_delta d = perf_delta_sum(c->prev[i], c->cur[i], cpus, 1, 0);
			add_delta(ret, &d, &counted);
		}
		memcpy(c->prev[i], c->cur[i], cpus * sizeof(*c->cur[i]));
	}
	c->primed = true;
	if (counted)
		ret->running_pct /= (double)counted;
	return 0;
}
