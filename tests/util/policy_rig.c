#include "tests/util/policy_rig.h"

#include <string.h>

#include "backends/mpam/mpam_regs.h"
#include "backends/sim/traffic.h"

struct policy_host rig_host(unsigned wd)
{
	unsigned floor_pct = mpam_min_bandwidth_percent(wd);

	return (struct policy_host){
		.interval_ms = 100,
		.capacity_mbps = RIG_CAPACITY,
		.gran_pct = mpam_bandwidth_gran_percent(wd),
		.min_pct = floor_pct ? floor_pct : 1,
		.has_mb_min = true,
		.cpus = RIG_CPUS,
		.total_valid = true,
	};
}

struct policy_partition rig_part(const char *name, enum partition_class class, double mbps)
{
	return (struct policy_partition){ .name = name,
					  .goals.class = class,
					  .goals.mb_max = 100,
					  .mb_max = 100,
					  .goals.weight = 100,
					  .open = true,
					  .valid = true,
					  .mbps = mbps,
					  .smoothed_mbps = mbps };
}

void rig_decide(policy_fn fn, const struct policy_host *h, struct policy_partition *parts, size_t n,
		struct policy_decision *dec)
{
	for (size_t i = 0; i < n; i++)
		dec[i] = (struct policy_decision){ .mb_max = parts[i].goals.mb_max, .mb_min = parts[i].goals.mb_min };
	fn(h, parts, n, dec);
}

double rig_total(const struct policy_partition *parts, size_t n)
{
	double t = 0;

	for (size_t i = 0; i < n; i++)
		t += parts[i].mbps;
	return t;
}

void rig_init(struct policy_rig *rig, unsigned wd, const policy_fn *fns, size_t nfns)
{
	memset(rig, 0, sizeof(*rig));
	rig->wd = wd;
	rig->host = rig_host(wd);
	rig->fns = fns;
	rig->nfns = nfns;
}

/* Programs the limits as MBW_MAX/MBW_MIN fields and keeps what they read back as the limits in force. */
static void rig_apply(struct policy_rig *rig, size_t i, unsigned mb_max, unsigned mb_min)
{
	struct policy_partition *p = &rig->parts[i];

	rig->max_field[i] = mpam_mbw_max_from_percent(mb_max, rig->wd);
	p->mb_max = mpam_mbw_max_to_percent(rig->max_field[i], rig->wd);
	rig->min_field[i] = mb_min ? mpam_mbw_min_from_percent(mb_min, rig->wd) : 0;
	p->mb_min = mb_min ? mpam_mbw_min_to_percent(rig->min_field[i], rig->wd) : 0;
}

struct policy_partition *rig_add(struct policy_rig *rig, const char *name, enum partition_class class, double demand)
{
	size_t i = rig->n++;
	struct policy_partition *p = &rig->parts[i];

	*p = (struct policy_partition){
		.name = name, .goals.class = class, .goals.mb_max = 100, .goals.weight = 100, .open = true
	};
	rig->demand[i] = demand;
	rig_apply(rig, i, 100, 0);
	return p;
}

void rig_configure(struct policy_rig *rig, struct policy_partition *p, unsigned mb_min, unsigned mb_max)
{
	p->goals.mb_min = mb_min;
	p->goals.mb_max = mb_max;
	rig_apply(rig, (size_t)(p - rig->parts), mb_max, mb_min);
}

static double effective_demand(const struct policy_rig *rig, size_t i)
{
	unsigned quota = rig->parts[i].cpu_quota_pct;

	if (!rig->quota_scales_demand || !quota)
		return rig->demand[i];
	return rig->demand[i] * quota / (RIG_CPUS * 100.0);
}

void rig_tick(struct policy_rig *rig)
{
	struct traffic_request req[RIG_MAX_PARTS];
	struct traffic_share work[RIG_MAX_PARTS];
	double served[RIG_MAX_PARTS];

	for (size_t i = 0; i < rig->n; i++)
		req[i] = (struct traffic_request){
			.demand_mbps = effective_demand(rig, i),
			.max_fraction = mpam_mbw_max_fraction(rig->max_field[i], rig->wd),
			.min_fraction = rig->min_field[i] ? mpam_mbw_min_fraction(rig->min_field[i], rig->wd) : 0,
		};
	traffic_serve(req, rig->n, RIG_CAPACITY, work, served);
	rig->host.tick++;
	rig->host.total_mbps = 0;
	for (size_t i = 0; i < rig->n; i++) {
		struct policy_partition *p = &rig->parts[i];
		p->valid = true;
		p->mbps = served[i] * (1 + rig->bias[i]);
		p->smoothed_mbps = p->mbps;
		rig->host.total_mbps += p->mbps;
		rig->dec[i] = (struct policy_decision){ .mb_max = p->goals.mb_max, .mb_min = p->goals.mb_min };
	}
	for (size_t f = 0; f < rig->nfns; f++)
		rig->fns[f](&rig->host, rig->parts, rig->n, rig->dec);
	for (size_t i = 0; i < rig->n; i++) {
		rig_apply(rig, i, rig->dec[i].mb_max, rig->host.has_mb_min ? rig->dec[i].mb_min : 0);
		rig->parts[i].cpu_quota_pct = rig->dec[i].cpu_quota_pct;
	}
}

double rig_next_mbps(const struct policy_rig *rig, size_t i)
{
	struct policy_rig copy = *rig;

	copy.nfns = 0;
	copy.bias[i] = 0;
	rig_tick(&copy);
	return copy.parts[i].mbps;
}
