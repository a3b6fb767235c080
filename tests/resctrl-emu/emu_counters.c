/* See emu_counters.h. The time stepping mirrors backends/sim/sim_host.c: demand changes only at tick
 * boundaries, one noise draw per partition per tick, in partition order. */
#include "emu_counters.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/sim/burst.h"
#include "backends/sim/mb_curve.h"
#include "backends/sim/sim_config.h"
#include "backends/sim/traffic.h"
#include "emu_state.h"

#define NS_PER_MS 1000000u

static size_t partition_count(const struct emu *e)
{
	return e->config ? e->config->partition_count : 0;
}

int emu_traffic_init(struct emu *e)
{
	struct emu_traffic *t = &e->traffic;
	const struct config *c = e->config;

	const struct sim_config *sim = c ? sim_config_of(c) : NULL;

	t->capacity_mbps = sim ? sim->capacity_mbps : EMU_DEFAULT_CAPACITY_MBPS;
	t->interval_ns = (uint64_t)(c ? c->global.interval_ms : 100) * NS_PER_MS;
	traffic_rng_seed(&t->rng, sim ? sim->seed : 1);
	traffic_rng_seed(&t->measure_rng, traffic_measure_seed(sim ? sim->seed : 1));
	t->delay_ticks = sim ? sim->delay_ticks : 0;
	t->measure_noise_pct = sim ? sim->measure_noise_pct : 0;
	t->demand_tick = UINT64_MAX;
	t->last_ns = 0;
	t->demand = calloc(partition_count(e) + 1, sizeof(*t->demand));
	t->on = calloc(partition_count(e) + 1, sizeof(*t->on));
	t->gain = calloc((partition_count(e) + 1) * EMU_MAX_DOMAINS, sizeof(*t->gain));
	t->mb_past = t->delay_ticks ? calloc(t->delay_ticks, sizeof(*t->mb_past)) : NULL;
	if (!t->demand || !t->on || !t->gain || (t->delay_ticks && !t->mb_past))
		return -ENOMEM;
	for (size_t i = 0; i < (partition_count(e) + 1) * EMU_MAX_DOMAINS; i++)
		t->gain[i] = 1.0;
	for (unsigned k = 0; k < t->delay_ticks; k++) /* what was in force before the first tick */
		memcpy(t->mb_past[k], e->mb, sizeof(e->mb));
	return 0;
}

void emu_traffic_fini(struct emu *e)
{
	free(e->traffic.demand);
	free(e->traffic.on);
	free(e->traffic.gain);
	free(e->traffic.mb_past);
	e->traffic.demand = NULL;
	e->traffic.on = NULL;
	e->traffic.gain = NULL;
	e->traffic.mb_past = NULL;
}

/* The factor of partition p's counted bytes in domain d this tick. */
static double *gain_of(struct emu_traffic *t, size_t p, unsigned d)
{
	return &t->gain[p * EMU_MAX_DOMAINS + d];
}

static void update_demand(struct emu *e, uint64_t tick)
{
	struct emu_traffic *t = &e->traffic;

	if (tick == t->demand_tick)
		return;
	t->demand_tick = tick;
	if (!e->config)
		return;
	const struct sim_config *sim = sim_config_of(e->config);
	for (size_t i = 0; i < partition_count(e); i++) {
		double base = demand_profile_at(sim_partition_demand(e->config, &e->config->partitions[i]), tick);
		t->demand[i] = traffic_noisy_demand(base, sim->noise_pct, &t->rng);
	}
	for (size_t i = 0; t->measure_noise_pct && i < partition_count(e); i++)
		for (unsigned d = 0; d < e->prof.domains; d++)
			*gain_of(t, i, d) = traffic_noise_factor(t->measure_noise_pct, &t->measure_rng);
}

/* The MB value that governs CLOSID c's traffic in domain d during tick `tick`: with delay_ticks N,
 * the one schemata held at the end of tick - N (the slot tick % N, refilled at the tick's end). */
static uint32_t mb_in_force(const struct emu *e, unsigned c, unsigned d, uint64_t tick)
{
	const struct emu_traffic *t = &e->traffic;

	return t->delay_ticks ? t->mb_past[tick % t->delay_ticks][c][d] : e->mb[c][d];
}

/* A tick ends: what schemata holds now governs the traffic delay_ticks ticks on. */
static void tick_ends(struct emu *e, uint64_t tick)
{
	struct emu_traffic *t = &e->traffic;

	if (t->delay_ticks)
		memcpy(t->mb_past[tick % t->delay_ticks], e->mb, sizeof(e->mb));
}

/* A group's demand in domain d: its partition's, while its burst is on, interleaved evenly over the
 * domains it uses. */
