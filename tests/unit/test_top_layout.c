/* mpamctl top's layout and frame: the columns that fit 80x24, 60x20 and 40x10 and the order they
 * go in, the bar's markers, "+N more", per-domain rows, and the screen when there is no data. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/top_frame.h"
#include "cli/top_layout.h"
#include "cli/top_model.h"
#include "tests/util/test_main.h"

/* The demo host (etc/demo.ini) as its list and status replies look a few seconds in. */
static json_t *demo_partition(const char *name, const char *class_name, double mbps, int mb_max, int mb_min,
			      double guarantee)
{
	return json_pack("{s:s,s:s,s:b,s:i,s:i,s:f,s:b,s:b,s:n,s:o,s:i,s:n}", "name", name, "class", class_name, "open",
			 true, "mb_max", mb_max, "mb_min", mb_min, "mbps", mbps, "valid", true, "estimated", false,
			 "target_mbps", "guarantee_mbps", guarantee > 0 ? json_real(guarantee) : json_null(), "weight",
			 100, "reason");
}

static json_t *demo_status(json_t *capacity)
{
	return json_pack("{s:s,s:i,s:i,s:i,s:o,s:b,s:[{s:i,s:s,s:s,s:s},{s:i,s:s,s:s,s:s}]}", "backend", "sim",
			 "interval_ms", 100, "ticks", 30, "overruns", 0, "capacity_mbps", capacity, "capacity_learned",
			 false, "events", "tick", 0, "partition", "web", "action", "guarantee", "reason",
			 "mb_min 0% -> 30% (6000 of 20000 MB/s)", "tick", 1, "partition", "tenant", "action",
			 "throttle", "reason", "new target 2500 MB/s at 200 MB/s per %: mb_max 100% -> 13%");
}

static void model_from(json_t *status, json_t *parts, struct top_model *m)
{
	struct err err = { { 0 } };
	json_t *list = json_pack("{s:o}", "partitions", parts);

	assert_int_equal(top_model_build(status, list, m, &err), 0);
	json_decref(status);
	json_decref(list);
}

static void demo_model(struct top_model *m)
{
	model_from(demo_status(json_real(20000)),
		   json_pack("[o,o,o]", demo_partition("web", "latency-critical", 3027.1, 100, 30, 6000),
			     demo_partition("batch", "best-effort", 14394.7, 100, 0, 0),
			     demo_partition("tenant", "default", 2578.1, 13, 0, 0)),
		   m);
}

/* Shown columns are in order, do not overlap and end within the width. */
static void assert_columns_fit(const struct top_layout *l, int cols)
{
	int end = 0;

	for (int c = 0; c < TOP_COL_COUNT; c++) {
		if (!l->width[c])
			continue;
		assert_true(l->x[c] >= end);
		end = l->x[c] + l->width[c] + 1;
	}
	assert_true(end - 1 <= cols);
}

static void test_layout_80x24(void **state)
{
	struct top_model m;
	struct top_layout l;

	(void)state;
	demo_model(&m);
	top_layout_compute(&m, false, true, 80, 24, &l);
	assert_false(l.too_small);
	for (int c = 0; c < TOP_COL_COUNT; c++)
		assert_true(l.width[c] > 0);
	assert_columns_fit(&l, 80);
	assert_int_equal(l.width[TOP_COL_NAME], (int)strlen("tenant"));
	assert_int_equal(l.width[TOP_COL_CLASS], (int)strlen("latency-critical"));
	assert_true(l.width[TOP_COL_BAR] >= TOP_BAR_BESIDE_EVENT);
	assert_true(l.width[TOP_COL_EVENT] >= TOP_EVENT_MIN);
	/* The event column takes the line to its end. */
	assert_int_equal(l.x[TOP_COL_EVENT] + l.width[TOP_COL_EVENT], 80);
	assert_int_equal(l.body_lines, 24 - TOP_LINES_ABOVE - 1);
	top_model_fini(&m);
}

