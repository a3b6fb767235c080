/* The Prometheus exposition (core/engine/metrics.c) on a hand-made engine view: the format's rules
 * (HELP and TYPE before the samples, each family once, counters end in _total, escaped labels), the
 * values in base units, and that mpamctl(8), the Grafana dashboard and the alert rules name only
 * families that exist (and the man page all of them). */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/report/events.h"
#include "core/report/metrics.h"
#include "tests/util/dashboard.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define MAX_FAMILIES 64
#define ODD_NAME     "we\"b\\x\ny" /* a quote, a backslash and a newline */
#define ODD_LABEL    "we\\\"b\\\\x\\ny"

/* ---- a view of an engine with two domains and three partitions ---- */

struct view {
	struct placement_status placement; /* partition 0's: it names tasks */
	struct partition_status status[3];
	struct partition_goals goals[3];
	struct domain_status samples[3 * 2];
	struct metrics_partition parts[3];
	struct metrics_domain domains[2];
	struct event_log *events;
	struct histogram hist;
	struct record_health record;
	struct class_room classes;
	struct metrics_input in;
};

static void view_init(struct view *v)
{
	static const double bounds[] = { 0.001, 0.01, 0.1 };

	memset(v, 0, sizeof(*v));
	v->domains[0] = (struct metrics_domain){ .name = "msc0", .capacity_mbps = 10000, .source = "hmat" };
	v->domains[1] = (struct metrics_domain){ .name = "msc1", .capacity_mbps = 9000, .learned = true };
	/* 0: measured everywhere, guaranteed; 1: one domain invalid, a target; 2: not open. */
	v->status[0] = (struct partition_status){ .name = ODD_NAME,
						  .open = true,
						  .valid = true,
						  .mb_max = 40,
						  .mb_min = 30,
						  .bytes_total = 123456789012ull,
						  .ipc_valid = true,
						  .ipc = 1.25,
						  .stall_valid = true,
						  .stall_ratio = 0.375 };
	/* classes = shared: the odd one asked 45% and its class (7) holds 40%; batch has a class of its own */
	v->status[0].in_class = true;
	v->status[0].class_id = 7;
	v->status[0].mb_max_asked = 45;
	v->status[1] = (struct partition_status){
		.name = "batch", .open = true, .valid = false, .estimated = true, .mb_max = 100, .bytes_total = 7
	};
	v->status[2] = (struct partition_status){ .name = "gone", .open = false };
	v->goals[0].guarantee_mbps = 6000;
	v->goals[1].target_mbps = 2500;
	/* The guaranteed one is short of its guarantee on msc0, not on msc1. */
	v->samples[0] = (struct domain_status){ .valid = true,
						.mbps = 3000,
						.mb_max = 40,
						.mb_min = 30,
						.mb_max_mbps = 8000,
						.guard_judged = true,
						.guard_short = true };
	v->samples[1] =
		(struct domain_status){ .valid = true, .mbps = 1000, .mb_max = 20, .mb_min = 10, .guard_judged = true };
	v->samples[2] = (struct domain_status){ .valid = true, .estimated = true, .mbps = 500, .mb_max = 100 };
	v->samples[3] = (struct domain_status){ .reason = "not ready", .mb_max = 100 };
	v->samples[4] = v->samples[5] = (struct domain_status){ .reason = "not open" };
	for (size_t i = 0; i < 3; i++)
		v->parts[i] = (struct metrics_partition){
			&v->status[i], v->goals[i].guarantee_mbps, v->goals[i].target_mbps, &v->samples[i * 2], i + 1,
			NULL
		};
	v->placement = (struct placement_status){ .has_source = true, .tasks = 7, .placements = 9, .misses = 2 };
	v->parts[0].placement = &v->placement;
	v->events = calloc(1, sizeof(*v->events));
	assert_non_null(v->events);
	event_log_add(v->events, 1, 100, 100, ODD_NAME, "guarantee: mb_min 0% -> 30%");
	event_log_add(v->events, 2, 200, 200, "batch", "throttle: web short of guarantee");
	event_log_add(v->events, 3, 300, 300, "batch", "throttle: web short of guarantee");
	event_log_add(v->events, 4, 400, 400, "batch", "restore: pressure ended");
	histogram_init(&v->hist, bounds, 3);
	histogram_observe(&v->hist, 0.0005);
	histogram_observe(&v->hist, 0.005);
	histogram_observe(&v->hist, 0.005);
	histogram_observe(&v->hist, 0.5);
	v->in = (struct metrics_input){
		.version = "1.2.3",
		.partitions = v->parts,
		.partition_count = 3,
		.domains = v->domains,
		.domain_count = 2,
		.events = &v->events->counts,
		.events_folded = 17,
		.has_guarantees = true, /* and a capacity learned: not enforced yet */
		.tick_duration = &v->hist,
		.ticks = 42,
		.overruns = 3,
		.interval_s = 0.1,
		.uptime_s = 4.2,
		.last_tick_unix_s = 1700000000.25,
		.capacity_mbps = 20000,
		.reload_ok = false,
		.reload_ok_unix_s = 1690000000,
		.record = &v->record,
		.classes = &v->classes,
	};
	v->record = (struct record_health){ .ok = false, .errors_total = 5 };
	v->classes = (struct class_room){
		.held = 3, .left = 12, .monitors_counted = true, .monitors = 256, .monitors_used = 51
	};
}

