/* mpamd --print-every: a table of every partition (rate, state, limits, the simulator's truth),
 * printed from the engine's on-tick hook. Presentation only: it reads the engine's public status. */
#ifndef MPAMD_CLI_TICK_TABLE_H
#define MPAMD_CLI_TICK_TABLE_H

#include <stdio.h>

#include "core/engine/engine.h"

struct tick_table {
	unsigned every; /* ticks between tables */
	FILE *out;
};

/* An engine_options.on_tick hook; ctx is a struct tick_table. */
void tick_table_on_tick(void *ctx, struct engine *engine);

#endif
