/* Classes shared by partitions (engine_classes_internal.h). The class step runs once per tick after the
 * policies decided, and at once for what happens between ticks (`set`, a reload, on_stop); a partition
 * that opens is only placed (class_place), and the next step places it with the others, so that a
 * thousand partitions opening at start are one plan, not a thousand. A step: the partitions' wanted
 * ceilings go through class_assign (no I/O), each class used is given its limits where they changed,
 * partitions whose class changed are moved, and classes left empty are released. A move that keeps
 * the partition's counts (a rename) needs nothing more; one that gives it a new group
 * (CLASS_MOVE_ANEW) has the monitors take it again, so its next sample is a new baseline and no count
 * is doubled or lost. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/engine/engine_internal.h"
#include "policies/class_assign.h"

/* Every this many ticks the classes' limits are written even when unchanged (undoing another tool's
 * write, as engine_apply.c does for partitions) and the room is counted again. */
#define CLASS_RECHECK_TICKS 10
/* How long a given-back monitoring id is asked for (the kernel's limbo check runs every second and
 * frees an id once its cache lines have faded). */
#define CLASS_RESEAT_NS (60ull * 1000000000ull)

static const struct control_class_ops *ops_of(const struct engine *e)
{
	return e->hw.control_ops->classes;
}

bool engine_classes_shared(const struct engine *e)
{
	return e->classes.shared;
}

static bool grow_slots(struct engine_classes *c, size_t slots)
{
	size_t first;

	if (array_grow((void **)&c->per_slot, &c->slots_cap, slots, sizeof(*c->per_slot), &first) < 0)
		return false;
	for (size_t i = first; i < c->slots_cap; i++)
		c->per_slot[i].class_of = -1;
	return true;
}

static bool grow_classes(struct engine_classes *c, size_t classes)
{
	return array_grow((void **)&c->per_class, &c->classes_cap, classes, sizeof(*c->per_class), NULL) == 0;
}

void engine_classes_free(struct engine *e)
{
	free(e->classes.per_slot);
	free(e->classes.per_class);
	e->classes = (struct engine_classes){ 0 };
}

void engine_classes_start(struct engine *e)
{
	struct engine_classes *c = &e->classes;
	const struct control_class_ops *ops = ops_of(e);
	const struct control_caps *caps = &e->hw.caps;
	unsigned mode = e->gens.config->global.classes;
	unsigned hw =
		caps->partitions_max > caps->partitions_reserved ? caps->partitions_max - caps->partitions_reserved : 0;
	size_t n = e->gens.config->partition_count;
	const char *name = classes_mode_names[mode];
	struct err err = { "" };

	c->domains = caps->domain_count ? caps->domain_count : 1;
	c->domains = c->domains < CONTROL_MAX_DOMAINS ? c->domains : CONTROL_MAX_DOMAINS;
	if (mode == CLASSES_OWN)
		return;
	if (!ops) {
		log_info("classes = %s: the %s backend gives each partition a class of its own", name,
			 e->hw.control_ops->name);
		return;
	}
	if (caps->mb_kernel_mbps) {
		log_warning("classes = %s: under the kernel's MB/s controller (mba_MBps) each partition keeps a "
			    "class of its own",
			    name);
		return;
	}
	if (mode == CLASSES_AUTO && n <= hw) {
		log_info("classes = auto: %zu partition(s) and %u classes: each partition a class of its own", n, hw);
		return;
	}
	if (ops->share(e->hw.control, &err) < 0) {
		log_error("classes = %s: %s; each partition keeps a class of its own", name, err.text);
		return;
	}
	c->shared = true;
	log_info("classes = %s: %zu partition(s) share the %s backend's classes (%u here), each measured by itself "
		 "while monitoring ids last",
		 name, n, e->hw.control_ops->name, hw);
}

/* Records what slot `slot` asks for. */
static int record(struct engine *e, size_t slot, const struct partition_limits *want, struct err *err)
{
	struct engine_classes *c = &e->classes;
	const struct partition_goals *g = &e->slots.partitions[slot].config->goals;

	if (!grow_slots(c, slot + 1))
		return err_set(err, -ENOMEM, "out of memory for the classes of slot %zu", slot);
	struct class_slot *cs = &c->per_slot[slot];
	for (unsigned d = 0; d < c->domains; d++)
		cs->asked[d] = limits_max_at(want, d);
	cs->protect = g->class == CLASS_LATENCY_CRITICAL || g->guarantee_mbps > 0;
	cs->asking = true;
	return 0;
}

