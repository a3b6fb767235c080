/* The engine's side of the metrics (engine_metrics.c): the Prometheus text cached per tick, the tick
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

/* The Prometheus exposition of the engine: built at most once per tick (and after a set or reload),
 * when a control request or the textfile wants it, and what it needs that the engine keeps nowhere
 * else. */
struct engine_metrics {
	struct metrics_buf text;
	json_t *reply; /* the `metrics` reply holding `text`, shared by the tick's requests */
	uint64_t tick; /* the tick `text` is of */
	bool fresh;    /* text is of `tick`, and no set or reload came since */
	struct histogram tick_duration;
	double last_tick_unix_s;
	bool reload_ok;
	double reload_ok_unix_s;
	struct textfile textfile;
	uint64_t textfile_tried_ns; /* CLOCK_MONOTONIC of the last attempt; 0: none */
};

void engine_metrics_init(struct engine *e);
void engine_metrics_fini(struct engine *e);
/* A set or a reload changed what the text says: the next request builds it again. */
void engine_metrics_stale(struct engine *e);
/* The outcome of a reload (a config file that was read, valid or not). */
void engine_metrics_reloaded(struct engine *e, bool ok);
/* After each tick: the tick's duration, then the textfile when one is configured (at most once per
 * second of `mono_now_ns`, CLOCK_MONOTONIC). */
void engine_metrics_tick_done(struct engine *e, uint64_t duration_ns, uint64_t mono_now_ns);
/* {"format": METRICS_FORMAT, "text": ...}: a new reference, or NULL when out of memory. */
json_t *engine_metrics_reply(struct engine *e);
/* A stop: the textfile goes, as what it says is no longer true. */
void engine_metrics_stop(struct engine *e);

#endif
