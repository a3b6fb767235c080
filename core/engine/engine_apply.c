/* From measurements to limits: the policies' input, the chain, and applying only what changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/engine/domain_limits.h"
#include "core/engine/engine_internal.h"

/* Every this many ticks the limits are applied even when no decision changed, so that a change
 * made behind mpamd's back (another tool writing schemata) is undone within about a second. */
#define RECHECK_TICKS 10

/* Each domain's total this tick, and its capacity as the policies judge saturation; the host's total
 * into *host. The totals are the capacity learner's (one pass over the partitions for both). */
static void fill_host_domains(struct engine *e, struct capacity_tick *host)
{
	struct capacity_tick dom[ENGINE_MAX_DOMAINS];

	engine_capacity_learn(e, dom, host);
	for (unsigned d = 0; d < e->domains.count; d++) {
		/* The policies decide per domain only where the domains are the control's (per_domain). */
		int c = e->domains.dom[d].control;
		struct policy_host_domain *hd = &e->policy.host_domains[d];
		*hd = (struct policy_host_domain){
			.total_valid = dom[d].valid,
			.total_mbps = dom[d].total_mbps,
			.max_ladder = c >= 0 ? control_max_ladder(&e->hw.caps, (unsigned)c) : &e->hw.caps.max_ladder,
			.min_ladder = c >= 0 ? control_min_ladder(&e->hw.caps, (unsigned)c) : &e->hw.caps.min_ladder,
		};
		hd->capacity_mbps = engine_domain_policy_capacity(e, d, &hd->capacity_learned);
	}
}

static void fill_host(struct engine *e, struct policy_host *h)
{
	struct capacity_tick host;

	fill_host_domains(e, &host);
	*h = (struct policy_host){
		.tick = e->ticks.done,
		.interval_ms = e->gens.config->global.interval_ms,
		.max_ladder = &e->hw.caps.max_ladder,
		.min_ladder = &e->hw.caps.min_ladder,
		.has_mb_min = e->hw.caps.has_mb_min,
		.cpus = e->cpus,
		.total_mbps = host.total_mbps,
		.total_valid = host.valid,
		.domain_count = e->domains.per_domain ? e->domains.count : 0,
		.domains = e->domains.per_domain ? e->policy.host_domains : NULL,
		.work = e->policy.work,
	};
	h->capacity_mbps = engine_host_policy_capacity(e, &h->capacity_learned);
}

/* The ceiling and floor in force on domain d as the policies see them. In a shared class the class
 * holds mpamd's own rounding of what the partition asked (the class step's quantisation, a partition
 * held at its class's limits by mpamd's decision): the policies judge their decisions, and whether
 * something outside mpamd changed a limit, against what they asked. */
static void policy_in_force(const struct engine *e, const struct engine_partition *ep, unsigned d,
			    const struct domain_status *ds, struct policy_domain *pd)
{
	int c = e->domains.dom[d].control;

	if (!ep->status.in_class) {
		pd->mb_max = ds->mb_max;
		pd->mb_min = ds->mb_min;
		return;
	}
	pd->mb_max = c >= 0 ? slot_limits_max_at(&ep->applied, (unsigned)c) : ep->applied.mb_max;
	pd->mb_min = c >= 0 ? slot_limits_min_at(&ep->applied, (unsigned)c) : ep->applied.mb_min;
}

