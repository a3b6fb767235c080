/* mpamctl top's model: the daemon's status and list replies as rows, their states, the sort orders,
 * and replies with missing or mistyped fields, which give unknowns rather than zeros or a crash. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/top_model.h"
#include "tests/util/test_main.h"

/* A partition as core/engine/engine_ctl.c's partition_summary sends it. */
static json_t *partition(const char *name, const char *class_name, double mbps, bool open, bool valid, bool estimated)
{
	return json_pack("{s:s,s:s,s:b,s:i,s:i,s:o,s:b,s:b,s:n,s:n,s:i,s:o}", "name", name, "class", class_name, "open",
			 open, "mb_max", 100, "mb_min", 0, "mbps", valid ? json_real(mbps) : json_null(), "valid",
			 valid, "estimated", estimated, "target_mbps", "guarantee_mbps", "weight", 100, "reason",
			 valid && open ? json_null() : json_string("no sample: counter not ready"));
}

static json_t *status_reply(void)
{
	return json_pack("{s:s,s:i,s:i,s:i,s:f,s:b,s:[{s:i,s:s,s:s,s:s},{s:i,s:s,s:s,s:s},{s:i,s:s,s:s,s:s}]}",
			 "backend", "sim", "interval_ms", 100, "ticks", 42, "overruns", 1, "capacity_mbps", 20000.0,
			 "capacity_learned", false, "events", "tick", 1, "partition", "web", "action", "guarantee",
			 "reason", "mb_min 0% -> 30%", "tick", 2, "partition", "tenant", "action", "throttle", "reason",
			 "mb_max 100% -> 13%", "tick", 3, "partition", "web", "action", "release", "reason", "");
}

static json_t *list_reply(json_t *parts)
{
	return json_pack("{s:o}", "partitions", parts);
}

static void build(json_t *status, json_t *list, struct top_model *m)
{
	struct err err = { { 0 } };

	assert_int_equal(top_model_build(status, list, m, &err), 0);
	json_decref(status);
	json_decref(list);
}

