/* mpamctl plot, run as the user runs it: a record file in, an SVG or a PNG out, and the command
 * line's errors with their exit codes. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

/* Three partitions, an invalid sample, quoted events (one with commas), and the columns a later
 * version may add: a per-domain row that must not be drawn, guarantee and target. */
static const char record_csv[] =
	"t_ms,partition,mbps,mb_max,mb_min,valid,estimated,event,sim_mbps,domain,guarantee_mbps,target_mbps,ipc\n"
	"0,web,3000.0,100,0,1,0,,3000.0,*,6000,,1.1\n"
	"0,web,1500.0,100,0,1,0,,1500.0,0,6000,,1.1\n"
	"0,batch,14000.0,100,0,1,0,,14000.0,*,,,0.5\n"
	"0,tenant,2600.0,100,0,1,0,,2600.0,,,2500,0.9\n"
	"100,web,3100.0,100,30,1,0,\"guarantee: mb_min 0% -> 30% (6000 of 20000 MB/s)\",3100.0,*,6000,,1.1\n"
	"100,batch,,100,0,0,0,,14000.0,*,,,0.5\n"
	"100,tenant,2500.0,13,0,1,0,\"throttle: new target 2500, at 200 MB/s per %\",2500.0,*,,2500,0.9\n"
	"200,web,6000.0,100,30,1,0,,6000.0,*,6000,,1.1\n"
	"200,batch,11500.0,100,0,1,1,,11500.0,*,,,0.5\n"
	"200,tenant,2510.0,13,0,1,0,,2510.0,*,,2500,0.9\n"
	"300,web,5990.0,100,30,1,0,,5990.0,*,6000,,1.1\n"
	"300,batch,11400.0,100,0,1,0,,11400.0,*,,,0.5\n"
	"300,tenant,2490.0,13,0,1,0,,2490.0,*,,2500,0.9\n";