/* The policies' view of slot i, and its decision starting from what the configuration asks for. */
static void fill_partition(struct engine *e, size_t i)
{
	const struct engine_partition *ep = &e->slots.partitions[i];
	struct policy_partition *pp = &e->policy.partitions[i];
	struct policy_decision *dec = &e->policy.decisions[i];

	pp->open = ep->status.open;
	pp->valid = ep->status.valid;
	pp->estimated = ep->status.estimated;
	pp->mbps = ep->status.mbps;
	pp->smoothed_mbps = ep->status.smoothed_mbps;
	pp->mb_max = ep->status.in_class ? ep->applied.mb_max : ep->status.mb_max; /* see policy_in_force */
	pp->mb_min = ep->status.in_class ? ep->applied.mb_min : ep->status.mb_min;
	pp->cpu_quota_pct = ep->actuated.cpu_quota_pct;
	policy_decision_clear(dec); /* last tick's event, noted then */
	*dec = (struct policy_decision){ .mb_max = pp->cfg_max,
					 .mb_min = pp->cfg_min,
					 .cpu_quota_pct = pp->cpu_quota_pct };
	if (!e->domains.per_domain) /* pp->domains is its one domain's room (engine_slots.c) */
		return;
	dec->mb_max_at = &e->policy.max_at[i * e->domains.count];
	dec->mb_min_at = &e->policy.min_at[i * e->domains.count];
	for (unsigned d = 0; d < e->domains.count; d++) {
		const struct domain_status *ds = &e->domains.status[i * e->domains.count + d];
		struct policy_domain *pd = &pp->domains[d];
		pd->valid = ds->valid;
		pd->estimated = ds->estimated;
		pd->mbps = ds->mbps;
		policy_in_force(e, ep, d, ds, pd);
		dec->mb_max_at[d] = pd->cfg_max;
		dec->mb_min_at[d] = pd->cfg_min;
	}
}

static void note_event(struct engine *e, size_t index, uint64_t now_ns, const char *text);
static struct partition_limits limits_of(const struct engine *e, const struct partition_config *p, double mb_max,
					 double mb_min, const double *max_at, const double *min_at,
					 const struct partition_limits *before);

int engine_apply_limits(struct engine *e, size_t index, const struct partition_limits *want, struct err *err)
{
	struct engine_partition *ep = &e->slots.partitions[index];
	struct partition_limits eff = { 0 };

	int r = engine_slot_limits_room(e, index, err); /* before the hardware: keeping them cannot fail */

	if (r < 0)
		return r;
	if (engine_classes_shared(e))
		return engine_classes_apply(e, index, want, err);
	r = e->hw.control_ops->apply(e->hw.control, index, want, &eff, err);

	if (r < 0 && eff.changed_outside) {
		/* Changed outside mpamd and not put back: the other tool's limits are in force. */
		ep->status.mb_max = eff.mb_max;
		ep->status.mb_min = eff.mb_min;
	}
	if (r < 0)
		return r;
	engine_slot_applied(e, index);
	if (eff.changed_outside)
		note_event(e, index, clock_now(&e->clock), "restore: limits had been changed outside mpamd");
	engine_slot_keep_limits(e, index, want, &eff);
	ep->applied_once = true;
	ep->status.mb_max = eff.mb_max;
	ep->status.mb_min = eff.mb_min;
	return 0;
}

static void note_event_logged_as(struct engine *e, size_t index, uint64_t now_ns, const char *text,
				 const char *log_text)
{
	struct engine_partition *ep = &e->slots.partitions[index];
	struct partition_status *st = &ep->status;

	if (!ep->event_text)
		ep->event_text = malloc(EVENT_TEXT_MAX);
	if (ep->event_text) { /* else the tick's row goes without it; the log and the event log have it */
		size_t used = st->event ? strlen(st->event) : 0;
		snprintf(ep->event_text + used, EVENT_TEXT_MAX - used, "%s%s", used ? "; " : "", text);
		st->event = ep->event_text;
	}
	event_log_add(&e->events, e->ticks.done, engine_t_ms(e, now_ns), engine_wall_ms(e, now_ns), st->name, text);
	log_info("partition %s: %s", st->name, log_text);
}

static void note_event(struct engine *e, size_t index, uint64_t now_ns, const char *text)
{
	note_event_logged_as(e, index, now_ns, text, text);
}

/* Every actuator carries out `want`; the partition's actuation changes only when all could. */
static int actuate(struct engine *e, size_t index, const struct actuation *want, struct err *err)
{
	for (size_t a = 0; a < e->hw.actuator_count; a++) {
		struct engine_actuator *act = &e->hw.actuators[a];
		int r = act->ops->apply ? act->ops->apply(act->actuator, index, want, err) : 0;
		if (r < 0)
			return r;
	}
	e->slots.partitions[index].actuated = *want;
	e->slots.partitions[index].status.cpu_quota_pct = want->cpu_quota_pct;
	return 0;
}