static void test_layout_60x20(void **state)
{
	struct top_model m;
	struct top_layout l;

	(void)state;
	demo_model(&m);
	top_layout_compute(&m, false, true, 60, 20, &l);
	assert_false(l.too_small);
	assert_int_equal(l.width[TOP_COL_EVENT], 0);
	assert_true(l.width[TOP_COL_NAME] >= (int)strlen("tenant"));
	assert_true(l.width[TOP_COL_BAR] >= TOP_BAR_MIN);
	assert_true(l.width[TOP_COL_MBPS] >= (int)strlen("14394.7"));
	assert_columns_fit(&l, 60);
	top_model_fini(&m);
}

static void test_layout_40x10(void **state)
{
	struct top_model m;
	struct top_layout l;

	(void)state;
	demo_model(&m);
	top_layout_compute(&m, false, true, 40, 10, &l);
	assert_false(l.too_small);
	assert_int_equal(l.width[TOP_COL_EVENT], 0);
	assert_int_equal(l.width[TOP_COL_LIMITS], 0);
	assert_true(l.width[TOP_COL_NAME] >= (int)strlen("tenant"));
	assert_true(l.width[TOP_COL_BAR] >= TOP_BAR_TINY);
	assert_true(l.width[TOP_COL_MBPS] >= (int)strlen("14394.7"));
	assert_columns_fit(&l, 40);
	assert_int_equal(l.body_lines, 10 - TOP_LINES_ABOVE - 1);
	top_model_fini(&m);
}

/* Narrowing one column at a time: the event goes first, then the bar narrows to its minimum, then
 * the limits go; name, bar and MB/s stay to the end. */
static void test_degrades_in_order(void **state)
{
	struct top_model m;
	struct top_layout l, wider;
	int last_with_limits = 0;

	(void)state;
	demo_model(&m);
	top_layout_compute(&m, false, true, 200, 24, &wider);
	for (int cols = 199; cols >= 24; cols--) {
		top_layout_compute(&m, false, true, cols, 24, &l);
		assert_false(l.too_small);
		assert_columns_fit(&l, cols);
		assert_true(l.width[TOP_COL_NAME] > 0 && l.width[TOP_COL_BAR] > 0 && l.width[TOP_COL_MBPS] > 0);
		for (int c = 0; c < TOP_COL_COUNT; c++)
			if (!wider.width[c])
				assert_int_equal(l.width[c], 0); /* a column that went stays gone */
		if (!l.width[TOP_COL_EVENT] && wider.width[TOP_COL_EVENT])
			assert_true(wider.width[TOP_COL_BAR] >= TOP_BAR_BESIDE_EVENT);
		if (!l.width[TOP_COL_LIMITS] && wider.width[TOP_COL_LIMITS]) {
			assert_int_equal(wider.width[TOP_COL_EVENT], 0);
			assert_int_equal(wider.width[TOP_COL_BAR], TOP_BAR_MIN);
			last_with_limits = cols + 1;
		}
		wider = l;
	}
	assert_true(last_with_limits > 0);
	top_layout_compute(&m, false, true, 10, 24, &l);
	assert_true(l.too_small);
	top_layout_compute(&m, false, true, 80, 3, &l);
	assert_true(l.too_small); /* no line left for a row */
	top_model_fini(&m);
}

/* ---- frames ---- */

static const char *find_line(const struct top_frame *f, const char *start)
{
	for (int y = 0; y < f->lines; y++)
		if (!strncmp(top_frame_line(f, y), start, strlen(start)))
			return top_frame_line(f, y);
	return NULL;
}

static const struct top_view live_view = { .sort = TOP_SORT_NAME, .interactive = true, .refresh_ms = 100 };

/* The bar of `line` as drawn in the layout's bar column. */
static void bar_of(const char *line, const struct top_layout *l, char *buf)
{
	memcpy(buf, line + l->x[TOP_COL_BAR], (size_t)l->width[TOP_COL_BAR]);
	buf[l->width[TOP_COL_BAR]] = '\0';
}