/* A partition the classes hold now: open in the control, in a class, asking. */
static bool member(const struct engine *e, size_t slot)
{
	const struct engine_classes *c = &e->classes;

	return slot < c->slots_cap && e->slots.partitions[slot].used && e->slots.partitions[slot].hw_open &&
	       c->per_slot[slot].class_of >= 0 && c->per_slot[slot].asking;
}

/* A class failure, logged once while it stays the same. */
static void say_once(struct engine_classes *c, const char *text)
{
	if (!strcmp(c->last_error, text))
		return;
	snprintf(c->last_error, sizeof(c->last_error), "%s", text);
	log_error("classes: %s", text);
}

static void refresh_room(struct engine *e)
{
	ops_of(e)->room(e->hw.control, e->classes.recount, &e->classes.room);
	e->classes.room_known = true;
	e->classes.recount = false;
}

/* How many class ids the step may use: those held and those the hardware has left, and at least up to
 * the highest held (a partition in it keeps its place). */
static unsigned class_budget(struct engine *e)
{
	struct engine_classes *c = &e->classes;
	unsigned held = 0, top = 0;

	if (!c->room_known)
		refresh_room(e);
	for (size_t k = 0; k < c->classes_cap; k++)
		if (c->per_class[k].known) {
			held++;
			top = (unsigned)k + 1;
		}
	unsigned budget = held + c->room.left;
	return budget > top ? budget : top;
}

/* The class budget in *ret, at least one, with room for that many classes: 0, -ENOSPC (every class the
 * hardware has is another group's) or -ENOMEM, and why. */
static int usable_budget(struct engine *e, unsigned *ret, struct err *err)
{
	*ret = class_budget(e);
	if (*ret == 0)
		return err_set(err, -ENOSPC, "no class left: every one the %s backend has is held by other groups",
			       e->hw.control_ops->name);
	if (!grow_classes(&e->classes, *ret))
		return err_set(err, -ENOMEM, "out of memory for %u classes", *ret);
	return 0;
}

/* Class `cls` holds `limits` (one per domain): written where they changed, or at a recheck. Whether it
 * holds them (a write refused leaves a made class with what it held, and moves none into it). */
static bool hold(struct engine *e, unsigned cls, const double *limits, bool recheck)
{
	struct engine_classes *c = &e->classes;
	struct class_held *ch = &c->per_class[cls];
	struct partition_limits want = limits_unlimited(e->hw.caps.domain_count);
	struct err err = { "" };

	if (ch->known && !memcmp(ch->at, limits, c->domains * sizeof(*ch->at)) && !recheck)
		return true;
	want.mb_max = limits[0];
	for (unsigned d = 0; d < e->hw.caps.domain_count; d++)
		want.mb_max_at[d] = limits[d];
	limits_summarise(&want);
	int r = ops_of(e)->apply(e->hw.control, cls, &want, &ch->eff, &err);
	if (r < 0) {
		say_once(c, err.text);
		c->room_known = false;
		return false;
	}
	if (!ch->known)
		c->room_known = false; /* a class was made */
	ch->known = true;
	memcpy(ch->at, limits, c->domains * sizeof(*ch->at));
	return true;
}

/* Slot `slot`, in class `cls` (-1: none), leaves it: a monitoring group of its own (`measured`) is a
 * monitoring id its class has again. */
static void leaves(struct engine *e, int cls, bool measured)
{
	struct engine_classes *c = &e->classes;

	if (!measured || cls < 0 || (size_t)cls >= c->classes_cap)
		return;
	c->per_class[cls].freed++;
	c->per_class[cls].freed_now = true;
	c->per_class[cls].freed_until_ns = clock_now(&e->clock) + CLASS_RESEAT_NS;
}

