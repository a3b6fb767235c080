/* The engine's side of the metrics (engine_metrics.c): the Prometheus text of a snapshot, the tick
 * duration histogram, the reload outcome and the textfile. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_METRICS_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_METRICS_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/base/histogram.h"
#include "core/report/metrics.h"
#include "core/report/textfile.h"

struct engine;
struct engine_snapshot;

/* What the Prometheus exposition needs that the engine keeps nowhere else, and the textfile's text.
 * The text of a `metrics` request is built from a snapshot on the control socket's thread, once per
 * snapshot (the server's reply cache keeps it); the textfile's on the tick thread. */
struct engine_metrics {
	struct metrics_buf text; /* the textfile's last text */
	struct histogram tick_duration;
	double last_tick_unix_s;
	bool reload_ok;
	double reload_ok_unix_s;
	struct textfile textfile;
	uint64_t textfile_tried_ns; /* CLOCK_MONOTONIC of the last attempt; 0: none */
};

void engine_metrics_init(struct engine *e);
void engine_metrics_fini(struct engine *e);
/* The outcome of a reload (a config file that was read, valid or not). */
void engine_metrics_reloaded(struct engine *e, bool ok);
/* After each tick, before it is published: the tick's duration. */
void engine_metrics_tick_done(struct engine *e, uint64_t duration_ns);
/* After a tick is published as `s`: the textfile when one is configured, at most once per second of
 * `mono_now_ns` (CLOCK_MONOTONIC). */
void engine_metrics_textfile(struct engine *e, const struct engine_snapshot *s, uint64_t mono_now_ns);
/* A stop: the textfile goes, as what it says is no longer true. */
void engine_metrics_stop(struct engine *e);

#endif
