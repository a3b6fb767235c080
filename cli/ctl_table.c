/* mpamctl's layouts of the daemon's replies for people (cli/cmd_ctl.c): a value as text, arrays of
 * objects as tables that fit the terminal, objects as indented "key: value" lines. Whatever keys a
 * reply has are shown, so a newer daemon's fields appear without a newer mpamctl. */
#include "cli/ctl_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/event_time.h"
#include "cli/top_model.h"

#define TABLE_MAX_COLS 32

/* ---- values ---- */

static void format_number(double v, char *buf, size_t size)
{
	snprintf(buf, size, fabs(v) >= 1 || v == 0 ? "%.1f" : "%.3g", v);
}

static bool is_array_of_strings(json_t *v)
{
	json_t *item;
	size_t i;

	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, item) {
		if (!json_is_string(item))
			return false;
	}
	return true;
}

/* ["a", "b"] as "a, b"; [] as "-". */
static char *strings_joined(json_t *v)
{
	size_t len = 2;
	json_t *item;
	size_t i;

	json_array_foreach(v, i, item) {
		len += strlen(json_string_value(item)) + 2;
	}
	char *text = malloc(len);
	if (!text)
		return NULL;
	strcpy(text, json_array_size(v) ? "" : "-");
	json_array_foreach(v, i, item) {
		if (i)
			strcat(text, ", ");
		strcat(text, json_string_value(item));
	}
	return text;
}

/* A scalar as text; arrays of strings joined; other containers as compact JSON. Returns a malloc'ed
 * string. */
static char *value_text(json_t *v)
{
	char buf[64];

	switch (json_typeof(v)) {
	case JSON_STRING:
		return strdup(json_string_value(v));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return strdup(buf);
	case JSON_REAL:
		format_number(json_real_value(v), buf, sizeof(buf));
		return strdup(buf);
	case JSON_TRUE:
		return strdup("yes");
	case JSON_FALSE:
		return strdup("no");
	case JSON_NULL:
		return strdup("-");
	default:
		return is_array_of_strings(v) ? strings_joined(v) : json_dumps(v, JSON_COMPACT);
	}
}

/* A partition's rate, with its validity folded in: "-" when not measured, "~" when extrapolated. */
static char *rate_text(json_t *obj, json_t *mbps)
{
	char *text = value_text(mbps);
	char *marked;

	if (json_is_false(json_object_get(obj, "valid")) || json_is_null(mbps)) {
		free(text);
		return strdup("-");
	}
	if (!text || !json_is_true(json_object_get(obj, "estimated")))
		return text;
	if (asprintf(&marked, "%s~", text) < 0)
		marked = NULL;
	free(text);
	return marked;
}

/* An event's "time" (RFC 3339, UTC) in local time; anything else as it came. */
static char *time_text(json_t *v)
{
	char text[EVENT_TIME_TEXT_MAX];

	if (!event_time_text(json_string_value(v), time(NULL), text, sizeof(text)))
		return value_text(v);
	return strdup(text);
}

static char *cell_text(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return strdup("");
	if (!strcmp(key, "mbps"))
		return rate_text(obj, v);
	if (!strcmp(key, "time"))
		return time_text(v);
	return value_text(v);
}

/* Members that another column carries: a rate's "valid" and "estimated" (its '-' and '~'), an
 * event's "t_ms" beside its wall-clock "time" (--json keeps both). */
static bool folded(json_t *obj, const char *key)
{
	if (!strcmp(key, "valid") || !strcmp(key, "estimated"))
		return json_object_get(obj, "mbps") != NULL;
	return !strcmp(key, "t_ms") && json_is_string(json_object_get(obj, "time"));
}

/* ---- tables: one row per object of an array ---- */

struct table {
	const char *cols[TABLE_MAX_COLS];
	const char *headers[TABLE_MAX_COLS]; /* NULL: the key in capitals */
	size_t ncols;
	size_t width[TABLE_MAX_COLS];
	bool right[TABLE_MAX_COLS]; /* numbers align right */
};

static bool table_has(const struct table *t, const char *key)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], key))
			return true;
	return false;
}

static void table_add_col(struct table *t, const char *key)
{
	if (t->ncols < TABLE_MAX_COLS && !table_has(t, key))
		t->cols[t->ncols++] = key;
}

/* Columns: `preferred` first when present, then every other key in the order first seen; a rate
 * column absorbs "valid" and "estimated". */
static void table_columns(struct table *t, json_t *rows, const char *const *preferred)
{
	json_t *row, *v;
	const char *key;
	size_t i;

	for (; preferred && *preferred; preferred++) {
		json_array_foreach(rows, i, row) {
			if (json_object_get(row, *preferred) && !folded(row, *preferred))
				table_add_col(t, *preferred);
		}
	}
	json_array_foreach(rows, i, row) {
		json_object_foreach(row, key, v) {
			/* a nested list (list's per-domain rows) is a table of its own, not a cell */
			if (!folded(row, key) && !json_is_array(v) && !json_is_object(v))
				table_add_col(t, key);
		}
	}
}

/* Whether a row has `key` at all or, with `valued`, a value other than null there. */
static bool column_has(json_t *rows, const char *key, bool valued)
{
	json_t *row, *v;
	size_t i;

	json_array_foreach(rows, i, row) {
		v = json_object_get(row, key);
		if (v && !(valued && json_is_null(v)))
			return true;
	}
	return false;
}

