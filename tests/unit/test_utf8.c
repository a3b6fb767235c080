/* UTF-8 scrubbing and escaping: what jansson refuses is replaced (or written as \\xHH), what it accepts is
 * left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/base/utf8.h"
#include "tests/util/test_main.h"

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

/* What utf8_escape wrote back to bytes: each \xHH followed by two hex digits is the byte. */
static size_t unescape(const char *in, char *out)
{
	size_t n = 0;

	for (const char *p = in; *p;) {
		unsigned byte;
		if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2X", &byte) == 1 && p[2] && p[3] &&
		    strchr("0123456789ABCDEF", p[2]) && strchr("0123456789ABCDEF", p[3])) {
			out[n++] = (char)byte;
			p += 4;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	return n;
}

/* Every byte alone: kept when jansson takes it, else \xHH. */
static void test_escape_every_byte(void **state)
{
	(void)state;
	for (unsigned b = 1; b < 256; b++) {
		char in[2] = { (char)b, 0 }, expect[8];
		char *out = utf8_escape(in);
		assert_non_null(out);
		if (jansson_accepts(in))
			snprintf(expect, sizeof(expect), "%s", in);
		else
			snprintf(expect, sizeof(expect), "\\x%02X", b);
		assert_string_equal(out, expect);
		assert_true(jansson_accepts(out));
		free(out);
	}
}

/* Every two-byte string: jansson takes the escaped text, which is the input itself when that was
 * well-formed, and gives the input back byte for byte. */
static void test_escape_all_pairs_round_trip(void **state)
{
	(void)state;
	for (unsigned a = 1; a < 256; a++) {
		for (unsigned b = 1; b < 256; b++) {
			char in[3] = { (char)a, (char)b, 0 }, back[16];
			char *out = utf8_escape(in);
			assert_non_null(out);
			assert_true(jansson_accepts(out));
			if (jansson_accepts(in))
				assert_string_equal(out, in);
			assert_int_equal(unescape(out, back), 2);
			assert_memory_equal(back, in, 2);
			free(out);
		}
	}
}

TEST_MAIN({
	cmocka_unit_test(test_well_formed_untouched),
	cmocka_unit_test(test_ill_formed_replaced),
	cmocka_unit_test(test_agrees_with_jansson_on_all_pairs),
	cmocka_unit_test(test_escape_every_byte),
	cmocka_unit_test(test_escape_all_pairs_round_trip),
})
