/* mpamctl status | list | show | set | reload | metrics: one request to the running mpamd over its
 * control socket, one reply, printed as JSON or formatted for people. The daemon sends data only (and
 * for metrics the Prometheus text it builds itself, printed as it is); every layout below is the
 * CLI's, and each falls back to printing whatever keys the daemon sends, so a newer daemon's fields
 * show up without a newer mpamctl. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli_error.h"
#include "cli/ctl_client.h"
#include "cli/event_time.h"
#include "cli/mpamctl.h"
#include "cli/socket_access.h"
#include "core/base/suggest.h"
#include "core/config/config.h"
#include "core/ctl/proto.h"

#define TABLE_MAX_COLS 32

struct ctl_cli_command {
	const char *name;
	const char *args;    /* synopsis after the command name */
	const char *summary; /* what --help says it does */
	int min_args, max_args;
	void (*print)(json_t *result, const struct ctl_options *opts);
	bool wide_option; /* takes -w, --wide */
};

/* ---- talking to the daemon ---- */

#define NAME_SUGGESTIONS 3

/* The partitions' names into `names` (room for all); false when `name` is among them. */
static bool names_without(json_t *partitions, const char *name, const char **names, size_t *count)
{
	json_t *p;
	size_t i;

	*count = 0;
	json_array_foreach(partitions, i, p) {
		const char *n = json_string_value(json_object_get(p, "name"));
		if (n && !strcmp(n, name))
			return false;
		if (n)
			names[(*count)++] = n;
	}
	return true;
}

/* "did you mean 'vm-web-1' or 'vm-web-2'?" when `name` is not a partition mpamd has, "" when it is
 * one (the refusal had another reason) or when the partitions cannot be listed. */
static void name_hint(const char *socket_path, const char *name, char *buf, size_t len)
{
	json_t *list = NULL;
	struct err err = { { 0 } };
	const char *near[NAME_SUGGESTIONS];
	size_t count, found, used;

	buf[0] = '\0';
	if (ctl_client_call(socket_path, "list", NULL, NULL, 0, &list, &err) != CTL_CLIENT_OK)
		return;
	json_t *partitions = json_object_get(list, "partitions");
	const char **names = calloc(json_array_size(partitions) + 1, sizeof(*names));
	if (names && names_without(partitions, name, names, &count)) {
		found = suggest_near(name, names, count, near, NAME_SUGGESTIONS);
		if (!found)
			snprintf(buf, len, "'mpamctl list' shows the %zu partitions", count);
		used = found ? (size_t)snprintf(buf, len, "did you mean ") : 0;
		for (size_t k = 0; k < found && used < len; k++) {
			const char *before = k == 0 ? "" : k + 1 == found ? " or " : ", ";
			used += (size_t)snprintf(buf + used, len - used, "%s'%s'", before, near[k]);
		}
		if (found && used < len)
			snprintf(buf + used, len - used, "?");
	}
	free(names);
	json_decref(list);
}

static int ctl_call(const struct ctl_options *opts, bool json, const char *cmd, const char *name,
		    const char *const *settings, size_t count, json_t **ret_result)
{
	struct err err = { { 0 } };
	enum ctl_client_outcome outcome;

	*ret_result = NULL;
	outcome = ctl_client_call(opts->socket_path, cmd, name, settings, count, ret_result, &err);
	int code = ctl_client_exit_code(outcome);
	switch (outcome) {
	case CTL_CLIENT_OK:
		return code;
	case CTL_CLIENT_BAD_REQUEST:
		return cli_error(json, cmd, code, "%s", err.text);
	case CTL_CLIENT_REFUSED: {
		/* A refused reload says why line by line: each finding, then the daemon's summary; a
		 * refused set or reload for want of privilege, what this user lacks; a name mpamd does
		 * not have, the nearest it has. */
		char hint[ERR_TEXT_MAX], near[ERR_TEXT_MAX / 2] = "";
		bool denied = ctl_command_find(cmd)->privilege == CTL_MUTATING &&
			      socket_access_mutate_hint(opts->socket_path, hint, sizeof(hint));
		if (!denied && name)
			name_hint(opts->socket_path, name, near, sizeof(near));
		code = cli_error_messages(json, cmd, code, *ret_result, "%s%s%s", err.text,
					  denied || near[0] ? "; " : "", denied ? hint : near);
		json_decref(*ret_result);
		*ret_result = NULL;
		return code;
	}
	default:
		return cli_error(json, NULL, code, "%s", err.text);
	}
}

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

