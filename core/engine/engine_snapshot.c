/* status and list as of the last tick (see engine_snapshot.h). */
#include "core/engine/engine_snapshot.h"

#include "core/engine/engine_internal.h"
#include "core/report/json_pct.h"

#define STATUS_EVENTS 20 /* the newest events status carries, as many as show's */

uint64_t engine_snapshot_generation(const struct engine *e)
{
	/* Both only grow, each by one per event: their sum never repeats a state's number. */
	return e->ticks.done + e->changes;
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

/* A limit is in force only on an open partition: a failed one has none, which is not 0%. */
static json_t *limit_json(const struct partition_status *st, double pct)
{
	return st->open ? json_pct(pct) : json_null();
}

/* "open", "failed" (it is tried again, or after a reload when retry_in_s is null) or "closed". An
 * open partition with an error could not have its limits applied: those in force are shown. */
static const char *state_of(const struct engine_partition *ep)
{
	return ep->status.open ? "open" : ep->failed ? "failed" : "closed";
}

static json_t *retry_json(const struct engine *e, const struct engine_partition *ep)
{
	if (!ep->failed || !ep->retry_ns)
		return json_null();
	return json_real(ep->retry_ns > e->ticks.last_ns ? (double)(ep->retry_ns - e->ticks.last_ns) / 1e9 : 0.0);
}

static json_t *partition_summary(const struct engine *e, size_t i)
{
	const struct engine_partition *ep = &e->slots.partitions[i];
	const struct partition_config *p = ep->config;
	const struct partition_status *st = &ep->status;

	return json_pack("{s:s,s:I,s:s,s:s,s:b,s:o,s:o,s:o,s:b,s:b,s:o,s:o,s:I,s:o,s:o,s:o,s:I,s:o}", "name", p->name,
			 "slot", (json_int_t)i, "class", partition_class_names[p->goals.class], "state", state_of(ep),
			 "open", st->open, "mb_max", limit_json(st, st->mb_max), "mb_min", limit_json(st, st->mb_min),
			 "mbps", engine_json_mbps(st->valid, st->mbps), "valid", st->valid, "estimated", st->estimated,
			 "target_mbps", engine_json_u32(p->goals.target_mbps), "guarantee_mbps",
			 engine_json_u32(p->goals.guarantee_mbps), "weight", (json_int_t)p->goals.weight, "reason",
			 st->reason ? json_string(st->reason) : json_null(), "error",
			 ep->error[0] ? json_string(ep->error) : json_null(), "retry_in_s", retry_json(e, ep),
			 "attempts", (json_int_t)ep->attempts, "template",
			 ep->origin[0] ? json_string(ep->origin) : json_null());
}

static const char *domain_state(const struct domain_status *ds)
{
	return !ds->valid ? "invalid" : ds->estimated ? "estimated" : "measured";
}

json_t *engine_domain_rows(const struct engine *e, size_t index, bool detail)
{
	const struct partition_status *st = &e->slots.partitions[index].status;
	json_t *rows = json_array();

	for (unsigned d = 0; d < e->domains.count; d++) {
		const struct domain_status *ds = engine_partition_domain(e, index, d);
		json_t *row = json_pack("{s:s,s:o,s:s,s:o,s:o,s:o}", "domain", e->domains.dom[d].name, "mbps",
					engine_json_mbps(ds->valid, ds->mbps), "state", domain_state(ds), "mb_max",
					limit_json(st, ds->mb_max), "mb_min", limit_json(st, ds->mb_min), "mb_max_mbps",
					ds->mb_max_mbps > 0 && st->open ? json_real(ds->mb_max_mbps) : json_null());
		if (detail) {
			json_object_set_new(row, "what", json_string(e->domains.dom[d].what));
			json_object_set_new(row, "reason",
					    !ds->valid && ds->reason ? json_string(ds->reason) : json_null());
			if (engine_has_truth(e))
				json_object_set_new(row, "sim_mbps", json_real(ds->truth_mbps));
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

json_t *engine_partition_summary(const struct engine *e, size_t i)
{
	json_t *row = partition_summary(e, i);

	engine_pmu_json(e, i, row);
	json_object_set_new(row, "domains", engine_domain_rows(e, i, false));
	engine_place_partition_json(e, i, row);
	return row;
}

/* Each domain: its name, what it is, what it can carry (known, or learned) and its total. */
static json_t *domains_status(const struct engine *e)
{
	json_t *list = json_array();

	for (unsigned d = 0; d < e->domains.count; d++) {
		bool learned;
		double capacity = engine_domain_capacity(e, d, &learned), total = 0;
		for (size_t i = 0; i < e->slots.count; i++)
			if (e->slots.partitions[i].used && engine_partition_domain(e, i, d)->valid)
				total += engine_partition_domain(e, i, d)->mbps;
		json_array_append_new(list, json_pack("{s:s,s:s,s:o,s:b,s:f}", "domain", e->domains.dom[d].name, "what",
						      e->domains.dom[d].what, "capacity_mbps",
						      capacity > 0 ? json_real(capacity) : json_null(),
						      "capacity_learned", learned, "mbps", total));
	}
	return list;
}

json_t *engine_snapshot_list(const struct engine *e)
{
	json_t *parts = json_array();

	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used)
			json_array_append_new(parts, engine_partition_summary(e, i));
	return json_pack("{s:o}", "partitions", parts);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

json_t *engine_snapshot_status(const struct engine *e)
{
	size_t open = 0, failed = 0;

	for (size_t i = 0; i < e->slots.count; i++) {
		open += e->slots.partitions[i].used && e->slots.partitions[i].status.open;
		failed += e->slots.partitions[i].used && e->slots.partitions[i].failed;
	}
	bool learned = false;
	double capacity = engine_host_capacity(e, &learned);
	/* The uptime is the last tick's, so that a reply is the same text for the whole tick. */
	json_t *status = json_pack(
		"{s:s,s:I,s:I,s:f,s:I,s:I,s:I,s:f,s:f,s:o,s:b,s:b,s:I,s:o}", "backend", e->hw.control_ops->name,
		"interval_ms", (json_int_t)e->gens.config->global.interval_ms, "ticks", (json_int_t)e->ticks.done,
		"uptime_s", (double)(e->ticks.last_ns - e->ticks.start_ns) / 1e9, "partitions",
		(json_int_t)engine_partitions_in_use(e), "partitions_open", (json_int_t)open, "overruns",
		(json_int_t)e->ticks.overruns, "last_tick_ms", ms(e->ticks.stats.last_ns), "max_tick_ms",
		ms(e->ticks.stats.max_ns), "capacity_mbps", capacity > 0 ? json_real(capacity) : json_null(),
		"capacity_learned", learned, "sim_clock", e->opts.sim_clock, "events_total",
		(json_int_t)e->events.total, "events", event_log_to_json(&e->events, NULL, STATUS_EVENTS));
	json_object_set_new(status, "events_folded", json_integer((json_int_t)e->events.folded));
	if (engine_has_guarantees(e)) {
		const char *pending = engine_guarantees_pending(e);
		json_object_set_new(status, "guarantees", json_string(pending ? pending : "enforced"));
	}
	json_object_set_new(status, "partitions_failed", json_integer((json_int_t)failed));
	json_object_set_new(status, "record", e->record.file ? record_status_json(e->record.file) : json_null());
	json_object_set_new(status, "domains", domains_status(e));
	engine_pmu_status_json(e, status);
	engine_place_status_json(e, status);
	return status;
}
