/* What the control socket's read-only replies show, as one immutable copy: the tick thread takes a
 * snapshot when a tick ends and after every set or reload (engine_ctl.c publishes it), plain data and
 * no JSON, and the replies of status, list and metrics are built from it on the control socket's
 * thread (status: engine_snapshot_json.c; list, written as text: engine_snapshot_text.c; metrics:
 * engine_metrics.c). A reply is of one snapshot, so of one tick: the tick number in status and the
 * rows of list always agree. The server (core/ctl/reply_cache.c) encodes a reply once per snapshot
 * and gives every client asking meanwhile the same line, by reference; a tick, not the number of
 * clients, sets what they cost.
 *
 * A snapshot is reference-counted: whoever holds one may read it from any thread, and nothing in it
 * changes while it is held or points into the engine. Its strings are its own. One no reply holds
 * any more is taken again in its place (engine_snapshot_retake), so that the daemon keeps one
 * snapshot's rows, not two, when no reply is being built. */
#ifndef MPAMD_CORE_ENGINE_SNAPSHOT_H
#define MPAMD_CORE_ENGINE_SNAPSHOT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/actuator.h"
#include "core/base/histogram.h"
#include "core/ctl/json_text.h"
#include "core/engine/compose.h"
#include "core/report/events.h"
#include "core/report/partition_status.h"
#include "core/report/record.h"

struct engine;
struct engine_snapshot;

/* What a partition is in the replies' "state" (snapshot_row_state names it). */
enum snapshot_state {
	SNAPSHOT_OPEN,
	SNAPSHOT_FAILED, /* it is tried again, or after a reload when retry_in_s is null */
	SNAPSHOT_CLOSED,
};

/* One partition (a used slot) as the replies show it. Its narrow fields first, side by side (no
 * padding between, in two snapshots' every row), its class and state as numbers named by
 * snapshot_row_class and snapshot_row_state; its domains are snapshot_row_domains. */
struct snapshot_row {
	uint32_t slot;
	uint32_t target_mbps, guarantee_mbps; /* 0: none */
	unsigned weight;
	unsigned attempts; /* failed attempts in a row */
	uint8_t class_of;  /* enum partition_class */
	uint8_t state;	   /* enum snapshot_state */
	bool retry_known;  /* failed, and tried again in retry_in_s */
	/* Its status without the tick's event text; name, reason and pmu_reason are the snapshot's. */
	struct partition_status status;
	double retry_in_s;			  /* from the snapshot's tick */
	const char *error;			  /* NULL: none */
	const char *origin;			  /* the template that made it, or NULL: the file */
	uint64_t invalid_samples;		  /* ticks with an invalid sample while open */
	const struct placement_status *placement; /* NULL: it names no tasks, or it is not open */
};

/* A row's class ("default", "latency-critical", "best-effort") and state ("open", "failed",
 * "closed"), as the replies say them. */
const char *snapshot_row_class(const struct snapshot_row *row);
/* A row's domains: the snapshot's domain_count of them, reasons the snapshot's. */
const struct domain_status *snapshot_row_domains(const struct engine_snapshot *s, const struct snapshot_row *row);
const char *snapshot_row_state(const struct snapshot_row *row);

/* One of the engine's domains. */
struct snapshot_domain {
	const char *name, *what;
	double capacity_mbps; /* known or learned; 0: unknown */
	bool learned;
	const char *source; /* engine_domain_capacity_source's (a string that lives for ever) */
	double total_mbps;  /* the valid rates of its partitions, summed */
};

struct engine_snapshot {
	atomic_uint refs;
	uint64_t sequence; /* publications before it (engine_ctl.c): a reply cache's key */
	/* The daemon */
	const char *version, *backend, *pmu; /* pmu: the sampler counting, or NULL */
	unsigned interval_ms;
	uint64_t ticks, overruns;
	double uptime_s;		    /* engine clock, at the last tick */
	uint64_t last_tick_ns, max_tick_ns; /* wall-clock durations */
	double last_tick_unix_s;	    /* 0: none yet */
	struct histogram tick_duration;	    /* seconds */
	bool sim_clock;
	double capacity_mbps; /* the host's, 0: unknown */
	bool capacity_learned;
	bool has_guarantees;
	const char *guarantees_pending; /* NULL: enforced (or none) */
	bool reload_ok;
	double reload_ok_unix_s;
	json_t *record;			    /* record_status_json, or NULL: no record file */
	bool record_present;		    /* then: record_health is the file's */
	struct record_health record_health; /* for the metrics */
	/* Placement */
	bool proc_connector;
	const char *proc_connector_off; /* why there is none, or NULL */
	unsigned reconcile_ms;
	uint64_t reconciles, place_events, place_lost;
	/* Events: the newest (status's) and every count (the metrics'). */
	struct event_log *events;	  /* the newest STATUS_EVENTS, with total and folded */
	struct event_counts event_counts; /* every non-empty slot, in table order */
	/* Partitions and domains */
	struct snapshot_row *rows;	   /* one block with the rows' domains and placements */
	struct domain_status *row_domains; /* in it: domain_count a row, in the rows' order */
	size_t rows_bytes;		   /* the block's size */
	size_t row_count, partitions_open, partitions_failed;
	struct snapshot_domain domains[ENGINE_MAX_DOMAINS];
	unsigned domain_count;
	bool has_truth;		      /* the simulator lends its ground truth */
	bool classes_shared;	      /* classes = shared: partitions share the control's classes */
	struct class_room class_room; /* then: classes and monitors used and left */
	double class_deviation_pp;    /* and the last assignment's |held - asked| (engine_classes_deviation) */
	size_t class_members;	      /* over this many partitions */
	char *text;		      /* every string above that is not static */
};