struct fixture {
	char dir[64];
	char csv[128], svg[128], png[128];
	char file[200]; /* the test's own record file (write_fixture_file, or mpamd's --record) */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	make_test_dir(f->dir, sizeof(f->dir), "plot");
	snprintf(f->csv, sizeof(f->csv), "%s/run.csv", f->dir);
	snprintf(f->svg, sizeof(f->svg), "%s/run.svg", f->dir);
	snprintf(f->png, sizeof(f->png), "%s/run.png", f->dir);
	FILE *out = fopen(f->csv, "w");
	if (!out)
		return -1;
	fputs(record_csv, out);
	fclose(out);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[200];
	static const char *const names[] = { "run.csv",	   "run.svg",	  "run.png",	 "web.svg",
					     "bad.csv",	   "x.png",	  "mpamd.csv",	 "two-runs.csv",
					     "events.csv", "domains.csv", "no-goals.csv" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", f->dir, names[i]);
		unlink(path);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct run_result run(char *const argv[])
{
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	return r;
}

static void expect_in(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("'%s' not in:\n%s", what, text);
}

/* FILE in the fixture's directory with `text` in it; its path in f->file. */
static void write_fixture_file(struct fixture *f, const char *name, const char *text)
{
	snprintf(f->file, sizeof(f->file), "%s/%s", f->dir, name);
	write_file_below(f->dir, name, text);
}

/* The SVG mpamctl plot draws of a fixture file `name` holding `text` (its path in f->file). */
static char *plot_fixture(struct fixture *f, const char *name, const char *text)
{
	write_fixture_file(f, name, text);
	struct run_result r = run((char *[]){ MPAMCTL, "plot", f->file, "-o", f->svg, NULL });
	if (r.exit_code != 0)
		fail_msg("plot %s: exit %d:\n%s", name, r.exit_code, r.err);
	run_result_fini(&r);
	char *svg = read_text_file(f->svg);
	assert_non_null(svg);
	return svg;
}

/* The SVG at `path` says `what`. */
static void expect_svg_says(const char *path, const char *what)
{
	char *svg = read_text_file(path);

	assert_non_null(svg);
	expect_in(svg, what);
	free(svg);
}

/* Well-formed enough: every element closed in order, comments and declarations skipped. */
static void assert_xml_balanced(const char *xml)
{
	const char *stack[256];
	size_t depth = 0, elements = 0;

	for (const char *p = strchr(xml, '<'); p; p = strchr(p, '<')) {
		if (!strncmp(p, "<?", 2) || !strncmp(p, "<!--", 4)) {
			const char *end = strstr(p, p[1] == '?' ? "?>" : "-->");
			assert_non_null(end);
			p = end + 2;
			continue;
		}
		const char *end = strchr(p, '>');
		assert_non_null(end);
		if (p[1] == '/') {
			assert_true(depth > 0);
			const char *open = stack[--depth];
			size_t n = strcspn(open + 1, " \t\n/>");
			if (strncmp(open + 1, p + 2, n) || p[2 + n] != '>')
				fail_msg("<%.*s> closed by %.*s", (int)n, open + 1, (int)(end - p + 1), p);
		} else if (end[-1] != '/') {
			assert_true(depth < sizeof(stack) / sizeof(stack[0]));
			stack[depth++] = p;
		}
		elements++;
		p = end;
	}
	assert_int_equal(depth, 0);
	assert_true(elements > 10);
}

/* The <path> elements of `svg` that cairo stroked in `colour` ("rgb(12.2%,46.7%,70.6%)", as cairo
 * writes a partition's colour) with the dash pattern `dashes` ("7,4"). */
static size_t count_stroked(const char *svg, const char *colour, const char *dashes)
{
	char stroke[64], dash[64];
	size_t n = 0;

	snprintf(stroke, sizeof(stroke), "stroke:%s;", colour);
	snprintf(dash, sizeof(dash), "stroke-dasharray:%s;", dashes);
	for (const char *p = strstr(svg, "<path "); p; p = strstr(p + 1, "<path ")) {
		const char *end = strchr(p, '>');
		assert_non_null(end);
		const char *a = strstr(p, stroke), *b = strstr(p, dash);
		n += a && b && a < end && b < end;
	}
	return n;
}

/* cairo's colours of the first three partitions (the palette's first three). */
#define WEB_COLOUR	 "rgb(12.2%,46.7%,70.6%)"
#define BATCH_COLOUR	 "rgb(100%,49.8%,5.5%)"
#define TENANT_COLOUR	 "rgb(17.3%,62.7%,17.3%)"
#define GUARANTEE_DASHES "7,4"
#define TARGET_DASHES	 "8,3,2,3"
#define ASKED_DASHES	 "12,4"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_svg(void **state)
{
	struct fixture *f = *state;
	struct run_result r = run((char *[]){ MPAMCTL, "plot", f->csv, "-o", f->svg, NULL });

	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.err, "");
	run_result_fini(&r);
	char *svg = read_text_file(f->svg);
	assert_non_null(svg);
	assert_true(!strncmp(svg, "<?xml", 5));
	expect_in(svg, "<svg");
	expect_in(svg, "width=\"1000px\" height=\"660px\"");
	assert_xml_balanced(svg);
	expect_in(svg, "<title>");
	expect_in(svg, "run.csv</title>");
	/* the legend's partitions, each with its colour */
	expect_in(svg, "Legend: web (#1f77b4), batch (#ff7f0e), tenant (#2ca02c)");
	/* the goal lines: web's guarantee dashed and tenant's target dash-dot, each in its colour, and
	 * none for a partition without that goal */
	expect_in(svg, "; goal lines: web guarantee (dashed), tenant target (dash-dot)");
	assert_int_equal(count_stroked(svg, WEB_COLOUR, GUARANTEE_DASHES), 1);
	assert_int_equal(count_stroked(svg, TENANT_COLOUR, TARGET_DASHES), 1);
	assert_int_equal(count_stroked(svg, BATCH_COLOUR, GUARANTEE_DASHES), 0);
	assert_int_equal(count_stroked(svg, BATCH_COLOUR, TARGET_DASHES), 0);
	assert_int_equal(count_stroked(svg, TENANT_COLOUR, GUARANTEE_DASHES), 0);
	assert_int_equal(count_stroked(svg, WEB_COLOUR, TARGET_DASHES), 0);
	/* its one domain row holds the total's limits: no line of its own */
	assert_null(strstr(svg, "limits of their own"));
	free(svg);
}

/* A file with goal columns but no goal in them: no goal line at all. */
static void test_no_goal_no_line(void **state)
{
	struct fixture *f = *state;

	char *svg = plot_fixture(f, "no-goals.csv",
				 "t_ms,partition,mbps,mb_max,mb_min,guarantee_mbps,target_mbps\n"
				 "0,web,1000,100,0,,\n100,web,1100,100,0,,\n");
	assert_null(strstr(svg, "goal lines"));
	assert_int_equal(count_stroked(svg, WEB_COLOUR, GUARANTEE_DASHES), 0);
	assert_int_equal(count_stroked(svg, WEB_COLOUR, TARGET_DASHES), 0);
	free(svg);
}

/* A partition name with XML's special characters is escaped where the SVG's text names it. */
static void test_names_escaped(void **state)
{
	struct fixture *f = *state;
	const char *name = "\"a&b<c>\"\"q\"\"\""; /* a&b<c>"q", quoted as CSV quotes */
	char text[256];

	snprintf(text, sizeof(text),
		 "t_ms,partition,mbps,mb_max,mb_min,guarantee_mbps\n0,%s,1000,100,0,500\n100,%s,1100,100,0,500\n", name,
		 name);
	char *svg = plot_fixture(f, "specials.csv", text);
	assert_xml_balanced(svg);
	expect_in(svg, "goal lines: a&amp;b&lt;c&gt;&quot;q&quot; guarantee (dashed)");
	free(svg);
}

static void test_png(void **state)
{
	struct fixture *f = *state;
	struct run_result r = run((char *[]){ MPAMCTL, "plot", f->csv, "--output", f->png, NULL });
	unsigned char head[24];
	struct stat st;

	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.err, "");
	run_result_fini(&r);
	FILE *in = fopen(f->png, "rb");
	assert_non_null(in);
	assert_int_equal(fread(head, 1, sizeof(head), in), sizeof(head));
	fclose(in);
	assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
	assert_memory_equal(head + 12, "IHDR", 4);
	assert_int_equal(be32(head + 16), 1000);
	assert_int_equal(be32(head + 20), 660);
	assert_int_equal(stat(f->png, &st), 0);
	/* lines, text and a legend: more than a blank picture compresses to, less than raw pixels */
	assert_true(st.st_size > 10000 && st.st_size < 1000 * 660 * 3);
}

