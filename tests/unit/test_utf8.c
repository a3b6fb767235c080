/* UTF-8 scrubbing: what jansson refuses is replaced, what it accepts is left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/base/utf8.h"

/* The oracle: jansson makes a string exactly when the bytes are well-formed UTF-8. */
static int jansson_accepts(const char *s)
{
	json_t *v = json_string(s);
	int ok = v != NULL;

	json_decref(v);
	return ok;
}

static void test_well_formed_untouched(void **state)
{
	const char *texts[] = { "plain ascii",
				"caf\xc3\xa9",
				"\xe2\x82\xac 5",
				"\xf0\x9f\x98\x80",
				"\xed\x9f\xbf",
				"\xf4\x8f\xbf\xbf",
				"" };

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%s", texts[i]);
		assert_true(jansson_accepts(buf));
		assert_int_equal(utf8_scrub(buf), 0);
		assert_string_equal(buf, texts[i]);
	}
}

static void test_ill_formed_replaced(void **state)
{
	static const struct {
		const char *in, *out;
		size_t replaced;
	} cases[] = {
		{ "cut \xc3", "cut ?", 1 },		  /* a character cut in half at the end */
		{ "cut \xe2\x82", "cut ??", 2 },	  /* two bytes of three */
		{ "\xff\xfe ok", "?? ok", 2 },		  /* never UTF-8 */
		{ "\x80x", "?x", 1 },			  /* a lone continuation */
		{ "\xc0\xaf", "??", 2 },		  /* overlong '/' */
		{ "\xe0\x80\xaf", "???", 3 },		  /* overlong, three bytes */
		{ "\xed\xa0\x80", "???", 3 },		  /* a surrogate */
		{ "\xf4\x90\x80\x80", "????", 4 },	  /* above U+10FFFF */
		{ "a\xc3(b\xc3\xa9", "a?(b\xc3\xa9", 1 }, /* a broken one before a good one */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		assert_false(jansson_accepts(buf));
		assert_int_equal(utf8_scrub(buf), cases[i].replaced);
		assert_string_equal(buf, cases[i].out);
		assert_true(jansson_accepts(buf));
	}
}

/* Every two-byte string: the scrubbed text is one jansson takes, and the validator agrees with
 * jansson wherever it leaves a string alone. */
static void test_agrees_with_jansson_on_all_pairs(void **state)
{
	(void)state;
	for (unsigned a = 1; a < 256; a++) {
		for (unsigned b = 1; b < 256; b++) {
			char buf[3] = { (char)a, (char)b, 0 };
			int accepted = jansson_accepts(buf);
			size_t replaced = utf8_scrub(buf);
			assert_int_equal(replaced == 0, accepted);
			assert_true(jansson_accepts(buf));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_well_formed_untouched),
		cmocka_unit_test(test_ill_formed_replaced),
		cmocka_unit_test(test_agrees_with_jansson_on_all_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
