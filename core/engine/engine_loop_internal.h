/* The tick's timing and the event loop that runs it (engine_loop.c; the tick itself is engine.c's
 * engine_tick). */
#ifndef MPAMD_CORE_ENGINE_ENGINE_LOOP_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_LOOP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/engine/tick_stats.h"

struct engine;
struct loop;
struct run_state;

/* When ticks happen and how many did. */
struct engine_ticks {
	uint64_t interval_ns;	 /* interval_ms: engine.c at the start, engine_desired.c at a reload */
	uint64_t start_ns;	 /* the engine clock at the start (engine.c) */
	uint64_t last_ns;	 /* the last tick's time (engine_tick) */
	uint64_t done;		 /* ticks done (engine_tick): with changes, the replies' generation */
	uint64_t overruns;	 /* intervals skipped because a tick began more than one late (engine_loop.c) */
	struct tick_stats stats; /* each tick's duration and lateness (engine_loop.c) */
};

/* The event loop, while engine_run runs. */
struct engine_run {
	struct loop *loop;	 /* engine_ctl.c and engine_place.c watch their sockets on it */
	struct run_state *state; /* the timer and the signals (engine_loop.c's own) */
	bool stopping;		 /* engine_stop or a stop signal: engine_run returns after this tick */
};

/* interval_ms changed: the timer runs on the new interval from now on. */
void engine_loop_rearm(struct engine *e);

#endif
