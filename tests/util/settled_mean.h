/* The mean rate of one partition once the control loop has settled, gathered through the engine's
 * on_tick hook (engine_options.on_tick, with a struct settled_mean as its context). */
#ifndef MPAMD_TESTS_SETTLED_MEAN_H
#define MPAMD_TESTS_SETTLED_MEAN_H

#include <stdint.h>

#include "core/engine/engine.h"

struct settled_mean {
	const char *partition;
	uint64_t settled; /* ticks left out before the mean starts */
	double sum;	  /* MB/s */
	unsigned count;
};

/* on_tick: adds the partition's measured rate once more than `settled` ticks are done. */
void settled_mean_on_tick(void *ctx, struct engine *e);
/* The mean in MB/s; one cmocka assertion that some tick counted. */
double settled_mean_mbps(const struct settled_mean *m);

#endif