static void view_fini(struct view *v)
{
	event_log_fini(v->events);
	free(v->events);
}

static char *format(const struct metrics_input *in)
{
	struct metrics_buf b = { .data = NULL };

	assert_int_equal(metrics_format(in, &b), 0);
	assert_non_null(b.data);
	assert_int_equal(strlen(b.data), b.len);
	return b.data;
}

/* The view and its text, what most tests read: a cmocka fixture, freed even when the test fails. */
struct formatted {
	struct view v;
	char *text;
};

static int formatted_setup(void **state)
{
	struct formatted *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	view_init(&f->v);
	f->text = format(&f->v.in);
	*state = f;
	return 0;
}

static int formatted_teardown(void **state)
{
	struct formatted *f = *state;

	free(f->text);
	view_fini(&f->v);
	free(f);
	return 0;
}

#define formatted_test(test) cmocka_unit_test_setup_teardown(test, formatted_setup, formatted_teardown)

/* ---- reading the text back ---- */

struct family_seen {
	char name[128];
	char type[16];
	bool help, type_line;
	size_t samples;
};

struct parsed {
	struct family_seen families[MAX_FAMILIES];
	size_t count;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static struct family_seen *family_named(struct parsed *p, const char *name)
{
	for (size_t i = 0; i < p->count; i++)
		if (!strcmp(p->families[i].name, name))
			return &p->families[i];
	return NULL;
}

/* The name of a sample line: up to '{' or ' '. */
static void sample_name(const char *line, char *name, size_t len)
{
	size_t n = strcspn(line, "{ ");
	snprintf(name, len, "%.*s", (int)n, line);
}

/* A comment line: "# HELP name ..." or "# TYPE name type". A new family must not have been seen. */
static void parse_comment(struct parsed *p, const char *line)
{
	char what[8], name[128], rest[128] = "";

	assert_true(sscanf(line, "# %7s %127s %127s", what, name, rest) >= 2);
	struct family_seen *f = family_named(p, name);
	if (!strcmp(what, "HELP")) {
		if (f)
			fail_msg("family %s appears twice", name);
		assert_true(p->count < MAX_FAMILIES);
		f = &p->families[p->count++];
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->help = true;
		return;
	}
	assert_string_equal(what, "TYPE");
	if (!f || f != &p->families[p->count - 1] || f->type_line)
		fail_msg("TYPE of %s without its HELP just before, or twice", name);
	f->type_line = true;
	if (snprintf(f->type, sizeof(f->type), "%s", rest) >= (int)sizeof(f->type))
		fail_msg("TYPE of %s is '%s', not a Prometheus type", name, rest);
}

/* A sample belongs to the family declared last: its name, or a histogram's name plus a suffix. */
static void parse_sample(struct parsed *p, const char *line)
{
	char name[128];

	sample_name(line, name, sizeof(name));
	if (!p->count)
		fail_msg("sample %s before any family", name);
	struct family_seen *f = &p->families[p->count - 1];
	bool mine = !strcmp(name, f->name);
	if (!strcmp(f->type, "histogram"))
		for (const char *const *s = (const char *const[]){ "_bucket", "_sum", "_count", NULL }; *s; s++)
			mine |= strlen(name) == strlen(f->name) + strlen(*s) &&
				!strncmp(name, f->name, strlen(f->name)) && ends_with(name, *s);
	if (!mine || !f->help || !f->type_line)
		fail_msg("sample %s is not under its own family's HELP and TYPE (last family: %s)", name, f->name);
	const char *value = strrchr(line, ' ');
	assert_non_null(value);
	char *end;
	strtod(value + 1, &end);
	if (*end && strcmp(value + 1, "+Inf") && strcmp(value + 1, "NaN"))
		fail_msg("sample %s has value '%s'", name, value + 1);
	f->samples++;
}

static void parse(const char *text, struct parsed *p)
{
	memset(p, 0, sizeof(*p));
	assert_true(ends_with(text, "\n"));
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		char buf[512];
		assert_true(nl && (size_t)(nl - line) < sizeof(buf));
		snprintf(buf, sizeof(buf), "%.*s", (int)(nl - line), line);
		if (buf[0] == '#')
			parse_comment(p, buf);
		else
			parse_sample(p, buf);
		line = nl + 1;
	}
}

