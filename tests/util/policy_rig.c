#include "tests/util/policy_rig.h"

#include <string.h>

#include "backends/contracts/control.h"
#include "backends/sim/traffic.h"

/* MBW_MAX and MBW_MIN ladders for each BWA_WD, and whole percents at [0] (the hosts rig_host returns
 * point at them). */
static struct ladder max_ladders[LADDER_MPAM_WD_MAX + 1], min_ladders[LADDER_MPAM_WD_MAX + 1];

static unsigned ladders_of(unsigned wd)
{
	wd = wd > LADDER_MPAM_WD_MAX ? LADDER_MPAM_WD_MAX : wd;
	if (ladder_exists(&max_ladders[wd]))
		return wd;
	if (wd == RIG_WHOLE_PERCENTS) {
		ladder_percent(1, 1, &max_ladders[wd]);
		ladder_percent(1, 0, &min_ladders[wd]);
	} else {
		ladder_mpam_max(wd, &max_ladders[wd]);
		ladder_mpam_min(wd, &min_ladders[wd]);
	}
	return wd;
}

struct policy_host rig_host(unsigned wd)
{
	wd = ladders_of(wd);
	return (struct policy_host){
		.interval_ms = 100,
		.capacity_mbps = RIG_CAPACITY,
		.max_ladder = &max_ladders[wd],
		.min_ladder = &min_ladders[wd],
		.has_mb_min = true,
		.cpus = RIG_CPUS,
		.total_valid = true,
	};
}

const struct ladder *rig_floor_ladder(unsigned floor_pct)
{
	static struct ladder ladders[101];

	floor_pct = floor_pct > 100 ? 100 : floor_pct;
	ladder_percent(1, floor_pct, &ladders[floor_pct]);
	return &ladders[floor_pct];
}

/* Partitions made by rig_part in a program, at most, each with its goals' and its one domain's room
 * for as long as the program runs; tests hold a few at a time, so the room is handed out in turn (a
 * test that held more than RIG_PART_ROOM at once would share it). */
#define RIG_PART_ROOM 4096

struct rig_room {
	struct partition_goals goals;
	struct policy_domain one;
};

void rig_part_room(struct policy_partition *p)
{
	static struct rig_room room[RIG_PART_ROOM];
	static size_t next;
	struct rig_room *r = &room[next++ % RIG_PART_ROOM];

	*r = (struct rig_room){ .goals = { .class = CLASS_DEFAULT, .mb_max = 100, .weight = 100 } };
	p->goals = &r->goals;
	p->domains = &r->one;
}

struct partition_goals *rig_goals(struct policy_partition *p)
{
	return (struct partition_goals *)p->goals; /* the rig's room: the view reads it as const */
}

struct policy_partition rig_part(const char *name, enum partition_class class, double mbps)
{
	struct policy_partition p = { .name = name,
				      .cfg_max = 100,
				      .mb_max = 100,
				      .open = true,
				      .valid = true,
				      .mbps = mbps,
				      .smoothed_mbps = mbps };

	rig_part_room(&p);
	rig_goals(&p)->class = class;
	return p;
}

void rig_decide(policy_fn fn, const struct policy_host *h, struct policy_partition *parts, size_t n,
		struct policy_decision *dec)
{
	for (size_t i = 0; i < n; i++) {
		rig_snap_goals(h, &parts[i]);
		policy_decision_clear(&dec[i]);
		dec[i] = (struct policy_decision){ .mb_max = parts[i].cfg_max, .mb_min = parts[i].cfg_min };
	}
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

void rig_snap_goals(const struct policy_host *h, struct policy_partition *p)
{
	p->cfg_max = control_snap_max(h->max_ladder, p->goals->mb_max);
	p->cfg_min = control_snap_min(h->min_ladder, p->goals->mb_min);
}

/* Programs the limits as MBW_MAX/MBW_MIN fields (the rungs the engine would snap them to) and keeps
 * what the fields enforce as the limits in force. */
static void rig_apply(struct policy_rig *rig, size_t i, double mb_max, double mb_min)
{
	struct policy_partition *p = &rig->parts[i];
	const struct ladder *max = rig->host.max_ladder, *min = rig->host.min_ladder;
	uint32_t max_rung = ladder_snap(max, mb_max, LADDER_NEAREST);
	uint32_t min_rung = mb_min > 0 ? ladder_snap(min, mb_min, LADDER_UP) : 0;

	rig->max_field[i] = (uint16_t)ladder_value(max, max_rung);
	p->mb_max = ladder_pct(max, max_rung);
	rig->min_field[i] = (uint16_t)ladder_value(min, min_rung);
	p->mb_min = ladder_pct(min, min_rung);
}

struct policy_partition *rig_add(struct policy_rig *rig, const char *name, enum partition_class class, double demand)
{
	size_t i = rig->n++;
	struct policy_partition *p = &rig->parts[i];

	*p = (struct policy_partition){
		.name = name, .goals = &rig->goals[i], .open = true, .domains = &rig->one[i], .target = &rig->targets[i]
	};
	rig->goals[i] = (struct partition_goals){ .class = class, .mb_max = 100, .weight = 100 };
	rig->targets[i] = (struct target_memory){ 0 };
	rig->one[i] = (struct policy_domain){ 0 };
	rig->demand[i] = demand;
	rig_apply(rig, i, 100, 0);
	return p;
}

void rig_configure(struct policy_rig *rig, struct policy_partition *p, unsigned mb_min, unsigned mb_max)
{
	rig_goals(p)->mb_min = mb_min;
	rig_goals(p)->mb_max = mb_max;
	rig_snap_goals(&rig->host, p);
	rig_apply(rig, (size_t)(p - rig->parts), p->cfg_max, p->cfg_min);
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
			.max_fraction = rig->parts[i].mb_max / 100,
			.min_fraction = rig->parts[i].mb_min / 100,
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
		rig_snap_goals(&rig->host, p);
		policy_decision_clear(&rig->dec[i]);
		rig->dec[i] = (struct policy_decision){ .mb_max = p->cfg_max, .mb_min = p->cfg_min };
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

void rig_clear(struct policy_decision *dec, size_t n)
{
	for (size_t i = 0; i < n; i++)
		policy_decision_clear(&dec[i]);
}

void rig_fini(struct policy_rig *rig)
{
	rig_clear(rig->dec, RIG_MAX_PARTS);
}
