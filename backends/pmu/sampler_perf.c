/* The perf sampler: each partition's role events on its cgroup (an event per online CPU, in the
 * perf_event hierarchy) or on each of its pids. An uncore event cannot be attributed to a partition
 * (the kernel refuses task and cgroup events on uncore PMUs): it is counted once, host-wide, on its
 * PMU's cpumask CPUs, and refused per partition with a message saying so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/pmu/pmu_cgroup.h"
#include "backends/pmu/pmu_internal.h"
#include "backends/pmu/pmu_ops.h"
#include "core/base/grow.h"
#include "core/base/log.h"

struct perf_partition {
	bool open;
	struct pmu_counter roles[PMU_ROLES];
	char reason[PMU_REASON_MAX]; /* why a role could not be opened; "" */
	char *read_error;	     /* PMU_REASON_MAX bytes, allocated at its first failed read; NULL */
};

/* A reason when no room could be allocated for the real one. */
static const char read_error_lost[] = "a count could not be read (out of memory for the reason)";

static void partition_clear(struct perf_partition *pp)
{
	for (int r = 0; r < PMU_ROLES; r++)
		pmu_counter_close(&pp->roles[r]);
	free(pp->read_error);
	*pp = (struct perf_partition){ .open = false };
}

struct perf_sampler {
	struct pmu_sampler base;
	struct perf_sysfs *sysfs;
	struct pmu_role_event roles[PMU_ROLES];
	struct perf_partition *parts;	    /* per slot */
	size_t count;			    /* slots it has room for */
	struct pmu_counter host[PMU_ROLES]; /* uncore roles, system-wide */
	struct pmu_count host_last[PMU_ROLES];
};

static const char *mounts_path;

void pmu_sampler_perf_set_mounts(const char *path)
{
	mounts_path = path;
}

static struct perf_sampler *ps_of(struct pmu_sampler *s)
{
	return (struct perf_sampler *)s;
}

static void ps_free(struct pmu_sampler *sampler)
{
	struct perf_sampler *s = ps_of(sampler);

	if (!s)
		return;
	for (size_t i = 0; s->parts && i < s->count; i++)
		partition_clear(&s->parts[i]);
	for (int r = 0; r < PMU_ROLES; r++)
		pmu_counter_close(&s->host[r]);
	pmu_events_clear(s->roles);
	perf_sysfs_free(s->sysfs);
	free(s->parts);
	free(s);
}

/* Uncore roles are opened once, on their PMU's CPUs. */
static void open_host_counters(struct perf_sampler *s)
{
	for (int r = 0; r < PMU_ROLES; r++) {
		struct err err = { "" };
		if (!s->roles[r].present || !s->roles[r].desc.uncore)
			continue;
		if (pmu_counter_open_cpus(&s->host[r], &s->roles[r].desc, &err) < 0)
			log_warning("[pmu] %s = %s: host-wide counting failed: %s", pmu_role_name((enum pmu_role)r),
				    s->roles[r].desc.text, err.text);
	}
}

static int count_roles(const struct perf_sampler *s)
{
	int n = 0;

	for (int r = 0; r < PMU_ROLES; r++)
		n += s->roles[r].present;
	return n;
}

static int ps_open(const struct config *config, const struct control_shared *shared, struct pmu_sampler **ret,
		   struct err *err)
{
	const struct pmu_config *pc = pmu_config_of(config);
	struct perf_sampler *s = calloc(1, sizeof(*s));
	int r;

	(void)shared;
	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	s->base.ops = &pmu_sampler_perf_ops;
	if (array_grow((void **)&s->parts, &s->count, config->partition_count ? config->partition_count : 1,
		       sizeof(*s->parts), NULL) < 0)
		r = err_set(err, -ENOMEM, "out of memory");
	else if ((r = perf_sysfs_new(pc ? pc->sysfs_root : NULL, &s->sysfs, err)) == 0 && pc)
		r = pmu_events_resolve(s->sysfs, pc, s->roles, err);
	for (int i = 0; r == 0 && i < PMU_ROLES; i++)
		if (s->roles[i].note[0])
			log_info("[pmu] %s: not counted", s->roles[i].note);
	if (r == 0 && count_roles(s) == 0)
		r = err_set(err, -ENODEV, "none of the [pmu] events can be counted here");
	if (r < 0) {
		ps_free(&s->base);
		return r;
	}
	open_host_counters(s);
	*ret = &s->base;
	return 0;
}

static void append_reason(struct perf_partition *pp, const char *fmt, const char *a, const char *b)
{
	size_t used = strlen(pp->reason);

	snprintf(pp->reason + used, sizeof(pp->reason) - used, "%s", used ? "; " : "");
	used = strlen(pp->reason);
	snprintf(pp->reason + used, sizeof(pp->reason) - used, fmt, a, b);
}