static void move(struct engine *e, size_t slot, unsigned to)
{
	struct engine_classes *c = &e->classes;
	struct engine_partition *ep = &e->slots.partitions[slot];
	int from = c->per_slot[slot].class_of;
	char text[EVENT_TEXT_MAX];
	struct err err = { "" };
	bool measured = !ep->ref.unmeasured;
	int r = ops_of(e)->move(e->hw.control, slot, to, &ep->ref, &err);

	if (r < 0) {
		char why[ERR_TEXT_MAX];
		snprintf(why, sizeof(why), "partition %s stays in class %d: %.200s", ep->config->name, from, err.text);
		say_once(c, why);
		return;
	}
	c->per_slot[slot].class_of = (int)to;
	leaves(e, from, measured);
	if (r == CLASS_MOVE_ANEW && composition_remonitor(&e->hw, slot, &ep->ref, &err) < 0) {
		snprintf(text, sizeof(text), "moved to class %u, and cannot be measured there: %.150s", to, err.text);
		engine_slot_failed(e, slot, clock_now(&e->clock), text);
		return;
	}
	snprintf(text, sizeof(text), "class: moved from class %d to %u%s", from, to,
		 ep->ref.unmeasured	? " into the class's own group (not measured by itself)"
		 : r == CLASS_MOVE_ANEW ? " in a new group (its count starts again)"
					: "");
	engine_note_event(e, slot, text);
}

/* Unmeasured member `slot` of class `cls`, which a measured member left: the control is asked for a
 * group of its own there (a move into the class it is in). Whether it got one. */
static bool reseat(struct engine *e, size_t slot, unsigned cls)
{
	struct engine_partition *ep = &e->slots.partitions[slot];
	char text[EVENT_TEXT_MAX];
	struct err err = { "" };
	int r = ops_of(e)->move(e->hw.control, slot, cls, &ep->ref, &err);

	if (r < 0)
		log_warning("partition %s: still measured only as part of class %u: %s", ep->config->name, cls,
			    err.text);
	if (r < 0 || ep->ref.unmeasured)
		return false;
	e->classes.per_class[cls].freed--;
	if (composition_remonitor(&e->hw, slot, &ep->ref, &err) < 0) {
		snprintf(text, sizeof(text),
			 "given a group of its own in class %u, and cannot be measured there: %.150s", cls, err.text);
		engine_slot_failed(e, slot, clock_now(&e->clock), text);
		return true;
	}
	snprintf(text, sizeof(text),
		 "class: measured by itself again, in a group of its own in class %u (a monitoring id of its class "
		 "was given back; its count starts now)",
		 cls);
	engine_note_event(e, slot, text);
	return true;
}

/* Classes whose measured members left give the monitoring ids they left to unmeasured members, in
 * slot order, while the control finds one: at the step after, then at each recheck (`recheck`) for
 * CLASS_RESEAT_NS, since the kernel may keep an id in limbo (on MPAM its rmdir'd PMG is refused with
 * "Out of RMIDs" until it is clean). A class whose ask finds none is not asked again in the step. */
static void reseat_unmeasured(struct engine *e, bool recheck)
{
	struct engine_classes *c = &e->classes;
	uint64_t now = clock_now(&e->clock);

	for (size_t i = 0; i < e->slots.count; i++) {
		int cls = member(e, i) ? c->per_slot[i].class_of : -1;
		if (cls < 0 || (size_t)cls >= c->classes_cap || !e->slots.partitions[i].ref.unmeasured)
			continue;
		struct class_held *ch = &c->per_class[cls];
		if (ch->freed && (ch->freed_now || recheck) && !ch->full_now)
			ch->full_now = !reseat(e, i, (unsigned)cls);
	}
	for (size_t k = 0; k < c->classes_cap; k++) {
		struct class_held *ch = &c->per_class[k];
		ch->freed_now = ch->full_now = false;
		if (!ch->known || now >= ch->freed_until_ns)
			ch->freed = 0;
	}
}

/* What its class holds is what is in force for it. */
static void fill(struct engine *e, size_t slot)
{
	struct engine_classes *c = &e->classes;
	struct engine_partition *ep = &e->slots.partitions[slot];
	int cls = c->per_slot[slot].class_of;

	if (cls < 0 || !c->per_class[cls].known)
		return;
	engine_slot_keep_limits(e, slot, NULL, &c->per_class[cls].eff);
	ep->applied_once = true;
	ep->status.mb_max = ep->effective.mb_max;
	ep->status.mb_min = ep->effective.mb_min;
	ep->status.in_class = true;
	ep->status.class_id = (unsigned)cls;
	ep->status.mb_max_asked = ep->applied.mb_max;
}