static void test_partition_and_time_range(void **state)
{
	struct fixture *f = *state;
	char out[200];

	snprintf(out, sizeof(out), "%s/web.svg", f->dir);
	struct run_result r = run((char *[]){ MPAMCTL, "plot", "--partition", "web", "-p", "tenant", "--from", "0.1",
					      "--to", "0.3", f->csv, "-o", out, NULL });
	assert_int_equal(r.exit_code, 0);
	run_result_fini(&r);
	char *svg = read_text_file(out);
	assert_non_null(svg);
	expect_in(svg, "Legend: web (#1f77b4), tenant (#ff7f0e).");
	assert_null(strstr(svg, "batch"));
	free(svg);
}

static void test_unknown_partition(void **state)
{
	struct fixture *f = *state;

	expect_run(ARGV(MPAMCTL, "plot", f->csv, "-o", f->svg, "-p", "web", "-p", "nope"), 1,
		   "mpamctl plot: no partition 'nope' in ", "run.csv; it has: web, batch, tenant\n");
}

static void test_nothing_in_range(void **state)
{
	struct fixture *f = *state;

	expect_run(ARGV(MPAMCTL, "plot", f->csv, "-o", f->svg, "--from", "10"), 1,
		   "mpamctl plot: ", "run.csv: no samples of the selected partitions in the time range\n");
}

static void test_bad_record_file(void **state)
{
	struct fixture *f = *state;

	write_fixture_file(f, "bad.csv", "t_ms,partition,mbps,mb_max,mb_min\n0,web,1,100,0\n100,web,fast,100,0\n");
	expect_run(ARGV(MPAMCTL, "plot", f->file, "-o", f->svg), 1,
		   "mpamctl plot: ", "bad.csv:3: bad value in column mbps: 'fast'");
	expect_run(ARGV(MPAMCTL, "plot", "/nonexistent.csv", "-o", f->svg), 1,
		   "mpamctl plot: cannot open /nonexistent.csv: No such file or directory\n");
}

