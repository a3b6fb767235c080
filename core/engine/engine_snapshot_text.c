/* list written from a snapshot straight into JSON text (core/ctl/json_text.h): the bytes jansson
 * writes for snapshot_list_json (engine_snapshot_json.c), without a jansson value per member. At 4096
 * partitions the values and their dump were most of what a list cost.
 *
 * Where jansson cannot make a value (a string that is not UTF-8, a real that is NaN or infinite) the
 * document is what snapshot_list_json makes of it, so that the two never differ: json_pack fails, and
 * its row or domain row is left out of the array; json_object_set_new fails, and that one member is
 * left out. tests/unit/test_snapshot_text.c holds the two to the same bytes. */
#include "core/engine/engine_snapshot.h"

/* A value json_pack takes with "o": null, or what `write` makes of `v` (false: the pack fails). */
static bool real_or_null(struct json_text *t, bool has, double v)
{
	if (!has) {
		json_text_null(t);
		return true;
	}
	return json_text_real(t, v);
}

/* engine_json_u32: a goal only when it is set. */
static void u32_or_null(struct json_text *t, uint32_t v)
{
	if (v)
		json_text_int(t, v);
	else
		json_text_null(t);
}

/* limit_json: a limit is in force only on an open partition. */
static bool limit_text(struct json_text *t, const struct partition_status *st, double pct)
{
	if (!st->open) {
		json_text_null(t);
		return true;
	}
	return json_text_pct(t, pct);
}

static const char *domain_state(const struct domain_status *ds)
{
	return !ds->valid ? "invalid" : ds->estimated ? "estimated" : "measured";
}

/* The ceiling asked for where the partition is in a class (`in`), else null; a ceiling that cannot be
 * written is left out, key and all (json_object_set_new of NULL). */
static void asked_or_omit(struct json_text *t, bool in, double pct)
{
	size_t mark = t->len;

	json_text_lit(t, ",\"mb_max_asked\":");
	if (!in)
		json_text_null(t);
	else if (!json_text_pct(t, pct))
		json_text_rewind(t, mark);
}

/* One domain row as snapshot_domain_rows_json makes it without detail; false: json_pack failed. */
static bool domain_row(struct json_text *t, const struct engine_snapshot *s, const struct partition_status *st,
		       const struct domain_status *ds, unsigned d)
{
	json_text_lit(t, "{\"domain\":");
	if (!json_text_string(t, s->domains[d].name))
		return false;
	json_text_lit(t, ",\"mbps\":");
	if (!real_or_null(t, ds->valid, ds->mbps))
		return false;
	json_text_lit(t, ",\"state\":");
	json_text_string(t, domain_state(ds));
	json_text_lit(t, ",\"mb_max\":");
	if (!limit_text(t, st, ds->mb_max))
		return false;
	json_text_lit(t, ",\"mb_min\":");
	if (!limit_text(t, st, ds->mb_min))
		return false;
	json_text_lit(t, ",\"mb_max_mbps\":");
	if (!real_or_null(t, ds->mb_max_mbps > 0 && st->open, ds->mb_max_mbps))
		return false;
	asked_or_omit(t, st->open && st->in_class, ds->mb_max_asked);
	json_text_lit(t, "}");
	return true;
}

/* The array of domain rows; a row that fails is left out (json_array_append_new of NULL). */
static void domain_rows(struct json_text *t, const struct engine_snapshot *s, const struct snapshot_row *row)
{
	size_t written = 0;

	json_text_lit(t, "[");
	for (unsigned d = 0; d < s->domain_count; d++) {
		size_t mark = t->len;
		if (written)
			json_text_lit(t, ",");
		if (domain_row(t, s, &row->status, &snapshot_row_domains(s, row)[d], d))
			written++;
		else
			json_text_rewind(t, mark);
	}
	json_text_lit(t, "]");
}