/* Exactly the columns of `spec` (up to one with a NULL key), an optional one only when it has a value. */
static void table_columns_spec(struct table *t, json_t *rows, const struct table_column *spec)
{
	for (; spec->key && t->ncols < TABLE_MAX_COLS; spec++) {
		/* a daemon that does not send the field (an older one) gets no empty column */
		if (!column_has(rows, spec->key, spec->optional))
			continue;
		t->cols[t->ncols] = spec->key;
		t->headers[t->ncols] = spec->header;
		t->right[t->ncols++] = spec->right;
	}
}

static void table_measure(struct table *t, json_t *rows)
{
	json_t *row;
	size_t i;

	for (size_t c = 0; c < t->ncols; c++) {
		t->width[c] = strlen(t->headers[c] ? t->headers[c] : t->cols[c]);
		json_array_foreach(rows, i, row) {
			json_t *v = json_object_get(row, t->cols[c]);
			char *text = cell_text(row, t->cols[c]);
			if (text && strlen(text) > t->width[c])
				t->width[c] = strlen(text);
			if (json_is_number(v))
				t->right[c] = true;
			free(text);
		}
	}
}

/* Narrows the last column so that a line takes at most `columns`; never below its header. */
static void table_fit(struct table *t, size_t columns)
{
	size_t used = 0, last = t->ncols - 1;

	if (!t->ncols)
		return;
	for (size_t c = 0; c < last; c++)
		used += t->width[c] + 2;
	size_t header = strlen(t->headers[last] ? t->headers[last] : t->cols[last]);
	if (used + t->width[last] > columns)
		t->width[last] = columns > used + header ? columns - used : header;
}

/* A cell wider than its column (only the last, after table_fit) ends in "...". */
static void table_print_cell(const struct table *t, size_t c, const char *text)
{
	bool last = c + 1 == t->ncols;
	int width = (int)t->width[c];

	if (strlen(text) > t->width[c] && t->width[c] > 3)
		printf("%.*s...%s", width - 3, text, last ? "\n" : "  ");
	else if (t->right[c])
		printf("%*s%s", width, text, last ? "\n" : "  ");
	else if (last)
		printf("%s\n", text);
	else
		printf("%-*s  ", width, text);
}

static void table_print_rows(const struct table *t, json_t *rows, int indent)
{
	json_t *row;
	size_t i;

	printf("%*s", indent, "");
	for (size_t c = 0; c < t->ncols; c++) {
		char header[64];
		const char *name = t->headers[c] ? t->headers[c] : t->cols[c];
		size_t k;
		for (k = 0; name[k] && k + 1 < sizeof(header); k++)
			header[k] = (char)(name[k] >= 'a' && name[k] <= 'z' ? name[k] - 'a' + 'A' : name[k]);
		header[k] = '\0';
		table_print_cell(t, c, header);
	}
	json_array_foreach(rows, i, row) {
		printf("%*s", indent, "");
		for (size_t c = 0; c < t->ncols; c++) {
			char *text = cell_text(row, t->cols[c]);
			table_print_cell(t, c, text ? text : "?");
			free(text);
		}
	}
}

void ctl_table_print(json_t *rows, const char *const *preferred, int indent)
{
	struct table t = { .ncols = 0 };

	table_columns(&t, rows, preferred);
	table_measure(&t, rows);
	table_print_rows(&t, rows, indent);
}

bool ctl_is_array_of_objects(json_t *v)
{
	return json_is_array(v) && json_array_size(v) > 0 && json_is_object(json_array_get(v, 0));
}

/* ---- generic "key: value" layout ---- */

const char *const ctl_partition_columns[] = { "name",	     "class",	       "state",	   "mb_min",
					      "mb_max",	     "mb_max_asked",   "hw_class", "mbps",
					      "target_mbps", "guarantee_mbps", NULL };
static const char *const event_columns[] = { "time", "tick", "t_ms", "partition", "action", "reason", NULL };
static const char *const domain_columns[] = { "domain",	      "what",	     "mbps",   "state",	 "mb_max",
					      "mb_max_asked", "mb_max_mbps", "mb_min", "reason", NULL };

static const char *const *columns_for(const char *key)
{
	if (!strcmp(key, "events"))
		return event_columns;
	return !strcmp(key, "domains") ? domain_columns : ctl_partition_columns;
}

static void print_duration(int indent, const char *label, json_t *v)
{
	long long s = (long long)json_number_value(v);

	printf("%*s%s: ", indent, "", label);
	if (s >= 3600)
		printf("%lldh%02lldm%02llds\n", s / 3600, s / 60 % 60, s % 60);
	else if (s >= 60)
		printf("%lldm%02llds\n", s / 60, s % 60);
	else
		printf("%llds\n", s);
}

/* One "key: value" line per member; nested objects indented under their key, arrays of objects as
 * tables. */
void ctl_print_object(json_t *obj, int indent)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		if (folded(obj, key))
			continue;
		if (!strcmp(key, "uptime_s") && json_is_number(v)) {
			print_duration(indent, "uptime", v);
		} else if (ctl_is_array_of_objects(v)) {
			printf("%*s%s:\n", indent, "", key);
			ctl_table_print(v, columns_for(key), indent + 2);
		} else if (json_is_object(v)) {
			printf("%*s%s:\n", indent, "", key);
			ctl_print_object(v, indent + 2);
		} else {
			char *text = cell_text(obj, key);
			printf("%*s%s: %s\n", indent, "", key, text ? text : "?");
			free(text);
		}
	}
}

void ctl_table_print_spec(json_t *rows, const struct table_column *spec, size_t max_columns)
{
	struct table t = { .ncols = 0 };

	table_columns_spec(&t, rows, spec);
	table_measure(&t, rows);
	table_fit(&t, max_columns);
	table_print_rows(&t, rows, 0);
}
