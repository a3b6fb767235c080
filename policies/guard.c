/* guard: protects latency-critical guarantees from best-effort neighbours.
 *
 * When a latency-critical partition gets less than its guarantee_mbps while the host is saturated,
 * the guard cuts every best-effort partition that uses the domain, each by the same multiplicative
 * decrease of its use, sized from the shortfall (a crowd of small neighbours gives together, in one
 * tick, what one large aggressor would). When the guarantees have
 * headroom (or the host has spare capacity) it gives bandwidth back additively, GUARD_ADD_STEP_PCT of
 * capacity a tick, or the whole spare capacity at once while the guarantees have headroom, so the
 * host stays work-conserving. Hysteresis (a band between "short" and "headroom", and calm ticks before giving
 * back) and a minimum dwell after a cut keep it from flapping, and giving back stops below the ceiling
 * that squeezed a victim and, for a crowd share splits, within what the guarantees leave. Where the
 * hardware has a minimum (MPAM MBW_MIN), the guarantee is also programmed as the partition's mb_min,
 * the first defence. Where no ceiling can go lower and a victim is still short, an event says the
 * hardware cannot protect it.
 *
 * Measured, not estimated. Where counters rotate, a partition without one this tick has its last
 * measured rate repeated (estimated): a victim's shortfall asks for one cut per measurement, and an
 * estimate starts no release (guard_victims.c). A guaranteed partition keeps its counter (the engine
 * asks the monitors, core/engine/compose.c), and what the others' rotation leaves unseen is judged in
 * guard_estimates.c.
 *
 * Per domain. Limits are set and rates measured per domain (policy.h), and contention is where a
 * domain is saturated: a victim pinned to socket 0 is protected there, and its neighbours are cut
 * there only. Whether a guaranteed partition is short (of its guarantee, its demand level) is judged
 * on its total; what it lacks is asked of the saturated domains it uses (those that carry at least
 * GUARD_DOMAIN_SHARE of its traffic), in proportion to its traffic on each, and each such domain cuts
 * its own best-effort partitions, all of them together. A domain is saturated, has room and is
 * given back to on its own figures; the guarantee is programmed as MBW_MIN on each domain for the
 * share of its traffic there. On a host of one domain this is the guard on the host's totals.
 *
 * Saturation needs the capacity: from the backend, else [global] capacity_mbps, else learned as the
 * highest total ever measured (the engine fills each domain's capacity and whether it is learned). Only
 * traffic of configured partitions is counted. A guarantee is programmed in hardware only from a
 * capacity that is known, not learned: a learned figure is too low at first and would overstate it.
 *
 * IPC, not only bandwidth: a latency-critical partition with ipc_guard is also a victim when its IPC
 * stays that fraction below its own baseline while best-effort partitions use bandwidth (see
 * policies/guard_ipc.c), with a guarantee or without, saturated host or not. The guard then cuts
 * the best-effort partitions on the domains it uses by the share of IPC it lost, and gives nothing
 * back while its IPC is low.
 *
 * The parts: victims are judged in guard_victims.c (when below a guarantee is not squeezed, and the
 * evidence a learned capacity needs before a cut, what an estimate may decide), best-effort partitions
 * cut and given back to in guard_cut.c (all of a domain's together, largest first where a share rounds
 * to nothing, from the heap of guard_heap.c), the guarantee programmed as a
 * hardware minimum in guard_minimum.c, the IPC signal watched in guard_ipc.c; what they share is in
 * guard_internal.h. This file runs them in order each tick and ages the memory kept between ticks. */
#include <stdlib.h>

#include "policies/domains.h"
#include "policies/guard_internal.h"
#include "policies/guard_ipc.h"
#include "policies/policy.h"

/* Before deciding: minimums, dwell and squeeze memory, and the memory of partitions no longer
 * best-effort; then how many each domain holds back (none: nothing to give back there). */
