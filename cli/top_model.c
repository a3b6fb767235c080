/* The daemon's replies as mpamctl top's rows; see top_model.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/event_time.h"
#include "cli/top_model.h"

/* ---- reading fields that may be missing or mistyped ---- */

static double number_or_nan(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_number(v) && isfinite(json_number_value(v)) ? json_number_value(v) : NAN;
}

/* -1 unknown, 0 false, 1 true. */
static int tristate(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_boolean(v) ? json_is_true(v) : -1;
}

/* A copy fit for a terminal cell: control and non-ASCII bytes become '?'. Sets *failed on ENOMEM. */
static char *printable_copy(const char *s, bool *failed)
{
	char *copy = s ? strdup(s) : NULL;

	if (s && !copy)
		*failed = true;
	for (char *p = copy; p && *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return copy;
}

static char *string_or_null(json_t *obj, const char *key, bool *failed)
{
	return printable_copy(json_string_value(json_object_get(obj, key)), failed);
}

/* A domain id may come as "0" or as 0. */
static char *id_text(json_t *v, bool *failed)
{
	char buf[32];

	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return printable_copy(buf, failed);
	}
	return printable_copy(json_string_value(v), failed);
}

/* ---- one partition ---- */

static enum top_state row_state(json_t *part)
{
	int open = tristate(part, "open"), valid = tristate(part, "valid");

	if (open == 0)
		return TOP_STATE_FAILED;
	if (valid == 0)
		return TOP_STATE_INVALID;
	if (valid < 0)
		return TOP_STATE_UNKNOWN;
	return tristate(part, "estimated") == 1 ? TOP_STATE_ESTIMATED : TOP_STATE_MEASURED;
}

static int read_domains(json_t *part, struct top_row *row, bool *failed)
{
	json_t *list = json_object_get(part, "domains"), *d;
	size_t i;

	if (!json_is_array(list))
		return 0;
	row->domains = calloc(json_array_size(list) ? json_array_size(list) : 1, sizeof(*row->domains));
	if (!row->domains)
		return -ENOMEM;
	json_array_foreach(list, i, d) {
		struct top_domain *dom = &row->domains[row->domain_count++];
		dom->id = id_text(json_object_get(d, "domain"), failed);
		dom->mbps = number_or_nan(d, "mbps");
		dom->mb_max = number_or_nan(d, "mb_max");
		dom->mb_min = number_or_nan(d, "mb_min");
	}
	return 1;
}

/* The newest event of partition `name`: status events come oldest first. */
static char *newest_event(json_t *status, const char *name, bool *failed)
{
	json_t *events = json_object_get(status, "events");
	char *text = NULL;

	if (!name || !json_is_array(events))
		return NULL;
	for (size_t i = json_array_size(events); i-- > 0;) {
		json_t *e = json_array_get(events, i);
		const char *who = json_string_value(json_object_get(e, "partition"));
		const char *action = json_string_value(json_object_get(e, "action"));
		const char *reason = json_string_value(json_object_get(e, "reason"));
		char when[EVENT_TIME_TEXT_MAX];
		if (!who || strcmp(who, name) || !action)
			continue;
		/* "11:27:07 throttle: ...": when it happened, in local time (a daemon without times: none) */
		bool dated =
			event_time_text(json_string_value(json_object_get(e, "time")), time(NULL), when, sizeof(when));
		if (asprintf(&text, "%s%s%s%s%s", when, dated ? " " : "", action, reason && *reason ? ": " : "",
			     reason ? reason : "") < 0) {
			*failed = true;
			return NULL;
		}
		char *clean = printable_copy(text, failed);
		free(text);
		return clean;
	}
	return NULL;
}

static int read_row(json_t *status, json_t *part, size_t index, struct top_row *row)
{
	bool failed = false;

	*row = (struct top_row){ .index = index };
	row->name = string_or_null(part, "name", &failed);
	row->class_name = string_or_null(part, "class", &failed);
	row->state = row_state(part);
	/* A rate without a valid sample behind it is not a rate. */
	row->mbps = tristate(part, "valid") == 1 ? number_or_nan(part, "mbps") : NAN;
	row->mb_max = number_or_nan(part, "mb_max");
	row->mb_min = number_or_nan(part, "mb_min");
	row->target_mbps = number_or_nan(part, "target_mbps");
	row->guarantee_mbps = number_or_nan(part, "guarantee_mbps");
	row->reason = string_or_null(part, "reason", &failed);
	row->event = newest_event(status, json_string_value(json_object_get(part, "name")), &failed);
	int r = read_domains(part, row, &failed);
	return r < 0 || failed ? -ENOMEM : r;
}

/* ---- the whole reply ---- */

static int read_status(json_t *status, struct top_status *st)
{
	bool failed = false;

	st->backend = string_or_null(status, "backend", &failed);
	st->interval_ms = number_or_nan(status, "interval_ms");
	st->ticks = number_or_nan(status, "ticks");
	st->overruns = number_or_nan(status, "overruns");
	st->capacity_mbps = number_or_nan(status, "capacity_mbps");
	if (!(st->capacity_mbps > 0))
		st->capacity_mbps = NAN;
	st->capacity_learned = tristate(status, "capacity_learned") == 1;
	return failed ? -ENOMEM : 0;
}

