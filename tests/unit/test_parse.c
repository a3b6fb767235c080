/* Strict value parsers and the "did you mean" suggester. */
#include <errno.h>
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/parse.h"
#include "core/base/suggest.h"
#include "tests/util/test_main.h"

static void test_parse_uint_accepts(void **state)
{
	struct err e;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(parse_uint("0", 0, 10, &v, &e), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_uint("0x1F", 0, 100, &v, &e), 0);
	assert_int_equal(v, 31);
	assert_int_equal(parse_uint("18446744073709551615", 0, UINT64_MAX, &v, &e), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_uint("010", 0, 100, &v, &e), 0); /* decimal, never octal */
	assert_int_equal(v, 10);
}

static void test_parse_uint_rejects(void **state)
{
	static const struct {
		const char *text;
		int error;
		const char *words;
	} cases[] = {
		{ "", -EINVAL, "expected a number" },
		{ "12abc", -EINVAL, "unexpected character 'a'" },
		{ "-1", -EINVAL, "negative" },
		{ "+1", -EINVAL, "unexpected character '+'" },
		{ "1.5", -EINVAL, "fraction" },
		{ " 1", -EINVAL, "unexpected character ' '" },
		{ "0x", -EINVAL, "expected a number" },
		{ "0xZZ", -EINVAL, "hexadecimal" },
		{ "18446744073709551616", -ERANGE, "too large" },
		{ "0x10000000000000000", -ERANGE, "too large" },
		{ "11", -ERANGE, "out of range 1..10" },
		{ "0", -ERANGE, "out of range 1..10" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err e = { "" };
		uint64_t v = 77;
		assert_int_equal(parse_uint(cases[i].text, 1, 10, &v, &e), cases[i].error);
		assert_int_equal(v, 77); /* untouched on failure */
		if (!strstr(e.text, cases[i].words))
			fail_msg("'%s': message '%s' lacks '%s'", cases[i].text, e.text, cases[i].words);
	}
}

static void test_parse_hex(void **state)
{
	struct err e;
	uint64_t v;

	(void)state;
	assert_int_equal(parse_hex("ff0", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 0xff0);
	assert_int_equal(parse_hex("0XFF0", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 0xff0);
	assert_int_equal(parse_hex("fg", 0, UINT64_MAX, &v, &e), -EINVAL);
	assert_int_equal(parse_hex("10", 0, 0xf, &v, &e), -ERANGE);
	assert_non_null(strstr(e.text, "0x0..0xf"));
}

static void test_parse_percent(void **state)
{
	struct err e;
	unsigned v;

	(void)state;
	assert_int_equal(parse_percent("50", 1, 100, &v, &e), 0);
	assert_int_equal(v, 50);
	assert_int_equal(parse_percent("100%", 1, 100, &v, &e), 0);
	assert_int_equal(v, 100);
	assert_int_equal(parse_percent("101", 1, 100, &v, &e), -ERANGE);
	assert_int_equal(parse_percent("50%%", 1, 100, &v, &e), -EINVAL);
	assert_int_equal(parse_percent("%", 1, 100, &v, &e), -EINVAL);
	assert_int_equal(parse_percent("0", 1, 100, &v, &e), -ERANGE);
}

static void test_parse_decimal(void **state)
{
	static const char *const bad[] = { "", ".", "-0.5", "+1", "1e3", "0x1", "inf", "nan", "1.2.3", " 1", "1 " };
	struct err e;
	double v = -1;

	(void)state;
	assert_int_equal(parse_decimal("0.25", 0, 1, &v, &e), 0);
	assert_true(v == 0.25);
	assert_int_equal(parse_decimal(".5", 0, 1, &v, &e), 0);
	assert_true(v == 0.5);
	assert_int_equal(parse_decimal("3.", 0, 4, &v, &e), 0);
	assert_true(v == 3);
	assert_int_equal(parse_decimal("1.01", 0, 1, &v, &e), -ERANGE);
	assert_string_equal(e.text, "out of range 0..1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (parse_decimal(bad[i], 0, 1e9, &v, &e) != -EINVAL || v != 7)
			fail_msg("'%s' was accepted (or changed the value)", bad[i]);
	}
}

/* What programs write: an exponent too, a digit first; nothing strtod would stretch or shrink. */
static void test_parse_real(void **state)
{
	static const char *const bad[] = { "",	 ".5", "-0.5", "+1",  "0x1", "inf", "nan",   "1.2.3",
					   " 1", "1 ", "1e",   "1e+", "1-2", "e3",  "1e999", "1e-400" };
	struct err e;
	double v = -1;

	(void)state;
	assert_int_equal(parse_real("1234.5", 0, DBL_MAX, &v, &e), 0);
	assert_true(v == 1234.5);
	assert_int_equal(parse_real("2e3", 0, DBL_MAX, &v, &e), 0);
	assert_true(v == 2000);
	assert_int_equal(parse_real("1.5e-3", 0, DBL_MAX, &v, &e), 0);
	assert_true(v == 1.5e-3);
	assert_int_equal(parse_real("3.", 0, DBL_MAX, &v, &e), 0);
	assert_true(v == 3);
	assert_int_equal(parse_real("100.5", 0, 100, &v, &e), -ERANGE);
	assert_string_equal(e.text, "out of range 0..100");
	assert_int_equal(parse_real("-1", 0, 100, &v, &e), -EINVAL);
	assert_string_equal(e.text, "must not be negative");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (parse_real(bad[i], 0, DBL_MAX, &v, &e) >= 0 || v != 7)
			fail_msg("'%s' was accepted (or changed the value)", bad[i]);
	}
}

static void test_parse_uint_decimal(void **state)
{
	struct err e;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(parse_uint_decimal("18446744073709551615", 0, UINT64_MAX, &v, &e), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_uint_decimal("18446744073709551616", 0, UINT64_MAX, &v, &e), -ERANGE);
	assert_int_equal(parse_uint_decimal("0x10", 0, UINT64_MAX, &v, &e), -EINVAL); /* parse_uint takes it */
	assert_int_equal(parse_uint_decimal("1.5", 0, UINT64_MAX, &v, &e), -EINVAL);
	assert_int_equal(parse_uint_decimal("", 0, UINT64_MAX, &v, &e), -EINVAL);
	assert_int_equal(parse_uint_decimal("7", 0, 5, &v, &e), -ERANGE);
	assert_true(v == UINT64_MAX);
}

static void test_parse_size(void **state)
{
	struct err e;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(parse_size("4096", 0, UINT64_MAX, &v, &e), 0);
	assert_true(v == 4096);
	assert_int_equal(parse_size("3K", 0, UINT64_MAX, &v, &e), 0);
	assert_true(v == 3 * 1024);
	assert_int_equal(parse_size("5m", 0, UINT64_MAX, &v, &e), 0);
	assert_true(v == 5ull * 1024 * 1024);
	assert_int_equal(parse_size("7G", 0, UINT64_MAX, &v, &e), 0);
	assert_true(v == 7ull << 30);
	assert_int_equal(parse_size("17179869183G", 0, UINT64_MAX, &v, &e), 0); /* the largest that fits */
	assert_true(v == 17179869183ull << 30);
	v = 1;
	assert_int_equal(parse_size("17179869184G", 0, UINT64_MAX, &v, &e), -ERANGE);
	assert_int_equal(parse_size("2K", 0, 1024, &v, &e), -ERANGE);
	assert_int_equal(parse_size("1T", 0, UINT64_MAX, &v, &e), -EINVAL);
	assert_int_equal(parse_size("K", 0, UINT64_MAX, &v, &e), -EINVAL);
	assert_int_equal(parse_size("1KB", 0, UINT64_MAX, &v, &e), -EINVAL);
	assert_int_equal(parse_size("0x10K", 0, UINT64_MAX, &v, &e), -EINVAL);
	assert_int_equal(parse_size("", 0, UINT64_MAX, &v, &e), -EINVAL);
	assert_true(v == 1); /* refused values leave it alone */
}

static void test_parse_bool_and_enum(void **state)
{
	static const char *const names[] = { "alpha", "beta", NULL };
	struct err e;
	bool b;
	unsigned i;

	(void)state;
	assert_int_equal(parse_bool("Yes", &b, &e), 0);
	assert_true(b);
	assert_int_equal(parse_bool("off", &b, &e), 0);
	assert_false(b);
	assert_int_equal(parse_bool("maybe", &b, &e), -EINVAL);
	assert_int_equal(parse_enum("beta", names, &i, &e), 0);
	assert_int_equal(i, 1);
	assert_int_equal(parse_enum("Beta", names, &i, &e), -EINVAL);
	assert_non_null(strstr(e.text, "alpha | beta"));
}

static void test_parse_uint_list(void **state)
{
	struct err e;
	uint64_t *v;
	size_t n;

	(void)state;
	assert_int_equal(parse_uint_list("1, 2 3,4", 1, 10, &v, &n, &e), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[3], 4);
	free(v);
	assert_int_equal(parse_uint_list(" , ", 1, 10, &v, &n, &e), -EINVAL);
	assert_int_equal(parse_uint_list("1, x", 1, 10, &v, &n, &e), -EINVAL);
	assert_non_null(strstr(e.text, "item 2 'x'"));
	assert_int_equal(parse_uint_list("1 0", 1, 10, &v, &n, &e), -ERANGE);
}

static void test_cpu_list(void **state)
{
	uint64_t bits[2];
	unsigned count;
	struct err e;

	(void)state;
	assert_int_equal(parse_cpu_list("0-3,8,70-71,2", 128, bits, &count, &e), 0);
	assert_int_equal(count, 7); /* 2 is listed twice but counted once */
	assert_true(bits[0] == 0x10f);
	assert_true(bits[1] == 0xc0);
	assert_int_equal(parse_cpu_list("128", 128, bits, &count, &e), -ERANGE);
	assert_int_equal(parse_cpu_list("1,,2", 128, bits, &count, &e), -EINVAL);
	assert_int_equal(parse_cpu_list("3-", 128, bits, &count, &e), -EINVAL);
	assert_int_equal(parse_cpu_list("", 128, bits, &count, &e), -EINVAL);
	assert_int_equal(parse_cpu_list("1 - 2", 128, bits, &count, &e), -EINVAL);
}

static void test_names(void **state)
{
	struct err e;
	char long_name[70];

	(void)state;
	assert_int_equal(name_check("vm-1.web_A", &e), 0);
	assert_int_equal(name_check("", &e), -EINVAL);
	assert_int_equal(name_check(".", &e), -EINVAL);
	assert_int_equal(name_check("..", &e), -EINVAL);
	assert_int_equal(name_check("...", &e), 0);
	assert_int_equal(name_check("a b", &e), -EINVAL);
	assert_int_equal(name_check("a/b", &e), -EINVAL);
	memset(long_name, 'x', 64);
	long_name[64] = '\0';
	assert_int_equal(name_check(long_name, &e), 0);
	long_name[64] = 'x';
	long_name[65] = '\0';
	assert_int_equal(name_check(long_name, &e), -EINVAL);
}

static void test_suggest(void **state)
{
	static const char *const keys[] = { "mb_min", "mb_max", "target_mbps", "guarantee_mbps", "class" };

	(void)state;
	assert_int_equal(suggest_distance("mb_mx", "mb_max"), 1);
	assert_int_equal(suggest_distance("calss", "class"), 1); /* a swap is one edit */
	assert_string_equal(suggest_nearest("mb_mx", keys, 5), "mb_max");
	assert_string_equal(suggest_nearest("gaurantee_mbps", keys, 5), "guarantee_mbps");
	assert_string_equal(suggest_nearest("target", keys, 5), "target_mbps");
	assert_null(suggest_nearest("colour", keys, 5));
	assert_null(suggest_nearest("x", keys, 5));
}

/* Partition names: every plausible one, nearest first, a case difference as one edit. */
static void test_suggest_names(void **state)
{
	static const char *const names[] = { "vm-web-1", "vm-web-2", "vm-cache", "batch", "WebFront" };
	const char *got[3];

	(void)state;
	assert_int_equal(suggest_near("vm-web-3", names, 5, got, 3), 2);
	assert_string_equal(got[0], "vm-web-1");
	assert_string_equal(got[1], "vm-web-2");
	assert_int_equal(suggest_near("vm-cach", names, 5, got, 3), 1);
	assert_string_equal(got[0], "vm-cache");
	/* nearest first: "vm-web-10" is one edit from vm-web-1, two from vm-web-2 */
	assert_int_equal(suggest_near("vm-web-10", names, 5, got, 3), 2);
	assert_string_equal(got[0], "vm-web-1");
	assert_string_equal(got[1], "vm-web-2");
	assert_int_equal(suggest_near("VM-CACHE", names, 5, got, 3), 1);
	assert_string_equal(got[0], "vm-cache");
	assert_int_equal(suggest_near("webfront", names, 5, got, 3), 1);
	assert_string_equal(got[0], "WebFront");
	assert_int_equal(suggest_near("batch2", names, 5, got, 3), 1);
	/* at most `max`, and nothing for a word unlike any */
	assert_int_equal(suggest_near("vm-web-3", names, 5, got, 1), 1);
	assert_string_equal(got[0], "vm-web-1");
	assert_int_equal(suggest_near("database", names, 5, got, 3), 0);
}

TEST_MAIN({
	cmocka_unit_test(test_parse_uint_accepts),
	cmocka_unit_test(test_parse_uint_rejects),
	cmocka_unit_test(test_parse_hex),
	cmocka_unit_test(test_parse_percent),
	cmocka_unit_test(test_parse_decimal),
	cmocka_unit_test(test_parse_real),
	cmocka_unit_test(test_parse_uint_decimal),
	cmocka_unit_test(test_parse_size),
	cmocka_unit_test(test_parse_bool_and_enum),
	cmocka_unit_test(test_parse_uint_list),
	cmocka_unit_test(test_names),
	cmocka_unit_test(test_cpu_list),
	cmocka_unit_test(test_suggest),
	cmocka_unit_test(test_suggest_names),
})