/* Classes held that no partition is in any more are released. */
static void release_empty(struct engine *e)
{
	struct engine_classes *c = &e->classes;
	bool *used = calloc(c->classes_cap ? c->classes_cap : 1, sizeof(*used));
	struct err err = { "" };

	if (!used)
		return; /* kept until the next step */
	for (size_t i = 0; i < e->slots.count; i++)
		if (member(e, i) && (size_t)c->per_slot[i].class_of < c->classes_cap)
			used[c->per_slot[i].class_of] = true;
	for (size_t k = 0; k < c->classes_cap; k++) {
		if (!c->per_class[k].known || used[k])
			continue;
		c->per_class[k].known = false;
		c->room_known = false;
		if (ops_of(e)->release(e->hw.control, (unsigned)k, &err) < 0)
			say_once(c, err.text);
	}
	free(used);
}

struct step_work {
	struct class_want *wants;
	size_t *slot_of;
	size_t count;
	double *held; /* [class][domain]: what each class id the step may use was asked to hold */
	bool *holds;  /* per class: it holds what the assignment gives it */
};

/* What each of the first `budget` class ids was asked to hold, one row of `domains` each: the shape
 * class_assign takes. 0 or -ENOMEM. */
static int gather_held(const struct engine_classes *c, unsigned budget, struct step_work *w, struct err *err)
{
	w->held = calloc((size_t)budget * c->domains, sizeof(*w->held));
	if (!w->held)
		return err_set(err, -ENOMEM, "out of memory for the class step");
	for (unsigned k = 0; k < budget; k++)
		memcpy(&w->held[(size_t)k * c->domains], c->per_class[k].at, c->domains * sizeof(*w->held));
	return 0;
}

static int gather(struct engine *e, struct step_work *w, struct err *err)
{
	struct engine_classes *c = &e->classes;
	size_t n = e->slots.count + 1; /* + 1: calloc(0) may give NULL */

	w->wants = calloc(n, sizeof(*w->wants));
	w->slot_of = calloc(n, sizeof(*w->slot_of));
	if (!w->wants || !w->slot_of)
		return err_set(err, -ENOMEM, "out of memory for the class step");
	for (size_t i = 0; i < e->slots.count; i++) {
		if (!member(e, i))
			continue;
		const struct class_slot *cs = &c->per_slot[i];
		w->wants[w->count] = (struct class_want){ .mb_max_at = cs->asked,
							  .protected_ = cs->protect,
							  .previous = cs->class_of };
		w->slot_of[w->count++] = i;
	}
	return 0;
}

/* The classes of the assignment given their limits, then the partitions moved into them: 0 or
 * -ENOMEM (a class that cannot be given its limits moves nobody in, and is said once). */
static int carry_out(struct engine *e, const struct class_assignment *a, unsigned budget, struct step_work *w,
		     bool recheck, struct err *err)
{
	struct engine_classes *c = &e->classes;

	w->holds = calloc(budget, sizeof(*w->holds));
	if (!w->holds)
		return err_set(err, -ENOMEM, "out of memory for the class step");
	for (unsigned k = 0; k < budget; k++)
		w->holds[k] = a->used[k] && hold(e, k, &a->limits[(size_t)k * c->domains], recheck);
	for (size_t j = 0; j < w->count; j++) {
		size_t slot = w->slot_of[j];
		unsigned to = (unsigned)a->class_of[j];
		if (w->holds[to] && c->per_slot[slot].class_of != (int)to)
			move(e, slot, to);
	}
	return 0;
}

static int step(struct engine *e, bool recheck, struct err *err)
{
	struct engine_classes *c = &e->classes;
	struct step_work w = { 0 };
	struct class_assignment a = { 0 };
	int r = gather(e, &w, err);

	if (recheck) { /* another tool may have taken or freed room */
		c->room_known = false;
		c->recount = true;
	}
	unsigned budget = 0;
	if (r == 0)
		r = usable_budget(e, &budget, err);
	if (r == 0 && w.count)
		r = gather_held(c, budget, &w, err);
	if (r == 0 && w.count)
		r = class_assign(w.wants, w.count, c->domains, budget, w.held, ENGINE_CLASS_BAND_PCT, &a, err);
	if (r == 0 && w.count) {
		c->deviation_pp = a.deviation;
		c->members = w.count;
	}
	if (r == 0 && w.count)
		r = carry_out(e, &a, budget, &w, recheck, err);
	if (r != -ENOMEM)
		release_empty(e);
	reseat_unmeasured(e, recheck);
	for (size_t j = 0; j < w.count; j++) {
		c->per_slot[w.slot_of[j]].placed = false;
		if (member(e, w.slot_of[j]))
			fill(e, w.slot_of[j]);
	}
	if (!c->room_known)
		refresh_room(e);
	class_assignment_fini(&a);
	free(w.wants);
	free(w.slot_of);
	free(w.held);
	free(w.holds);
	return r;
}