/* A row a crash cut short is skipped with a warning naming its line; the rest is drawn. */
static void test_cut_row_warned(void **state)
{
	struct fixture *f = *state;

	write_fixture_file(f, "bad.csv", "t_ms,partition,mbps,mb_max,mb_min\n0,web,1,100,0\n100,we\n100,web,2,100,0\n");
	struct run_result r = run((char *[]){ MPAMCTL, "plot", f->file, "-o", f->svg, NULL });
	assert_int_equal(r.exit_code, 0);
	expect_in(r.err, "bad.csv:3: skipped 1 row(s) cut short (fewer fields than the header: mpamd stopped while "
			 "writing)\n");
	run_result_fini(&r);
	assert_int_equal(access(f->svg, F_OK), 0);
}

static void test_unwritable_output(void **state)
{
	struct fixture *f = *state;

	expect_run(ARGV(MPAMCTL, "plot", f->csv, "-o", "/nonexistent/x.png"), 1,
		   "mpamctl plot: cannot write /nonexistent/x.png");
	expect_run(ARGV(MPAMCTL, "plot", f->csv, "-o", "/nonexistent/x.svg"), 1,
		   "mpamctl plot: cannot create /nonexistent/x.svg: No such file or directory\n");
}

static void test_usage_errors(void **state)
{
	struct fixture *f = *state;
	char x[200];
	struct {
		char *argv[12];
		const char *message;
	} cases[] = {
		{ { MPAMCTL, "plot", f->csv, NULL }, "mpamctl plot: missing -o OUT.svg or -o OUT.png\n" },
		{ { MPAMCTL, "plot", "-o", f->svg, NULL }, "mpamctl plot: missing the record file (FILE.csv)\n" },
		{ { MPAMCTL, "plot", f->csv, f->csv, "-o", f->svg, NULL }, "mpamctl plot: one record file only" },
		{ { MPAMCTL, "plot", f->csv, "-o", "out.jpg", NULL },
		  "mpamctl plot: -o out.jpg: the name must end in .svg or .png\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", ".svg", NULL },
		  "mpamctl plot: -o .svg: the name must end in .svg or .png\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", f->svg, "--from", "abc", NULL },
		  "mpamctl plot: --from must be a number of seconds or an RFC 3339 time, not 'abc'\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", f->svg, "--to", "-1", NULL },
		  "mpamctl plot: --to must be a number of seconds or an RFC 3339 time, not '-1'\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", f->svg, "--to", "2026-12-03T10:15:42", NULL },
		  "mpamctl plot: --to must be a number of seconds or an RFC 3339 time, not '2026-12-03T10:15:42'\n" },
		/* a wall-clock time for a file without a time column */
		{ { MPAMCTL, "plot", f->csv, "-o", f->svg, "--from", "2026-12-03T10:15:42Z", NULL },
		  "run.csv has no time column; give seconds\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", f->svg, "--from", "5", "--to", "3", NULL },
		  "mpamctl plot: --from 5 must be less than --to 3\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", f->svg, "--from", "2", "--to", "2", NULL },
		  "mpamctl plot: --from 2 must be less than --to 2\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", f->svg, "--bogus", NULL },
		  "mpamctl plot: unknown option '--bogus'\n" },
		{ { MPAMCTL, "plot", f->csv, "-x", "-o", f->svg, NULL }, "mpamctl plot: unknown option '-x'\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", NULL }, "mpamctl plot: option '-o' needs an argument\n" },
		{ { MPAMCTL, "plot", f->csv, "-o", f->svg, "--from", NULL },
		  "mpamctl plot: option '--from' needs an argument\n" },
	};

	(void)state;
	snprintf(x, sizeof(x), "%s/x.png", f->dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_result r = run(cases[i].argv);
		if (r.exit_code != 2)
			fail_msg("case %zu: exit %d, stderr:\n%s", i, r.exit_code, r.err);
		expect_in(r.err, cases[i].message);
		expect_in(r.err, "Try 'mpamctl plot --help'.\n");
		assert_string_equal(r.out, "");
		run_result_fini(&r);
	}
	assert_int_not_equal(access(x, F_OK), 0);
}

static void test_help(void **state)
{
	struct run_result r = run((char *[]){ MPAMCTL, "plot", "--help", NULL });

	(void)state;
	assert_int_equal(r.exit_code, 0);
	expect_in(r.out, "Usage: mpamctl plot FILE.csv -o OUT.svg|OUT.png");
	run_result_fini(&r);
	r = run((char *[]){ MPAMCTL, "--help", NULL });
	assert_int_equal(r.exit_code, 0);
	expect_in(r.out, "  plot ");
	run_result_fini(&r);
}

