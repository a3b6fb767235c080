/* mpamctl status | list | show | set | reload | metrics: one request to the running mpamd over its
 * control socket, one reply, printed as JSON or formatted for people (or for Prometheus). The daemon
 * sends data only; every layout below is the CLI's, and each falls back to printing whatever keys
 * the daemon sends, so a newer daemon's fields show up without a newer mpamctl. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ctl_client.h"
#include "cli/mpamctl.h"
#include "core/ctl/proto.h"

#define TABLE_MAX_COLS 32

struct ctl_cli_command {
	const char *name;
	const char *args;    /* synopsis after the command name */
	const char *summary; /* what --help says it does */
	int min_args, max_args;
	void (*print)(json_t *result);
};

/* ---- talking to the daemon ---- */

static int ctl_call(const struct ctl_options *opts, const char *cmd, const char *name, const char *const *settings,
		    size_t count, json_t **ret_result)
{
	struct err err = { { 0 } };
	enum ctl_client_outcome outcome =
		ctl_client_call(opts->socket_path, cmd, name, settings, count, ret_result, &err);

	switch (outcome) {
	case CTL_CLIENT_OK:
		return EXIT_OK;
	case CTL_CLIENT_BAD_REQUEST:
		fprintf(stderr, "mpamctl %s: %s\n", cmd, err.text);
		return EXIT_USAGE;
	case CTL_CLIENT_REFUSED:
		fprintf(stderr, "mpamctl %s: %s\n", cmd, err.text);
		return EXIT_FAILED;
	default:
		fprintf(stderr, "mpamctl: %s\n", err.text);
		return EXIT_FAILED;
	}
}

/* ---- values ---- */

static void format_number(double v, char *buf, size_t size)
{
	snprintf(buf, size, fabs(v) >= 1 || v == 0 ? "%.1f" : "%.3g", v);
}

/* A scalar as text; containers as compact JSON. Returns a malloc'ed string. */
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
		return json_dumps(v, JSON_COMPACT);
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

static char *cell_text(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return strdup("");
	if (!strcmp(key, "mbps"))
		return rate_text(obj, v);
	return value_text(v);
}

/* ---- tables: one row per object of an array ---- */

struct table {
	const char *cols[TABLE_MAX_COLS];
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
			if (json_object_get(row, *preferred))
				table_add_col(t, *preferred);
		}
	}
	json_array_foreach(rows, i, row) {
		json_object_foreach(row, key, v) {
			bool folded =
				(!strcmp(key, "valid") || !strcmp(key, "estimated")) && json_object_get(row, "mbps");
			if (!folded)
				table_add_col(t, key);
		}
	}
}