/* A column of a table laid out in advance (list's default view). */
struct table_column {
	const char *key;
	const char *header;
	bool right;    /* aligned right although its cells are text ("100/30") */
	bool optional; /* left out when no row has a value for it */
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

static void table_print(json_t *rows, const char *const *preferred, int indent)
{
	struct table t = { .ncols = 0 };

	table_columns(&t, rows, preferred);
	table_measure(&t, rows);
	table_print_rows(&t, rows, indent);
}

static bool is_array_of_objects(json_t *v)
{
	return json_is_array(v) && json_array_size(v) > 0 && json_is_object(json_array_get(v, 0));
}

/* ---- generic "key: value" layout ---- */

static const char *const partition_columns[] = { "name", "class",	"state",	  "mb_min", "mb_max",
						 "mbps", "target_mbps", "guarantee_mbps", NULL };
static const char *const event_columns[] = { "time", "tick", "t_ms", "partition", "action", "reason", NULL };
static const char *const domain_columns[] = { "domain", "what", "mbps", "state", "mb_max", "mb_min", "reason", NULL };

static const char *const *columns_for(const char *key)
{
	if (!strcmp(key, "events"))
		return event_columns;
	return !strcmp(key, "domains") ? domain_columns : partition_columns;
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
static void print_object(json_t *obj, int indent)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		if (folded(obj, key))
			continue;
		if (!strcmp(key, "uptime_s") && json_is_number(v)) {
			print_duration(indent, "uptime", v);
		} else if (is_array_of_objects(v)) {
			printf("%*s%s:\n", indent, "", key);
			table_print(v, columns_for(key), indent + 2);
		} else if (json_is_object(v)) {
			printf("%*s%s:\n", indent, "", key);
			print_object(v, indent + 2);
		} else {
			char *text = cell_text(obj, key);
			printf("%*s%s: %s\n", indent, "", key, text ? text : "?");
			free(text);
		}
	}
}

static void print_result(json_t *result, const struct ctl_options *opts)
{
	(void)opts;
	print_object(result, 0);
}

/* Each partition's rows on each domain, as one table, where the host has more than one domain. */
static void print_list_domains(json_t *partitions)
{
	static const char *const columns[] = { "partition", "domain", "mbps", "state", "mb_max", "mb_min", NULL };
	json_t *rows = json_array(), *p, *d;
	size_t i, j;
	bool several = false;

	json_array_foreach(partitions, i, p) {
		json_t *domains = json_object_get(p, "domains");
		several |= json_array_size(domains) > 1;
		json_array_foreach(domains, j, d) {
			json_t *row = json_deep_copy(d);
			json_object_set(row, "partition", json_object_get(p, "name"));
			json_array_append_new(rows, row);
		}
	}
	if (several) {
		printf("\n");
		table_print(rows, columns, 0);
	}
	json_decref(rows);
}

/* list's default view: what an operator looks at first, within LIST_COLUMNS. */
#define LIST_COLUMNS 100

static const struct table_column list_columns[] = {
	{ "name", "NAME", false, false },
	{ "class", "CLASS", false, false },
	{ "state", "STATE", false, false },
	{ "mbps", "MB/S", true, false },
	{ "max/min", "MAX/MIN", true, false },
	{ "target_mbps", "TARGET", true, false },
	{ "guarantee_mbps", "GUARANTEE", true, false },
	{ "tasks", "TASKS", true, true },
	{ "note", "NOTE", false, true },
	{ NULL, NULL, false, false },
};