static void test_bar_markers(void **state)
{
	struct top_model m;
	struct top_layout l;
	struct top_frame f;
	char bar[TOP_BAR_MAX + 1];

	(void)state;
	demo_model(&m);
	top_layout_compute(&m, false, true, 120, 24, &l);
	assert_int_equal(top_frame_render(&m, &live_view, 120, 24, &f), 0);
	int cells = l.width[TOP_COL_BAR] - 2;

	/* tenant: 13% of 20000 MB/s is its limit */
	bar_of(find_line(&f, "tenant "), &l, bar);
	assert_int_equal(bar[0], '[');
	assert_int_equal(bar[cells + 1], ']');
	assert_int_equal(bar[1 + (int)floor(0.13 * cells)], TOP_LIMIT);
	assert_null(strchr(bar, TOP_GUARANTEE));
	/* web: the guarantee at 6000 of 20000; no limit marker at mb_max 100% */
	bar_of(find_line(&f, "web "), &l, bar);
	assert_int_equal(bar[1 + (int)floor(0.3 * cells)], TOP_GUARANTEE);
	assert_null(strchr(bar + 1, TOP_LIMIT));
	/* batch: a fill of its share of the capacity, nothing else */
	bar_of(find_line(&f, "batch "), &l, bar);
	int fill = (int)(strrchr(bar, TOP_FILL) - bar);
	assert_int_equal(fill, (int)lround(14394.7 / 20000 * cells));
	for (int c = 1; c <= fill; c++)
		assert_int_equal(bar[c], TOP_FILL);
	/* Colour follows the characters: the marker cell is drawn as a limit. */
	const char *tenant = find_line(&f, "tenant ");
	int y = (int)((tenant - f.text) / (f.cols + 1));
	assert_int_equal(top_frame_attrs(&f, y)[l.x[TOP_COL_BAR] + 1 + (int)floor(0.13 * cells)], TOP_ATTR_LIMIT);
	top_frame_fini(&f);
	top_model_fini(&m);
}

/* Without a capacity the bar runs to the largest number shown, and the target is the limit. */
static void test_bar_without_capacity(void **state)
{
	struct top_model m;
	struct top_layout l;
	struct top_frame f;
	char bar[TOP_BAR_MAX + 1];

	(void)state;
	json_t *tenant = demo_partition("tenant", "default", 1000, 13, 0, 0);
	json_object_set_new(tenant, "target_mbps", json_integer(2000));
	model_from(demo_status(json_null()),
		   json_pack("[o,o]", demo_partition("big", "default", 4000, 100, 0, 0), tenant), &m);
	top_layout_compute(&m, false, true, 120, 24, &l);
	assert_int_equal(top_frame_render(&m, &live_view, 120, 24, &f), 0);
	int cells = l.width[TOP_COL_BAR] - 2;
	bar_of(find_line(&f, "big "), &l, bar);
	assert_int_equal(bar[cells], TOP_FILL); /* the largest rate fills its bar */
	bar_of(find_line(&f, "tenant "), &l, bar);
	assert_int_equal(bar[1 + (int)floor(2000.0 / 4000 * cells)], TOP_LIMIT);
	assert_non_null(strstr(top_frame_line(&f, 0), "bar 0-4000 MB/s"));
	top_frame_fini(&f);
	top_model_fini(&m);
}

static void test_frame_text(void **state)
{
	struct top_model m;
	struct top_frame f;
	struct top_view view = live_view;

	(void)state;
	demo_model(&m);
	top_model_sort(&m, TOP_SORT_NAME, false);
	assert_int_equal(top_frame_render(&m, &view, 80, 24, &f), 0);
	assert_int_equal(f.lines, 24);
	assert_non_null(strstr(top_frame_line(&f, 0), "mpamd sim"));
	assert_non_null(strstr(top_frame_line(&f, 0), "capacity 20000 MB/s"));
	assert_non_null(strstr(top_frame_line(&f, 1), "NAME"));
	assert_non_null(strstr(top_frame_line(&f, 1), "EVENT"));
	/* Rows in the model's order, right below the headings. */
	assert_ptr_equal(find_line(&f, "batch "), top_frame_line(&f, 2));
	assert_ptr_equal(find_line(&f, "tenant "), top_frame_line(&f, 3));
	assert_ptr_equal(find_line(&f, "web "), top_frame_line(&f, 4));
	assert_non_null(strstr(find_line(&f, "tenant "), "2578.1"));
	assert_non_null(strstr(find_line(&f, "tenant "), "13/0"));
	assert_non_null(strstr(find_line(&f, "tenant "), "measured"));
	assert_non_null(strstr(find_line(&f, "tenant "), "throttle: "));
	assert_non_null(strstr(top_frame_line(&f, 23), "q quit"));
	assert_non_null(strstr(top_frame_line(&f, 23), "sort: name"));
	assert_int_equal(strlen(top_frame_line(&f, 5)), 80); /* every line is the full width */
	top_frame_fini(&f);

	view.paused = true;
	view.reverse = true;
	assert_int_equal(top_frame_render(&m, &view, 80, 24, &f), 0);
	assert_non_null(strstr(top_frame_line(&f, 0), "PAUSED"));
	assert_int_equal(top_frame_attrs(&f, 0)[0], TOP_ATTR_PAUSED);
	assert_non_null(strstr(top_frame_line(&f, 23), "(reversed)"));
	top_frame_fini(&f);
	top_model_fini(&m);
}