/* What a control's apply fails with when the partition's group is no longer there: ENOENT from a
 * lookup in a removed kernfs directory, ENODEV from a file of a removed kernfs node, ESTALE where a
 * FUSE file system (the resctrl emulator) stands in for kernfs, ENOTCONN from the files of a FUSE
 * mount whose server went (resctrl-emu stopped, the whole tree gone). */
static bool hardware_side_gone(int r)
{
	return r == -ENOENT || r == -ENODEV || r == -ESTALE || r == -ENOTCONN;
}

/* The partition's hardware side is gone (its resctrl group removed by someone else): make it again
 * with the limits it should have; when that fails too (resctrl unmounted), it is a failed partition,
 * tried again with a growing pause (engine_partition.c). */
static void recreate(struct engine *e, size_t index, const struct partition_limits *want, uint64_t now_ns)
{
	struct engine_partition *ep = &e->slots.partitions[index];
	struct err err = { "" };

	if (composition_partition_reopen(&e->hw, index, ep->config, &ep->ref, &err) < 0 ||
	    engine_apply_limits(e, index, want, &err) < 0) {
		char text[ERR_TEXT_MAX];
		snprintf(text, sizeof(text), "removed outside mpamd and cannot be made again: %.200s", err.text);
		engine_slot_failed(e, index, now_ns, text);
		return;
	}
	note_event(e, index, now_ns, "recreate: its group had been removed outside mpamd");
}

/* Whether decision d asks, domain by domain, for exactly the limits the last apply asked for: then
 * limits_of would give those limits back (a value on its rung stays there) and nothing changed. A
 * decision that differs may still snap onto the same rungs: limits_of decides that. This is the test
 * of most partitions on most ticks, without building and snapping a whole struct partition_limits. */
static bool decision_as_applied(const struct engine *e, const struct engine_partition *ep,
				const struct policy_decision *d)
{
	const struct slot_limits *a = &ep->applied;
	unsigned n = e->hw.caps.domain_count;
	unsigned mbps = e->hw.caps.mb_kernel_mbps ? ep->config->goals.target_mbps : 0;

	if (!ep->applied_once || !d->mb_max_at || !d->mb_min_at || !n || a->domain_count != n || a->mb_mbps != mbps)
		return false;
	for (unsigned c = 0; c < n; c++)
		if (d->mb_max_at[c] != a->mb_max_at[c] || d->mb_min_at[c] != a->mb_min_at[c])
			return false;
	return true;
}

static void apply_decision(struct engine *e, size_t index, const struct policy_decision *d, uint64_t now_ns)
{
	struct engine_partition *ep = &e->slots.partitions[index];
	const struct partition_config *p = ep->config;
	struct actuation act = { .cpu_quota_pct = d->cpu_quota_pct };
	struct err err = { "" };
	int r = 0;

	if (d->event)
		note_event(e, index, now_ns, policy_decision_event(d));
	e->events.folded += d->folded;
	bool recheck = e->ticks.done % RECHECK_TICKS == 0;

	if (recheck || !decision_as_applied(e, ep, d)) {
		/* What the last apply asked for was snapped on the same ladders (a close, and so a new
		 * backend, clears applied_once). */
		struct partition_limits kept;
		const struct partition_limits *last = ep->applied_once ? slot_limits_load(&ep->applied, &kept) : NULL;
		struct partition_limits want = limits_of(e, p, d->mb_max, d->mb_min, d->mb_max_at, d->mb_min_at, last);
		bool changed = !last || !limits_same_mb(&want, last, e->hw.caps.domain_count);
		r = changed || recheck ? engine_apply_limits(e, index, &want, &err) : 0;
		if (hardware_side_gone(r))
			recreate(e, index, &want, now_ns);
	}
	if (r < 0 && !hardware_side_gone(r))
		engine_slot_apply_failed(e, index, err.text);
	if (!ep->status.open)
		return; /* it failed: tried again later (engine_heal) */
	if (act.cpu_quota_pct != ep->actuated.cpu_quota_pct && actuate(e, index, &act, &err) < 0)
		log_error("partition %s: escalation: %s", p->name, err.text);
}

