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
#include "cli/ctl_table.h"
#include "cli/event_time.h"
#include "cli/mpamctl.h"
#include "cli/socket_access.h"
#include "cli/top_model.h"
#include "core/base/suggest.h"
#include "core/config/config.h"
#include "core/ctl/proto.h"

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
	if (!strcmp(cmd, "set"))
		outcome =
			ctl_client_call_set(opts->socket_path, name, settings, count, opts->persist, ret_result, &err);
	else
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

/* Whether any of `domains` has a ceiling asked for (classes = shared: the partition is in a class). */
static bool domains_asked(json_t *domains)
{
	json_t *d;
	size_t i;

	json_array_foreach(domains, i, d) {
		json_t *asked = json_object_get(d, "mb_max_asked");
		if (asked && !json_is_null(asked))
			return true;
	}
	return false;
}

/* Every "key: value" as it came; the domains' table has mb_max_asked only where the partition is in a
 * class (not a column of '-' for every partition with a class of its own). */
static void print_show(json_t *result, const struct ctl_options *opts)
{
	(void)opts;
	json_t *domains = json_object_get(result, "domains"), *d;
	size_t i;

	if (!domains_asked(domains)) {
		json_array_foreach(domains, i, d) {
			json_object_del(d, "mb_max_asked");
		}
	}
	ctl_print_object(result, 0);
}

/* "classes: shared, 3 used, 12 left; RMIDs: 50 used, 206 left[; quantised: ...]", or "classes: own" where each partition
 * has a class of its own (status's "classes" is null). */
static void print_classes(json_t *classes)
{
	json_t *mon_used = json_object_get(classes, "monitors_used");
	const char *monitors = json_string_value(json_object_get(classes, "monitors_name"));
	json_t *deviation = json_object_get(classes, "deviation_pp"); /* summed over partitions and domains */
	const char *mode = json_string_value(json_object_get(classes, "mode"));

	if (!json_is_object(classes)) {
		printf("classes: own (each partition a class of its own)\n");
		return;
	}
	printf("classes: %s, %lld used, %lld left", mode ? mode : "?",
	       (long long)json_integer_value(json_object_get(classes, "used")),
	       (long long)json_integer_value(json_object_get(classes, "left")));
	if (json_is_integer(mon_used))
		printf("; %s: %lld used, %lld left", monitors ? monitors : "monitors",
		       (long long)json_integer_value(mon_used),
		       (long long)json_integer_value(json_object_get(classes, "monitors_left")));
	if (json_number_value(deviation) > 0)
		printf("; quantised: %.1f points over %lld partitions", json_number_value(deviation),
		       (long long)json_integer_value(json_object_get(classes, "members")));
	printf("\n");
}

/* Every "key: value" as it came, but the classes on one line. */
static void print_status(json_t *result, const struct ctl_options *opts)
{
	(void)opts;
	json_t *classes = json_object_get(result, "classes");

	if (!classes) { /* an older daemon */
		ctl_print_object(result, 0);
		return;
	}
	json_t *rest = json_copy(result);
	json_object_del(rest, "classes");
	ctl_print_object(rest, 0);
	print_classes(classes);
	json_decref(rest);
}

/* Each partition's rows on each domain, as one table, where the host has more than one domain; with
 * classes = shared, ASKED: the mb_max each asked for there, beside what its class holds (MB_MAX). */
static void print_list_domains(json_t *partitions)
{
	static const char *const columns[] = {
		"partition", "domain", "mbps", "state", "mb_max", "mb_min", "asked", NULL
	};
	json_t *rows = json_array(), *p, *d;
	size_t i, j;
	bool several = false, asked = false;

	json_array_foreach(partitions, i, p) {
		asked |= domains_asked(json_object_get(p, "domains"));
	}
	json_array_foreach(partitions, i, p) {
		json_t *domains = json_object_get(p, "domains");
		several |= json_array_size(domains) > 1;
		json_array_foreach(domains, j, d) {
			json_t *row = json_deep_copy(d);
			json_object_set(row, "partition", json_object_get(p, "name"));
			/* the column is there only when some partition is in a class ('-' where one is not) */
			if (asked && json_object_get(row, "mb_max_asked"))
				json_object_set(row, "asked", json_object_get(row, "mb_max_asked"));
			json_object_del(row, "mb_max_asked");
			json_array_append_new(rows, row);
		}
	}
	if (several) {
		printf("\n");
		ctl_table_print(rows, columns, 0);
	}
	json_decref(rows);
}

