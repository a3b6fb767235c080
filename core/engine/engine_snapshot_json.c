/* status and list built from a snapshot (engine_snapshot.h): on the control socket's thread, reading
 * nothing of the engine. */
#include "core/engine/engine_snapshot.h"

#include "core/report/json_pct.h"

json_t *engine_json_mbps(bool valid, double mbps)
{
	return valid ? json_real(mbps) : json_null();
}

json_t *engine_json_u32(uint32_t v)
{
	return v ? json_integer(v) : json_null();
}

static json_t *text_or_null(const char *text)
{
	return text ? json_string(text) : json_null();
}

/* A limit is in force only on an open partition: a failed one has none, which is not 0%. */
static json_t *limit_json(const struct partition_status *st, double pct)
{
	return st->open ? json_pct(pct) : json_null();
}

static json_t *row_summary(const struct snapshot_row *row)
{
	const struct partition_status *st = &row->status;

	return json_pack("{s:s,s:I,s:s,s:s,s:b,s:o,s:o,s:o,s:b,s:b,s:o,s:o,s:I,s:o,s:o,s:o,s:I,s:o}", "name", st->name,
			 "slot", (json_int_t)row->slot, "class", snapshot_row_class(row), "state",
			 snapshot_row_state(row), "open", st->open, "mb_max", limit_json(st, st->mb_max), "mb_min",
			 limit_json(st, st->mb_min), "mbps", engine_json_mbps(st->valid, st->mbps), "valid", st->valid,
			 "estimated", st->estimated, "target_mbps", engine_json_u32(row->target_mbps), "guarantee_mbps",
			 engine_json_u32(row->guarantee_mbps), "weight", (json_int_t)row->weight, "reason",
			 text_or_null(st->reason), "error", text_or_null(row->error), "retry_in_s",
			 row->retry_known ? json_real(row->retry_in_s) : json_null(), "attempts",
			 (json_int_t)row->attempts, "template", text_or_null(row->origin));
}

static const char *domain_state(const struct domain_status *ds)
{
	return !ds->valid ? "invalid" : ds->estimated ? "estimated" : "measured";
}

json_t *snapshot_domain_rows_json(const struct engine_snapshot *s, const struct snapshot_row *row, bool detail)
{
	const struct partition_status *st = &row->status;
	bool in = st->open && st->in_class;
	json_t *rows = json_array();

	for (unsigned d = 0; d < s->domain_count; d++) {
		const struct domain_status *ds = &snapshot_row_domains(s, row)[d];
		json_t *json =
			json_pack("{s:s,s:o,s:s,s:o,s:o,s:o}", "domain", s->domains[d].name, "mbps",
				  engine_json_mbps(ds->valid, ds->mbps), "state", domain_state(ds), "mb_max",
				  limit_json(st, ds->mb_max), "mb_min", limit_json(st, ds->mb_min), "mb_max_mbps",
				  ds->mb_max_mbps > 0 && st->open ? json_real(ds->mb_max_mbps) : json_null());
		/* classes = shared: the ceiling it asked for on this domain, beside mb_max, what its class
		 * holds there; null where it has a class of its own (as row_class, below) */
		json_object_set_new(json, "mb_max_asked", in ? json_pct(ds->mb_max_asked) : json_null());
		if (detail) {
			json_object_set_new(json, "what", json_string(s->domains[d].what));
			json_object_set_new(json, "reason", text_or_null(ds->valid ? NULL : ds->reason));
			if (s->has_truth)
				json_object_set_new(json, "sim_mbps", json_real(ds->truth_mbps));
		}
		json_array_append_new(rows, json);
	}
	return rows;
}

/* IPC and stall ratio, null when not counted. */
static void row_pmu(const struct partition_status *st, json_t *json)
{
	json_object_set_new(json, "ipc", st->ipc_valid ? json_real(st->ipc) : json_null());
	json_object_set_new(json, "stall_ratio", st->stall_valid ? json_real(st->stall_ratio) : json_null());
	json_object_set_new(json, "pmu_reason", text_or_null(st->pmu_reason));
}

/* The placement's counts, null when the partition names no tasks. */
static void row_placement(const struct placement_status *place, json_t *json)
{
	json_object_set_new(json, "tasks", place ? json_integer((json_int_t)place->tasks) : json_null());
	json_object_set_new(json, "placements", place ? json_integer((json_int_t)place->placements) : json_null());
	json_object_set_new(json, "misses", place ? json_integer((json_int_t)place->misses) : json_null());
}

/* classes = shared: the class it is in and the ceiling it asked for (mb_max is what its class holds);
 * null where it has a class of its own. */
static void row_class(const struct partition_status *st, json_t *json)
{
	bool in = st->open && st->in_class;

	json_object_set_new(json, "hw_class", in ? json_integer(st->class_id) : json_null());
	json_object_set_new(json, "mb_max_asked", in ? json_pct(st->mb_max_asked) : json_null());
}