/* The value of the sample line that starts with `series` ("name{labels}"), or NULL. */
static const char *value_of(const char *text, const char *series)
{
	static char value[64];
	size_t n = strlen(series);

	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		if (!strncmp(line, series, n) && line[n] == ' ') {
			snprintf(value, sizeof(value), "%.*s", (int)(nl - line - n - 1), line + n + 1);
			return value;
		}
		line = nl + 1;
	}
	return NULL;
}

static void assert_value(const char *text, const char *series, double want)
{
	const char *got = value_of(text, series);

	if (!got)
		fail_msg("no sample %s", series);
	double v = strtod(got, NULL);
	if (v != want && !(v > want * (1 - 1e-12) && v < want * (1 + 1e-12)))
		fail_msg("%s is %s, expected %.17g", series, got, want);
}

/* ---- the format's rules ---- */

static void test_every_family_is_declared_once_before_its_samples(void **state)
{
	struct formatted *fx = *state;
	char *text = fx->text;
	struct parsed p;

	parse(text, &p);
	assert_int_equal(p.count, metrics_family_count);
	for (size_t i = 0; i < p.count; i++) {
		const struct family_seen *f = &p.families[i];
		if ((strcmp(f->type, "counter") == 0) != ends_with(f->name, "_total"))
			fail_msg("%s is a %s: counters and only counters end in _total", f->name, f->type);
		if (strcmp(f->type, "counter") && strcmp(f->type, "gauge") && strcmp(f->type, "histogram"))
			fail_msg("%s has type '%s'", f->name, f->type);
		if (!f->samples)
			fail_msg("%s has no sample although the view has something for every family", f->name);
		assert_true(!strncmp(f->name, "mpamd_", 6));
	}
}

static void test_label_values_are_escaped(void **state)
{
	struct formatted *fx = *state;
	char *text = fx->text;

	/* Nowhere the raw name, everywhere the escaped one. */
	assert_null(strstr(text, "\"we\"b"));
	assert_value(text, "mpamd_partition_open{partition=\"" ODD_LABEL "\"}", 1);
	assert_value(text, "mpamd_policy_events_total{partition=\"" ODD_LABEL "\",action=\"guarantee\"}", 1);
	/* Every sample line is one line: the newline in the name did not break one. */
	struct parsed p;
	parse(text, &p);
}

/* ---- values, in base units ---- */