/* "100/30": mb_max and mb_min in force, "-" where none is (a failed partition). */
static json_t *limits_pair(json_t *p)
{
	char *max = value_text(json_object_get(p, "mb_max")), *min = value_text(json_object_get(p, "mb_min"));
	char text[64];

	snprintf(text, sizeof(text), "%s/%s", max ? max : "?", min ? min : "?");
	free(max);
	free(min);
	return json_string(!strcmp(text, "-/-") ? "-" : text);
}

/* What needs a look, one at a time: why it failed, else why its sample is not valid. */
static json_t *partition_note(json_t *p)
{
	json_t *error = json_object_get(p, "error"), *reason = json_object_get(p, "reason");

	return json_incref(json_is_string(error) ? error : json_is_string(reason) ? reason : json_null());
}

static json_t *list_row(json_t *p)
{
	static const char *const copied[] = { "name",	   "class",	  "state",	    "mbps", "valid",
					      "estimated", "target_mbps", "guarantee_mbps", "tasks" };
	json_t *row = json_object();

	for (size_t k = 0; k < sizeof(copied) / sizeof(copied[0]); k++) {
		json_t *v = json_object_get(p, copied[k]);
		if (v)
			json_object_set(row, copied[k], v);
	}
	if (json_object_get(p, "mb_max") && json_object_get(p, "mb_min"))
		json_object_set_new(row, "max/min", limits_pair(p));
	json_object_set_new(row, "note", partition_note(p));
	return row;
}

static void print_list_compact(json_t *partitions)
{
	struct table t = { .ncols = 0 };
	json_t *rows = json_array(), *p;
	size_t i;

	json_array_foreach(partitions, i, p) {
		json_array_append_new(rows, list_row(p));
	}
	table_columns_spec(&t, rows, list_columns);
	table_measure(&t, rows);
	table_fit(&t, LIST_COLUMNS);
	table_print_rows(&t, rows, 0);
	json_decref(rows);
}

static void print_list(json_t *result, const struct ctl_options *opts)
{
	json_t *partitions = json_object_get(result, "partitions");

	if (!json_is_array(partitions) || (json_array_size(partitions) && !is_array_of_objects(partitions))) {
		print_object(result, 0);
		return;
	}
	if (json_array_size(partitions) == 0) {
		printf("no partitions\n");
		return;
	}
	if (opts->wide)
		table_print(partitions, partition_columns, 0);
	else
		print_list_compact(partitions);
	print_list_domains(partitions);
}

/* "mb_max=25 -> 20 (step 10)" when the hardware rounded what was asked. */
static const char *setting_rounding(json_t *rounded, const char *setting, char *buf, size_t len)
{
	json_t *r;
	size_t i;

	json_array_foreach(rounded, i, r) {
		const char *key = json_string_value(json_object_get(r, "key"));
		size_t n = key ? strlen(key) : 0;
		if (n && !strncmp(setting, key, n) && setting[n] == '=') {
			snprintf(buf, len, " -> %lld (step %lld)",
				 (long long)json_integer_value(json_object_get(r, "in_force")),
				 (long long)json_integer_value(json_object_get(r, "step")));
			return buf;
		}
	}
	return "";
}

static void print_set(json_t *result, const struct ctl_options *opts)
{
	(void)opts;
	json_t *settings = json_object_get(result, "settings"), *s;
	json_t *rounded = json_object_get(result, "rounded");
	const char *name = json_string_value(json_object_get(result, "name"));
	char note[64];
	size_t i;

	if (!name || !json_is_array(settings)) {
		print_object(result, 0);
		return;
	}
	printf("%s:", name);
	json_array_foreach(settings, i, s) {
		const char *text = json_string_value(s) ? json_string_value(s) : "?";
		printf(" %s%s", text, setting_rounding(rounded, text, note, sizeof(note)));
	}
	printf("\n");
}

/* " added: a, b" for a non-empty list of names. */
static void print_names(json_t *result, const char *key, const char *label)
{
	json_t *names = json_object_get(result, key), *name;
	size_t i;

	if (!json_array_size(names))
		return;
	printf("  %s:", label);
	json_array_foreach(names, i, name) {
		printf("%s %s", i ? "," : "", json_string_value(name) ? json_string_value(name) : "?");
	}
	printf("\n");
}

