/* Slots (engine_slots.c): the number a partition keeps for its lifetime, by which the backends know
 * it. engine_slots.c sizes every per-slot array of the engine to `cap` slots, these and those of the
 * domains and the policies, and clears a slot's entries when it is filled or freed; what is in them
 * is written by the files named beside each. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_SLOTS_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_SLOTS_INTERNAL_H

#include <stddef.h>

#include "core/base/error.h"

struct engine;
struct engine_gen;
struct engine_partition;
struct partition_config;
struct pmu_sample;
struct sample;

struct engine_slots {
	size_t count, cap;		     /* slots in use are below count; the arrays hold cap */
	size_t free_from;		     /* no slot below it is free: allocation starts there, not at 0 */
	struct engine_partition *partitions; /* each one's state (engine_partition_internal.h) */
	struct sample *samples;		     /* [slot][domain of hw.domains]: the monitors' last read (engine.c) */
	struct pmu_sample *pmu;		     /* [slot]: the PMU sampler's last deltas (engine_pmu.c) */
};

/* The lowest free slot, with every per-slot array long enough to hold it: -ENOMEM. */
int engine_slot_alloc(struct engine *e, size_t *ret, struct err *err);
/* Gives slot `slot` partition `p` of `g` (from `origin`, "" for the file); nothing is opened. */
void engine_slot_fill(struct engine *e, size_t slot, struct engine_gen *g, struct partition_config *p,
		      const char *origin);
/* What made the slot's partition: "" or NULL the file, else a template's name (a copy, kept only then). */
void engine_slot_set_origin(struct engine_partition *ep, const char *origin);
/* Frees the file's goals a slot kept (file_goals: once a set changed config's). */
void engine_slot_forget_file_goals(struct engine_partition *ep);
/* Frees the slot (its partition must be closed): its generation is dropped. */
void engine_slot_free(struct engine *e, size_t slot);
/* The slot of the partition called `name`, or -1. */
long engine_slot_by_name(const struct engine *e, const char *name);
void engine_slots_free(struct engine *e);

#endif