static void test_values_are_in_base_units(void **state)
{
	struct formatted *fx = *state;
	char *text = fx->text;
	const char *odd = "{partition=\"" ODD_LABEL "\"}";
	char series[256];

#define SERIES(name, labels) (snprintf(series, sizeof(series), "%s%s", name, labels), series)
	/* Per domain: MB/s in mpamd are 10^6 bytes/s. */
	assert_value(
		text,
		SERIES("mpamd_partition_bandwidth_bytes_per_second", "{partition=\"" ODD_LABEL "\",domain=\"msc0\"}"),
		3000e6);
	assert_value(text, "mpamd_partition_bandwidth_bytes_per_second{partition=\"batch\",domain=\"msc0\"}", 500e6);
	/* Each domain's limits in force, and what each domain can carry (known, or learned). */
	assert_value(
		text,
		SERIES("mpamd_partition_domain_bandwidth_max_ratio", "{partition=\"" ODD_LABEL "\",domain=\"msc1\"}"),
		0.2);
	assert_value(
		text,
		SERIES("mpamd_partition_domain_bandwidth_min_ratio", "{partition=\"" ODD_LABEL "\",domain=\"msc0\"}"),
		0.3);
	assert_null(strstr(text, "mpamd_partition_domain_bandwidth_max_ratio{partition=\"gone\""));
	/* The ceiling in bytes per second where it is known (domain msc0), absent where not (msc1). */
	assert_value(text,
		     SERIES("mpamd_partition_domain_bandwidth_max_bytes_per_second",
			    "{partition=\"" ODD_LABEL "\",domain=\"msc0\"}"),
		     8000e6);
	assert_null(strstr(text, "mpamd_partition_domain_bandwidth_max_bytes_per_second{partition=\"" ODD_LABEL
				 "\",domain=\"msc1\""));
	assert_value(text, "mpamd_domain_capacity_bytes_per_second{domain=\"msc0\",learned=\"0\",source=\"hmat\"}",
		     10000e6);
	assert_value(text, "mpamd_domain_capacity_bytes_per_second{domain=\"msc1\",learned=\"1\"}", 9000e6);
	/* An invalid domain has no series; a partition that is not open has no bandwidth at all. */
	assert_null(value_of(text, "mpamd_partition_bandwidth_bytes_per_second{partition=\"batch\",domain=\"msc1\"}"));
	assert_null(strstr(text, "mpamd_partition_bandwidth_bytes_per_second{partition=\"gone\""));
	assert_value(text, SERIES("mpamd_partition_bandwidth_max_ratio", odd), fx->v.status[0].mb_max / 100.0);
	assert_value(text, SERIES("mpamd_partition_bandwidth_min_ratio", odd), fx->v.status[0].mb_min / 100.0);
	assert_value(text, SERIES("mpamd_partition_guarantee_bytes_per_second", odd),
		     fx->v.goals[0].guarantee_mbps * 1e6);
	/* The guard's verdict on each domain; none where it did not judge (batch: no guarantee). */
	assert_value(text,
		     SERIES("mpamd_partition_domain_guarantee_short", "{partition=\"" ODD_LABEL "\",domain=\"msc0\"}"),
		     1);
	assert_value(text,
		     SERIES("mpamd_partition_domain_guarantee_short", "{partition=\"" ODD_LABEL "\",domain=\"msc1\"}"),
		     0);
	assert_null(strstr(text, "mpamd_partition_domain_guarantee_short{partition=\"batch\""));
	assert_value(text, "mpamd_partition_target_bytes_per_second{partition=\"batch\"}",
		     fx->v.goals[1].target_mbps * 1e6);
	/* IPC and stall ratio as counted; "not counted" (batch) has no series rather than a 0. */
	assert_value(text, SERIES("mpamd_partition_ipc", odd), fx->v.status[0].ipc);
	assert_value(text, SERIES("mpamd_partition_stall_ratio", odd), fx->v.status[0].stall_ratio);
	assert_null(value_of(text, "mpamd_partition_ipc{partition=\"batch\"}"));
	assert_null(value_of(text, "mpamd_partition_stall_ratio{partition=\"batch\"}"));
	/* Only partitions that have a guarantee or a target have that series. */
	assert_null(value_of(text, "mpamd_partition_guarantee_bytes_per_second{partition=\"batch\"}"));
	assert_null(value_of(text, SERIES("mpamd_partition_target_bytes_per_second", odd)));
	/* Counters are printed exactly, however large. */
	snprintf(series, sizeof(series), "mpamd_partition_bytes_total%s %llu\n", odd,
		 (unsigned long long)fx->v.status[0].bytes_total);
	assert_non_null(strstr(text, series));
	assert_value(text, "mpamd_partition_invalid_samples_total{partition=\"batch\"}",
		     (double)fx->v.parts[1].invalid_samples);
	assert_value(text, "mpamd_partition_sample_valid{partition=\"batch\"}", 0);
	assert_value(text, "mpamd_partition_sample_estimated{partition=\"batch\"}", 1);
	/* Not open: open and sample_valid say so, and no limit or count is made up. */
	assert_value(text, "mpamd_partition_open{partition=\"gone\"}", 0);
	assert_value(text, "mpamd_partition_sample_valid{partition=\"gone\"}", 0);
	assert_null(value_of(text, "mpamd_partition_bandwidth_max_ratio{partition=\"gone\"}"));
	assert_null(value_of(text, "mpamd_partition_bytes_total{partition=\"gone\"}"));
	assert_null(value_of(text, "mpamd_partition_invalid_samples_total{partition=\"gone\"}"));
	/* Placement: only a partition that names tasks has its counts. */
	assert_value(text, SERIES("mpamd_partition_tasks", odd), 7);
	assert_value(text, SERIES("mpamd_partition_placements_total", odd), 9);
	assert_value(text, SERIES("mpamd_partition_placement_misses_total", odd), 2);
	assert_null(value_of(text, "mpamd_partition_tasks{partition=\"batch\"}"));
	assert_value(text, "mpamd_proc_connector_up", 0);
	/* The daemon. */
	assert_value(text, "mpamd_build_info{version=\"1.2.3\"}", 1);
	assert_value(text, "mpamd_ticks_total", (double)fx->v.in.ticks);
	assert_value(text, "mpamd_tick_overruns_total", (double)fx->v.in.overruns);
	assert_value(text, "mpamd_tick_interval_seconds", fx->v.in.interval_s);
	assert_value(text, "mpamd_uptime_seconds", fx->v.in.uptime_s);
	assert_value(text, "mpamd_last_tick_timestamp_seconds", fx->v.in.last_tick_unix_s);
	assert_value(text, "mpamd_config_last_reload_success", 0);
	assert_value(text, "mpamd_config_last_reload_success_timestamp_seconds", fx->v.in.reload_ok_unix_s);
	assert_value(text, "mpamd_record_ok", 0);
	assert_value(text, "mpamd_record_errors_total", 5);
	assert_value(text, "mpamd_host_capacity_bytes_per_second", fx->v.in.capacity_mbps * 1e6);
	assert_value(text, "mpamd_guarantees_enforced", 0);
#undef SERIES
}

