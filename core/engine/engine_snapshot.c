/* status and list as of the last tick (see engine_snapshot.h). */
#include "core/engine/engine_snapshot.h"

#include "core/engine/engine_internal.h"

#define STATUS_EVENTS 20 /* the newest events status carries, as many as show's */

uint64_t engine_snapshot_generation(const struct engine *e)
{
	/* Both only grow, each by one per event: their sum never repeats a state's number. */
	return e->ticks_done + e->changes;
}

void engine_snapshot_changed(struct engine *e)
{
	e->changes++;
}

json_t *engine_json_mbps(bool valid, double mbps)
{
	return valid ? json_real(mbps) : json_null();
}

json_t *engine_json_u32(uint32_t v)
{
	return v ? json_integer(v) : json_null();
}

static json_t *partition_summary(const struct engine *e, size_t i)
{
	const struct partition_config *p = &e->config->partitions[i];
	const struct partition_status *st = &e->partitions[i].status;

	return json_pack("{s:s,s:s,s:b,s:I,s:I,s:o,s:b,s:b,s:o,s:o,s:I,s:o}", "name", p->name, "class",
			 partition_class_names[p->goals.class], "open", st->open, "mb_max", (json_int_t)st->mb_max,
			 "mb_min", (json_int_t)st->mb_min, "mbps", engine_json_mbps(st->valid, st->mbps), "valid",
			 st->valid, "estimated", st->estimated, "target_mbps", engine_json_u32(p->goals.target_mbps),
			 "guarantee_mbps", engine_json_u32(p->goals.guarantee_mbps), "weight",
			 (json_int_t)p->goals.weight, "reason", st->reason ? json_string(st->reason) : json_null());
}

json_t *engine_partition_summary(const struct engine *e, size_t i)
{
	json_t *row = partition_summary(e, i);

	engine_pmu_json(e, i, row);
	return row;
}

json_t *engine_snapshot_list(const struct engine *e)
{
	json_t *parts = json_array();

	for (size_t i = 0; i < e->config->partition_count; i++)
		json_array_append_new(parts, engine_partition_summary(e, i));
	return json_pack("{s:o}", "partitions", parts);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

json_t *engine_snapshot_status(const struct engine *e)
{
	size_t open = 0;

	for (size_t i = 0; i < e->config->partition_count; i++)
		open += e->partitions[i].status.open;
	bool learned = false;
	double capacity = engine_host_capacity(e, &learned);
	/* The uptime is the last tick's, so that a reply is the same text for the whole tick. */
	json_t *status =
		json_pack("{s:s,s:I,s:I,s:f,s:I,s:I,s:I,s:f,s:f,s:o,s:b,s:b,s:I,s:o}", "backend",
			  e->hw.control_ops->name, "interval_ms", (json_int_t)e->config->global.interval_ms, "ticks",
			  (json_int_t)e->ticks_done, "uptime_s", (double)(e->last_tick_ns - e->start_ns) / 1e9,
			  "partitions", (json_int_t)e->config->partition_count, "partitions_open", (json_int_t)open,
			  "overruns", (json_int_t)e->overruns, "last_tick_ms", ms(e->tick_stats.last_ns), "max_tick_ms",
			  ms(e->tick_stats.max_ns), "capacity_mbps", capacity > 0 ? json_real(capacity) : json_null(),
			  "capacity_learned", learned, "sim_clock", e->opts.sim_clock, "events_total",
			  (json_int_t)e->events.total, "events", event_log_to_json(&e->events, NULL, STATUS_EVENTS));
	engine_pmu_status_json(e, status);
	return status;
}