/* Missing and mistyped fields are drawn as '-'. */
static void test_frame_unknowns(void **state)
{
	struct top_model m;
	struct top_frame f;

	(void)state;
	model_from(json_pack("{s:i}", "ticks", -5),
		   json_pack("[{s:s,s:s,s:s},{s:i}]", "name", "odd", "mbps", "fast", "valid", "yes", "name", 3), &m);
	assert_int_equal(top_frame_render(&m, &live_view, 80, 24, &f), 0);
	assert_non_null(strstr(top_frame_line(&f, 0), "mpamd -  ticks -5  overruns -  capacity -"));
	const char *odd = find_line(&f, "odd ");
	assert_non_null(odd);
	assert_non_null(strstr(odd, "-/-"));
	assert_non_null(strstr(odd, "[ "));
	assert_null(strpbrk(odd, "#|+0123456789"));
	assert_non_null(find_line(&f, "- "));
	top_frame_fini(&f);
	top_model_fini(&m);
}

static void test_more_rows_than_lines(void **state)
{
	struct top_model m;
	struct top_frame f;
	json_t *parts = json_array();
	char name[16], more[32];
	const int count = 12, lines = 10;

	(void)state;
	for (int i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "vm%02d", i);
		json_array_append_new(parts, demo_partition(name, "default", 100.0 * i, 100, 0, 0));
	}
	model_from(demo_status(json_real(20000)), parts, &m);
	assert_int_equal(top_frame_render(&m, &live_view, 40, lines, &f), 0);
	int body = lines - TOP_LINES_ABOVE - 1;
	snprintf(more, sizeof(more), "+%d more", count - (body - 1));
	assert_ptr_equal(find_line(&f, more), top_frame_line(&f, TOP_LINES_ABOVE + body - 1));
	assert_non_null(find_line(&f, "vm00"));
	snprintf(name, sizeof(name), "vm%02d", body - 2);
	assert_non_null(find_line(&f, name));
	snprintf(name, sizeof(name), "vm%02d", body - 1);
	assert_null(find_line(&f, name));
	top_frame_fini(&f);

	/* A frame without a height limit (--once) has every row and no "+N more". */
	struct top_view plain = { .refresh_ms = 100 };
	assert_int_equal(top_frame_render(&m, &plain, 80, 0, &f), 0);
	assert_int_equal(f.lines, TOP_LINES_ABOVE + count);
	assert_null(find_line(&f, "+"));
	assert_null(find_line(&f, "q quit"));
	top_frame_fini(&f);
	top_model_fini(&m);
}