/* Two runs appended in one file, five minutes apart: placed on the wall clock, not on top of each
 * other, and --from/--to take RFC 3339 times as well as seconds. */
static void test_time_column_and_two_runs(void **state)
{
	struct fixture *f = *state;

	write_fixture_file(f, "two-runs.csv",
			   "t_ms,time,partition,mbps,mb_max,mb_min\n"
			   "100,2026-12-03T10:00:00.100Z,web,1000,100,0\n"
			   "200,2026-12-03T10:00:00.200Z,web,1100,100,0\n"
			   "100,2026-12-03T10:05:00.100Z,web,2000,50,0\n"
			   "200,2026-12-03T10:05:00.200Z,web,2100,50,0\n");
	struct {
		const char *from, *to;
		int exit_code;
	} cases[] = {
		{ "300", "301", 0 },					 /* the second run, by seconds */
		{ "2026-12-03T10:04:00Z", "2026-12-03T10:06:00Z", 0 },	 /* the same by the wall clock */
		{ "2026-12-03T11:04:00+01:00", "301", 0 },		 /* mixed, with an offset */
		{ "0.1", "0.2", 0 },					 /* the first run */
		{ "2026-12-03T10:01:00Z", "2026-12-03T10:04:00Z", 1 },	 /* between the runs: nothing */
		{ "2026-12-03T10:05:00Z", "2026-12-03T10:00:00.5Z", 2 }, /* from after to */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_result r = run((char *[]){ MPAMCTL, "plot", f->file, "-o", f->svg, "--from",
						      (char *)cases[i].from, "--to", (char *)cases[i].to, NULL });
		if (r.exit_code != cases[i].exit_code)
			fail_msg("--from %s --to %s: exit %d, stderr:\n%s", cases[i].from, cases[i].to, r.exit_code,
				 r.err);
		if (cases[i].exit_code == 1)
			expect_in(r.err, "no samples of the selected partitions in the time range");
		if (cases[i].exit_code == 2)
			expect_in(r.err, "mpamctl plot: --from 2026-12-03T10:05:00Z must be less than --to "
					 "2026-12-03T10:00:00.5Z\n");
		run_result_fini(&r);
	}
	struct run_result r = run((char *[]){ MPAMCTL, "plot", f->file, "-o", f->svg, NULL });
	assert_int_equal(r.exit_code, 0);
	run_result_fini(&r);
	/* the axis is the wall clock: a tick a minute, on whole minutes of UTC, the date in its title */
	expect_svg_says(f->svg, "; time (UTC, 2026-12-03); time axis ticks: 2026-12-03 10:00:00, 2026-12-03 10:01:00, "
				"2026-12-03 10:02:00,");
}

/* One event label's box in the SVG: where it is and whose event it names. */
struct label_box {
	double x, y, w, h;
	char title[128];
};

static double attribute(const char *element, const char *name)
{
	char key[32];

	snprintf(key, sizeof(key), " %s=\"", name);
	const char *p = strstr(element, key);
	assert_non_null(p);
	return strtod(p + strlen(key), NULL);
}

/* The boxes of class `cls` ("event-label", "event-marker") in svg, at most max. */
static size_t read_boxes(const char *svg, const char *cls, struct label_box *boxes, size_t max)
{
	char key[64];
	size_t n = 0;

	snprintf(key, sizeof(key), "<rect class=\"%s\"", cls);
	for (const char *p = strstr(svg, key); p; p = strstr(p + 1, key)) {
		assert_true(n < max);
		struct label_box *b = &boxes[n++];
		b->x = attribute(p, "x");
		b->y = attribute(p, "y");
		b->w = attribute(p, "width");
		b->h = attribute(p, "height");
		const char *t = strstr(p, "<title>");
		assert_non_null(t);
		t += strlen("<title>");
		snprintf(b->title, sizeof(b->title), "%.*s", (int)strcspn(t, "<"), t);
	}
	return n;
}