const struct partition_goals *engine_goals_pct(const struct engine *e, const struct partition_goals *g,
					       struct partition_goals_buf *buf)
{
	struct err err = { "" };
	const struct partition_goals *pct = domain_goals_pct(&e->hw.caps, &e->gens.config->global, g, buf, &err);

	if (pct)
		return pct;
	/* engine_check_goals refuses such goals before they are used: no limit rather than a wrong one */
	buf->goals = *g;
	buf->goals.mb_max = 100;
	buf->goals.mb_min = 0;
	buf->goals.mb_max_at = buf->goals.mb_min_at = (struct domain_values){ 0 };
	buf->goals.mb_max_mbps = buf->goals.mb_min_mbps = false;
	return &buf->goals;
}

struct partition_limits engine_config_limits(const struct engine *e, const struct partition_config *p)
{
	struct partition_goals_buf buf;
	const struct partition_goals *g = engine_goals_pct(e, &p->goals, &buf);

	return engine_limits(e, p, g->mb_max, g->mb_min, NULL, NULL);
}

/* Every limit of `l` on a rung of its domain's ladders, as control_snap_limits does, but a per-domain
 * value that `before` (limits that were snapped so: what the last apply asked for) already holds is
 * taken as it is: snapping is idempotent (ladder_snap returns the rung whose percent a value is), and
 * a decision that did not move is most of them at every tick and on every domain. */
static void snap_limits(const struct control_caps *c, struct partition_limits *l, const struct partition_limits *before)
{
	if (!before || before->domain_count != l->domain_count) {
		control_snap_limits(c, l);
		return;
	}
	l->mb_max = control_snap_max(&c->max_ladder, l->mb_max);
	l->mb_min = control_snap_min(&c->min_ladder, l->mb_min);
	for (unsigned d = 0; d < l->domain_count && d < CONTROL_MAX_DOMAINS; d++) {
		if (l->mb_max_at[d] != before->mb_max_at[d])
			l->mb_max_at[d] = control_snap_max(control_max_ladder(c, d), l->mb_max_at[d]);
		if (l->mb_min_at[d] != before->mb_min_at[d])
			l->mb_min_at[d] = control_snap_min(control_min_ladder(c, d), l->mb_min_at[d]);
	}
}

static struct partition_limits limits_of(const struct engine *e, const struct partition_config *p, double mb_max,
					 double mb_min, const double *max_at, const double *min_at,
					 const struct partition_limits *before)
{
	struct partition_goals_buf buf;
	struct partition_limits l = { .l3_cbm = p->goals.l3_cbm,
				      .mb_mbps = e->hw.caps.mb_kernel_mbps ? p->goals.target_mbps : 0,
				      .mb_max = mb_max,
				      .mb_min = mb_min,
				      .domain_count = e->hw.caps.domain_count };

	/* Per-domain decisions exist only where the engine's domains are the control's, in order; without
	 * them each domain gets the configuration's value for it. */
	if (!max_at || !min_at) {
		domain_limits_fill(&e->hw.caps, engine_goals_pct(e, &p->goals, &buf), mb_max, mb_min, &l);
		return l;
	}
	for (unsigned c = 0; c < l.domain_count; c++) {
		l.mb_max_at[c] = max_at[c];
		l.mb_min_at[c] = min_at[c];
	}
	snap_limits(&e->hw.caps, &l, before);
	limits_summarise(&l);
	return l;
}

struct partition_limits engine_limits(const struct engine *e, const struct partition_config *p, double mb_max,
				      double mb_min, const double *max_at, const double *min_at)
{
	return limits_of(e, p, mb_max, mb_min, max_at, min_at, NULL);
}

int engine_check_goals(const struct engine *e, const struct global_config *gc, const struct partition_config *p,
		       struct err *err)
{
	struct partition_goals_buf buf;
	int r = engine_check_goal_domains(e, &p->goals, err);

	if (r < 0)
		return r;
	if (!domain_goals_pct(&e->hw.caps, gc, &p->goals, &buf, err))
		return -EINVAL;
	if (e->hw.caps.mb_kernel_mbps && p->goals.guarantee_mbps)
		return err_set(err, -EOPNOTSUPP,
			       "guarantee_mbps needs mpamd's guard, which does not run on top of the kernel's "
			       "mba_MBps controller: give the neighbours target_mbps ceilings, or remount resctrl "
			       "without mba_MBps");
	return 0;
}