/* classes = shared: each partition's class and asked ceiling, the classes and RMIDs used and left;
 * none of them where classes are not shared. */
static void test_shared_classes(void **state)
{
	struct formatted *fx = *state;
	char *text = fx->text;

	assert_value(text, "mpamd_partition_class_info{partition=\"" ODD_LABEL "\",class=\"7\"}", 1);
	assert_null(strstr(text, "mpamd_partition_class_info{partition=\"batch\""));
	assert_value(text, "mpamd_partition_bandwidth_max_asked_ratio{partition=\"" ODD_LABEL "\"}", 0.45);
	assert_value(text, "mpamd_partition_bandwidth_max_ratio{partition=\"" ODD_LABEL "\"}", 0.4);
	assert_null(strstr(text, "mpamd_partition_bandwidth_max_asked_ratio{partition=\"batch\""));
	assert_value(text, "mpamd_classes_used", 3);
	assert_value(text, "mpamd_classes_left", 12);
	assert_value(text, "mpamd_rmids_used", 51);
	assert_value(text, "mpamd_rmids_left", 205);

	fx->v.classes.monitors_counted = false; /* a control without RMIDs: classes only */
	char *no_rmids = format(&fx->v.in);
	assert_value(no_rmids, "mpamd_classes_left", 12);
	assert_null(value_of(no_rmids, "mpamd_rmids_used"));
	assert_null(value_of(no_rmids, "mpamd_rmids_left"));
	free(no_rmids);
	fx->v.in.classes = NULL;
	fx->v.status[0].in_class = false;
	char *own = format(&fx->v.in);
	assert_null(value_of(own, "mpamd_classes_used"));
	assert_null(value_of(own, "mpamd_classes_left"));
	assert_null(strstr(own, "mpamd_partition_class_info{"));
	assert_null(strstr(own, "mpamd_partition_bandwidth_max_asked_ratio{"));
	free(own);
}