static bool overlap(const struct label_box *a, const struct label_box *b)
{
	return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* Events crowded at one moment: each label names its partition, none covers another, the ones with
 * no room are left out and counted, and every event keeps its marker with the whole text. */
static void test_event_labels_named_and_apart(void **state)
{
	struct fixture *f = *state;
	char text[4096] = "time,t_ms,partition,mbps,mb_max,mb_min,event\n";
	static const char *const names[] = { "vm-alpha", "vm-bravo", "vm-charlie", "vm-delta", "vm-echo", "vm-foxtrot" };

	for (int t = 0; t < 3; t++)
		for (size_t i = 0; i < 6; i++) {
			/* every partition has an event at 10:00:01; the others spread out */
			bool crowd = t == 1;
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
				 "2026-12-03T10:00:0%d.000Z,%d,%s,1000,100,0,%s\n", t, t * 1000, names[i],
				 crowd || (t == 2 && i == 0) ? "\"throttle: mb_max 100% -> 50%, for a neighbour\""
							     : "");
		}
	char *svg = plot_fixture(f, "events.csv", text);
	assert_xml_balanced(svg);
	struct label_box labels[16], markers[16];
	size_t nl = read_boxes(svg, "event-label", labels, 16), nm = read_boxes(svg, "event-marker", markers, 16);
	assert_int_equal(nm, 7);
	assert_true(nl >= 3 && nl < nm); /* three rows staggered at the crowded moment, the rest left out */
	char said[64];
	snprintf(said, sizeof(said), "; 7 events, %zu labels left out.</desc>", nm - nl);
	expect_in(svg, said);
	for (size_t i = 0; i < nl; i++) {
		bool named = false;
		for (size_t k = 0; k < 6; k++) {
			char prefix[64];
			snprintf(prefix, sizeof(prefix), "%s at 2026-12-03T10:00:0", names[k]);
			named |= !strncmp(labels[i].title, prefix, strlen(prefix));
		}
		if (!named)
			fail_msg("label %zu's title names no partition: %s", i, labels[i].title);
		expect_in(labels[i].title, ": throttle: mb_max 100% -&gt; 50%, for a neighbour");
		for (size_t k = 0; k < i; k++)
			if (overlap(&labels[i], &labels[k]))
				fail_msg("labels %zu (%s) and %zu (%s) overlap", k, labels[k].title, i,
					 labels[i].title);
	}
	/* the same file gives the same picture */
	struct run_result r = run((char *[]){ MPAMCTL, "plot", f->file, "-o", f->png, NULL });
	run_result_fini(&r);
	r = run((char *[]){ MPAMCTL, "plot", f->file, "-o", f->svg, NULL });
	run_result_fini(&r);
	char *again = read_text_file(f->svg);
	assert_string_equal(again, svg);
	free(again);
	free(svg);
}

/* Per-domain rows where a partition's domains hold different limits (a cut on domain 1): those
 * domains get lines of their own; a run across midnight shows the dates on the time axis. */
static void test_domain_cuts_and_days(void **state)
{
	struct fixture *f = *state;

	char *svg = plot_fixture(f, "domains.csv",
				 "time,t_ms,partition,domain,mbps,mb_max,mb_min,guarantee_mbps\n"
				 "2026-12-03T23:59:58.000Z,100,web,*,3000,100,0,6000\n"
				 "2026-12-03T23:59:58.000Z,100,web,0,1500,100,0,\n"
				 "2026-12-03T23:59:58.000Z,100,web,1,1500,100,0,\n"
				 "2026-12-03T23:59:58.000Z,100,batch,*,14000,100,0,\n"
				 "2026-12-03T23:59:58.000Z,100,batch,0,7000,100,0,\n"
				 "2026-12-03T23:59:58.000Z,100,batch,1,7000,100,0,\n"
				 "2026-12-04T00:00:01.000Z,3100,web,*,5000,100,0,6000\n"
				 "2026-12-04T00:00:01.000Z,3100,web,0,1500,100,0,\n"
				 "2026-12-04T00:00:01.000Z,3100,web,1,3500,100,0,\n"
				 "2026-12-04T00:00:01.000Z,3100,batch,*,12000,100,0,\n"
				 "2026-12-04T00:00:01.000Z,3100,batch,0,7000,100,0,\n"
				 "2026-12-04T00:00:01.000Z,3100,batch,1,5000,40,0,\n");
	expect_in(svg, "; limits of their own: batch on domain 0, batch on domain 1.");
	/* batch's domains' mb_max, 100% and 40%: thin dashed lines of their own (web's are its total's) */
	assert_int_equal(count_stroked(svg, BATCH_COLOUR, "7,4"), 2);
	assert_int_equal(count_stroked(svg, WEB_COLOUR, "7,4"), 1); /* its guarantee */
	expect_in(svg, "; time (UTC); time axis ticks: 2026-12-03 23:59:58.0, 2026-12-03 23:59:58.5,");
	expect_in(svg, ", 2026-12-04 00:00:00.0,");
	free(svg);
}