static void test_domain_rows(void **state)
{
	struct top_model m;
	struct top_frame f;
	struct top_view view = live_view;

	(void)state;
	demo_model(&m);
	view.show_domains = true;
	assert_int_equal(top_frame_render(&m, &view, 80, 24, &f), 0);
	assert_non_null(strstr(top_frame_line(&f, 23), "no per-domain numbers"));
	top_frame_fini(&f);
	top_model_fini(&m);

	json_t *web = demo_partition("web", "default", 3000, 100, 30, 0);
	json_object_set_new(web, "domains",
			    json_pack("[{s:s,s:f,s:i,s:i},{s:s,s:f,s:i,s:i}]", "domain", "0", "mbps", 2000.0, "mb_max",
				      50, "mb_min", 30, "domain", "1", "mbps", 1000.0, "mb_max", 100, "mb_min", 30));
	model_from(demo_status(json_real(20000)), json_pack("[o]", web), &m);
	assert_int_equal(top_frame_render(&m, &view, 80, 24, &f), 0);
	assert_ptr_equal(find_line(&f, "web "), top_frame_line(&f, 2));
	assert_ptr_equal(find_line(&f, "  0 "), top_frame_line(&f, 3));
	assert_ptr_equal(find_line(&f, "  1 "), top_frame_line(&f, 4));
	assert_non_null(strstr(top_frame_line(&f, 3), "2000.0"));
	assert_non_null(strstr(top_frame_line(&f, 3), "50/30"));
	assert_non_null(strchr(top_frame_line(&f, 3), TOP_LIMIT));
	assert_null(strstr(top_frame_line(&f, 23), "no per-domain"));
	top_frame_fini(&f);
	view.show_domains = false;
	assert_int_equal(top_frame_render(&m, &view, 80, 24, &f), 0);
	assert_null(find_line(&f, "  0 "));
	top_frame_fini(&f);
	top_model_fini(&m);
}

static void test_no_data(void **state)
{
	struct top_frame f;
	struct top_view view = live_view;

	(void)state;
	view.socket_path = "/tmp/x/s";
	view.error = "cannot connect to /tmp/x/s: Connection refused (is mpamd running? 'systemctl start mpamd')";
	assert_int_equal(top_frame_render(NULL, &view, 40, 10, &f), 0);
	assert_non_null(strstr(top_frame_line(&f, 0), "/tmp/x/s"));
	assert_non_null(find_line(&f, "cannot connect"));
	assert_non_null(find_line(&f, "retrying every 100 ms"));
	assert_non_null(strstr(top_frame_line(&f, 9), "q quit"));
	top_frame_fini(&f);

	view.interactive = false;
	assert_int_equal(top_frame_render(NULL, &view, 80, 0, &f), 0);
	assert_null(find_line(&f, "retrying"));
	assert_non_null(find_line(&f, "cannot connect"));
	top_frame_fini(&f);
}

/* Terminals too small for anything still get a frame of their size, and say so. */
static void test_tiny_terminals(void **state)
{
	static const int sizes[][2] = { { 1, 1 }, { 5, 2 }, { 19, 3 }, { 80, 3 }, { 10, 24 }, { 1, 24 } };
	struct top_model m;
	struct top_frame f;
	struct top_view view = live_view;

	(void)state;
	demo_model(&m);
	view.socket_path = "/tmp/x/s";
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int cols = sizes[i][0], lines = sizes[i][1];
		assert_int_equal(top_frame_render(&m, &view, cols, lines, &f), 0);
		assert_int_equal(f.cols, cols);
		assert_int_equal(f.lines, lines);
		for (int y = 0; y < lines; y++)
			assert_int_equal(strlen(top_frame_line(&f, y)), cols);
		if (cols >= 8 && lines < 4)
			assert_non_null(strstr(top_frame_line(&f, 0), "terminal"));
		top_frame_fini(&f);
		view.error = "cannot connect";
		assert_int_equal(top_frame_render(NULL, &view, cols, lines, &f), 0);
		top_frame_fini(&f);
		view.error = NULL;
	}
	top_model_fini(&m);
}

TEST_MAIN({
	cmocka_unit_test(test_layout_80x24),
	cmocka_unit_test(test_layout_60x20),
	cmocka_unit_test(test_layout_40x10),
	cmocka_unit_test(test_degrades_in_order),
	cmocka_unit_test(test_bar_markers),
	cmocka_unit_test(test_bar_without_capacity),
	cmocka_unit_test(test_frame_text),
	cmocka_unit_test(test_frame_unknowns),
	cmocka_unit_test(test_more_rows_than_lines),
	cmocka_unit_test(test_domain_rows),
	cmocka_unit_test(test_no_data),
	cmocka_unit_test(test_tiny_terminals),
})