static void table_measure(struct table *t, json_t *rows)
{
	json_t *row;
	size_t i;

	for (size_t c = 0; c < t->ncols; c++) {
		t->width[c] = strlen(t->cols[c]);
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

static void table_print_cell(const struct table *t, size_t c, const char *text)
{
	bool last = c + 1 == t->ncols;

	if (t->right[c])
		printf("%*s%s", (int)t->width[c], text, last ? "\n" : "  ");
	else if (last)
		printf("%s\n", text);
	else
		printf("%-*s  ", (int)t->width[c], text);
}

static void table_print(json_t *rows, const char *const *preferred, int indent)
{
	struct table t = { .ncols = 0 };
	json_t *row;
	size_t i;

	table_columns(&t, rows, preferred);
	table_measure(&t, rows);
	printf("%*s", indent, "");
	for (size_t c = 0; c < t.ncols; c++) {
		char header[64];
		size_t k;
		for (k = 0; t.cols[c][k] && k + 1 < sizeof(header); k++)
			header[k] = (char)(t.cols[c][k] >= 'a' && t.cols[c][k] <= 'z' ? t.cols[c][k] - 'a' + 'A'
										      : t.cols[c][k]);
		header[k] = '\0';
		table_print_cell(&t, c, header);
	}
	json_array_foreach(rows, i, row) {
		printf("%*s", indent, "");
		for (size_t c = 0; c < t.ncols; c++) {
			char *text = cell_text(row, t.cols[c]);
			table_print_cell(&t, c, text ? text : "?");
			free(text);
		}
	}
}

static bool is_array_of_objects(json_t *v)
{
	return json_is_array(v) && json_array_size(v) > 0 && json_is_object(json_array_get(v, 0));
}

/* ---- generic "key: value" layout ---- */

static const char *const partition_columns[] = { "name", "class",	"mb_min",	  "mb_max",
						 "mbps", "target_mbps", "guarantee_mbps", NULL };
static const char *const event_columns[] = { "tick", "t_ms", "partition", "action", "reason", NULL };

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
		if ((!strcmp(key, "valid") || !strcmp(key, "estimated")) && json_object_get(obj, "mbps"))
			continue; /* folded into mbps */
		if (!strcmp(key, "uptime_s") && json_is_number(v)) {
			print_duration(indent, "uptime", v);
		} else if (is_array_of_objects(v)) {
			printf("%*s%s:\n", indent, "", key);
			table_print(v, !strcmp(key, "events") ? event_columns : partition_columns, indent + 2);
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

static void print_result(json_t *result)
{
	print_object(result, 0);
}

static void print_list(json_t *result)
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
	table_print(partitions, partition_columns, 0);
}

static void print_set(json_t *result)
{
	json_t *settings = json_object_get(result, "settings"), *s;
	const char *name = json_string_value(json_object_get(result, "name"));
	size_t i;

	if (!name || !json_is_array(settings)) {
		print_object(result, 0);
		return;
	}
	printf("%s:", name);
	json_array_foreach(settings, i, s) {
		printf(" %s", json_string_value(s) ? json_string_value(s) : "?");
	}
	printf("\n");
}

static void print_reload(json_t *result)
{
	if (json_is_true(json_object_get(result, "reloaded")))
		printf("configuration reloaded\n");
	else
		print_object(result, 0);
}

/* ---- Prometheus text exposition ---- */

struct metric_name {
	const char *key, *name, *help;
};

/* Field -> metric name with its unit, as documented in mpamctl(8); unknown fields keep their name. */
static const struct metric_name metric_names[] = {
	{ "mbps", "bandwidth_mbps", "Memory bandwidth measured at the last tick, MB/s." },
	{ "bytes_total", "bytes_total", "Bytes transferred since the partition was opened." },
	{ "mb_max", "mb_max_percent", "Maximum bandwidth limit in force, percent of a domain." },
	{ "mb_min", "mb_min_percent", "Minimum bandwidth limit in force, percent of a domain." },
	{ "valid", "sample_valid", "1 when the last sample was measured, 0 when it could not be." },
	{ "estimated", "sample_estimated", "1 when the last sample was extrapolated from a shared monitor." },
	{ "target_mbps", "target_mbps", "Bandwidth the target controller holds, MB/s." },
	{ "guarantee_mbps", "guarantee_mbps", "Bandwidth the guard protects, MB/s." },
	{ "ticks", "ticks_total", "Engine ticks completed." },
	{ "overruns", "overruns_total", "Ticks that started late because the previous one overran." },
	{ "uptime_s", "uptime_seconds", "Seconds since mpamd started." },
};

static const struct metric_name *metric_lookup(const char *key)
{
	for (size_t i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++)
		if (!strcmp(metric_names[i].key, key))
			return &metric_names[i];
	return NULL;
}

/* Metric names allow [a-zA-Z0-9_:]; anything else becomes '_'. */
static void metric_name(const char *prefix, const char *key, char *buf, size_t size)
{
	const struct metric_name *m = metric_lookup(key);
	snprintf(buf, size, "mpamd_%s%s%s", prefix, *prefix ? "_" : "", m ? m->name : key);
	for (size_t i = 0; buf[i]; i++)
		if (!(buf[i] == '_' || (buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= 'A' && buf[i] <= 'Z') ||
		      (buf[i] >= '0' && buf[i] <= '9')))
			buf[i] = '_';
}

static void metric_header(const char *name, const char *key)
{
	const struct metric_name *m = metric_lookup(key);
	size_t n = strlen(name);
	bool counter = n > 6 && !strcmp(name + n - 6, "_total");

	if (m)
		printf("# HELP %s %s\n", name, m->help);
	printf("# TYPE %s %s\n", name, counter ? "counter" : "gauge");
}

/* Numbers, and booleans as 1/0; everything else (strings, null: no sample) is no sample. */
static bool metric_value(json_t *v, char *buf, size_t size)
{
	if (json_is_boolean(v))
		snprintf(buf, size, "%d", json_is_true(v));
	else if (json_is_integer(v))
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, size, "%.10g%s", json_real_value(v),
			 json_real_value(v) == floor(json_real_value(v)) && fabs(json_real_value(v)) < 1e10 ? ".0"
													    : "");
	else
		return false;
	return true;
}

static void print_label_value(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
}

/* One family per field of the objects in `rows`, each object's "name" as the label: all of a
 * family's samples together, as the format requires. */
static void metrics_print_family(const char *label, json_t *rows, const char *key)
{
	char name[128], value[64];
	bool header = false;
	json_t *row;
	size_t i;

	metric_name(label, key, name, sizeof(name));
	json_array_foreach(rows, i, row) {
		const char *who = json_string_value(json_object_get(row, "name"));
		if (!who || !metric_value(json_object_get(row, key), value, sizeof(value)))
			continue;
		if (!header)
			metric_header(name, key);
		header = true;
		printf("%s{%s=\"", name, label);
		print_label_value(who);
		printf("\"} %s\n", value);
	}
}

static void metrics_print_rows(const char *array_key, json_t *rows)
{
	char label[64];
	struct table cols = { .ncols = 0 };
	size_t n = strlen(array_key);

	/* "partitions" -> label "partition" */
	snprintf(label, sizeof(label), "%.*s", (int)(n > 1 && array_key[n - 1] == 's' ? n - 1 : n), array_key);
	for (char *p = label; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			*p = '_';
	table_columns(&cols, rows, NULL);
	for (size_t c = 0; c < cols.ncols; c++)
		if (strcmp(cols.cols[c], "name"))
			metrics_print_family(label, rows, cols.cols[c]);
	/* table_columns folds valid/estimated away; metrics want them as samples. */
	if (table_has(&cols, "mbps")) {
		metrics_print_family(label, rows, "valid");
		metrics_print_family(label, rows, "estimated");
	}
}

static void print_metrics(json_t *result)
{
	char name[128], value[64];
	const char *key;
	json_t *v;

	json_object_foreach(result, key, v) {
		if (!metric_value(v, value, sizeof(value)))
			continue;
		metric_name("", key, name, sizeof(name));
		metric_header(name, key);
		printf("%s %s\n", name, value);
	}
	json_object_foreach(result, key, v) {
		if (is_array_of_objects(v))
			metrics_print_rows(key, v);
	}
}

/* ---- commands ---- */

static const struct ctl_cli_command cli_commands[] = {
	{ "status", "",
	  "Show the daemon's state: backend, tick interval, ticks done, uptime, overruns, how long the\n"
	  "last tick and the longest took, partitions and recent policy events.",
	  0, 0, print_result },
	{ "list", "",
	  "List every partition with its class, limits in force (mb_min, mb_max, percent), last rate\n"
	  "(MB/s; '-' when not measured, '~' when extrapolated), target and guarantee.",
	  0, 0, print_list },
	{ "show", " NAME", "Show everything about partition NAME, one 'key: value' per line, and its recent events.", 1,
	  1, print_result },
	{ "set", " NAME KEY=VALUE...",
	  "Change partition NAME while mpamd runs. Keys and ranges are those of the configuration file\n"
	  "(see mpamd.ini(5)): mb_min, mb_max, target_mbps, guarantee_mbps, class... All settings are\n"
	  "applied together or none is. Needs root or the control socket's group.",
	  2, -1, print_set },
	{ "reload", "",
	  "Re-read the configuration file. An invalid file leaves the running configuration in place.\n"
	  "Needs root or the control socket's group.",
	  0, 0, print_reload },
	{ "metrics", "", "Print counters in the Prometheus text exposition format (see mpamctl(8) for the names).", 0,
	  0, print_metrics },
};

static void command_usage(const struct ctl_cli_command *c, FILE *out)
{
	fprintf(out,
		"Usage: mpamctl [--socket PATH] [--json] %s%s\n"
		"\n"
		"%s\n"
		"\n"
		"Options:\n"
		"  -j, --json     print the daemon's reply as JSON\n"
		"  -h, --help     show this help\n"
		"\n"
		"Exit status: 0 success, 1 mpamd refused the request or could not be reached, 2 usage error.\n",
		c->name, c->args, c->summary);
}

/* Parses the command's options; returns -1 to go on, or the exit code. */
static int command_options(const struct ctl_cli_command *c, int argc, char **argv, bool *json)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+jh", options, NULL)) != -1) {
		if (opt == 'j') {
			*json = true;
		} else if (opt == 'h') {
			command_usage(c, stdout);
			return EXIT_OK;
		} else {
			fprintf(stderr, "Try 'mpamctl %s --help'.\n", c->name);
			return EXIT_USAGE;
		}
	}
	int nargs = argc - optind;
	if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args)) {
		fprintf(stderr, "mpamctl %s: expected%s%s. Try 'mpamctl %s --help'.\n", c->name,
			c->args[0] ? "" : " no arguments", c->args, c->name);
		return EXIT_USAGE;
	}
	return -1;
}

static int command_run(const char *name, int argc, char **argv, const struct ctl_options *opts)
{
	const struct ctl_cli_command *c = NULL;
	bool json = opts->json;
	json_t *result;
	int rc;

	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++)
		if (!strcmp(cli_commands[i].name, name))
			c = &cli_commands[i];
	rc = command_options(c, argc, argv, &json);
	if (rc >= 0)
		return rc;
	argv += optind;
	argc -= optind;
	rc = ctl_call(opts, c->name, argc > 0 ? argv[0] : NULL, (const char *const *)(argv + 1),
		      argc > 1 ? (size_t)argc - 1 : 0, &result);
	if (rc != EXIT_OK)
		return rc;
	if (json) {
		json_dumpf(result, stdout, JSON_INDENT(2) | JSON_ENCODE_ANY);
		putchar('\n');
	} else {
		c->print(result);
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