static void print_reload(json_t *result, const struct ctl_options *opts)
{
	(void)opts;
	json_t *messages = json_object_get(result, "messages");

	if (!json_is_true(json_object_get(result, "reloaded"))) {
		print_object(result, 0);
		return;
	}
	printf("configuration reloaded\n");
	print_names(result, "added", "added");
	print_names(result, "removed", "removed");
	print_names(result, "changed", "changed in place");
	print_names(result, "readded", "removed and added again");
	json_t *unchanged = json_object_get(result, "unchanged");
	if (json_is_integer(unchanged))
		printf("  unchanged: %lld partition(s)\n", (long long)json_integer_value(unchanged));
	json_t *interval = json_object_get(result, "interval_ms");
	if (json_is_integer(interval))
		printf("  interval_ms: %lld\n", (long long)json_integer_value(interval));
	cli_print_messages(messages);
}

/* ---- Prometheus text exposition: the daemon writes it, mpamctl passes it on ---- */

static void print_metrics(json_t *result, const struct ctl_options *opts)
{
	(void)opts;
	json_t *text = json_object_get(result, "text");

	if (!json_is_string(text)) {
		print_object(result, 0);
		return;
	}
	fwrite(json_string_value(text), 1, json_string_length(text), stdout);
}

/* ---- commands ---- */

static const struct ctl_cli_command cli_commands[] = {
	{ "status", "",
	  "Show the daemon's state: backend, tick interval, ticks done, uptime, overruns, how long the\n"
	  "last tick and the longest took, partitions and recent policy events (their time in the local\n"
	  "zone, HH:MM:SS; with --json RFC 3339 UTC in \"time\").",
	  0, 0, print_result, false },
	{ "list", " [--wide]",
	  "List every partition, one line each within 100 columns: its name, class, state (open;\n"
	  "failed: it could not be opened or its limits applied, and is tried again by itself), last\n"
	  "rate (MB/S; '-' when not measured, '~' when extrapolated), limits in force (MAX/MIN: mb_max\n"
	  "and mb_min in percent; '-' when none is), target and guarantee (MB/s), TASKS (a partition\n"
	  "with a cgroup, vm or pids: its tasks) and NOTE (why it failed, or why its sample is not\n"
	  "valid; cut to fit). With more than one domain, a second table gives each partition's rate,\n"
	  "state and limits on each. --wide adds every other field mpamd sends, one column each: slot,\n"
	  "open, weight, reason, error, retry_in_s, attempts, the template that made it (a VM's), IPC\n"
	  "and stall ratio, the threads placed in its group and those refused.",
	  0, 0, print_list, true },
	{ "show", " NAME",
	  "Show everything about partition NAME, one 'key: value' per line, and its recent events. A\n"
	  "name mpamd does not have gets the nearest it has ('did you mean ...?'), as with set.",
	  1, 1, print_result, false },
	{ "set", " NAME KEY=VALUE...",
	  "Change partition NAME while mpamd runs. Keys and ranges are those of the configuration file\n"
	  "(see mpamd.ini(5)): mb_min, mb_max, target_mbps, guarantee_mbps, class... All settings are\n"
	  "applied together or none is. Needs root or the control socket's group.",
	  2, -1, print_set, false },
	{ "reload", "",
	  "Re-read the configuration file and apply only what changed: partitions added, removed,\n"
	  "changed in place (goals) or removed and added again (partid, cgroup, vm, pids...); the others\n"
	  "keep running untouched. An invalid file changes nothing: each finding is printed as\n"
	  "FILE:LINE: error: ... (with --json, in \"messages\"). Keys that need the backend opened again\n"
	  "(backend, monitor, resctrl_root, group_prefix, socket, cgroup_root, [msc] and the sections the\n"
	  "backends add, such as [pmu]) are refused: restart mpamd for them. The running VMs' partitions\n"
	  "stay. Needs root or the control socket's group.",
	  0, 0, print_reload, false },
	{ "metrics", "",
	  "Print mpamd's metrics in the Prometheus text format 0.0.4, as mpamd writes them (see mpamctl(8)\n"
	  "for the names); --json prints the reply, {\"format\": ..., \"text\": ...}.",
	  0, 0, print_metrics, false },
};

