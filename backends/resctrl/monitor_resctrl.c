/* monitor = resctrl: bandwidth counters from mon_data. Every counter file stays open and is read with
 * one pread at offset 0 per tick. Who holds a counter in mbm_event mode, baselines and rates are the
 * counter pool's job (backends/shared/counter_pool.c); this file only knows the files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "backends/resctrl/resctrl_ops.h"
#include "backends/shared/counter_pool.h"
#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/config/config.h"

struct mon_domain {
	struct resctrl_mon *mon;
	unsigned index; /* into info->mon_domain_ids */
	struct counter_pool *pool;
};

/* The last value a counter file showed: a 64-bit byte count never wraps, so one that goes down was
 * reset, or is Linux 7.3 printing EBUSY as 0. Either way it is not a rate. `fresh`: the counter was
 * assigned this tick and is not read before the next (see program_counter). */
struct last_count {
	uint64_t value;
	bool known;
	bool fresh;
};

struct resctrl_mon {
	struct monitor base;
	struct resctrl_fs *fs;
	struct clock *clock; /* the engine's: when each counter was read */
	bool owns_fs;	     /* opened here: the control is not resctrl's */
	const struct resctrl_info *info;
	char event[32];
	bool assign;	   /* mbm_event mode: counters are assigned through mbm_RES_assignments */
	size_t partitions; /* slots 0..partitions-1 have rows (grows with the slots added) */
	size_t fds_cap, last_cap, dirs_cap, keep_cap;
	int *fds;		 /* [partition][domain], -1 when closed */
	struct last_count *last; /* [partition][domain] */
	int *dirs;		 /* per partition: the group's directory (not owned) */
	bool *keep;		 /* per partition: it keeps a counter while they rotate (mon_keep) */
	struct mon_domain *domains;
	unsigned mounts; /* fs->mounts when the pools were made */
};

static int *fd_of(struct resctrl_mon *mon, size_t partition, unsigned domain)
{
	return &mon->fds[partition * mon->info->mon_domain_count + domain];
}

static struct last_count *last_of(struct resctrl_mon *mon, size_t partition, unsigned domain)
{
	return &mon->last[partition * mon->info->mon_domain_count + domain];
}

static int assign_event(struct resctrl_mon *mon, size_t partition, const char *event, unsigned domain, bool on)
{
	char line[64];

	char file[48];

	snprintf(line, sizeof(line), "%s:%u=%s\n", event, mon->info->mon_domain_ids[domain], on ? "e" : "_");
	snprintf(file, sizeof(file), "mbm_%s_assignments", mon->info->mon_res);
	return resctrl_write_at(mon->dirs[partition], file, line);
}

/* A refused assignment is logged with the kernel's reason, read at once (see resctrl_fail_with_status). */
static int assign(struct resctrl_mon *mon, size_t partition, unsigned domain, bool on)
{
	int r = assign_event(mon, partition, mon->event, domain, on);

	if (r < 0) {
		struct err why = { "" };
		char what[64];
		snprintf(what, sizeof(what), "%s a counter on domain %u", on ? "assigning" : "releasing",
			 mon->info->mon_domain_ids[domain]);
		resctrl_fail_with_status(mon->fs->rootfd, &why, r, what);
		log_debug("%s", why.text);
	}
	return r;
}

/* A counter assigned now counts from 0 (the kernel resets it: fs/resctrl/monitor.c
 * rdtgroup_assign_cntr), but on Arm MPAM its monitor is not ready at first: the first read of the file
 * then sleeps for the MSC's not-ready time, up to the firmware's maximum, holding rdtgroup_mutex
 * (drivers/resctrl/mpam_devices.c mpam_msmon_read), and a tick that read it at once would be that
 * late. So its first read is the next tick's, which takes the baseline: the sample it would have
 * given says the counter is not ready. */
static int program_counter(void *ctx, unsigned slot, size_t partition)
{
	struct mon_domain *d = ctx;

	(void)slot;
	*last_of(d->mon, partition, d->index) = (struct last_count){ 0 }; /* a new count starts here */
	if (!d->mon->assign)
		return 0; /* every group has its own counter */
	int r = assign(d->mon, partition, d->index, true);
	if (r == 0)
		last_of(d->mon, partition, d->index)->fresh = true;
	return r;
}

