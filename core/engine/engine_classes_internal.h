/* Classes (engine_classes.c): with classes = shared, partitions share the control's classes (resctrl:
 * CTRL_MON groups) while each is measured by itself. The policies decide each partition's limits as
 * always; the class step (policies/class_assign.c) puts the partitions into classes, and the control
 * makes the classes, writes what each holds and moves partitions between them. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_CLASSES_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_CLASSES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/control.h"
#include "core/base/error.h"

struct engine;

/* A partition whose wanted ceilings stay within this many percentage points of what its class holds
 * (below it for a best-effort partition, above for a protected one) stays in its class. */
#define ENGINE_CLASS_BAND_PCT 5.0

/* What the classes keep of one slot. */
struct class_slot {
	int class_of;			   /* its class, -1 none */
	bool asking;			   /* it asked (open, or being opened) */
	bool protect;			   /* latency-critical or holding a guarantee */
	bool placed;			   /* opened since the last step, in the class class_place gave it */
	double asked[CONTROL_MAX_DOMAINS]; /* the ceilings it asked for, one per domain */
};

/* What the classes keep of one class id. */
struct class_held {
	bool known;			/* the control holds it with `at` */
	double at[CONTROL_MAX_DOMAINS]; /* what it was asked to hold, one per domain */
	struct partition_limits eff;	/* what is in force there */
	/* Monitoring ids (on MPAM, PMGs of its PARTID) its measured members gave back by leaving it or
	 * closing, not taken yet: that many of its unmeasured members may get groups of their own. The
	 * kernel may hold a given-back id in limbo for a while (its cache lines still tagged), so they are
	 * asked for at the next step, then at each recheck until freed_until_ns. */
	unsigned freed;
	bool freed_now; /* one was given back since the last step */
	bool full_now;	/* this step's ask found none: not asked again in it */
	uint64_t freed_until_ns;
};

struct engine_classes {
	bool shared;	  /* partitions share classes (classes = shared, or auto chose it) */
	bool in_tick;	  /* the tick's decisions are being applied: one step at the end, not one each */
	unsigned domains; /* the control's domains, at least 1: how many of `asked` and `at` count */
	size_t slots_cap;
	struct class_slot *per_slot; /* [slot] */
	size_t classes_cap;
	struct class_held *per_class; /* [class id] */
	struct class_room room;	      /* as the control said at the last step that made or released one */
	bool room_known;
	bool recount; /* the next room asked is read from the hardware again (a recheck) */
	/* The last assignment's cost: |held - asked| summed over its partitions and domains (percentage
	 * points), and how many partitions it placed. */
	double deviation_pp;
	size_t members;
	char last_error[ERR_TEXT_MAX]; /* the last class failure logged (said once while it lasts) */
};

/* At start, after the composition opened and before any partition: which mode (auto decides), and
 * the control told. */
void engine_classes_start(struct engine *e);
void engine_classes_free(struct engine *e);
bool engine_classes_shared(const struct engine *e);
/* Slot `slot` is about to open with `want`: the class it opens in is chosen (class_place: the other
 * partitions stay where they are until the next step) and made, and set in the control. 0 where
 * classes are not shared; a failure (no class can be made: -ENOSPC) and why. */
int engine_classes_choose(struct engine *e, size_t slot, const struct partition_limits *want, struct err *err);
/* Slot `slot` asks for `want` (engine_apply_limits with classes shared): recorded; outside a tick the
 * class step runs at once (but not for a slot just opened: the tick's step places it) and what its
 * class holds is its limits in force. 0, or why its class could not be given those limits (the
 * partition stays where it is). */
int engine_classes_apply(struct engine *e, size_t slot, const struct partition_limits *want, struct err *err);
/* The tick's decisions: recorded by engine_classes_apply between these, one step at the end. */
void engine_classes_tick_begin(struct engine *e);
void engine_classes_tick_end(struct engine *e);
/* Slot `slot` was closed: it is in no class now. `gave_back`: the monitoring group of its own it had
 * (partition_ref.unmeasured was NULL) was removed, its monitoring id its class's again. */
void engine_classes_forget(struct engine *e, size_t slot, bool gave_back);
/* Classes used and left, monitors (RMIDs) used and left, as of the last step: false where classes
 * are not shared. */
bool engine_classes_room(const struct engine *e, struct class_room *ret);
/* With classes shared: the last assignment's deviation (percentage points, summed over partitions and
 * domains) in *deviation_pp and the partitions it placed in *members; false otherwise. */
bool engine_classes_deviation(const struct engine *e, double *deviation_pp, size_t *members);

#endif