static double group_demand(const struct emu *e, const struct emu_group *g, unsigned d)
{
	if (g->partition < 0 || !e->traffic.on[g->partition])
		return 0;
	const struct sim_partition_config *sp = sim_partition_of(e->config, &e->config->partitions[g->partition]);
	unsigned domains = sim_partition_domain_count(sp, e->prof.domains);
	return domains && sim_partition_uses_domain(sp, d) ? e->traffic.demand[g->partition] / domains : 0;
}

/* The plant's curve over the share of the domain a setting names (see emu_counters.h): Intel's
 * percentage, MPAM's band top, AMD's absolute bandwidth over the domain's capacity. */
static double max_fraction(const struct emu *e, uint32_t hw)
{
	double linear = emu_mb_fraction(&e->prof, hw, e->traffic.capacity_mbps);

	if (!e->config || e->prof.mba_sc)
		return linear;
	return mb_curve_fraction(&sim_config_of(e->config)->mb_curve, 100 * linear);
}

/* Which partitions' bursts are on from t_ns; returns when the next one turns (UINT64_MAX: never). */
static uint64_t burst_segment(struct emu *e, uint64_t t_ns)
{
	uint64_t edge = UINT64_MAX;

	for (size_t i = 0; i < partition_count(e); i++) {
		const struct burst *b = &sim_partition_of(e->config, &e->config->partitions[i])->burst;
		uint64_t next = burst_next_edge(b, t_ns);
		e->traffic.on[i] = burst_on(b, t_ns);
		edge = next < edge ? next : edge;
	}
	return edge;
}

/* One domain for dt_ns of tick `tick` at the current demand and the limits in force. Counted bytes
 * carry the tick's measurement noise (a factor of 0.5..1.5: counters only grow); mbps stays the truth. */
static void serve_domain(struct emu *e, unsigned d, uint64_t tick, uint64_t dt_ns)
{
	struct traffic_request req[EMU_MAX_CLOSIDS];
	struct traffic_share work[EMU_MAX_CLOSIDS];
	double served[EMU_MAX_CLOSIDS], demand[EMU_MAX_CLOSIDS] = { 0 };
	unsigned n = e->prof.num_closids;
	double capacity = e->traffic.capacity_mbps;

	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g))
		demand[g->closid] += group_demand(e, g, d);
	for (unsigned c = 0; c < n; c++)
		req[c] = (struct traffic_request){
			.demand_mbps = demand[c],
			.max_fraction = max_fraction(e, mb_in_force(e, c, d, tick)),
		};
	traffic_serve(req, n, capacity, work, served);
	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g)) {
		struct emu_mon *m = &g->mon[d];
		double own = group_demand(e, g, d);
		m->mbps = own > 0 ? served[g->closid] * own / demand[g->closid] : 0;
		double gain = g->partition < 0 ? 1.0 : *gain_of(&e->traffic, (size_t)g->partition, d);
		m->bytes += m->mbps * gain * (double)dt_ns / 1e3; /* MB/s * ns = 10^-3 bytes */
	}
}

void emu_traffic_sync(struct emu *e)
{
	struct emu_traffic *t = &e->traffic;
	uint64_t now = emu_clock_now(&e->clock);

	while (t->last_ns < now) {
		uint64_t tick = t->last_ns / t->interval_ns;
		uint64_t boundary = (tick + 1) * t->interval_ns;
		uint64_t end = now < boundary ? now : boundary;
		uint64_t edge = burst_segment(e, t->last_ns);
		end = edge < end ? edge : end;
		update_demand(e, tick);
		for (unsigned d = 0; d < e->prof.domains; d++)
			serve_domain(e, d, tick, end - t->last_ns);
		if (end == boundary)
			tick_ends(e, tick);
		t->last_ns = end;
	}
}

static struct emu_group *find_mon_anywhere(struct emu *e, const char *name)
{
	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g))
		if (g->is_mon && strcmp(g->name, name) == 0)
			return g;
	return NULL;
}

void emu_traffic_bind(struct emu *e)
{
	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g))
		g->partition = -1;
	for (size_t i = 0; i < partition_count(e); i++) {
		char name[512];
		snprintf(name, sizeof(name), "%s%s", e->opt.prefix, e->config->partitions[i].name);
		struct emu_group *g = emu_find_ctrl(e, name);
		if (!g)
			g = find_mon_anywhere(e, name);
		if (g)
			g->partition = (int)i;
	}
}

void emu_counter_restart(struct emu_group *g, unsigned domain, enum emu_event ev)
{
	g->mon[domain].base[ev] = g->mon[domain].bytes;
}

void emu_counter_assigned(struct emu *e, struct emu_group *g, unsigned domain, enum emu_event ev)
{
	emu_counter_restart(g, domain, ev);
	g->mon[domain].ready_ns[ev] = emu_clock_now(&e->clock) + (uint64_t)e->opt.nrdy_ms * NS_PER_MS;
}

