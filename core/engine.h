/* The engine: one thread that ticks every interval_ms — read every counter, turn counts into rates,
 * decide limits, apply what changed, publish (record file, report). */
#ifndef MPAMD_CORE_ENGINE_H
#define MPAMD_CORE_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/model.h"

struct engine_options {
	uint64_t ticks;		 /* stop after this many ticks; 0: run until stopped */
	const char *record_path; /* replaces the config's record key when set */
	bool sim_clock;		 /* ticks back to back on simulated time (backend = sim only) */
	unsigned print_every;	 /* print a table every this many ticks to print_out; 0: never */
	FILE *print_out;
	volatile sig_atomic_t *stop; /* set asynchronously to end the run after the current tick */
};

/* What one partition looked like at the last tick. */
struct partition_status {
	const char *name;
	bool open;		 /* the backend accepted it */
	bool valid;		 /* mbps was measured (or estimated) */
	bool estimated;		 /* some domain was extrapolated */
	double mbps;		 /* summed over domains */
	double truth_mbps;	 /* simulator only, else 0 */
	unsigned mb_max, mb_min; /* in force */
	const char *reason;	 /* why it is not open, or why the sample is invalid */
};

struct engine;

/* Opens the backend, opens every partition (one failing does not stop the others) and applies the
 * configured limits. `config` must outlive the engine. */
int engine_new(const struct config *config, const struct engine_options *opts, struct engine **ret, struct err *err);
void engine_free(struct engine *engine);

/* Runs ticks until opts.ticks are done or *opts.stop is set. */
int engine_run(struct engine *engine, struct err *err);

size_t engine_partition_count(const struct engine *engine);
const struct partition_status *engine_partition(const struct engine *engine, size_t index);
uint64_t engine_ticks_done(const struct engine *engine);

#endif