/* Slot `slot`, opening, into the class class_place gives it; that class made or given its limits
 * where it is new. 0, or why no class can be had. */
static int place(struct engine *e, size_t slot, struct err *err)
{
	struct engine_classes *c = &e->classes;
	struct class_slot *cs = &c->per_slot[slot];
	struct step_work w = { 0 };
	unsigned budget;
	int r = usable_budget(e, &budget, err);

	if (r < 0)
		return r;
	bool *known = calloc(budget, sizeof(*known));
	r = known ? gather_held(c, budget, &w, err) : err_set(err, -ENOMEM, "out of memory for the class step");
	if (r == 0) {
		for (unsigned k = 0; k < budget; k++)
			known[k] = c->per_class[k].known;
		struct class_want want = { .mb_max_at = cs->asked, .protected_ = cs->protect, .previous = -1 };
		int to = class_place(&want, c->domains, budget, w.held, known, ENGINE_CLASS_BAND_PCT);
		if (!hold(e, (unsigned)to, known[to] ? c->per_class[to].at : cs->asked, false))
			r = err_set(err, -ENOSPC, "no class for it: %s", c->last_error);
		else {
			ops_of(e)->set_class(e->hw.control, slot, (unsigned)to);
			cs->class_of = to;
			cs->placed = true;
		}
	}
	free(known);
	free(w.held);
	if (!c->room_known)
		refresh_room(e);
	return r;
}

int engine_classes_choose(struct engine *e, size_t slot, const struct partition_limits *want, struct err *err)
{
	int r;

	if (!e->classes.shared)
		return 0;
	if (want->l3_cbm)
		return err_set(err, -EOPNOTSUPP,
			       "l3_cbm: with classes = shared a class holds MB limits only; a partition with l3_cbm "
			       "needs classes = own");
	if ((r = record(e, slot, want, err)) < 0)
		return r;
	engine_slot_keep_limits(e, slot, want, NULL);
	return place(e, slot, err);
}

int engine_classes_apply(struct engine *e, size_t slot, const struct partition_limits *want, struct err *err)
{
	struct engine_classes *c = &e->classes;
	int r = record(e, slot, want, err);

	if (r < 0)
		return r;
	engine_slot_keep_limits(e, slot, want, NULL);
	if (c->in_tick)
		return 0;
	if (c->per_slot[slot].placed)
		fill(e, slot); /* just opened: the tick's step places it with the others */
	else if ((r = step(e, false, err)) < 0)
		return r;
	int cls = c->per_slot[slot].class_of;
	if (cls < 0 || !c->per_class[cls].known)
		return err_set(err, -ENOSPC, "no class holds it: %s", c->last_error);
	return 0;
}

void engine_classes_tick_begin(struct engine *e)
{
	e->classes.in_tick = e->classes.shared;
}

void engine_classes_tick_end(struct engine *e)
{
	struct err err = { "" };

	if (!e->classes.shared)
		return;
	e->classes.in_tick = false;
	if (step(e, e->ticks.done % CLASS_RECHECK_TICKS == 0, &err) < 0)
		say_once(&e->classes, err.text);
}

void engine_classes_forget(struct engine *e, size_t slot, bool gave_back)
{
	struct engine_classes *c = &e->classes;

	if (slot < c->slots_cap) {
		leaves(e, c->per_slot[slot].class_of, gave_back);
		c->per_slot[slot].class_of = -1;
		c->per_slot[slot].asking = c->per_slot[slot].placed = false;
	}
	e->slots.partitions[slot].status.in_class = false;
}

bool engine_classes_room(const struct engine *e, struct class_room *ret)
{
	if (!e->classes.shared)
		return false;
	*ret = e->classes.room;
	return true;
}

bool engine_classes_deviation(const struct engine *e, double *deviation_pp, size_t *members)
{
	if (!e->classes.shared)
		return false;
	*deviation_pp = e->classes.deviation_pp;
	*members = e->classes.members;
	return true;
}
