/* list and metrics written as text are byte for byte what jansson writes for the same snapshot: over
 * snapshots made at random (a fixed seed) with names holding quotes, backslashes, control characters,
 * non-ASCII and broken UTF-8, and reals of every kind (whole, fractional, tiny, huge, negative zero,
 * NaN, infinite); and the JSON text writer alone against jansson's dump of the same values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/ctl/json_text.h"
#include "core/engine/engine_snapshot.h"

#define ROUNDS	  200
#define MAX_ROWS  12
#define MAX_DOMS  3
#define TEXT_POOL 64

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	/* xorshift64*: the same sequence on every run, so a failure can be replayed. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static unsigned pick(unsigned n)
{
	return (unsigned)(rng() % n);
}

static const char *const pieces[] = {
	"web",
	"db",
	"a\"b",
	"back\\slash",
	"tab\there",
	"nl\nx",
	"\x01\x1f",
	"\b\f\r",
	"del\x7f",
	"caf\xc3\xa9",
	"\xe4\xb8\xad\xe6\x96\x87",
	"\xf0\x9f\x98\x80",
	"/slash/",
	"'",
	"<&>",
	" ",
	"",
	"%s{}[]:,",
};
/* Not UTF-8: a lone continuation, a truncated sequence, an overlong form, a surrogate. */
static const char *const broken[] = { "\x80", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xff" };

static char texts[TEXT_POOL][64];
static unsigned texts_used;

/* A string of a few pieces; one in `broken_one_in` holds a byte that is not UTF-8. */
static const char *random_text(unsigned broken_one_in)
{
	char *t = texts[texts_used++ % TEXT_POOL];
	unsigned n = 1 + pick(3);

	t[0] = '\0';
	for (unsigned i = 0; i < n; i++)
		strncat(t, pieces[pick(sizeof(pieces) / sizeof(pieces[0]))], 63 - strlen(t));
	if (broken_one_in && pick(broken_one_in) == 0)
		strncat(t, broken[pick(sizeof(broken) / sizeof(broken[0]))], 63 - strlen(t));
	return t;
}

static const char *random_text_or_null(unsigned broken_one_in)
{
	return pick(3) == 0 ? NULL : random_text(broken_one_in);
}

static double random_real(void)
{
	static const double special[] = { 0.0,
					  -0.0,
					  1.0,
					  100.0,
					  34.375,
					  1e-7,
					  1e21,
					  1e15,
					  -1e15,
					  5e-324,
					  1.7976931348623157e308,
					  0.1,
					  2.5e-5,
					  123456789012345678.0 };

	switch (pick(8)) {
	case 0:
		return special[pick(sizeof(special) / sizeof(special[0]))];
	case 1:
		return pick(50) == 0 ? (pick(2) ? NAN : INFINITY * (pick(2) ? 1 : -1)) : (double)pick(101);
	case 2:
		return (double)pick(1000) / 8.0;
	default: {
		double v = (double)(rng() >> 11) / (double)(1ull << 53) * pow(10, (int)pick(24) - 10);
		return pick(4) ? v : -v;
	}
	}
}

static void random_domain(struct domain_status *ds)
{
	*ds = (struct domain_status){
		.valid = pick(4) != 0,
		.estimated = pick(3) == 0,
		.mbps = random_real(),
		.reason = random_text_or_null(0),
		.mb_max = random_real(),
		.mb_min = random_real(),
		.mb_max_mbps = pick(3) ? random_real() : 0,
		.mb_max_asked = random_real(),
		.truth_mbps = random_real(),
	};
}

static void random_row(struct snapshot_row *row, size_t slot, struct domain_status *domains, unsigned domain_count,
		       struct placement_status *place)
{
	struct partition_status *st = &row->status;

	*row = (struct snapshot_row){ .slot = (uint32_t)slot };
	st->name = random_text(40);
	st->open = pick(5) != 0;
	st->valid = pick(4) != 0;
	st->estimated = pick(3) == 0;
	st->mbps = random_real();
	st->mb_max = random_real();
	st->mb_min = random_real();
	st->reason = random_text_or_null(60);
	st->ipc_valid = pick(2);
	st->ipc = random_real();
	st->stall_valid = pick(2);
	st->stall_ratio = random_real();
	st->pmu_reason = random_text_or_null(30);
	st->in_class = pick(2);
	st->class_id = (unsigned)pick(16);
	st->mb_max_asked = random_real();
	row->class_of = (uint8_t)pick(3); /* enum partition_class */
	row->target_mbps = pick(2) ? (uint32_t)rng() : 0;
	row->guarantee_mbps = pick(2) ? (uint32_t)rng() : 0;
	row->weight = (unsigned)rng();
	row->state = (uint8_t)pick(3); /* enum snapshot_state */
	row->error = random_text_or_null(60);
	row->retry_known = pick(2);
	row->retry_in_s = random_real();
	row->attempts = (unsigned)rng();
	row->origin = random_text_or_null(60);
	row->invalid_samples = rng();
	for (unsigned d = 0; d < domain_count; d++)
		random_domain(&domains[d]);
	if (pick(2)) {
		*place = (struct placement_status){ .tasks = (size_t)rng(), .placements = rng(), .misses = rng() };
		row->placement = place;
	}
}

struct fixture {
	struct engine_snapshot s;
	struct snapshot_row rows[MAX_ROWS];
	struct domain_status domains[MAX_ROWS * MAX_DOMS]; /* domain_count a row (snapshot_row_domains) */
	struct placement_status places[MAX_ROWS];
	struct event_log events;
};

static void random_snapshot(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->s.row_count = pick(MAX_ROWS + 1);
	f->s.domain_count = pick(MAX_DOMS + 1);
	for (unsigned d = 0; d < f->s.domain_count; d++)
		f->s.domains[d] = (struct snapshot_domain){ .name = random_text(50), .what = "an MSC" };
	for (size_t i = 0; i < f->s.row_count; i++)
		random_row(&f->rows[i], i * 3 + pick(3), &f->domains[i * f->s.domain_count], f->s.domain_count,
			   &f->places[i]);
	f->s.rows = f->rows;
	f->s.row_domains = f->domains;
	f->s.events = &f->events;
	f->s.version = "1.0";
	f->s.backend = "sim";
	f->s.interval_ms = 100;
}

/* jansson's compact dump of `json`, or NULL when there is no value (json_pack failed). */
static char *jansson_text(json_t *json)
{
	char *text = json ? json_dumps(json, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	json_decref(json);
	return text;
}

static void assert_same_text(const char *expected, const struct json_text *t, size_t round)
{
	if (strcmp(expected, t->data))
		fail_msg("round %zu:\njansson: %s\ntext:    %s", round, expected, t->data);
	assert_int_equal(strlen(expected), t->len);
}

static void test_list_equals_jansson(void **state)
{
	static struct fixture f;

	(void)state;
	for (size_t round = 0; round < ROUNDS; round++) {
		random_snapshot(&f);
		struct json_text t = { 0 };
		char *expected = jansson_text(snapshot_list_json(&f.s));
		assert_non_null(expected);
		assert_true(snapshot_list_text(&f.s, &t));
		assert_same_text(expected, &t, round);
		free(expected);
		json_text_fini(&t);
	}
}

/* Rows whose values jansson cannot make are left out of both: the random inputs make some. */
static void test_list_leaves_out_what_jansson_does(void **state)
{
	static struct fixture f;

	(void)state;
	random_snapshot(&f);
	f.s.row_count = 3;
	f.s.domain_count = 2;
	f.s.domains[0].name = "d0";
	f.s.domains[1].name = "d1";
	for (size_t i = 0; i < 3; i++)
		random_row(&f.rows[i], i, &f.domains[i * 2], 2, &f.places[i]);
	f.rows[0].status.open = true;
	f.rows[0].status.valid = false;
	f.rows[0].status.reason = NULL;
	f.rows[0].status.pmu_reason = NULL;
	f.rows[0].error = f.rows[0].origin = NULL;
	f.rows[0].retry_known = false;
	f.rows[0].status.mb_max = f.rows[0].status.mb_min = 10;
	f.rows[0].status.stall_valid = false;
	f.domains[0] = (struct domain_status){ .valid = false };
	f.rows[0].status.name = "ok";
	f.rows[1].status.name = "bad\xff";
	f.rows[2].status.name = "nan";
	f.rows[2].status.valid = true;
	f.rows[2].status.mbps = NAN;
	f.rows[0].status.ipc_valid = true;
	f.rows[0].status.ipc = INFINITY; /* only "ipc" goes */
	f.domains[1].valid = true;
	f.domains[1].mbps = NAN; /* only that domain row goes */
	struct json_text t = { 0 };
	char *expected = jansson_text(snapshot_list_json(&f.s));
	assert_true(snapshot_list_text(&f.s, &t));
	assert_same_text(expected, &t, 0);
	assert_non_null(strstr(t.data, "\"name\":\"ok\""));
	assert_null(strstr(t.data, "bad"));
	assert_null(strstr(t.data, "\"nan\""));
	assert_null(strstr(t.data, "\"ipc\""));
	assert_non_null(strstr(t.data, "\"stall_ratio\""));
	free(expected);
	json_text_fini(&t);
}

/* classes = shared: each domain row carries the ceiling asked for there (a whole percent as an integer,
 * a rung as its fraction) where the partition is in a class, null where it is not or not open; one
 * that cannot be written (NaN) leaves only that member out. */
static void test_domain_rows_carry_asked(void **state)
{
	static struct fixture f;
	static const char *const want[] = {
		"\"domains\":[{\"domain\":\"d0\",\"mbps\":100.0,\"state\":\"measured\",\"mb_max\":40,\"mb_min\":0,"
		"\"mb_max_mbps\":null,\"mb_max_asked\":45},{\"domain\":\"d1\",\"mbps\":100.0,\"state\":\"measured\","
		"\"mb_max\":40,\"mb_min\":0,\"mb_max_mbps\":null,\"mb_max_asked\":34.375}]",
		"\"domains\":[{\"domain\":\"d0\",\"mbps\":100.0,\"state\":\"measured\",\"mb_max\":40,\"mb_min\":0,"
		"\"mb_max_mbps\":null,\"mb_max_asked\":null},{\"domain\":\"d1\",\"mbps\":100.0,\"state\":\"measured\","
		"\"mb_max\":40,\"mb_min\":0,\"mb_max_mbps\":null,\"mb_max_asked\":null}]",
		"\"domains\":[{\"domain\":\"d0\",\"mbps\":100.0,\"state\":\"measured\",\"mb_max\":null,"
		"\"mb_min\":null,\"mb_max_mbps\":null,\"mb_max_asked\":null},{\"domain\":\"d1\",\"mbps\":100.0,"
		"\"state\":\"measured\",\"mb_max\":null,\"mb_min\":null,\"mb_max_mbps\":null,\"mb_max_asked\":null}]",
		"\"domains\":[{\"domain\":\"d0\",\"mbps\":100.0,\"state\":\"measured\",\"mb_max\":40,\"mb_min\":0,"
		"\"mb_max_mbps\":null},{\"domain\":\"d1\",\"mbps\":100.0,\"state\":\"measured\",\"mb_max\":40,"
		"\"mb_min\":0,\"mb_max_mbps\":null,\"mb_max_asked\":50}]",
	};
	static const char *const names[] = { "in", "own", "failed", "nan" };

	(void)state;
	memset(&f, 0, sizeof(f));
	f.s.row_count = 4;
	f.s.domain_count = 2;
	f.s.domains[0].name = "d0";
	f.s.domains[1].name = "d1";
	for (size_t i = 0; i < 4; i++) {
		struct partition_status *st = &f.rows[i].status;
		f.rows[i].slot = (uint32_t)i;
		*st = (struct partition_status){ .name = names[i], .open = i != 2, .in_class = i != 1, .mb_max = 40 };
		for (unsigned d = 0; d < 2; d++)
			f.domains[i * 2 + d] = (struct domain_status){ .valid = true, .mbps = 100, .mb_max = 40 };
	}
	f.domains[0].mb_max_asked = 45;
	f.domains[1].mb_max_asked = 34.375;
	f.domains[2].mb_max_asked = f.domains[3].mb_max_asked = 45; /* no class: null all the same */
	f.domains[4].mb_max_asked = f.domains[5].mb_max_asked = 45; /* not open: no limit, none asked */
	f.domains[6].mb_max_asked = NAN;
	f.domains[7].mb_max_asked = 50;
	f.s.rows = f.rows;
	f.s.row_domains = f.domains;
	f.s.events = &f.events;
	struct json_text t = { 0 };
	char *expected = jansson_text(snapshot_list_json(&f.s));
	assert_true(snapshot_list_text(&f.s, &t));
	assert_same_text(expected, &t, 0);
	for (size_t i = 0; i < 4; i++)
		if (!strstr(t.data, want[i]))
			fail_msg("partition %s: the list lacks %s:\n%s", names[i], want[i], t.data);
	free(expected);
	json_text_fini(&t);
	/* show's rows (with detail) carry it as list's do */
	json_t *detail = snapshot_domain_rows_json(&f.s, &f.rows[0], true);
	assert_true(json_number_value(json_object_get(json_array_get(detail, 1), "mb_max_asked")) == 34.375);
	json_decref(detail);
	detail = snapshot_domain_rows_json(&f.s, &f.rows[1], true);
	assert_true(json_is_null(json_object_get(json_array_get(detail, 0), "mb_max_asked")));
	json_decref(detail);
}

static void test_metrics_equals_jansson(void **state)
{
	static struct fixture f;
	size_t compared = 0;

	(void)state;
	for (size_t round = 0; round < ROUNDS / 4; round++) {
		random_snapshot(&f);
		struct json_text t = { 0 };
		char *expected = jansson_text(engine_metrics_reply(&f.s));
		bool ok = engine_metrics_reply_text(&f.s, &t);
		/* Not UTF-8 in a label: jansson makes no reply, and neither does the text. */
		assert_int_equal(ok, expected != NULL);
		if (ok) {
			assert_same_text(expected, &t, round);
			compared++;
		}
		free(expected);
		json_text_fini(&t);
	}
	assert_true(compared > ROUNDS / 8);
}

/* What the writer wrote into `t` (`wrote`: whether it took the value) for what jansson makes of
 * `value` (NULL: jansson refuses it too). */
static void assert_value(json_t *value, bool wrote, struct json_text *t, size_t round)
{
	char *expected = jansson_text(value);

	assert_int_equal(wrote, expected != NULL);
	if (expected)
		assert_same_text(expected, t, round);
	free(expected);
	json_text_fini(t);
}

/* The writer alone: each value as jansson dumps it. */
static void test_values_equal_jansson(void **state)
{
	(void)state;
	for (size_t round = 0; round < 2000; round++) {
		struct json_text t = { 0 };
		double v = random_real();
		const char *s = random_text(5);
		long long i = (long long)rng();

		assert_value(json_real(v), json_text_real(&t, v), &t, round);
		assert_value(json_string(s), json_text_string(&t, s), &t, round);
		json_text_int(&t, i);
		assert_value(json_integer(i), true, &t, round);
	}
}

/* Reals where the writer's own digits meet printf's: around each power of ten, across the range it
 * writes itself (1e-4 to 1e16) and beyond, and doubles of random bits. */
static void test_reals_equal_jansson(void **state)
{
	struct json_text t = { 0 };
	size_t round = 0;

	(void)state;
	for (int x = -6; x <= 18; x++) {
		double p = pow(10, x), v = p;
		for (int step = 0; step < 40; step++, v = nextafter(v, 0))
			assert_value(json_real(v), json_text_real(&t, v), &t, round++);
		v = p;
		for (int step = 0; step < 40; step++, v = nextafter(v, INFINITY))
			assert_value(json_real(-v), json_text_real(&t, -v), &t, round++);
		for (int k = 0; k < 2000; k++) {
			/* Values of few digits (rates, percents) and of all 17. */
			double few = (double)pick(100000) / pow(10, pick(6)) * p;
			double many = (double)(rng() >> 11) / (double)(1ull << 53) * p * 10;
			assert_value(json_real(few), json_text_real(&t, few), &t, round++);
			assert_value(json_real(many), json_text_real(&t, many), &t, round++);
		}
	}
	/* Ties at the 17th digit (16 integer digits and a quarter): printf rounds them to even. */
	for (int k = 0; k < 4000; k++) {
		double v = (double)(1000000000000000ull + rng() % 1000000000000000ull) + (k % 4) * 0.25;
		assert_value(json_real(v), json_text_real(&t, v), &t, round++);
	}
	for (int k = 0; k < 100000; k++) {
		uint64_t bits = rng();
		double v;
		memcpy(&v, &bits, sizeof(v));
		assert_value(json_real(v), json_text_real(&t, v), &t, round++);
	}
}

static void test_edges(void **state)
{
	struct json_text t = { 0 };

	(void)state;
	json_text_int(&t, INT64_MIN);
	assert_string_equal(t.data, "-9223372036854775808");
	json_text_rewind(&t, 0);
	assert_true(json_text_real(&t, 1e21));
	assert_string_equal(t.data, "1e21");
	json_text_rewind(&t, 0);
	assert_true(json_text_real(&t, 2.5e-5));
	assert_string_equal(t.data, "2.5000000000000001e-5");
	json_text_rewind(&t, 0);
	assert_true(json_text_pct(&t, 50.0));
	assert_string_equal(t.data, "50");
	json_text_rewind(&t, 0);
	assert_true(json_text_string(&t, "\x01\"\\\n\xc3\xa9"));
	assert_string_equal(t.data, "\"\\u0001\\\"\\\\\\n\xc3\xa9\"");
	json_text_rewind(&t, 0);
	assert_false(json_text_string(&t, "a\xc3"));
	assert_int_equal(t.len, 0);
	assert_false(json_text_real(&t, NAN));
	assert_int_equal(t.len, 0);
	json_text_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_equals_jansson),
		cmocka_unit_test(test_list_leaves_out_what_jansson_does),
		cmocka_unit_test(test_domain_rows_carry_asked),
		cmocka_unit_test(test_metrics_equals_jansson),
		cmocka_unit_test(test_values_equal_jansson),
		cmocka_unit_test(test_reals_equal_jansson),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
