/* The engine's record file (engine_record.c): one row per partition per tick and one per partition
 * per domain. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_RECORD_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_RECORD_INTERNAL_H

#include <stdint.h>

#include "core/base/error.h"

struct engine;
struct record;

struct engine_record {
	struct record *file;	/* NULL: none, or none could be opened yet */
	uint64_t wall_start_ms; /* CLOCK_REALTIME at the start: the record's and events' times on the simulated clock */
};

/* The wall clock at now_ns, in ms since the Unix epoch (on the simulated clock: the start's plus t_ms). */
uint64_t engine_wall_ms(const struct engine *e, uint64_t now_ns);

/* Where the record file is (opts.record_path, else the record key); NULL: none. */
const char *engine_record_path(const struct engine *e);
/* Opens the record file (opts.record_path, else the record key), if there is one. */
int engine_record_open(struct engine *e, struct err *err);
/* One row per partition, written when the tick ends; a write failure loses that tick's rows only. */
void engine_record_tick(struct engine *e, uint64_t now_ns);
/* SIGHUP: closes the record file and opens the path the configuration names now (a file logrotate
 * moved away is left complete, a new one begun); a failure is the record's (record.h: it shows in
 * status and metrics and is tried again). */
void engine_record_reopen(struct engine *e);
void engine_record_close(struct engine *e);

#endif