/* row_summary's json_pack; false: it failed. */
static bool row_summary(struct json_text *t, const struct snapshot_row *row)
{
	const struct partition_status *st = &row->status;

	json_text_lit(t, "{\"name\":");
	if (!json_text_string(t, st->name))
		return false;
	json_text_lit(t, ",\"slot\":");
	json_text_int(t, (long long)row->slot);
	json_text_lit(t, ",\"class\":");
	if (!json_text_string(t, snapshot_row_class(row)))
		return false;
	json_text_lit(t, ",\"state\":");
	if (!json_text_string(t, snapshot_row_state(row)))
		return false;
	json_text_lit(t, ",\"open\":");
	json_text_bool(t, st->open);
	json_text_lit(t, ",\"mb_max\":");
	if (!limit_text(t, st, st->mb_max))
		return false;
	json_text_lit(t, ",\"mb_min\":");
	if (!limit_text(t, st, st->mb_min))
		return false;
	json_text_lit(t, ",\"mbps\":");
	if (!real_or_null(t, st->valid, st->mbps))
		return false;
	json_text_lit(t, ",\"valid\":");
	json_text_bool(t, st->valid);
	json_text_lit(t, ",\"estimated\":");
	json_text_bool(t, st->estimated);
	json_text_lit(t, ",\"target_mbps\":");
	u32_or_null(t, row->target_mbps);
	json_text_lit(t, ",\"guarantee_mbps\":");
	u32_or_null(t, row->guarantee_mbps);
	json_text_lit(t, ",\"weight\":");
	json_text_int(t, row->weight);
	json_text_lit(t, ",\"reason\":");
	if (!json_text_string_or_null(t, st->reason))
		return false;
	json_text_lit(t, ",\"error\":");
	if (!json_text_string_or_null(t, row->error))
		return false;
	json_text_lit(t, ",\"retry_in_s\":");
	if (!real_or_null(t, row->retry_known, row->retry_in_s))
		return false;
	json_text_lit(t, ",\"attempts\":");
	json_text_int(t, row->attempts);
	json_text_lit(t, ",\"template\":");
	return json_text_string_or_null(t, row->origin);
}

/* A member json_object_set_new adds: left out, key and all, when its value cannot be made. */
static void member_or_omit(struct json_text *t, const char *key_text, bool has, double v)
{
	size_t mark = t->len;

	json_text_lit(t, key_text);
	if (!real_or_null(t, has, v))
		json_text_rewind(t, mark);
}

static void row_pmu(struct json_text *t, const struct partition_status *st)
{
	member_or_omit(t, ",\"ipc\":", st->ipc_valid, st->ipc);
	member_or_omit(t, ",\"stall_ratio\":", st->stall_valid, st->stall_ratio);
	size_t mark = t->len;
	json_text_lit(t, ",\"pmu_reason\":");
	if (!json_text_string_or_null(t, st->pmu_reason))
		json_text_rewind(t, mark);
}

static void count_or_null(struct json_text *t, const char *key_text, bool has, uint64_t v)
{
	json_text_lit(t, key_text);
	if (has)
		json_text_int(t, (long long)v);
	else
		json_text_null(t);
}

/* row_class (engine_snapshot_json.c): the class and the ceiling asked for, null outside a class; a
 * ceiling that cannot be written is left out, key and all. */
static void row_class(struct json_text *t, const struct partition_status *st)
{
	bool in = st->open && st->in_class;

	count_or_null(t, ",\"hw_class\":", in, st->class_id);
	asked_or_omit(t, in, st->mb_max_asked);
}

/* snapshot_row_json; false: its json_pack failed, and the row is not in the list. */
static bool row_text(struct json_text *t, const struct engine_snapshot *s, const struct snapshot_row *row)
{
	const struct placement_status *place = row->placement;

	if (!row_summary(t, row))
		return false;
	row_pmu(t, &row->status);
	json_text_lit(t, ",\"domains\":");
	domain_rows(t, s, row);
	count_or_null(t, ",\"tasks\":", place, place ? place->tasks : 0);
	count_or_null(t, ",\"placements\":", place, place ? place->placements : 0);
	count_or_null(t, ",\"misses\":", place, place ? place->misses : 0);
	row_class(t, &row->status);
	json_text_lit(t, "}");
	return true;
}

bool snapshot_list_text(const struct engine_snapshot *s, struct json_text *t)
{
	size_t written = 0;

	json_text_lit(t, "{\"partitions\":[");
	for (size_t i = 0; i < s->row_count; i++) {
		size_t mark = t->len;
		if (written)
			json_text_lit(t, ",");
		if (row_text(t, s, &s->rows[i]))
			written++;
		else
			json_text_rewind(t, mark);
	}
	json_text_lit(t, "]}");
	return !t->failed;
}
