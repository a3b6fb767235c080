/* Bandwidth counters from mon_data: every counter file stays open and is read with one pread at
 * offset 0 per tick. Who holds a counter in mbm_event mode, baselines and rates are the counter
 * pool's job (core/counter_pool.c); this file only knows the files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "core/counter_pool.h"
#include "core/log.h"

struct mon_domain {
	struct resctrl_mon *mon;
	unsigned index; /* into info->mon_domain_ids */
	struct counter_pool *pool;
};

struct resctrl_mon {
	int rootfd;
	const struct resctrl_info *info;
	char event[32];
	bool assign; /* mbm_event mode: counters are assigned through mbm_L3_assignments */
	size_t partitions;
	int *fds;  /* [partition][domain], -1 when closed */
	int *dirs; /* per partition: the group's directory (not owned) */
	struct mon_domain *domains;
};

static int *fd_of(struct resctrl_mon *mon, size_t partition, unsigned domain)
{
	return &mon->fds[partition * mon->info->mon_domain_count + domain];
}

static int assign_event(struct resctrl_mon *mon, size_t partition, const char *event, unsigned domain, bool on)
{
	char line[64];

	snprintf(line, sizeof(line), "%s:%u=%s\n", event, mon->info->mon_domain_ids[domain], on ? "e" : "_");
	return resctrl_write_at(mon->dirs[partition], "mbm_L3_assignments", line);
}

static int assign(struct resctrl_mon *mon, size_t partition, unsigned domain, bool on)
{
	return assign_event(mon, partition, mon->event, domain, on);
}

static int program_counter(void *ctx, unsigned slot, size_t partition)
{
	struct mon_domain *d = ctx;

	(void)slot;
	if (!d->mon->assign)
		return 0; /* every group has its own counter */
	int r = assign(d->mon, partition, d->index, true);
	if (r < 0)
		log_debug("assigning a counter on domain %u failed: %s", d->mon->info->mon_domain_ids[d->index],
			  strerror(-r));
	return r;
}

static void release_counter(void *ctx, unsigned slot, size_t partition)
{
	struct mon_domain *d = ctx;

	(void)slot;
	if (d->mon->assign)
		assign(d->mon, partition, d->index, false);
}

static int read_counter(void *ctx, unsigned slot, struct counter_reading *rd, const char **reason)
{
	struct mon_domain *d = ctx;
	long owner = counter_pool_owner(d->pool, slot);
	char buf[32];

	if (owner < 0)
		return -EINVAL;
	int fd = *fd_of(d->mon, (size_t)owner, d->index);
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n < 0) {
		*reason = "counter file could not be read";
		return -EIO;
	}
	buf[n] = '\0';
	return resctrl_parse_counter(buf, &rd->value, reason);
}

static const struct counter_pool_ops counter_ops = {
	.program = program_counter,
	.read = read_counter,
	.release = release_counter,
};

void resctrl_mon_free(struct resctrl_mon *mon)
{
	if (!mon)
		return;
	for (size_t i = 0; mon->fds && i < mon->partitions * mon->info->mon_domain_count; i++)
		if (mon->fds[i] >= 0)
			close(mon->fds[i]);
	for (unsigned d = 0; mon->domains && d < mon->info->mon_domain_count; d++)
		counter_pool_free(mon->domains[d].pool);
	free(mon->fds);
	free(mon->dirs);
	free(mon->domains);
	free(mon);
}

int resctrl_mon_new(int rootfd, const struct resctrl_info *info, const char *event, size_t partitions,
		    struct resctrl_mon **ret, struct err *err)
{
	struct resctrl_mon *mon = calloc(1, sizeof(*mon));
	size_t domains = info->mon_domain_count;