static void test_events_are_counted_by_partition_and_action(void **state)
{
	struct formatted *fx = *state;
	char *text = fx->text;

	assert_value(text, "mpamd_policy_events_total{partition=\"batch\",action=\"throttle\"}", 2);
	assert_value(text, "mpamd_policy_events_total{partition=\"batch\",action=\"restore\"}", 1);
	assert_null(value_of(text, "mpamd_policy_events_total{partition=\"gone\",action=\"throttle\"}"));
	assert_value(text, "mpamd_policy_events_folded_total", 17); /* not logged, counted */

	/* Many partitions and actions: every count lands where it belongs as the table grows. */
	char name[32], action[32];
	for (unsigned round = 0; round < 3; round++)
		for (unsigned i = 0; i < 500; i++) {
			snprintf(name, sizeof(name), "p%u", i);
			snprintf(action, sizeof(action), "act%u: why", i % 7);
			for (unsigned k = 0; k <= i % 3; k++)
				event_log_add(fx->v.events, round, round, round, name, action);
		}
	free(fx->text);
	text = fx->text = format(&fx->v.in);
	for (unsigned i = 0; i < 500; i++) {
		char series[96];
		snprintf(series, sizeof(series), "mpamd_policy_events_total{partition=\"p%u\",action=\"act%u\"}", i,
			 i % 7);
		assert_value(text, series, 3.0 * (i % 3 + 1));
	}
	assert_int_equal(fx->v.events->counts.used, 3 + 500);
}

static void test_tick_duration_is_a_cumulative_histogram(void **state)
{
	struct formatted *fx = *state;
	char *text = fx->text;
	char series[96];

	uint64_t previous = 0;
	for (size_t i = 0; i <= fx->v.hist.bound_count; i++) {
		char le[32];
		if (i < fx->v.hist.bound_count)
			snprintf(le, sizeof(le), "%g", fx->v.hist.bounds[i]);
		else
			snprintf(le, sizeof(le), "+Inf");
		snprintf(series, sizeof(series), "mpamd_tick_duration_seconds_bucket{le=\"%s\"}", le);
		const char *got = value_of(text, series);
		if (!got)
			fail_msg("no bucket %s", series);
		uint64_t count = strtoull(got, NULL, 10);
		uint64_t below = 0;
		for (size_t k = 0; k < 4; k++) /* the four observations of view_init */
			below += (double[]){ 0.0005, 0.005, 0.005, 0.5 }[k] <=
				 (i < fx->v.hist.bound_count ? fx->v.hist.bounds[i] : 1e300);
		assert_int_equal(count, below);
		assert_true(count >= previous);
		previous = count;
	}
	assert_value(text, "mpamd_tick_duration_seconds_count", (double)fx->v.hist.count);
	assert_value(text, "mpamd_tick_duration_seconds_sum", 0.0005 + 0.005 + 0.005 + 0.5);
}

