/* JSON written straight into text, for the large replies (list, metrics) that would otherwise be
 * built as jansson values and then dumped: the same bytes as json_dump_callback(JSON_COMPACT) writes
 * for the same document (the protocol's encoding, proto.c), in one pass and without a value per
 * member. What jansson does, done the same way: strings are checked as UTF-8 and escaped ('"', '\\',
 * \b \f \n \r \t, other control characters as \u00XX in upper-case hex, everything else as it is);
 * reals are "%.17g" with ".0" added when the text has neither '.' nor 'e', and the exponent without
 * '+' or leading zeros; integers are "%lld". A string jansson refuses (not UTF-8) and a real it
 * cannot make (NaN, infinite) are refused here too: the writer returns false and the caller decides,
 * as jansson's callers do, what the failed value takes with it. */
#ifndef MPAMD_CORE_CTL_JSON_TEXT_H
#define MPAMD_CORE_CTL_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_text {
	char *data; /* NUL-terminated while not failed */
	size_t len, cap;
	bool failed; /* out of memory: the text is incomplete */
};

void json_text_fini(struct json_text *t);

/* Raw bytes and literals (punctuation, keys known to need no escaping). */
void json_text_raw(struct json_text *t, const char *s, size_t n);
void json_text_lit(struct json_text *t, const char *s);

/* `s` (`n` bytes, or up to its NUL) as a JSON string; false, and nothing written, when it is not
 * well-formed UTF-8. */
bool json_text_string_n(struct json_text *t, const char *s, size_t n);
bool json_text_string(struct json_text *t, const char *s);
/* A string, or null for NULL. */
bool json_text_string_or_null(struct json_text *t, const char *s);

void json_text_int(struct json_text *t, long long v);
void json_text_bool(struct json_text *t, bool v);
void json_text_null(struct json_text *t);
/* false, and nothing written, for NaN and infinities (json_real returns NULL for them). */
bool json_text_real(struct json_text *t, double v);
/* A percent as json_pct (core/report/json_pct.h) makes it: an integer when whole, else a real. */
bool json_text_pct(struct json_text *t, double pct);

/* The text from `mark` on is dropped: a value that failed half-way is left out. */
static inline void json_text_rewind(struct json_text *t, size_t mark)
{
	if (mark < t->len) {
		t->len = mark;
		if (t->data)
			t->data[mark] = '\0';
	}
}

#endif