/* The policies to run: the configured chain, or under the kernel's own MB/s controller (mba_MBps)
 * only the static one, so that no second bandwidth loop runs on top of the kernel's. */
static const struct policy_chain *policy_chain_of(const struct engine *e)
{
	if (e->opts.policies)
		return e->opts.policies;
	return e->hw.caps.mb_kernel_mbps ? &policy_chain_static : &policy_chain_default;
}

/* The guard's verdict of this tick on each domain into slot i's rows there, for monitoring. */
static void note_verdicts(struct engine *e, size_t i)
{
	const struct policy_partition *pp = &e->policy.partitions[i];

	for (unsigned d = 0; d < e->domains.count; d++) {
		const struct guard_domain_memory *m = &pp->domains[e->domains.per_domain ? d : 0].guard;
		struct domain_status *ds = &e->domains.status[i * e->domains.count + d];
		ds->guard_judged = m->judged;
		ds->guard_short = m->short_here;
	}
}

void engine_run_policies(struct engine *e, uint64_t now_ns)
{
	const struct policy_chain *chain = policy_chain_of(e);
	size_t n = e->slots.count;
	struct policy_host host;

	fill_host(e, &host);
	for (size_t i = 0; i < n; i++)
		if (e->slots.partitions[i].used) /* a free slot: never open, so every policy leaves it alone */
			fill_partition(e, i);	 /* from what the configuration asks for; the policies move away */
	for (size_t f = 0; f < chain->count; f++)
		chain->fns[f](&host, e->policy.partitions, n, e->policy.decisions);
	engine_classes_tick_begin(e);
	for (size_t i = 0; i < n; i++) {
		if (!e->slots.partitions[i].used || !e->slots.partitions[i].status.open)
			continue;
		note_verdicts(e, i);
		apply_decision(e, i, &e->policy.decisions[i], now_ns);
		policy_decision_clear(&e->policy.decisions[i]); /* noted: the text is not kept until the next tick */
	}
	engine_classes_tick_end(e); /* shared classes: one step for every decision */
}

int engine_validate_limits(struct engine *e, const struct partition_limits *want, struct err *err)
{
	const struct control_ops *ops = e->hw.control_ops;

	return ops->validate ? ops->validate(e->hw.control, want, err) : 0;
}

void engine_note_event(struct engine *e, size_t index, const char *text)
{
	note_event(e, index, clock_now(&e->clock), text);
}

void engine_note_event_logged_as(struct engine *e, size_t index, const char *text, const char *log_text)
{
	note_event_logged_as(e, index, clock_now(&e->clock), text, log_text);
}

/* Every open partition to its configured limits (`configured`) or to none, and no CPU quota. */
static void release_limits(struct engine *e, bool configured)
{
	uint64_t full_cbm = e->hw.caps.cbm_bits >= 64 ? ~0ull : (1ull << e->hw.caps.cbm_bits) - 1;
	const struct actuation none_act = { 0 };

	for (size_t i = 0; e->hw.control && i < e->slots.count; i++) {
		if (!e->slots.partitions[i].used || !e->slots.partitions[i].status.open)
			continue;
		const struct partition_config *p = e->slots.partitions[i].config;
		struct partition_limits none = { .mb_max = 100, .mb_min = 0, .l3_cbm = p->goals.l3_cbm ? full_cbm : 0 };
		struct partition_limits want = configured ? engine_config_limits(e, p) : none;
		struct err err = { "" };
		if (engine_apply_limits(e, i, &want, &err) < 0)
			log_error("partition %s: %s: %s", p->name,
				  configured ? "back to its configured limits" : "reset", err.text);
		if (e->slots.partitions[i].actuated.cpu_quota_pct && actuate(e, i, &none_act, &err) < 0)
			log_error("partition %s: restoring the CPU quota: %s", p->name, err.text);
	}
}

void engine_configured_limits(struct engine *e)
{
	release_limits(e, true);
}

void engine_reset_limits(struct engine *e)
{
	release_limits(e, false);
}