/* An engine with nothing yet: no tick, no monitor, no partition, no capacity. Still valid text. */
static void test_an_empty_engine_gives_valid_text(void **state)
{
	struct metrics_input in = { .version = "0", .interval_s = 0.1, .reload_ok = true };
	struct parsed p;

	(void)state;
	char *text = format(&in);
	parse(text, &p);
	assert_int_equal(p.count, metrics_family_count);
	assert_null(value_of(text, "mpamd_host_capacity_bytes_per_second"));
	assert_null(value_of(text, "mpamd_last_tick_timestamp_seconds"));
	assert_null(value_of(text, "mpamd_record_ok")); /* no record file */
	assert_null(value_of(text, "mpamd_record_errors_total"));
	free(text);
}

/* ---- what names the families: the man page, the dashboard, the alert rules ---- */

static const struct metrics_family *family_of_series(const char *name)
{
	for (size_t i = 0; i < metrics_family_count; i++) {
		const struct metrics_family *f = &metrics_families[i];
		size_t n = strlen(f->name);
		if (!strcmp(name, f->name))
			return f;
		if (!strcmp(f->type, "histogram") && !strncmp(name, f->name, n) &&
		    (!strcmp(name + n, "_bucket") || !strcmp(name + n, "_sum") || !strcmp(name + n, "_count")))
			return f;
	}
	return NULL;
}

static char *source_file(const char *relative)
{
	return read_file_below(MPAMD_SOURCE_DIR, relative);
}

/* Fails on any mpamd_* name in `text` that is no produced series; returns how many there were. */
static size_t each_metric_name(const char *text, const char *where)
{
	size_t count = 0;

	for (const char *s = text; (s = strstr(s, "mpamd_"));) {
		if (s > text && (isalnum((unsigned char)s[-1]) || s[-1] == '_' || s[-1] == ':')) {
			s += 6;
			continue;
		}
		size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)n, s);
		if (!family_of_series(name))
			fail_msg("%s names %s, which mpamd does not produce", where, name);
		count++;
		s += n;
	}
	return count;
}

static void test_man_page_lists_exactly_the_families(void **state)
{
	struct formatted *fx = *state;
	char *text = fx->text;
	struct parsed p;

	parse(text, &p);
	char *man = source_file("docs/mpamctl.8");
	const char *begin = strstr(man, ".\\\" metrics:");
	const char *end = begin ? strstr(begin, ".\\\" end of metrics") : NULL;
	if (!begin || !end)
		fail_msg("mpamctl(8) has no metrics list between '.\\\" metrics:' and '.\\\" end of metrics'");
	size_t listed = 0;
	for (const char *line = strchr(begin, '\n') + 1; line < end; line = strchr(line, '\n') + 1) {
		if (strncmp(line, ".B mpamd_", 9))
			continue;
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line + 3, " \n"), line + 3);
		if (!family_named(&p, name))
			fail_msg("mpamctl(8) documents %s, which mpamd does not produce", name);
		listed++;
	}
	/* Each listed name is a produced family, none twice (parse() refuses doubles in the text, and
	 * the count must match): so every produced family is documented. */
	if (listed != p.count)
		fail_msg("mpamctl(8) lists %zu families, mpamd produces %zu", listed, p.count);
	free(man);
}

/* Panels with a query, counted once each (a panel's queries come one after another). */
struct expr_check {
	const json_t *last_panel;
	size_t panels_with_expr;
};

static void check_expr(const char *expr, const json_t *panel, void *ctx)
{
	struct expr_check *check = ctx;

	if (!each_metric_name(expr, "grafana-dashboard.json"))
		fail_msg("dashboard query '%s' names no mpamd metric", expr);
	if (panel && panel != check->last_panel)
		check->panels_with_expr++;
	check->last_panel = panel;
}