/* Whether the group's counter for `ev` is ready (NRDY clear), after the kernel's one wait. */
static bool counter_ready(struct emu *e, const struct emu_mon *m, enum emu_event ev)
{
	if (ev == EMU_EVT_LLC || emu_clock_now(&e->clock) >= m->ready_ns[ev])
		return true;
	struct timespec wait = { .tv_sec = e->opt.nrdy_ms / 1000, .tv_nsec = (long)(e->opt.nrdy_ms % 1000) * 1000000 };
	while (nanosleep(&wait, &wait) < 0 && errno == EINTR)
		;
	e->nrdy_waits++;
	emu_traffic_sync(e);
	return emu_clock_now(&e->clock) >= m->ready_ns[ev];
}

static double closid_mbps(struct emu *e, unsigned closid, unsigned d)
{
	double sum = 0;

	for (struct emu_group *g = emu_next_group(e, NULL); g; g = emu_next_group(e, g))
		if (g->closid == closid)
			sum += g->mon[d].mbps;
	return sum;
}

/* The ways a CLOSID's traffic may fill: with CDP, its code and its data ways. */
static uint32_t ways_of(struct emu *e, unsigned closid, unsigned d)
{
	return *emu_cbm(e, false, closid, d) | *emu_cbm(e, true, closid, d);
}

/* Each way of the CLOSID's mask, shared with the other active CLOSIDs holding it by bandwidth. */
static double occupancy(struct emu *e, const struct emu_group *g, unsigned d)
{
	double rate[EMU_MAX_CLOSIDS], bytes = 0;
	double way_bytes = (double)e->prof.l3_bytes / e->prof.cbm_len;

	for (unsigned c = 0; c < e->prof.num_closids; c++)
		rate[c] = emu_closid_allocated(e, c) ? closid_mbps(e, c, d) : 0;
	if (rate[g->closid] <= 0)
		return 0;
	for (unsigned w = 0; w < e->prof.cbm_len; w++) {
		double sharers = 0;
		if (!((ways_of(e, g->closid, d) >> w) & 1))
			continue;
		for (unsigned c = 0; c < e->prof.num_closids; c++)
			if ((ways_of(e, c, d) >> w) & 1)
				sharers += rate[c];
		bytes += way_bytes * rate[g->closid] / sharers;
	}
	return bytes * g->mon[d].mbps / rate[g->closid];
}

double emu_rmid_occupancy(struct emu *e, const struct emu_group *g, unsigned d)
{
	return floor(occupancy(e, g, d) / 64) * 64;
}

static int read_one(struct emu *e, struct emu_group *g, unsigned d, enum emu_event ev, double *val)
{
	const struct emu_mon *m = &g->mon[d];

	switch (m->forced[ev]) {
	case EMU_CNT_UNAVAILABLE:
		return -EINVAL;
	case EMU_CNT_ERROR:
		return -EIO;
	case EMU_CNT_UNASSIGNED:
		return -ENOENT;
	case EMU_CNT_ZERO:
		if (ev != EMU_EVT_LLC && e->assign.enabled && m->cntr[ev] < 0)
			return -ENOENT;
		*val = 0;
		return 0;
	case EMU_CNT_OK:
		break;
	}
	if (ev != EMU_EVT_LLC && e->assign.enabled && m->cntr[ev] < 0)
		return -ENOENT;
	if (!counter_ready(e, m, ev))
		return -EBUSY;
	if (ev == EMU_EVT_LLC)
		*val = emu_rmid_occupancy(e, g, d);
	else
		*val = (m->bytes - m->base[ev]) * (ev == EMU_EVT_LOCAL ? EMU_LOCAL_SHARE : 1.0);
	return 0;
}

struct sum {
	double val;
	bool any_ok;
	int err;
};

static void add_one(struct emu *e, struct emu_group *g, unsigned d, enum emu_event ev, struct sum *s)
{
	double v;
	int r = read_one(e, g, d, ev, &v);

	if (r) {
		s->err = r;
		return;
	}
	s->any_ok = true;
	s->val += v;
}

/* mon_event_count(): a CTRL_MON group adds its MON groups; the read fails only if all of them do,
 * and then with the last error. */
int emu_counter_read(struct emu *e, struct emu_group *g, unsigned domain, enum emu_event ev, double *val)
{
	struct sum s = { 0, false, 0 };

	add_one(e, g, domain, ev, &s);
	if (!g->is_mon)
		for (struct emu_group *m = g->mons; m; m = m->next)
			add_one(e, m, domain, ev, &s);
	*val = s.val;
	return s.any_ok ? 0 : s.err;
}

int emu_mondata_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	double v;

	switch (emu_counter_read(e, n->group, n->domain, (enum emu_event)n->file->event, &v)) {
	case -EIO:
		emu_buf_printf(out, "Error\n");
		break;
	case -EINVAL:
		emu_buf_printf(out, "Unavailable\n");
		break;
	case -ENOENT:
		emu_buf_printf(out, "Unassigned\n");
		break;
	default:
		emu_buf_printf(out, "%llu\n", (unsigned long long)floor(v));
		break;
	}
	return 0;
}