/* One role of one partition; false (with the reason kept) when it cannot be counted. */
static bool open_role(struct perf_sampler *s, struct perf_partition *pp, int role, const struct partition_config *p,
		      int cgroup_fd)
{
	const struct pmu_role_event *re = &s->roles[role];
	char what[PMU_REASON_MAX];
	struct err err = { "" };

	if (!re->present)
		return false;
	if (re->desc.uncore) {
		/* The kernel refuses task and cgroup events on uncore PMUs: host-wide only. */
		snprintf(what, sizeof(what), "uncore PMU %s", re->desc.pmu);
		append_reason(pp, "%s: %s counts system-wide only, not per partition",
			      pmu_role_name((enum pmu_role)role), what);
		return false;
	}
	if (pmu_counter_open(&pp->roles[role], &re->desc, cgroup_fd, p->pids, p->pid_count, &err) == 0)
		return true;
	append_reason(pp, "%s: %s", pmu_role_name((enum pmu_role)role), err.text);
	return false;
}

static void ps_remove(struct pmu_sampler *sampler, size_t index)
{
	struct perf_sampler *s = ps_of(sampler);

	if (index >= s->count)
		return;
	partition_clear(&s->parts[index]);
}

static int ps_add(struct pmu_sampler *sampler, size_t index, const struct partition_ref *ref, struct err *err)
{
	struct perf_sampler *s = ps_of(sampler);
	const struct partition_config *p = ref->config;
	int cgroup_fd = -1, opened = 0;

	if (index == SIZE_MAX || array_grow((void **)&s->parts, &s->count, index + 1, sizeof(*s->parts), NULL) < 0)
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", index);
	ps_remove(sampler, index); /* a slot given to another partition starts with no events */
	struct perf_partition *pp = &s->parts[index];
	if (!p->cgroup && !p->pid_count)
		return err_set(err, -EINVAL, "no cgroup and no pids: nothing to count its events on");
	if (p->cgroup && (cgroup_fd = pmu_cgroup_open(mounts_path, p->cgroup, err)) < 0)
		return cgroup_fd;
	for (int r = 0; r < PMU_ROLES; r++)
		opened += open_role(s, pp, r, p, cgroup_fd);
	if (cgroup_fd >= 0)
		close(cgroup_fd); /* the kernel holds the cgroup for its events */
	pp->open = opened > 0;
	if (!pp->open)
		return err_set(err, -ENODEV, "%s", pp->reason[0] ? pp->reason : "no event to count");
	return 0;
}

/* A failed read of role r as the partition's reason (the last such failure says it). */
static const char *read_failed(struct perf_partition *pp, int r, const struct err *err)
{
	if (!pp->read_error && !(pp->read_error = malloc(PMU_REASON_MAX)))
		return read_error_lost;
	if (snprintf(pp->read_error, PMU_REASON_MAX, "%s: %s", pmu_role_name((enum pmu_role)r), err->text) >=
	    PMU_REASON_MAX)
		memcpy(pp->read_error + PMU_REASON_MAX - 4, "...", 4); /* cut, and says so */
	return pp->read_error;
}

static void read_partition(struct perf_partition *pp, struct pmu_sample *out)
{
	*out = (struct pmu_sample){ .open = pp->open, .reason = pp->reason[0] ? pp->reason : NULL };
	for (int r = 0; pp->open && r < PMU_ROLES; r++) {
		struct err err = { "" };
		if (pmu_counter_read(&pp->roles[r], &out->counts[r], &err) < 0)
			out->reason = read_failed(pp, r, &err);
	}
}

static int ps_read(struct pmu_sampler *sampler, uint64_t now_ns, struct pmu_sample *out, size_t count, struct err *err)
{
	struct perf_sampler *s = ps_of(sampler);

	(void)now_ns;
	(void)err;
	for (size_t i = 0; i < count; i++) {
		if (i < s->count)
			read_partition(&s->parts[i], &out[i]);
		else
			out[i] = (struct pmu_sample){ .open = false };
	}
	for (int r = 0; r < PMU_ROLES; r++) {
		struct err ignored;
		if (pmu_counter_read(&s->host[r], &s->host_last[r], &ignored) < 0)
			s->host_last[r].counted = false;
	}
	return 0;
}

static json_t *role_json(const struct perf_sampler *s, int r)
{
	const struct pmu_role_event *re = &s->roles[r];

	if (!re->present)
		return json_pack("{s:n,s:s}", "event", "note", re->note);
	json_t *j = json_pack("{s:s,s:s,s:s,s:b}", "event", re->desc.text, "pmu", re->desc.pmu[0] ? re->desc.pmu : "",
			      "kind", perf_pmu_kind_name(re->desc.kind), "configured", re->configured);
	if (re->desc.uncore)
		json_object_set_new(j, "host_value",
				    s->host_last[r].counted ? json_real(s->host_last[r].value) : json_null());
	return j;
}

static json_t *ps_describe(struct pmu_sampler *sampler)
{
	struct perf_sampler *s = ps_of(sampler);
	json_t *roles = json_object();

	for (int r = 0; r < PMU_ROLES; r++)
		json_object_set_new(roles, pmu_role_name((enum pmu_role)r), role_json(s, r));
	return json_pack("{s:s,s:s,s:o}", "sampler", "perf", "sysfs_root", perf_sysfs_root(s->sysfs), "events", roles);
}

const struct pmu_sampler_ops pmu_sampler_perf_ops = {
	.name = "perf",
	.simulated = false,
	.config_ext = &pmu_config_ext,
	.open = ps_open,
	.free = ps_free,
	.add = ps_add,
	.remove = ps_remove,
	.read = ps_read,
	.describe = ps_describe,
};