static void command_usage(const struct ctl_cli_command *c, FILE *out)
{
	fprintf(out,
		"Usage: mpamctl [--socket PATH] [--json] %s%s\n"
		"\n"
		"%s\n"
		"\n"
		"Options (anywhere on the line):\n"
		"%s"
		"  -j, --json         print the daemon's reply as JSON; errors too, as {\"ok\": false, ...}\n"
		"  -s, --socket PATH  mpamd's control socket (default " DEFAULT_SOCKET_PATH ")\n"
		"  -h, --help         show this help\n"
		"\n"
		"Exit status: 0 success, 1 mpamd refused the request, 2 usage error, 3 mpamd unreachable.\n",
		c->name, c->args, c->summary,
		c->wide_option ? "  -w, --wide         every field, one column each (wider than a terminal)\n" : "");
}

/* --json anywhere on the line, known before any other option is looked at, so that even a usage
 * error is reported as JSON. */
static bool wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			return true;
	return false;
}

static int usage_error(const struct ctl_cli_command *c, bool json, const char *what)
{
	return cli_error(json, c->name, EXIT_USAGE, "%s. Try 'mpamctl %s --help'.", what, c->name);
}

/* Parses the command's options wherever they are (`show web --json`); returns -1 to go on, or the
 * exit code. The arguments are left in argv[optind..]. */
static int command_options(const struct ctl_cli_command *c, int argc, char **argv, struct ctl_options *opts)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "wide", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	char what[160];
	int opt;

	opts->json = opts->json || wants_json(argc, argv);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":js:hw", options, NULL)) != -1) {
		if (opt == 'j') {
			opts->json = true;
		} else if (opt == 'w' && c->wide_option) {
			opts->wide = true;
		} else if (opt == 's') {
			opts->socket_path = optarg;
		} else if (opt == 'h') {
			command_usage(c, stdout);
			return EXIT_OK;
		} else {
			snprintf(what, sizeof(what), "%s '%s'", opt == ':' ? "missing value for" : "unknown option",
				 argv[optind - 1]);
			return usage_error(c, opts->json, what);
		}
	}
	int nargs = argc - optind;
	if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args)) {
		snprintf(what, sizeof(what), "expected%s%s", c->args[0] ? "" : " no arguments", c->args);
		return usage_error(c, opts->json, what);
	}
	return -1;
}

static int command_run(const char *name, int argc, char **argv, const struct ctl_options *global)
{
	const struct ctl_cli_command *c = NULL;
	struct ctl_options opts = *global;
	json_t *result;
	int rc;

	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++)
		if (!strcmp(cli_commands[i].name, name))
			c = &cli_commands[i];
	rc = command_options(c, argc, argv, &opts);
	if (rc >= 0)
		return rc;
	argv += optind;
	argc -= optind;
	rc = ctl_call(&opts, opts.json, c->name, argc > 0 ? argv[0] : NULL, (const char *const *)(argv + 1),
		      argc > 1 ? (size_t)argc - 1 : 0, &result);
	if (rc != EXIT_OK)
		return rc;
	if (opts.json) {
		json_dumpf(result, stdout, JSON_INDENT(2) | JSON_ENCODE_ANY);
		putchar('\n');
	} else {
		c->print(result, &opts);
	}
	json_decref(result);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

int cmd_status(int argc, char **argv, const struct ctl_options *opts)
{
	return command_run("status", argc, argv, opts);
}

int cmd_list(int argc, char **argv, const struct ctl_options *opts)
{
	return command_run("list", argc, argv, opts);
}

int cmd_show(int argc, char **argv, const struct ctl_options *opts)
{
	return command_run("show", argc, argv, opts);
}

int cmd_set(int argc, char **argv, const struct ctl_options *opts)
{
	return command_run("set", argc, argv, opts);
}

int cmd_reload(int argc, char **argv, const struct ctl_options *opts)
{
	return command_run("reload", argc, argv, opts);
}

int cmd_metrics(int argc, char **argv, const struct ctl_options *opts)
{
	return command_run("metrics", argc, argv, opts);
}
