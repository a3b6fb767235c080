/* Placement's side of the engine (engine_place.c): the proc connector's events and the reconciles. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_PLACE_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_PLACE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

struct engine;
struct proc_connector;

/* The proc connector on the loop, and what the reconciles and events did (engine_metrics.c reads
 * whether there is a connector and how many events were lost). */
struct engine_place {
	struct proc_connector *connector; /* NULL: none (see why) */
	char why[ERR_TEXT_MAX];		  /* why there is none ("" while it is on or nothing wants it) */
	bool soon;			  /* events were lost: every partition is reconciled at the next tick */
	uint64_t reconciles, events, lost;
};

/* Opens the proc connector (on the running loop) when something names tasks and it is wanted, closes
 * it when nothing does: at the start and after every change of the partitions. */
void engine_place_update(struct engine *e);
void engine_place_stop(struct engine *e);
/* At the start of each tick: the events queued so far, then the reconcile when it is due (every
 * reconcile_ms in ticks, or at once after lost events). */
void engine_place_tick(struct engine *e);
/* show's "placement": its source, whether it is found, the counts and the reason; null without one. */
json_t *engine_place_detail_json(const struct engine *e, size_t index);

#endif