/* Changes whenever what status and list report may have: each tick, set, reload. */
uint64_t engine_snapshot_generation(const struct engine *e);
/* Something other than a tick changed what the replies show (set, reload). */
void engine_snapshot_changed(struct engine *e);

/* A copy of what the replies show of the engine now, its one reference the caller's; NULL when out
 * of memory. On the tick thread. */
struct engine_snapshot *engine_snapshot_take(const struct engine *e);
/* Takes it again into `s`, in its place, when the caller's is its only reference (engine_ctl.c holds
 * the lock that gives out new ones) and its rows' block fits the engine's partitions: 0, with `s`
 * as engine_snapshot_take would have made it (its sequence 0). -EBUSY: `s` is held by another, or a
 * new block is needed; `s` is unchanged. -ENOMEM: `s` was being rewritten, the caller drops it. On
 * the tick thread. */
int engine_snapshot_retake(const struct engine *e, struct engine_snapshot *s);
struct engine_snapshot *engine_snapshot_ref(struct engine_snapshot *s);
/* Drops a reference; the last one frees it. Any thread. */
void engine_snapshot_unref(struct engine_snapshot *s);
/* The row of the partition named `name`, or NULL. */
const struct snapshot_row *engine_snapshot_row(const struct engine_snapshot *s, const char *name);

/* ---- replies built from a snapshot (engine_snapshot_json.c): new references ---- */

/* The daemon as of the snapshot: backend, interval, ticks, uptime at that tick, overruns, tick
 * durations, recent events. */
json_t *snapshot_status_json(const struct engine_snapshot *s);
/* {"partitions": [summary, ...]}. */
json_t *snapshot_list_json(const struct engine_snapshot *s);
/* One partition's class, goals, limits in force and last rate, with the same on each domain (list's
 * row, show's start). */
json_t *snapshot_row_json(const struct engine_snapshot *s, const struct snapshot_row *row);
/* Its rows of each domain: domain, mbps (null when not measured), state (measured, estimated,
 * invalid), mb_max and mb_min in force (null when none is), mb_max_mbps, and mb_max_asked (classes =
 * shared: the ceiling asked for there; null out of a class); with `detail` (show) what the domain
 * is, why its sample is invalid, and the simulator's truth. */
json_t *snapshot_domain_rows_json(const struct engine_snapshot *s, const struct snapshot_row *row, bool detail);
/* A reply's optional values: a rate only when it was measured, a goal only when it is set (null
 * otherwise, never 0). */
json_t *engine_json_mbps(bool valid, double mbps);
json_t *engine_json_u32(uint32_t v);

/* ---- list written as text (engine_snapshot_text.c) ---- */

/* The result of list appended to `t` as compact JSON, the bytes jansson writes for
 * snapshot_list_json(s); false when out of memory. */
bool snapshot_list_text(const struct engine_snapshot *s, struct json_text *t);

/* ---- the metrics reply (engine_metrics.c) ---- */

/* {"format": METRICS_FORMAT, "text": ...} of snapshot `s`: a new reference, or NULL when out of
 * memory. Any thread. */
json_t *engine_metrics_reply(const struct engine_snapshot *s);
/* The same reply appended to `t` as compact JSON, the bytes jansson writes for it; false when out of
 * memory or the text is not UTF-8 (where engine_metrics_reply gives NULL). Any thread. */
bool engine_metrics_reply_text(const struct engine_snapshot *s, struct json_text *t);

/* status and list of the engine as it is now (a snapshot taken, built, dropped): for tests and
 * hooks on the tick thread. */
json_t *engine_snapshot_status(const struct engine *e);
json_t *engine_snapshot_list(const struct engine *e);

#endif