static void age_memory(const struct policy_host *h, struct policy_partition *parts, size_t count,
		       struct policy_decision *decisions, struct guard_view *v)
{
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		if (guaranteed(p))
			guard_program_minimum(h, p, &decisions[i]);
		struct policy_domain *doms = pol_doms(p);
		bool be = best_effort(p);
		for (unsigned d = 0; d < v->domains; d++) {
			struct guard_domain_memory *m = &doms[d].guard;
			if (!m->throttled && !m->squeeze_pct)
				continue; /* nothing held back there, nothing remembered to age */
			if (!be && m->throttled)
				*m = (struct guard_domain_memory){ 0 }; /* no longer best-effort (or closed) */
			else if (m->throttled && m->dwell < UINT32_MAX)
				m->dwell++;
			v->dom[d].held += m->throttled;
			/* A victim that has its guarantee now is squeezed again at the same ceiling: the
			 * squeeze point is kept while a guaranteed partition uses the domain at all. */
			bool could_squeeze = v->dom[d].any_active || v->ipc.watching;
			if (m->squeeze_pct && (!could_squeeze || ++m->squeeze_age > GUARD_SQUEEZE_TICKS))
				m->squeeze_pct = 0; /* nobody left to squeeze, or time to probe above it again */
		}
	}
}

/* The guard's ceilings into the decisions, and the partition-level summary share and escalation
 * read. */
static void finish(struct policy_partition *parts, size_t count, struct policy_decision *decisions,
		   const struct guard_view *v)
{
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		double want = 0, *max = dec_max_row(&decisions[i]);
		struct policy_domain *doms = pol_doms(p);
		bool throttled = false;
		for (unsigned d = 0; d < v->domains; d++) {
			struct guard_domain_memory *m = &doms[d].guard;
			if (v->dom[d].pressure)
				m->calm = 0;
			if (m->throttled && m->cut_pct < max[d])
				max[d] = m->cut_pct;
			throttled |= m->throttled;
		}
		for (unsigned d = 0; throttled && d < v->domains; d++) { /* a sum only a throttled one needs */
			const struct policy_domain *dom = pol_cdom(p, d);
			want += dom->guard.throttled ? dom->guard.want_mbps : (dom->valid ? dom->mbps : 0);
		}
		p->guard.throttled = throttled;
		p->guard.want_mbps = throttled ? want : 0;
	}
}

/* Room to order `count` partitions: the host's, the stack's, or (tests, benchmarks) the heap's. */
static size_t *work_for(const struct policy_host *h, size_t count, size_t *stack, size_t **allocated)
{
	*allocated = NULL;
	if (h->work)
		return h->work;
	if (count <= GUARD_STACK_WORK)
		return stack;
	return *allocated = malloc(count * sizeof(**allocated));
}

void policy_guard(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions)
{
	struct guard_view v = { 0 };
	size_t stack[GUARD_STACK_WORK], *allocated = NULL;

	policy_domains_prepare(host, parts, count);
	guard_note_estimates(host, parts, count, &v.est);
	guard_judge_victims(host, parts, count, &v.est, decisions);
	guard_assess(host, parts, count, &v);
	guard_note_verdicts(host, parts, count, &v);
	guard_ipc_watch(parts, count, v.any_saturated, decisions);
	v.ipc = guard_ipc_assess(parts, count);
	guard_assess_ipc(host, parts, count, &v);
	if (v.ipc.victim)
		v.gentle = false; /* an IPC drop says how much, not down to which rate: a bounded decrease */
	for (unsigned d = 0; d < v.domains; d++) {
		struct guard_domain_view *dv = &v.dom[d];
		dv->for_bandwidth = dv->known && dv->need_mbps > 0; /* asked only where it is saturated */
		dv->pressure = dv->for_bandwidth || (dv->known && v.ipc.victim && uses_domain(host, v.ipc.victim, d));
		v.any_pressure |= dv->pressure;
	}
	age_memory(host, parts, count, decisions, &v);
	guard_fit_minimums(host, parts, count, decisions);
	size_t *work = v.any_pressure ? work_for(host, count, stack, &allocated) : NULL;
	for (unsigned d = 0; d < v.domains; d++) {
		if (v.dom[d].pressure && work)
			guard_cut(host, d, parts, count, decisions, &v, work);
		else if (!v.dom[d].pressure && !v.ipc.low && v.dom[d].held)
			guard_give_back(host, d, parts, count, decisions, &v); /* not while a guarded IPC is low */
	}
	if (v.any_pressure) {
		guard_note_cut(host, parts, count, &v);
		if (v.ipc.victim)
			guard_ipc_note_cut(parts, count);
		free(allocated);
	}
	finish(parts, count, decisions, &v);
}