static void test_dashboard_queries_use_produced_metrics(void **state)
{
	char path[512];
	json_error_t error;
	struct expr_check check = { .last_panel = NULL };

	(void)state;
	snprintf(path, sizeof(path), "%s/deploy/grafana-dashboard.json", MPAMD_SOURCE_DIR);
	json_t *dashboard = json_load_file(path, 0, &error);
	if (!dashboard)
		fail_msg("%s:%d: %s", path, error.line, error.text);
	size_t exprs = dashboard_each_expr(dashboard, check_expr, &check);
	/* Bandwidth, limits, events and tick duration at the least. */
	assert_true(check.panels_with_expr >= 4);
	assert_true(exprs >= check.panels_with_expr);
	json_decref(dashboard);
}

static void test_alert_rules_use_produced_metrics(void **state)
{
	(void)state;
	char *rules = source_file("deploy/mpamd-alerts.yml");
	assert_true(each_metric_name(rules, "mpamd-alerts.yml") > 0);
	free(rules);
}

/* ---- cost: what a metrics request does in the tick thread with a thousand partitions ---- */

static void test_a_thousand_partitions_stay_cheap(void **state)
{
	enum {
		N = 1024,
		DOMAINS = 2,
		ROUNDS = 20
	};
	struct partition_status *status = calloc(N, sizeof(*status));
	struct partition_goals *goals = calloc(N, sizeof(*goals));
	struct domain_status *samples = calloc(N * DOMAINS, sizeof(*samples));
	struct metrics_partition *parts = calloc(N, sizeof(*parts));
	char(*names)[16] = calloc(N, sizeof(*names));
	struct metrics_domain domains[DOMAINS] = { { .name = "msc0" }, { .name = "msc1" } };
	struct event_log *events = calloc(1, sizeof(*events));
	struct metrics_buf b = { .data = NULL };
	struct timespec t0, t1;

	(void)state;
	assert_true(status && goals && samples && parts && names && events);
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "vm%04zu", i);
		status[i] = (struct partition_status){
			.name = names[i], .open = true, .valid = true, .mb_max = 50, .bytes_total = i * 1000003
		};
		goals[i].guarantee_mbps = i % 2 ? 1000 : 0;
		for (size_t d = 0; d < DOMAINS; d++)
			samples[i * DOMAINS + d] =
				(struct domain_status){ .valid = true, .mbps = 10 + i * 1e-5, .mb_max = 50 };
		parts[i] = (struct metrics_partition){
			&status[i], goals[i].guarantee_mbps, goals[i].target_mbps, &samples[i * DOMAINS], 0, NULL
		};
		event_log_add(events, 1, 1, 1, names[i], "throttle: x");
	}
	struct metrics_input in = { .version = "0",
				    .partitions = parts,
				    .partition_count = N,
				    .domains = domains,
				    .domain_count = DOMAINS,
				    .events = &events->counts,
				    .interval_s = 0.1 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int r = 0; r < ROUNDS; r++)
		assert_int_equal(metrics_format(&in, &b), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = ((double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6) / ROUNDS;
	print_message("%d partitions x %d domains: %zu bytes of text in %.2f ms\n", N, DOMAINS, b.len, ms);
	struct parsed *p = calloc(1, sizeof(*p));
	parse(b.data, p);
	assert_int_equal(p->count, metrics_family_count);
	free(p);
	metrics_buf_fini(&b);
	event_log_fini(events);
	free(events);
	free(names);
	free(parts);
	free(samples);
	free(goals);
	free(status);
}

TEST_MAIN({
	formatted_test(test_every_family_is_declared_once_before_its_samples),
	formatted_test(test_label_values_are_escaped),
	formatted_test(test_values_are_in_base_units),
	formatted_test(test_shared_classes),
	formatted_test(test_events_are_counted_by_partition_and_action),
	formatted_test(test_tick_duration_is_a_cumulative_histogram),
	cmocka_unit_test(test_an_empty_engine_gives_valid_text),
	formatted_test(test_man_page_lists_exactly_the_families),
	cmocka_unit_test(test_dashboard_queries_use_produced_metrics),
	cmocka_unit_test(test_alert_rules_use_produced_metrics),
	cmocka_unit_test(test_a_thousand_partitions_stay_cheap),
})