json_t *snapshot_row_json(const struct engine_snapshot *s, const struct snapshot_row *row)
{
	json_t *json = row_summary(row);

	row_pmu(&row->status, json);
	json_object_set_new(json, "domains", snapshot_domain_rows_json(s, row, false));
	row_placement(row->placement, json);
	row_class(&row->status, json);
	return json;
}

json_t *snapshot_list_json(const struct engine_snapshot *s)
{
	json_t *parts = json_array();

	for (size_t i = 0; i < s->row_count; i++)
		json_array_append_new(parts, snapshot_row_json(s, &s->rows[i]));
	return json_pack("{s:o}", "partitions", parts);
}

/* Each domain: its name, what it is, what it can carry (known, or learned) and its total. */
static json_t *domains_status(const struct engine_snapshot *s)
{
	json_t *list = json_array();

	for (unsigned d = 0; d < s->domain_count; d++) {
		const struct snapshot_domain *sd = &s->domains[d];
		json_array_append_new(list,
				      json_pack("{s:s,s:s,s:o,s:b,s:s,s:f}", "domain", sd->name, "what", sd->what,
						"capacity_mbps",
						sd->capacity_mbps > 0 ? json_real(sd->capacity_mbps) : json_null(),
						"capacity_learned", sd->learned, "capacity_source", sd->source, "mbps",
						sd->total_mbps));
	}
	return list;
}

/* The proc connector, the reconciles, and the partitions' placement totals. */
static json_t *placement_status(const struct engine_snapshot *s)
{
	uint64_t tasks = 0, placements = 0, misses = 0;

	for (size_t i = 0; i < s->row_count; i++) {
		const struct placement_status *place = s->rows[i].placement;
		if (!place)
			continue;
		tasks += place->tasks;
		placements += place->placements;
		misses += place->misses;
	}
	return json_pack("{s:b,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "proc_connector", s->proc_connector,
			 "proc_connector_off", text_or_null(s->proc_connector_off), "reconcile_ms",
			 (json_int_t)s->reconcile_ms, "reconciles", (json_int_t)s->reconciles, "events",
			 (json_int_t)s->place_events, "events_lost", (json_int_t)s->place_lost, "tasks",
			 (json_int_t)tasks, "placements", (json_int_t)placements, "misses", (json_int_t)misses);
}

/* classes = shared: classes used and left, monitors (resctrl's RMIDs) used and left; null otherwise. */
static json_t *classes_status(const struct engine_snapshot *s)
{
	const struct class_room *r = &s->class_room;
	bool counted = r->monitors_counted;

	if (!s->classes_shared)
		return json_null();
	return json_pack("{s:s,s:I,s:I,s:s,s:o,s:o,s:f,s:I}", "mode", "shared", "used", (json_int_t)r->held, "left",
			 (json_int_t)r->left, "monitors_name", r->monitors_name ? r->monitors_name : "monitors",
			 "monitors_used", counted ? json_integer((json_int_t)r->monitors_used) : json_null(),
			 "monitors_left",
			 counted ? json_integer((json_int_t)(r->monitors - r->monitors_used)) : json_null(),
			 "deviation_pp", s->class_deviation_pp, "members", (json_int_t)s->class_members);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

json_t *snapshot_status_json(const struct engine_snapshot *s)
{
	/* The uptime is the last tick's, so that a reply is the same text for the whole tick. */
	json_t *status = json_pack(
		"{s:s,s:I,s:I,s:f,s:I,s:I,s:I,s:f,s:f,s:o,s:b,s:b,s:I,s:o}", "backend", s->backend, "interval_ms",
		(json_int_t)s->interval_ms, "ticks", (json_int_t)s->ticks, "uptime_s", s->uptime_s, "partitions",
		(json_int_t)s->row_count, "partitions_open", (json_int_t)s->partitions_open, "overruns",
		(json_int_t)s->overruns, "last_tick_ms", ms(s->last_tick_ns), "max_tick_ms", ms(s->max_tick_ns),
		"capacity_mbps", s->capacity_mbps > 0 ? json_real(s->capacity_mbps) : json_null(), "capacity_learned",
		s->capacity_learned, "sim_clock", s->sim_clock, "events_total", (json_int_t)s->events->total, "events",
		event_log_to_json(s->events, NULL, s->events->count));

	json_object_set_new(status, "events_folded", json_integer((json_int_t)s->events->folded));
	if (s->has_guarantees)
		json_object_set_new(status, "guarantees",
				    json_string(s->guarantees_pending ? s->guarantees_pending : "enforced"));
	json_object_set_new(status, "partitions_failed", json_integer((json_int_t)s->partitions_failed));
	json_object_set_new(status, "record", s->record ? json_incref(s->record) : json_null());
	json_object_set_new(status, "domains", domains_status(s));
	json_object_set_new(status, "pmu", text_or_null(s->pmu));
	json_object_set_new(status, "placement", placement_status(s));
	json_object_set_new(status, "classes", classes_status(s));
	return status;
}
