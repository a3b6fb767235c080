/* Slots: the number a partition keeps for its lifetime, by which the backends know it. The per-slot
 * arrays grow when a slot beyond them is needed; a freed slot is given to the next partition. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/engine/engine_internal.h"

size_t engine_policy_domains(const struct engine *e)
{
	return e->domains.count ? e->domains.count : 1;
}

/* The per-slot arrays of the engine's domains, grown to `next` slots like the others. */
static int grow_domain_arrays(struct engine *e, size_t next)
{
	size_t doms = engine_policy_domains(e), cap = e->slots.cap, c = cap;

	if (array_grow((void **)&e->domains.status, &c, next, doms * sizeof(*e->domains.status), NULL) < 0)
		return -ENOMEM;
	c = cap;
	if (array_grow((void **)&e->policy.domains, &c, next, doms * sizeof(*e->policy.domains), NULL) < 0)
		return -ENOMEM;
	c = cap;
	if (array_grow((void **)&e->policy.max_at, &c, next, doms * sizeof(*e->policy.max_at), NULL) < 0)
		return -ENOMEM;
	c = cap;
	if (array_grow((void **)&e->policy.min_at, &c, next, doms * sizeof(*e->policy.min_at), NULL) < 0)
		return -ENOMEM;
	c = cap;
	if (array_grow((void **)&e->policy.work, &c, next, sizeof(*e->policy.work), NULL) < 0)
		return -ENOMEM;
	return 0;
}

/* The policies' view of a slot, empty but for its domains' room and goals of none: the policies pass
 * over every slot, a free one too (each slot's one domain without domain arrays, policy.h). */
static void view_clear(struct engine *e, size_t slot, const char *name)
{
	static const struct partition_goals none;

	e->policy.partitions[slot] = (struct policy_partition){
		.name = name, .goals = &none, .domains = &e->policy.domains[slot * engine_policy_domains(e)]
	};
}

/* Every per-slot array holds `want` slots; each grows by doubling, so they stay the same length. */
static int grow_arrays(struct engine *e, size_t want)
{
	size_t domains = e->hw.domain_count ? e->hw.domain_count : 1;
	size_t cap = e->slots.cap, c;

	if (want <= cap)
		return 0;
	c = cap;
	if (array_grow((void **)&e->slots.partitions, &c, want, sizeof(*e->slots.partitions), NULL) < 0)
		return -ENOMEM;
	size_t next = c;
	c = cap;
	if (array_grow((void **)&e->policy.partitions, &c, next, sizeof(*e->policy.partitions), NULL) < 0)
		return -ENOMEM;
	c = cap;
	if (array_grow((void **)&e->policy.decisions, &c, next, sizeof(*e->policy.decisions), NULL) < 0)
		return -ENOMEM;
	c = cap;
	if (array_grow((void **)&e->slots.samples, &c, next, domains * sizeof(*e->slots.samples), NULL) < 0)
		return -ENOMEM;
	c = cap;
	if (array_grow((void **)&e->slots.pmu, &c, next, sizeof(*e->slots.pmu), NULL) < 0)
		return -ENOMEM;
	if (grow_domain_arrays(e, next) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < next; i++)
		if (i >= cap) /* a free slot: never open, so the policies leave it alone */
			view_clear(e, i, "");
		else /* moved with its array */
			e->policy.partitions[i].domains = &e->policy.domains[i * engine_policy_domains(e)];
	e->slots.cap = next;
	return 0;
}

int engine_slot_alloc(struct engine *e, size_t *ret, struct err *err)
{
	size_t slot = e->slots.free_from;

	/* Still the lowest free slot, in amortised constant time: freeing a slot lowers free_from to it,
	 * filling the slot at free_from raises it by one. */
	while (slot < e->slots.count && e->slots.partitions[slot].used)
		slot++;
	if (grow_arrays(e, slot + 1) < 0)
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", slot);
	e->slots.free_from = slot;
	*ret = slot;
	return 0;
}

/* A slot's samples say nothing was measured until a monitor writes them; its domains hold nothing. */
static void clear_samples(struct engine *e, size_t slot)
{
	for (unsigned d = 0; d < e->hw.domain_count; d++)
		e->slots.samples[slot * e->hw.domain_count + d] =
			(struct sample){ .state = SAMPLE_INVALID, .reason = "not measured yet" };
	for (unsigned d = 0; d < e->domains.count; d++)
		e->domains.status[slot * e->domains.count + d] = (struct domain_status){ .reason = "not measured yet" };
	for (size_t d = 0, doms = engine_policy_domains(e); d < doms; d++)
		e->policy.domains[slot * doms + d] = (struct policy_domain){ 0 };
}

void engine_slot_set_origin(struct engine_partition *ep, const char *origin)
{
	if (!origin || !origin[0])
		engine_text_free(&ep->origin);
	else if (!ep->origin || strcmp(ep->origin, origin))
		engine_text_set(&ep->origin, origin);
}