int top_model_build(json_t *status, json_t *list, struct top_model *ret, struct err *err)
{
	json_t *parts = json_object_get(list, "partitions");
	struct top_model m = { .count = 0 };

	*ret = m;
	if (!json_is_array(parts))
		return err_set(err, -EPROTO, "the list reply has no \"partitions\" array");
	m.rows = calloc(json_array_size(parts) ? json_array_size(parts) : 1, sizeof(*m.rows));
	int r = m.rows ? read_status(status, &m.status) : -ENOMEM;
	for (size_t i = 0; r >= 0 && i < json_array_size(parts); i++) {
		r = read_row(status, json_array_get(parts, i), i, &m.rows[i]);
		m.count++;
		if (r > 0)
			m.domains_sent = true;
	}
	if (r < 0) {
		top_model_fini(&m);
		return err_set(err, -ENOMEM, "out of memory reading the daemon's replies");
	}
	*ret = m;
	return 0;
}

static void row_fini(struct top_row *row)
{
	free(row->name);
	free(row->class_name);
	free(row->reason);
	free(row->event);
	for (size_t d = 0; d < row->domain_count; d++)
		free(row->domains[d].id);
	free(row->domains);
}

void top_model_fini(struct top_model *m)
{
	for (size_t i = 0; i < m->count; i++)
		row_fini(&m->rows[i]);
	free(m->rows);
	free(m->status.backend);
	*m = (struct top_model){ .count = 0 };
}

/* ---- sorting ---- */

static const char *const class_order[] = { "latency-critical", "default", "best-effort" };

static int class_rank(const char *class_name)
{
	for (size_t i = 0; i < sizeof(class_order) / sizeof(class_order[0]); i++)
		if (class_name && !strcmp(class_name, class_order[i]))
			return (int)i;
	return (int)(sizeof(class_order) / sizeof(class_order[0]));
}

static int compare_numbers(double a, double b)
{
	return (a > b) - (a < b);
}

/* The key's own comparison, natural direction; sets *unknown_a/_b for values that stay last. */
static int compare_key(const struct top_row *a, const struct top_row *b, enum top_sort key, bool *unknown_a,
		       bool *unknown_b)
{
	switch (key) {
	case TOP_SORT_BANDWIDTH:
		*unknown_a = isnan(a->mbps);
		*unknown_b = isnan(b->mbps);
		return compare_numbers(b->mbps, a->mbps); /* highest first */
	case TOP_SORT_CLASS: {
		*unknown_a = !a->class_name;
		*unknown_b = !b->class_name;
		int by_rank = class_rank(a->class_name) - class_rank(b->class_name);
		if (by_rank || *unknown_a || *unknown_b)
			return by_rank;
		return strcmp(a->class_name, b->class_name);
	}
	default:
		*unknown_a = !a->name;
		*unknown_b = !b->name;
		return *unknown_a || *unknown_b ? 0 : strcmp(a->name, b->name);
	}
}

static int compare_rows(const struct top_row *a, const struct top_row *b, enum top_sort key, bool reverse)
{
	bool unknown_a = false, unknown_b = false;
	int c = compare_key(a, b, key, &unknown_a, &unknown_b);

	if (unknown_a != unknown_b)
		return unknown_a ? 1 : -1;
	if (!unknown_a && c)
		return reverse ? -c : c;
	if (key != TOP_SORT_NAME && a->name && b->name && strcmp(a->name, b->name))
		return strcmp(a->name, b->name);
	if (!a->name != !b->name)
		return a->name ? -1 : 1;
	return compare_numbers((double)a->index, (double)b->index);
}

/* qsort has no context argument: an insertion sort keeps the key with it (a host has tens of
 * partitions, not thousands), and is stable besides. */
void top_model_sort(struct top_model *m, enum top_sort key, bool reverse)
{
	for (size_t i = 1; i < m->count; i++) {
		struct top_row moving = m->rows[i];
		size_t j = i;
		for (; j > 0 && compare_rows(&m->rows[j - 1], &moving, key, reverse) > 0; j--)
			m->rows[j] = m->rows[j - 1];
		m->rows[j] = moving;
	}
}

const char *top_sort_name(enum top_sort key)
{
	static const char *const names[TOP_SORT_COUNT] = { "name", "bandwidth", "class" };

	return (unsigned)key < TOP_SORT_COUNT ? names[key] : "?";
}

const char *top_state_name(enum top_state state)
{
	switch (state) {
	case TOP_STATE_MEASURED:
		return "measured";
	case TOP_STATE_ESTIMATED:
		return "estimated";
	case TOP_STATE_INVALID:
		return "invalid";
	case TOP_STATE_FAILED:
		return "failed";
	default:
		return "-";
	}
}

/* ---- cell texts ---- */

void top_format_mbps(double mbps, bool estimated, char *buf, size_t size)
{
	if (isnan(mbps))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, fabs(mbps) >= 1e6 ? "%.0f%s" : "%.1f%s", mbps, estimated ? "~" : "");
}

static void format_percent(double pct, char *buf, size_t size)
{
	if (isnan(pct))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.0f", pct);
}

void top_format_limits(double mb_max, double mb_min, char *buf, size_t size)
{
	char max[24], min[24];

	format_percent(mb_max, max, sizeof(max));
	format_percent(mb_min, min, sizeof(min));
	snprintf(buf, size, "%s/%s", max, min);
}