static void release_counter(void *ctx, unsigned slot, size_t partition)
{
	struct mon_domain *d = ctx;

	(void)slot;
	if (d->mon->assign)
		assign(d->mon, partition, d->index, false);
}

/* A count below the last one is an invalid sample, never a wrap; the pool then starts a new baseline
 * from the next reading. A 0 after a real value is Linux 7.3 printing a failed read (EBUSY: an MPAM
 * monitor not ready) as the sum it has, or a reset that has counted nothing yet: invalid for as long
 * as it lasts, and the last real value is kept, so that the count it hides, when it shows again, is
 * a new baseline rather than one interval's traffic. */
static int check_forward(struct last_count *last, uint64_t value, const char **reason)
{
	if (last->known && last->value > 0 && value == 0) {
		*reason = "counter reads 0 after a real value (Linux 7.3 prints a failed read, EBUSY, as 0)";
		return -EAGAIN;
	}
	bool backwards = last->known && value < last->value;
	*last = (struct last_count){ .value = value, .known = true };
	if (!backwards)
		return 0;
	*reason = "counter went backwards (reset): new baseline";
	return -EAGAIN;
}

/* The pool gave the group a counter, but resctrl says it holds none: the assignment failed (no
 * counter free then, a refused write) or was undone behind mpamd's back (mbm_assign_mode switched,
 * another tool's write). Asked for again, so that measuring resumes once resctrl can give one; the
 * sample stays invalid until a count is read. */
static void reassign(struct mon_domain *d, size_t partition)
{
	assign(d->mon, partition, d->index, true);
	*last_of(d->mon, partition, d->index) = (struct last_count){ 0 };
}

/* What a counter file kept open answers once it is no longer there: ENODEV from a file of a removed
 * kernfs node (the group removed, or resctrl unmounted), ENOENT from a group being removed as it is
 * read (rdtgroup_kn_lock_live), ESTALE and ENOTCONN where the FUSE resctrl emulator stands in for
 * kernfs. The engine makes the group again (engine_apply.c) and opens its files anew. */
static bool file_gone(int code)
{
	return code == ENODEV || code == ENOENT || code == ESTALE || code == ENOTCONN;
}

/* One counter: a pread at offset 0 of its file, kept open since the partition was added. */
static int read_counter(struct mon_domain *d, unsigned slot, struct counter_reading *rd)
{
	long owner = counter_pool_owner(d->pool, slot);
	char buf[32];

	if (owner < 0)
		return -EINVAL;
	struct last_count *last = last_of(d->mon, (size_t)owner, d->index);
	if (last->fresh) {
		last->fresh = false;
		rd->not_ready = true;
		return 0;
	}
	int fd = *fd_of(d->mon, (size_t)owner, d->index);
	/* "%llu\n" is at most 21 bytes: a longer file is read cut, and rejected (more than 20 digits, or
	 * something after the number). */
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf), 0) : -1;
	if (n < 0) {
		int code = fd >= 0 ? errno : EBADF;
		rd->reason = file_gone(code) ? "counter file gone: its group was removed, or resctrl unmounted"
					     : "counter file could not be read";
		return -code;
	}
	int r = resctrl_parse_counter(buf, (size_t)n, &rd->value, &rd->reason);
	if (r == -ENOENT && d->mon->assign)
		reassign(d, (size_t)owner);
	if (r < 0)
		return r;
	return check_forward(last, rd->value, &rd->reason);
}

/* The engine's time, or 0 (the tick's time) where the monitor was given no clock. */
static uint64_t read_time(const struct resctrl_mon *mon)
{
	return mon->clock ? clock_now(mon->clock) : 0;
}

/* Each reading is timed at the middle of its pread: the kernel (or the FUSE emulator) takes the
 * value somewhere between the two clock readings, and on a busy host either side can wait for a CPU.
 * One clock reading ends a pread and starts the next. */
static void read_counters(void *ctx, unsigned first, unsigned count, struct counter_reading *ret)
{
	struct mon_domain *d = ctx;
	uint64_t before = read_time(d->mon);

	for (unsigned k = 0; k < count; k++) {
		if (!ret[k].held)
			continue;
		ret[k] = (struct counter_reading){ .held = true };
		ret[k].error = read_counter(ctx, first + k, &ret[k]);
		uint64_t after = read_time(d->mon);
		ret[k].at_ns = before + (after - before) / 2;
		before = after;
	}
}