	if (!mon)
		return err_set(err, -ENOMEM, "out of memory");
	mon->rootfd = rootfd;
	mon->info = info;
	snprintf(mon->event, sizeof(mon->event), "%s", event);
	mon->assign = info->assign_supported && !strcmp(info->assign_mode, "mbm_event");
	mon->partitions = partitions;
	mon->fds = malloc((partitions ? partitions : 1) * (domains ? domains : 1) * sizeof(*mon->fds));
	mon->dirs = calloc(partitions ? partitions : 1, sizeof(*mon->dirs));
	mon->domains = calloc(domains ? domains : 1, sizeof(*mon->domains));
	if (!mon->fds || !mon->dirs || !mon->domains) {
		resctrl_mon_free(mon);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < partitions * domains; i++)
		mon->fds[i] = -1;
	for (unsigned d = 0; d < domains; d++)
		mon->domains[d] = (struct mon_domain){ .mon = mon, .index = d };
	*ret = mon;
	return 0;
}

int resctrl_mon_add(struct resctrl_mon *mon, size_t index, const struct resctrl_group *g, struct err *err)
{
	if (index >= mon->partitions)
		return err_set(err, -EINVAL, "partition index %zu out of range", index);
	mon->dirs[index] = g->dirfd;
	for (unsigned d = 0; d < mon->info->mon_domain_count; d++) {
		char path[96];
		snprintf(path, sizeof(path), "mon_data/mon_L3_%02u/%s", mon->info->mon_domain_ids[d], mon->event);
		int *fd = fd_of(mon, index, d);
		if (*fd < 0)
			*fd = openat(g->dirfd, path, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			return err_set(err, -errno, "%s: cannot open %s: %s", g->name, path, strerror(errno));
		/* mkdir may have given the group counters for every event (mbm_assign_on_mkdir): hand them
		 * all back, so the pool sees every free counter and spends them on the one event it reads. */
		if (mon->assign) {
			assign_event(mon, index, "mbm_total_bytes", d, false);
			assign_event(mon, index, "mbm_local_bytes", d, false);
		}
	}
	return 0;
}

/* Counters the pool may hand out on a domain: one per group, or what mbm_event mode has free. */
static unsigned counters_for(struct resctrl_mon *mon, unsigned domain)
{
	char text[256];
	struct schemata_domain avail[RESCTRL_MAX_DOMAINS];
	unsigned count = 0;

	if (!mon->assign)
		return (unsigned)mon->partitions;
	if (resctrl_read_at(mon->rootfd, "info/L3_MON/available_mbm_cntrs", text, sizeof(text)) < 0 ||
	    resctrl_parse_id_values(text, avail, RESCTRL_MAX_DOMAINS, &count) < 0)
		return 0;
	for (unsigned i = 0; i < count; i++)
		if (avail[i].id == mon->info->mon_domain_ids[domain])
			return (unsigned)avail[i].value;
	return 0;
}

/* The pools are made at the first read, once every group is open and has given back what mkdir
 * assigned, so they know how many counters are really free. */
static void make_pools(struct resctrl_mon *mon)
{
	for (unsigned d = 0; d < mon->info->mon_domain_count; d++) {
		struct mon_domain *md = &mon->domains[d];
		struct counter_pool_params params = {
			.counters = counters_for(mon, d), .partitions = mon->partitions, .bits = 64, .unit_shift = 0
		};
		if (counter_pool_new(&params, &counter_ops, md, &md->pool) < 0) {
			log_error("out of memory for the counters of domain %u", mon->info->mon_domain_ids[d]);
			continue;
		}
		if (mon->assign)
			log_info("domain %u: %u assignable counter(s) for %zu group(s)%s", mon->info->mon_domain_ids[d],
				 params.counters, mon->partitions,
				 params.counters < mon->partitions ? ", rotating" : "");
		for (size_t p = 0; p < mon->partitions; p++)
			if (*fd_of(mon, p, d) >= 0)
				counter_pool_add(md->pool, p);
	}
}

void resctrl_mon_read(struct resctrl_mon *mon, uint64_t now_ns, struct sample *samples)
{
	unsigned domains = mon->info->mon_domain_count;

	if (domains && !mon->domains[0].pool)
		make_pools(mon);
	for (unsigned d = 0; d < domains; d++) {
		if (mon->domains[d].pool) {
			counter_pool_read(mon->domains[d].pool, now_ns, &samples[d], domains);
			continue;
		}
		for (size_t p = 0; p < mon->partitions; p++)
			samples[p * domains + d] =
				(struct sample){ .state = SAMPLE_INVALID, .reason = "out of memory" };
	}
}
