/* Well-formed UTF-8 for text that goes into JSON: a message cut at a byte limit can end in half a
 * character, and JSON encoders (jansson) refuse such a string outright. */
#ifndef MPAMD_CORE_UTF8_H
#define MPAMD_CORE_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s[0..len) (1 to 4), or 0 when it is not one (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF; the rules jansson checks). */
size_t utf8_sequence_len(const unsigned char *s, size_t len);

/* Replaces, in place, every byte of the NUL-terminated `s` that is not part of a well-formed
 * sequence with '?'. Returns how many bytes it replaced. */
size_t utf8_scrub(char *s);

/* A copy of `s` (malloc'ed; NULL when out of memory) that is well-formed UTF-8: each byte that is not
 * part of a well-formed sequence is written as the four characters \xHH (upper-case hex), everything
 * else is kept, so the text loses nothing (a literal "\xHH" in it reads the same, the one ambiguity).
 * For text that goes into JSON from files and paths: "\xFF" says what byte stood there, where '?'
 * (utf8_scrub) would not. */
char *utf8_escape(const char *s);

#endif