static const struct counter_pool_ops counter_ops = {
	.program = program_counter,
	.read = read_counters,
	.release = release_counter,
};

static struct resctrl_mon *mon_of(struct monitor *m)
{
	return (struct resctrl_mon *)m;
}

static void mon_free(struct monitor *m)
{
	struct resctrl_mon *mon = mon_of(m);

	if (!mon)
		return;
	for (size_t i = 0; mon->fds && i < mon->fds_cap * mon->info->mon_domain_count; i++)
		if (mon->fds[i] >= 0)
			close(mon->fds[i]);
	for (unsigned d = 0; mon->domains && d < mon->info->mon_domain_count; d++)
		counter_pool_free(mon->domains[d].pool);
	free(mon->fds);
	free(mon->last);
	free(mon->dirs);
	free(mon->keep);
	free(mon->domains);
	if (mon->owns_fs)
		resctrl_fs_free(mon->fs);
	free(mon);
}

static bool has_mbm(const struct resctrl_info *info)
{
	return info->mbm_total || info->mbm_local;
}

static bool mon_available(const struct config *config, const struct control_shared *shared, struct err *why)
{
	(void)config;
	if (!shared->resctrl) {
		err_set(why, -ENODEV, "the control is not resctrl");
		return false;
	}
	if (!has_mbm(&shared->resctrl->info)) {
		err_set(why, -ENODEV,
			"resctrl offers no MBM events (no mbm_total_bytes or mbm_local_bytes in "
			"info/%s_MON/mon_features)",
			shared->resctrl->info.mon_present ? shared->resctrl->info.mon_res : "L3");
		return false;
	}
	return true;
}

/* Rows for slots 0..partitions-1: a slot added after the start gets its counter files like the others. */
static int mon_grow(struct resctrl_mon *mon, size_t partitions)
{
	size_t domains = mon->info->mon_domain_count ? mon->info->mon_domain_count : 1, first;

	if (partitions <= mon->partitions)
		return 0;
	if (array_grow((void **)&mon->fds, &mon->fds_cap, partitions, domains * sizeof(*mon->fds), &first) < 0 ||
	    array_grow((void **)&mon->last, &mon->last_cap, partitions, domains * sizeof(*mon->last), NULL) < 0 ||
	    array_grow((void **)&mon->dirs, &mon->dirs_cap, partitions, sizeof(*mon->dirs), NULL) < 0 ||
	    array_grow((void **)&mon->keep, &mon->keep_cap, partitions, sizeof(*mon->keep), NULL) < 0)
		return -ENOMEM;
	for (size_t i = first * domains; i < mon->fds_cap * domains; i++)
		mon->fds[i] = -1;
	mon->partitions = partitions;
	return 0;
}