void engine_slot_fill(struct engine *e, size_t slot, struct engine_gen *g, struct partition_config *p,
		      const char *origin)
{
	struct engine_partition *ep = &e->slots.partitions[slot];

	*ep = (struct engine_partition){ .used = true, .config = p, .gen = g };
	engine_slot_set_origin(ep, origin);
	ep->status.name = p->name;
	engine_gen_hold(g);
	view_clear(e, slot, NULL);
	policy_decision_clear(&e->policy.decisions[slot]);
	e->policy.decisions[slot] = (struct policy_decision){ 0 };
	e->slots.pmu[slot] = (struct pmu_sample){ .open = false };
	clear_samples(e, slot);
	engine_policy_config(e, slot);
	if (slot == e->slots.free_from)
		e->slots.free_from = slot + 1;
	if (slot >= e->slots.count)
		e->slots.count = slot + 1;
}

int engine_slot_limits_room(struct engine *e, size_t slot, struct err *err)
{
	struct engine_partition *ep = &e->slots.partitions[slot];
	int r = slot_limits_room(&ep->limits_room, &ep->limits_domains, e->hw.caps.domain_count, &ep->applied,
				 &ep->effective);

	if (r != 0)
		ep->applied_once = false; /* what it had asked for per domain is gone: the next tick applies */
	return r < 0 ? err_set(err, -ENOMEM, "out of memory for the limits of slot %zu", slot) : 0;
}

void engine_slot_keep_limits(struct engine *e, size_t slot, const struct partition_limits *applied,
			     const struct partition_limits *effective)
{
	struct engine_partition *ep = &e->slots.partitions[slot];

	if (applied)
		slot_limits_keep(&ep->applied, ep->limits_domains, applied);
	if (effective)
		slot_limits_keep(&ep->effective, ep->limits_domains, effective);
}

void engine_slot_forget_file_goals(struct engine_partition *ep)
{
	if (ep->file_goals)
		partition_goals_fini(ep->file_goals);
	free(ep->file_goals);
	ep->file_goals = NULL;
}

void engine_slot_free(struct engine *e, size_t slot)
{
	struct engine_gen *g = e->slots.partitions[slot].gen;

	engine_slot_forget_file_goals(&e->slots.partitions[slot]);
	free(e->slots.partitions[slot].limits_room);
	free(e->slots.partitions[slot].event_text);
	engine_text_free(&e->slots.partitions[slot].origin);
	engine_text_free(&e->slots.partitions[slot].error);
	engine_text_free(&e->slots.partitions[slot].pmu_reason);
	free(e->policy.partitions[slot].target);
	e->slots.partitions[slot] = (struct engine_partition){ .used = false };
	view_clear(e, slot, "");
	policy_decision_clear(&e->policy.decisions[slot]);
	e->policy.decisions[slot] = (struct policy_decision){ 0 };
	clear_samples(e, slot);
	if (slot < e->slots.free_from)
		e->slots.free_from = slot;
	while (e->slots.count > 0 && !e->slots.partitions[e->slots.count - 1].used)
		e->slots.count--;
	engine_gen_drop(&e->gens, g);
}

long engine_slot_by_name(const struct engine *e, const char *name)
{
	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used && !strcmp(e->slots.partitions[i].config->name, name))
			return (long)i;
	return -1;
}

void engine_slots_free(struct engine *e)
{
	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used) {
			engine_slot_forget_file_goals(&e->slots.partitions[i]);
			free(e->slots.partitions[i].limits_room);
			free(e->slots.partitions[i].event_text);
			engine_text_free(&e->slots.partitions[i].origin);
			engine_text_free(&e->slots.partitions[i].error);
			engine_text_free(&e->slots.partitions[i].pmu_reason);
			free(e->policy.partitions[i].target);
			engine_gen_drop(&e->gens, e->slots.partitions[i].gen);
		}
	for (size_t i = 0; i < e->slots.cap; i++)
		policy_decision_clear(&e->policy.decisions[i]);
	free(e->slots.partitions);
	free(e->policy.partitions);
	free(e->policy.decisions);
	free(e->slots.samples);
	free(e->slots.pmu);
	free(e->domains.status);
	free(e->policy.domains);
	free(e->policy.max_at);
	free(e->policy.min_at);
	free(e->policy.work);
	e->domains.status = NULL;
	e->policy.domains = NULL;
	e->policy.max_at = e->policy.min_at = NULL;
	e->policy.work = NULL;
	e->slots.partitions = NULL;
	e->policy.partitions = NULL;
	e->policy.decisions = NULL;
	e->slots.samples = NULL;
	e->slots.pmu = NULL;
	e->slots.count = e->slots.cap = e->slots.free_from = 0;
}
