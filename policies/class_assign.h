/* Classes: where the hardware has fewer allocations (resctrl CLOSIDs, MPAM PARTIDs) than partitions,
 * partitions share them. The policies still decide each partition's limits; this step (pure: no I/O,
 * no state of its own) says which class each partition is in and what each class holds, by the rule
 * mpamd.ini(5) documents under CLASSES:
 *
 * 1. Partitions that want equal limits share a class.
 * 2. When more distinct limits are wanted than there are classes, classes are merged, the cheapest
 *    merge first: the one that adds the least deviation (the sum over partitions and domains of
 *    |held - wanted|, in percentage points), among neighbours in the order of the limits; a tie goes to
 *    the lowest. A class holds, on each domain, the highest of its members' wanted limits when one of
 *    them is protected (latency-critical, or holds a guarantee), else the lowest: a protected
 *    partition is never held below what it wants, and a best-effort one never above while classes of
 *    its own kind are left to merge (a best-effort partition let through more would take the
 *    bandwidth a guarantee rests on). Only when every kind is down to one class do kinds merge.
 * 3. Hysteresis: a partition whose wanted limits stay within `band` percentage points of what its
 *    class holds, on the side its kind allows, is placed as if it wanted what it holds, so the small
 *    steps of the policies move no partition; and the classes keep the ids of the ones most of their
 *    members were in, so that a partition moves only when its class really changed.
 * 4. Staying: partitions of one want the merges would move stay in the class they are all in when
 *    that class is still used, holds only their kind (unless kinds had to merge) and limits on their
 *    kind's side, and staying costs each at most `band` more deviation (summed over domains) than
 *    moving: the merges follow every want that moves, and a want that stood still
 *    should not be carried to and fro by them. */
#ifndef MPAMD_POLICIES_CLASS_ASSIGN_H
#define MPAMD_POLICIES_CLASS_ASSIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

/* One partition's view. */
struct class_want {
	const double *mb_max_at; /* the ceilings the policies decided, one per domain (percent) */
	bool protected_;	 /* latency-critical or holding a guarantee: never held below its want */
	int previous;		 /* the class it is in now, -1 none */
};

/* What the step decided. */
struct class_assignment {
	int *class_of;	       /* per partition: its class, 0..classes-1 */
	double *limits;	       /* classes x domains: what class c holds on domain d at [c * domains + d] */
	bool *used;	       /* per class: some partition is in it */
	unsigned classes_used; /* how many are */
	double deviation;      /* sum over partitions and domains of |held - wanted|, percentage points */
	size_t moved;	       /* partitions whose class is not their previous one (previous >= 0) */
};

/* Assigns `count` partitions of `domains` domains to at most `classes` classes. `held` (may be NULL)
 * is what each class holds now, classes x domains as in class_assignment.limits, for the hysteresis
 * of `band` percentage points (0: none). Fills *ret (class_assignment_fini frees it): 0, or -EINVAL
 * (no class, no domain) or -ENOMEM and why. */
int class_assign(const struct class_want *wants, size_t count, unsigned domains, unsigned classes, const double *held,
		 double band, struct class_assignment *ret, struct err *err);
void class_assignment_fini(struct class_assignment *a);

/* Whether `held` is within `band` percentage points of `want` on every one of `domains` domains, on
 * the side the partition's kind allows: at or above its want for a protected partition, at or below
 * for a best-effort one. */
bool class_within_band(const double *want, const double *held, unsigned domains, bool protected_, double band);

/* Where one partition that opens between two class steps goes until the next step places every
 * partition by class_assign's rule (placing each opening by the whole rule would move the others
 * once per opening: a thousand partitions opening at start would be a thousand plans carried out).
 * In this order: the class that holds what it wants within `band` on its kind's side, the least
 * deviation first; else the lowest class id nobody holds (known[c] false), to hold what it wants;
 * else the class whose limits cost it the least deviation, on its kind's side where one is. `held`
 * and `known` describe `classes` class ids (held: classes x domains as in class_assignment.limits);
 * the partition's `previous` is not used. The class id, or -1 when `classes` is 0. */
int class_place(const struct class_want *want, unsigned domains, unsigned classes, const double *held,
		const bool *known, double band);

#endif