static int mon_alloc(struct resctrl_mon *mon, size_t partitions, struct err *err)
{
	size_t domains = mon->info->mon_domain_count;

	mon->domains = calloc(domains ? domains : 1, sizeof(*mon->domains));
	if (!mon->domains || mon_grow(mon, partitions ? partitions : 1) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	mon->partitions = partitions;
	for (unsigned d = 0; d < domains; d++)
		mon->domains[d] = (struct mon_domain){ .mon = mon, .index = d };
	return 0;
}

static int mon_open(const struct config *config, const struct control_shared *shared, struct monitor **ret,
		    struct err *err)
{
	struct resctrl_mon *mon = calloc(1, sizeof(*mon));
	int r = 0;

	if (!mon)
		return err_set(err, -ENOMEM, "out of memory");
	mon->base.ops = &monitor_resctrl_ops;
	mon->fs = shared->resctrl;
	mon->clock = shared->clock;
	if (!mon->fs) {
		mon->owns_fs = true;
		r = resctrl_fs_new(config->global.resctrl_root, false, &mon->fs, err);
	}
	if (r == 0 && !has_mbm(&mon->fs->info))
		r = err_set(err, -EOPNOTSUPP,
			    "monitor = resctrl, but resctrl has no bandwidth counters (no mbm_total_bytes or "
			    "mbm_local_bytes in info/%s_MON/mon_features); use monitor = mmio with [msc] sections",
			    mon->fs->info.mon_present ? mon->fs->info.mon_res : "L3");
	if (r == 0) {
		mon->info = &mon->fs->info;
		snprintf(mon->event, sizeof(mon->event), "%s",
			 mon->info->mbm_total ? "mbm_total_bytes" : "mbm_local_bytes");
		mon->assign = mon->info->assign_supported && !strcmp(mon->info->assign_mode, "mbm_event");
		r = mon_alloc(mon, config->partition_count, err);
	}
	if (r < 0) {
		mon_free(&mon->base);
		return r;
	}
	*ret = &mon->base;
	return 0;
}

static void mon_probe(struct monitor *m, struct monitor_caps *caps)
{
	const struct resctrl_info *info = mon_of(m)->info;

	memset(caps, 0, sizeof(*caps));
	caps->domain_count = info->mon_domain_count;
	for (unsigned i = 0; i < caps->domain_count; i++) {
		snprintf(caps->domains[i].name, sizeof(caps->domains[i].name), "%s_%02u", info->mon_res,
			 info->mon_domain_ids[i]);
		/* The MB domains of resctrl's schemata are scoped like its monitoring domains (an L3, or the
		 * memory side where counters sit there): the same id is the same domain. */
		caps->domains[i].id_space = DOMAIN_SPACE_RESCTRL;
		caps->domains[i].id = info->mon_domain_ids[i];
	}
	caps->counter_bits = 64;
	caps->counters = info->num_rmids;
}

/* resctrl was mounted again: the engine closed every partition first (each left its pool), and the new
 * mount assigned its counters afresh (to the default group, with mbm_assign_on_mkdir). The pools are
 * made again at the next read, from what the new mount has free. */
static void drop_pools_of_old_mount(struct resctrl_mon *mon)
{
	if (mon->mounts == mon->fs->mounts)
		return;
	for (unsigned d = 0; mon->domains && d < mon->info->mon_domain_count; d++) {
		counter_pool_free(mon->domains[d].pool);
		mon->domains[d].pool = NULL;
	}
	mon->mounts = mon->fs->mounts;
}

static int mon_add(struct monitor *m, size_t index, const struct partition_ref *ref, struct err *err)
{
	struct resctrl_mon *mon = mon_of(m);

	drop_pools_of_old_mount(mon);
	if (ref->group_dirfd < 0)
		return err_set(err, -EINVAL, "monitor = resctrl needs the partition's resctrl group");
	if (index == SIZE_MAX || mon_grow(mon, index + 1) < 0)
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", index);
	mon->dirs[index] = ref->group_dirfd;
	for (unsigned d = 0; d < mon->info->mon_domain_count; d++) {
		char path[96];
		snprintf(path, sizeof(path), "mon_data/mon_%s_%02u/%s", mon->info->mon_res,
			 mon->info->mon_domain_ids[d], mon->event);
		int *fd = fd_of(mon, index, d);
		if (*fd < 0)
			*fd = openat(ref->group_dirfd, path, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			return err_set(err, -errno, "%s: cannot open %s: %s", ref->group, path, strerror(errno));
		/* mkdir may have given the group counters for every event (mbm_assign_on_mkdir): hand them
		 * all back, so the pool sees every free counter and spends them on the one event it reads. */
		if (mon->assign) {
			assign_event(mon, index, "mbm_total_bytes", d, false);
			assign_event(mon, index, "mbm_local_bytes", d, false);
		}
		/* Once the pools exist (after the first read), a partition added or opened again joins them
		 * here; before, make_pools takes every partition with its files open. */
		if (mon->domains[d].pool && counter_pool_add(mon->domains[d].pool, index) < 0)
			return err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Counters the pool may hand out on a domain: one per group, or what mbm_event mode has free. */
static unsigned counters_for(struct resctrl_mon *mon, unsigned domain)
{
	char text[RESCTRL_TEXT_MAX];
	struct schemata_domain avail[RESCTRL_MAX_DOMAINS];
	unsigned count = 0;

	if (!mon->assign)
		return COUNTER_POOL_ONE_EACH;
	char path[64];

	snprintf(path, sizeof(path), "info/%s_MON/available_mbm_cntrs", mon->info->mon_res);
	if (resctrl_read_at(mon->fs->rootfd, path, text, sizeof(text)) < 0 ||
	    resctrl_parse_id_values(text, avail, RESCTRL_MAX_DOMAINS, &count) < 0)
		return 0;
	for (unsigned i = 0; i < count; i++)
		if (avail[i].id == mon->info->mon_domain_ids[domain])
			return (unsigned)avail[i].value;
	return 0;
}

/* Whether the default group holds `event`'s counter on domain `id`: its mbm_RES_assignments has a
 * line "EVENT:ID=e;ID=_..." (Linux assigns the default group counters at mount when
 * mbm_assign_on_mkdir is set). */
static bool default_group_holds(struct resctrl_mon *mon, const char *file, unsigned id)
{
	char text[RESCTRL_TEXT_MAX], want[24];
	size_t n = strlen(mon->event);

	if (resctrl_read_at(mon->fs->rootfd, file, text, sizeof(text)) < 0)
		return false;
	snprintf(want, sizeof(want), "%u=e", id);
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, mon->event, n) || line[n] != ':')
			continue;
		for (char *s2 = NULL, *e = strtok_r(line + n + 1, ";", &s2); e; e = strtok_r(NULL, ";", &s2))
			if (!strcmp(e, want))
				return true;
	}
	return false;
}

/* With no counter free on a domain (one per domain, taken by the default group at mount), mpamd
 * would measure nothing there: it takes the default group's, and says so. */
static void reclaim_from_default_group(struct resctrl_mon *mon, unsigned domain)
{
	unsigned id = mon->info->mon_domain_ids[domain];
	char file[48], line[64];

	snprintf(file, sizeof(file), "mbm_%s_assignments", mon->info->mon_res);
	if (!default_group_holds(mon, file, id))
		return;
	snprintf(line, sizeof(line), "%s:%u=_\n", mon->event, id);
	int r = resctrl_write_at(mon->fs->rootfd, file, line);
	if (r < 0)
		log_warning("domain %u: no free counter, and the default group's cannot be taken back: %s", id,
			    strerror(-r));
	else
		log_warning("domain %u: no free counter: took the default group's %s counter (it no longer counts "
			    "the tasks outside mpamd's groups)",
			    id, mon->event);
}

/* How many counters each domain's pool got: one line when every domain has as many (a host with one
 * L3 per CCX has dozens), else one per domain. */
static void log_counters(const struct resctrl_mon *mon, const unsigned *counters)
{
	unsigned domains = mon->info->mon_domain_count;
	bool alike = true;

	for (unsigned d = 1; d < domains; d++)
		alike &= counters[d] == counters[0];
	for (unsigned d = 0; d < domains; d++) {
		const char *rotating = counters[d] < mon->partitions ? ", rotating" : "";
		if (alike && domains > 1) {
			log_info("%u domains: %u assignable counter(s) each for %zu group(s)%s", domains, counters[0],
				 mon->partitions, rotating);
			return;
		}
		log_info("domain %u: %u assignable counter(s) for %zu group(s)%s", mon->info->mon_domain_ids[d],
			 counters[d], mon->partitions, rotating);
	}
}

/* A pool made after mon_keep: partition p keeps its counter there too (past the kept limit it goes
 * round, as mon_keep would have said when it was asked). */
static void keep_on(struct resctrl_mon *mon, size_t p, unsigned d)
{
	if (counter_pool_keep(mon->domains[d].pool, p, true) < 0)
		log_warning("domain %u: partition slot %zu goes round with the others: all but one counter "
			    "are kept already",
			    mon->info->mon_domain_ids[d], p);
}

/* The pools are made at the first read, once every group is open and has given back what mkdir
 * assigned, so they know how many counters are really free. */
static void make_pools(struct resctrl_mon *mon)
{
	unsigned counters[RESCTRL_MAX_DOMAINS];

	for (unsigned d = 0; d < mon->info->mon_domain_count; d++) {
		struct mon_domain *md = &mon->domains[d];
		if (mon->assign && counters_for(mon, d) == 0)
			reclaim_from_default_group(mon, d);
		struct counter_pool_params params = {
			.counters = counters_for(mon, d), .partitions = mon->partitions, .bits = 64, .unit_shift = 0
		};
		counters[d] = params.counters;
		if (counter_pool_new(&params, &counter_ops, md, &md->pool) < 0) {
			log_error("out of memory for the counters of domain %u", mon->info->mon_domain_ids[d]);
			continue;
		}
		for (size_t p = 0; p < mon->partitions; p++)
			if (*fd_of(mon, p, d) >= 0 && counter_pool_add(md->pool, p) == 0 && mon->keep[p])
				keep_on(mon, p, d);
	}
	if (mon->assign)
		log_counters(mon, counters);
}

static int mon_keep(struct monitor *m, size_t index, bool keep, struct err *err)
{
	struct resctrl_mon *mon = mon_of(m);
	int r = 0;

	if (index >= mon->partitions)
		return err_set(err, -ENOENT, "partition slot %zu is not measured here", index);
	mon->keep[index] = keep; /* for pools made later too (make_pools) */
	for (unsigned d = 0; d < mon->info->mon_domain_count; d++) {
		int one = mon->domains[d].pool && *fd_of(mon, index, d) >= 0
				  ? counter_pool_keep(mon->domains[d].pool, index, keep)
				  : 0;
		if (one == -ENOSPC && r == 0)
			r = err_set(err, one, "domain %u: all but one of its counters are kept already",
				    mon->info->mon_domain_ids[d]);
	}
	return r;
}

static void mon_remove(struct monitor *m, size_t index)
{
	struct resctrl_mon *mon = mon_of(m);

	if (index < mon->partitions)
		mon->keep[index] = false;
	for (unsigned d = 0; index < mon->partitions && d < mon->info->mon_domain_count; d++) {
		int *fd = fd_of(mon, index, d);
		if (mon->domains[d].pool)
			counter_pool_remove(mon->domains[d].pool, index);
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

static int mon_read(struct monitor *m, uint64_t now_ns, struct sample *out, size_t stride, struct err *err)
{
	struct resctrl_mon *mon = mon_of(m);
	unsigned domains = mon->info->mon_domain_count;

	(void)err;
	if (domains && !mon->domains[0].pool)
		make_pools(mon);
	for (unsigned d = 0; d < domains; d++) {
		if (mon->domains[d].pool) {
			counter_pool_read(mon->domains[d].pool, now_ns, &out[d], stride);
			continue;
		}
		for (size_t p = 0; p < mon->partitions; p++)
			out[p * stride + d] = (struct sample){ .state = SAMPLE_INVALID, .reason = "out of memory" };
	}
	return 0;
}

static json_t *mon_describe(struct monitor *m)
{
	struct resctrl_mon *mon = mon_of(m);

	return json_pack("{s:s,s:b}", "event", mon->event, "counter_assignment", mon->assign);
}

/* The counter files are a resctrl group's: only a resctrl control has groups. */
static void mon_check(struct config *c, struct diag_list *d)
{
	if (!strcmp(c->global.monitor, "resctrl") && strcmp(c->global.backend, "resctrl"))
		diag_add(d, DIAG_ERROR, config_global_key_line(c, "monitor"),
			 "monitor = resctrl needs backend = resctrl (the backend is %s)", c->global.backend);
}

static const struct config_ext mon_config_ext = {
	.name = "resctrl monitor",
	.check = mon_check,
};

/* Named, it opens the mount itself beside a control that lends none. As a candidate of monitor = auto
 * it reads only the mount a resctrl control lends, which that control claims. */
static int mon_claims(const struct config *config, bool automatic, const struct claim_sink *sink, struct err *err)
{
	return automatic ? 0 : resctrl_claim_root(config, sink, err);
}

const struct monitor_ops monitor_resctrl_ops = {
	.name = "resctrl",
	.what = "resctrl's MBM counters",
	.description = "the resctrl groups' MBM counter files (mon_data)",
	.config_ext = &mon_config_ext,
	.claims = mon_claims,
	.available = mon_available,
	.open = mon_open,
	.free = mon_free,
	.probe = mon_probe,
	.add = mon_add,
	.keep = mon_keep,
	.remove = mon_remove,
	.read = mon_read,
	.describe = mon_describe,
};