/* classes = shared: p02 asked 60% and is held at its class's 50% from the second tick, p01 asks what
 * its class holds: one long-dashed line, p02's, named in the description; a file without the column
 * has none. */
static void test_asked_ceiling_beside_its_class(void **state)
{
	struct fixture *f = *state;

	char *svg = plot_fixture(f, "classes.csv",
				 "t_ms,partition,domain,mbps,mb_max,mb_min,hw_class,mb_max_asked\n"
				 "100,p01,*,3000,50,0,c1,50\n"
				 "100,p02,*,2000,60,0,c2,60\n"
				 "200,p01,*,3000,50,0,c1,50\n"
				 "200,p02,*,2000,50,0,c1,60\n"
				 "300,p01,*,3000,50,0,c1,50\n"
				 "300,p02,*,2000,50,0,c1,60\n");
	expect_in(svg, "; mb_max asked, where its class holds another (long-dashed): p02.");
	assert_int_equal(count_stroked(svg, BATCH_COLOUR, ASKED_DASHES), 1); /* p02: the second colour */
	assert_int_equal(count_stroked(svg, WEB_COLOUR, ASKED_DASHES), 0);
	free(svg);
	svg = plot_fixture(f, "own.csv",
			   "t_ms,partition,domain,mbps,mb_max,mb_min\n"
			   "100,p01,*,3000,50,0\n"
			   "200,p01,*,3000,40,0\n");
	assert_null(strstr(svg, "mb_max asked"));
	assert_int_equal(count_stroked(svg, WEB_COLOUR, ASKED_DASHES), 0);
	free(svg);
}

/* A record mpamd writes, end to end (a new file: mpamd would move the fixture's aside). */
static void test_plots_what_mpamd_records(void **state)
{
	struct fixture *f = *state;

	snprintf(f->file, sizeof(f->file), "%s/mpamd.csv", f->dir);
	struct run_result r =
		run((char *[]){ MPAMD, "-c", MPAMD_SOURCE_DIR "/etc/demo.ini", "--foreground", "--no-socket",
				"--sim-clock", "--ticks", "50", "--print-every", "1000", "--record", f->file, NULL });

	assert_int_equal(r.exit_code, 0);
	run_result_fini(&r);
	r = run((char *[]){ MPAMCTL, "plot", f->file, "-o", f->png, NULL });
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.err, "");
	run_result_fini(&r);
	r = run((char *[]){ MPAMCTL, "plot", f->file, "-o", f->svg, NULL });
	assert_int_equal(r.exit_code, 0);
	run_result_fini(&r);
	expect_svg_says(f->svg, "Legend: web (#1f77b4), batch (#ff7f0e), tenant (#2ca02c).");
	/* the goals mpamd recorded (etc/demo.ini: web's guarantee, tenant's target) drawn as lines */
	expect_svg_says(f->svg, "; goal lines: web guarantee (dashed), tenant target (dash-dot);");
	expect_svg_says(f->svg, "; time (UTC, ");
}

TEST_MAIN({
	fixture_test(test_svg),
	fixture_test(test_png),
	fixture_test(test_partition_and_time_range),
	fixture_test(test_unknown_partition),
	fixture_test(test_nothing_in_range),
	fixture_test(test_bad_record_file),
	fixture_test(test_cut_row_warned),
	fixture_test(test_unwritable_output),
	fixture_test(test_usage_errors),
	fixture_test(test_help),
	fixture_test(test_time_column_and_two_runs),
	fixture_test(test_no_goal_no_line),
	fixture_test(test_names_escaped),
	fixture_test(test_event_labels_named_and_apart),
	fixture_test(test_domain_cuts_and_days),
	fixture_test(test_asked_ceiling_beside_its_class),
	fixture_test(test_plots_what_mpamd_records),
})
