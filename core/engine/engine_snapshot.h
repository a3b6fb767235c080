/* What the control socket's read-only replies show of one tick: status and list are built from the
 * state the last tick left, with a generation that changes with every tick and every set or reload.
 * The server (core/ctl/reply_cache.c) encodes them once per generation and gives every client asking
 * meanwhile the same text; a tick, not the number of clients, sets what they cost. */
#ifndef MPAMD_CORE_ENGINE_SNAPSHOT_H
#define MPAMD_CORE_ENGINE_SNAPSHOT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct engine;

/* Changes whenever what status and list report may have: each tick, set, reload. */
uint64_t engine_snapshot_generation(const struct engine *e);
/* Something other than a tick changed what the replies show (set, reload). */
void engine_snapshot_changed(struct engine *e);

/* The daemon as of the last tick: backend, interval, ticks, uptime at that tick, overruns, tick
 * durations, recent events. A new reference. */
json_t *engine_snapshot_status(const struct engine *e);
/* {"partitions": [summary, ...]}, a new reference. */
json_t *engine_snapshot_list(const struct engine *e);
/* A reply's optional values: a rate only when it was measured, a goal only when it is set (null
 * otherwise, never 0). */
json_t *engine_json_mbps(bool valid, double mbps);
json_t *engine_json_u32(uint32_t v);
/* One partition's class, goals, limits in force and last rate, with the same on each domain (list's
 * row, show's start). */
json_t *engine_partition_summary(const struct engine *e, size_t index);
/* Its rows of each domain: domain, mbps (null when not measured), state (measured, estimated,
 * invalid), mb_max and mb_min in force (null when none is); with `detail` (show) what the domain is,
 * why its sample is invalid, and the simulator's truth. */
json_t *engine_domain_rows(const struct engine *e, size_t index, bool detail);

#endif