static const struct top_row *row_named(const struct top_model *m, const char *name)
{
	for (size_t i = 0; i < m->count; i++)
		if (m->rows[i].name && !strcmp(m->rows[i].name, name))
			return &m->rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static void test_rows_from_replies(void **state)
{
	struct top_model m;

	(void)state;
	build(status_reply(),
	      list_reply(json_pack("[o,o]", partition("web", "latency-critical", 3000.5, true, true, false),
				   partition("tenant", "default", 2500, true, true, true))),
	      &m);
	assert_int_equal(m.count, 2);
	assert_string_equal(m.status.backend, "sim");
	assert_true(m.status.ticks == 42 && m.status.overruns == 1 && m.status.interval_ms == 100);
	assert_true(m.status.capacity_mbps == 20000 && !m.status.capacity_learned);
	const struct top_row *web = row_named(&m, "web");
	assert_string_equal(web->class_name, "latency-critical");
	assert_true(web->mbps == 3000.5 && web->mb_max == 100 && web->mb_min == 0);
	assert_true(isnan(web->target_mbps) && isnan(web->guarantee_mbps)); /* null: not set */
	/* The newest of web's two events, an empty reason without a dangling ": ". */
	assert_string_equal(web->event, "release");
	assert_string_equal(row_named(&m, "tenant")->event, "throttle: mb_max 100% -> 13%");
	assert_false(m.domains_sent);
	top_model_fini(&m);
}

static void test_states(void **state)
{
	struct top_model m;
	char buf[32];

	(void)state;
	build(status_reply(),
	      list_reply(json_pack("[o,o,o,o]", partition("a", "default", 10, true, true, false),
				   partition("b", "default", 10, true, true, true),
				   partition("c", "default", 10, true, false, false),
				   partition("d", "default", 10, false, false, false))),
	      &m);
	assert_int_equal(row_named(&m, "a")->state, TOP_STATE_MEASURED);
	assert_int_equal(row_named(&m, "b")->state, TOP_STATE_ESTIMATED);
	assert_int_equal(row_named(&m, "c")->state, TOP_STATE_INVALID);
	assert_int_equal(row_named(&m, "d")->state, TOP_STATE_FAILED);
	assert_string_equal(row_named(&m, "c")->reason, "no sample: counter not ready");
	assert_true(isnan(row_named(&m, "c")->mbps));
	assert_string_equal(top_state_name(TOP_STATE_ESTIMATED), "estimated");
	assert_string_equal(top_state_name(TOP_STATE_FAILED), "failed");
	assert_string_equal(top_state_name(TOP_STATE_UNKNOWN), "-");
	top_format_mbps(row_named(&m, "b")->mbps, true, buf, sizeof(buf));
	assert_string_equal(buf, "10.0~");
	top_format_mbps(row_named(&m, "c")->mbps, false, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	top_model_fini(&m);
}

/* A reply from another mpamd, or a broken one: every field wrong or missing. */
static void test_wrong_types_are_unknown(void **state)
{
	struct top_model m;
	char buf[32];

	(void)state;
	json_t *odd = json_pack("{s:i,s:i,s:s,s:s,s:s,s:s,s:s,s:i,s:i}", "name", 7, "class", 3, "mbps", "fast", "valid",
				"yes", "mb_max", "lots", "open", "sure", "estimated", "no", "reason", 5, "domains", 9);
	json_t *status = json_pack("{s:i,s:s,s:s,s:s,s:i}", "backend", 1, "ticks", "many", "capacity_mbps", "big",
				   "events", "none", "overruns", -1);
	build(status,
	      list_reply(json_pack("[o,s,n,{s:s,s:b,s:f,s:b}]", odd, "not an object", "name", "x", "valid", true,
				   "mbps", 5.0, "open", true)),
	      &m);
	assert_int_equal(m.count, 4);
	const struct top_row *r = &m.rows[0];
	assert_null(r->name);
	assert_null(r->class_name);
	assert_null(r->reason);
	assert_true(isnan(r->mbps) && isnan(r->mb_max) && isnan(r->mb_min));
	assert_int_equal(r->state, TOP_STATE_UNKNOWN);
	assert_int_equal(r->domain_count, 0);
	top_format_limits(r->mb_max, r->mb_min, buf, sizeof(buf));
	assert_string_equal(buf, "-/-");
	for (size_t i = 1; i < 3; i++) {
		assert_null(m.rows[i].name);
		assert_int_equal(m.rows[i].state, TOP_STATE_UNKNOWN);
	}
	/* A partition that has only some fields: those it has count. */
	assert_string_equal(m.rows[3].name, "x");
	assert_true(m.rows[3].mbps == 5.0);
	assert_int_equal(m.rows[3].state, TOP_STATE_MEASURED);
	assert_null(m.status.backend);
	assert_true(isnan(m.status.ticks) && isnan(m.status.capacity_mbps) && isnan(m.status.interval_ms));
	assert_true(m.status.overruns == -1);
	top_model_fini(&m);
}

static void test_no_partitions_array(void **state)
{
	struct top_model m;
	struct err err = { { 0 } };
	json_t *bad = json_pack("{s:s}", "partitions", "three");

	(void)state;
	assert_int_equal(top_model_build(NULL, bad, &m, &err), -EPROTO);
	assert_non_null(strstr(err.text, "partitions"));
	top_model_fini(&m); /* empty, and safe */
	assert_int_equal(top_model_build(NULL, NULL, &m, &err), -EPROTO);
	json_decref(bad);
}

/* Names that would move the cursor or are not ASCII are drawn as '?'. */
static void test_unprintable_names(void **state)
{
	struct top_model m;

	(void)state;
	build(json_object(), list_reply(json_pack("[{s:s}]", "name", "a\033[2Jb\xc3\xa9")), &m);
	assert_string_equal(m.rows[0].name, "a?[2Jb??");
	top_model_fini(&m);
}

static void test_domains(void **state)
{
	struct top_model m;

	(void)state;
	json_t *p = partition("web", "default", 10, true, true, false);
	json_object_set_new(p, "domains",
			    json_pack("[{s:s,s:f,s:i,s:i},{s:i,s:s}]", "domain", "0", "mbps", 6.0, "mb_max", 50,
				      "mb_min", 10, "domain", 1, "mbps", "x"));
	build(status_reply(), list_reply(json_pack("[o]", p)), &m);
	assert_true(m.domains_sent);
	assert_int_equal(m.rows[0].domain_count, 2);
	assert_string_equal(m.rows[0].domains[0].id, "0");
	assert_true(m.rows[0].domains[0].mbps == 6 && m.rows[0].domains[0].mb_max == 50);
	assert_string_equal(m.rows[0].domains[1].id, "1");
	assert_true(isnan(m.rows[0].domains[1].mbps) && isnan(m.rows[0].domains[1].mb_min));
	top_model_fini(&m);
}

/* ---- sorting ---- */

static const char *const sort_names[] = { "web", "batch", "tenant", "idle", "zeta", "alpha" };
static const char *const sort_classes[] = { "latency-critical", "best-effort", "default",
					    "best-effort",	"batchy",      "default" };
static const double sort_rates[] = { 3000, 14000, 2500, NAN, 2500, 700 };
#define SORT_COUNT (sizeof(sort_names) / sizeof(sort_names[0]))

static void sort_model(struct top_model *m)
{
	json_t *parts = json_array();

	for (size_t i = 0; i < SORT_COUNT; i++)
		json_array_append_new(parts, partition(sort_names[i], sort_classes[i], sort_rates[i], true,
						       !isnan(sort_rates[i]), false));
	build(status_reply(), list_reply(parts), m);
}

static int class_rank(const char *c)
{
	return !strcmp(c, "latency-critical") ? 0 : !strcmp(c, "default") ? 1 : !strcmp(c, "best-effort") ? 2 : 3;
}

static void test_sort_by_name(void **state)
{
	struct top_model m;

	(void)state;
	sort_model(&m);
	top_model_sort(&m, TOP_SORT_NAME, false);
	for (size_t i = 1; i < m.count; i++)
		assert_true(strcmp(m.rows[i - 1].name, m.rows[i].name) < 0);
	top_model_sort(&m, TOP_SORT_NAME, true);
	for (size_t i = 1; i < m.count; i++)
		assert_true(strcmp(m.rows[i - 1].name, m.rows[i].name) > 0);
	top_model_fini(&m);
}

static void test_sort_by_bandwidth(void **state)
{
	struct top_model m;

	(void)state;
	sort_model(&m);
	for (int reverse = 0; reverse <= 1; reverse++) {
		top_model_sort(&m, TOP_SORT_BANDWIDTH, reverse);
		/* The unmeasured partition is last both ways. */
		assert_string_equal(m.rows[m.count - 1].name, "idle");
		for (size_t i = 1; i + 1 < m.count; i++) {
			double a = m.rows[i - 1].mbps, b = m.rows[i].mbps;
			assert_true(reverse ? a <= b : a >= b);
			if (a == b) /* equal rates go by name */
				assert_true(strcmp(m.rows[i - 1].name, m.rows[i].name) < 0);
		}
	}
	top_model_fini(&m);
}

static void test_sort_by_class(void **state)
{
	struct top_model m;

	(void)state;
	sort_model(&m);
	top_model_sort(&m, TOP_SORT_CLASS, false);
	assert_string_equal(m.rows[0].class_name, "latency-critical");
	for (size_t i = 1; i < m.count; i++) {
		int a = class_rank(m.rows[i - 1].class_name), b = class_rank(m.rows[i].class_name);
		assert_true(a <= b);
		if (a == b)
			assert_true(strcmp(m.rows[i - 1].name, m.rows[i].name) < 0);
	}
	top_model_sort(&m, TOP_SORT_CLASS, true);
	for (size_t i = 1; i < m.count; i++)
		assert_true(class_rank(m.rows[i - 1].class_name) >= class_rank(m.rows[i].class_name));
	assert_string_equal(top_sort_name(TOP_SORT_BANDWIDTH), "bandwidth");
	top_model_fini(&m);
}

/* Rows without a name or class stay at the end whatever the order. */
static void test_sort_unknowns_last(void **state)
{
	struct top_model m;

	(void)state;
	build(status_reply(),
	      list_reply(json_pack("[{s:i},{s:s,s:s},{s:s}]", "name", 1, "name", "b", "class", "default", "name", "a")),
	      &m);
	for (int key = 0; key < TOP_SORT_COUNT; key++) {
		for (int reverse = 0; reverse <= 1; reverse++) {
			top_model_sort(&m, (enum top_sort)key, reverse);
			assert_null(m.rows[m.count - 1].name);
		}
	}
	top_model_sort(&m, TOP_SORT_CLASS, true);
	assert_string_equal(m.rows[0].name, "b"); /* the one with a class */
	top_model_fini(&m);
}

TEST_MAIN({
	cmocka_unit_test(test_rows_from_replies),
	cmocka_unit_test(test_states),
	cmocka_unit_test(test_wrong_types_are_unknown),
	cmocka_unit_test(test_no_partitions_array),
	cmocka_unit_test(test_unprintable_names),
	cmocka_unit_test(test_domains),
	cmocka_unit_test(test_sort_by_name),
	cmocka_unit_test(test_sort_by_bandwidth),
	cmocka_unit_test(test_sort_by_class),
	cmocka_unit_test(test_sort_unknowns_last),
})