/* list's default view: what an operator looks at first, within LIST_COLUMNS. */
#define LIST_COLUMNS 100

static const struct table_column list_columns[] = {
	{ "name", "NAME", false, false },
	{ "class", "CLASS", false, false },
	{ "hw", "HW", false, true },
	{ "state", "STATE", false, false },
	{ "mbps", "MB/S", true, false },
	{ "max/min", "MAX/MIN", true, false },
	{ "mb_max_asked", "ASKED", true, true },
	{ "target_mbps", "TARGET", true, false },
	{ "guarantee_mbps", "GUARANTEE", true, false },
	{ "tasks", "TASKS", true, true },
	{ "note", "NOTE", false, true },
	{ NULL, NULL, false, false },
};

static double pct_or_nan(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "100/30", "39.84/0" (a rung need not be whole): mb_max and mb_min in force, as top shows them; "-"
 * where none is (a failed partition). */
static json_t *limits_pair(json_t *p)
{
	char text[64];

	top_format_limits(pct_or_nan(json_object_get(p, "mb_max")), pct_or_nan(json_object_get(p, "mb_min")), text,
			  sizeof(text));
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
	static const char *const copied[] = { "name",	   "class",	  "state",	    "mbps",  "valid",
					      "estimated", "target_mbps", "guarantee_mbps", "tasks", "mb_max_asked" };
	json_t *row = json_object(), *hw = json_object_get(p, "hw_class");

	for (size_t k = 0; k < sizeof(copied) / sizeof(copied[0]); k++) {
		json_t *v = json_object_get(p, copied[k]);
		if (v)
			json_object_set(row, copied[k], v);
	}
	if (json_object_get(p, "mb_max") && json_object_get(p, "mb_min"))
		json_object_set_new(row, "max/min", limits_pair(p));
	/* classes = shared: the class group it is in, named as its directory ends (mpamd-c3) */
	if (hw)
		json_object_set_new(row, "hw",
				    json_is_integer(hw) ? json_sprintf("c%lld", (long long)json_integer_value(hw))
							: json_null());
	json_object_set_new(row, "note", partition_note(p));
	return row;
}

static void print_list_compact(json_t *partitions)
{
	json_t *rows = json_array(), *p;
	size_t i;

	json_array_foreach(partitions, i, p) {
		json_array_append_new(rows, list_row(p));
	}
	ctl_table_print_spec(rows, list_columns, LIST_COLUMNS);
	json_decref(rows);
}

static void print_list(json_t *result, const struct ctl_options *opts)
{
	json_t *partitions = json_object_get(result, "partitions");

	if (!json_is_array(partitions) || (json_array_size(partitions) && !ctl_is_array_of_objects(partitions))) {
		ctl_print_object(result, 0);
		return;
	}
	if (json_array_size(partitions) == 0) {
		printf("no partitions\n");
		return;
	}
	if (opts->wide)
		ctl_table_print(partitions, ctl_partition_columns, 0);
	else
		print_list_compact(partitions);
	print_list_domains(partitions);
}

/* "mb_max=25 -> 20% (10% steps from 10%)" when the hardware holds other than what was asked. */
static const char *setting_rounding(json_t *rounded, const char *setting, char *buf, size_t len)
{
	json_t *r;
	size_t i;

	json_array_foreach(rounded, i, r) {
		const char *key = json_string_value(json_object_get(r, "key"));
		size_t n = key ? strlen(key) : 0;
		if (n && !strncmp(setting, key, n) && setting[n] == '=') {
			snprintf(buf, len, " -> %g%% (%s)", json_number_value(json_object_get(r, "in_force")),
				 json_string_value(json_object_get(r, "steps"))
					 ? json_string_value(json_object_get(r, "steps"))
					 : "");
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
	char note[160];
	size_t i;

	if (!name || !json_is_array(settings)) {
		ctl_print_object(result, 0);
		return;
	}
	printf("%s:", name);
	json_array_foreach(settings, i, s) {
		const char *text = json_string_value(s) ? json_string_value(s) : "?";
		printf(" %s%s", text, setting_rounding(rounded, text, note, sizeof(note)));
	}
	printf("\n");
	if (json_string_value(json_object_get(result, "lasts")))
		printf("  lasts %s\n", json_string_value(json_object_get(result, "lasts")));
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
		ctl_print_object(result, 0);
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
		ctl_print_object(result, 0);
		return;
	}
	fwrite(json_string_value(text), 1, json_string_length(text), stdout);
}

/* ---- commands ---- */

static const struct ctl_cli_command cli_commands[] = {
	{ "status", "",
	  "Show the daemon's state: backend, tick interval, ticks done, uptime, overruns, how long the\n"
	  "last tick and the longest took, partitions and recent policy events (their time in the local\n"
	  "zone, HH:MM:SS; with --json RFC 3339 UTC in \"time\") and, last, the classes: with classes =\n"
	  "shared, how many are used and left, and the RMIDs (resctrl) used and left.",
	  0, 0, print_status, false },
	{ "list", " [--wide]",
	  "List every partition, one line each within 100 columns: its name, class, HW (with classes =\n"
	  "shared: the class group it is in, c3 for mpamd-c3), state (open; failed: it could not be opened\n"
	  "or its limits applied, and is tried again by itself), last rate (MB/S; '-' when not measured,\n"
	  "'~' when extrapolated), limits in force (MAX/MIN: mb_max and mb_min in percent; '-' when none\n"
	  "is; with classes = shared what its class holds), ASKED (then: the mb_max it asked for), target\n"
	  "and guarantee (MB/s), TASKS (a partition with a cgroup, vm or pids: its tasks) and NOTE (why it\n"
	  "failed, or why its sample is not valid; cut to fit). With more than one domain, a second table\n"
	  "gives each partition's rate, state and limits on each (with classes = shared, ASKED: the mb_max\n"
	  "it asked for there, beside MB_MAX, what its class holds there). --wide adds every other field\n"
	  "mpamd sends, one column each: slot, open, weight, reason, error, retry_in_s, attempts, the\n"
	  "template that made it (a VM's), IPC and stall ratio, the threads placed in its group and those\n"
	  "refused.",
	  0, 0, print_list, true },
	{ "show", " NAME",
	  "Show everything about partition NAME, one 'key: value' per line (with classes = shared:\n"
	  "hw_class, the class it is in, and mb_max_asked, the ceiling it asked for, beside mb_max, the\n"
	  "one its class holds; its domains' table then has mb_max_asked on each domain too), and its\n"
	  "recent events. A name mpamd does not have gets the nearest it has ('did you mean ...?'), as\n"
	  "with set.",
	  1, 1, print_show, false },
	{ "set", " [--persist] NAME KEY=VALUE...",
	  "Change partition NAME while mpamd runs. Keys and ranges are those of the configuration file\n"
	  "(see mpamd.ini(5)): mb_min, mb_max, target_mbps, guarantee_mbps, class... All settings are\n"
	  "applied together or none is, and the reply says how long they last. Without --persist: until\n"
	  "a reload that changes NAME's entry in the file (its values then replace every set of NAME),\n"
	  "or until mpamd restarts. With --persist, mpamd also writes them to NAME.ini in the directory\n"
	  "the persist_dir key names, whose keys replace the main file's at every start and reload,\n"
	  "until that file is removed (NAME must be a partition of the main file). Needs root or the\n"
	  "control socket's group.",
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
		"%s%s"
		"  -j, --json         print the daemon's reply as JSON; errors too, as {\"ok\": false, ...}\n"
		"  -s, --socket PATH  mpamd's control socket (default " DEFAULT_SOCKET_PATH ")\n"
		"  -h, --help         show this help\n"
		"\n"
		"Exit status: 0 success, 1 mpamd refused the request, 2 usage error, 3 mpamd unreachable.\n",
		c->name, c->args, c->summary,
		c->wide_option ? "  -w, --wide         every field, one column each (wider than a terminal)\n" : "",
		!strcmp(c->name, "set")
			? "  -p, --persist      keep it across restarts (mpamd writes persist_dir/NAME.ini)\n"
			: "");
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
		{ "json", no_argument, NULL, 'j' },    { "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },    { "wide", no_argument, NULL, 'w' },
		{ "persist", no_argument, NULL, 'p' }, { NULL, 0, NULL, 0 },
	};
	char what[160];
	int opt;

	opts->json = opts->json || wants_json(argc, argv);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":js:hwp", options, NULL)) != -1) {
		if (opt == 'j') {
			opts->json = true;
		} else if (opt == 'w' && c->wide_option) {
			opts->wide = true;
		} else if (opt == 'p' && !strcmp(c->name, "set")) {
			opts->persist = true;
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
