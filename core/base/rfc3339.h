/* Wall-clock times as RFC 3339 text, for the record file's time column and the tools that read it:
 * UTC with milliseconds, 2026-12-03T10:15:42.123Z. Pure arithmetic on the proleptic Gregorian
 * calendar: no time zone database, no locale, no clock (the caller has the time). */
#ifndef MPAMD_CORE_RFC3339_H
#define MPAMD_CORE_RFC3339_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

/* Characters of a formatted time, without the NUL. */
#define RFC3339_MS_LEN 24

/* Formats milliseconds since the Unix epoch as YYYY-MM-DDTHH:MM:SS.mmmZ into buf (at least
 * RFC3339_MS_LEN + 1 bytes). False, with buf empty, for a year outside 0000..9999 or a short buf. */
bool rfc3339_format_ms(int64_t unix_ms, char *buf, size_t len);

/* Parses YYYY-MM-DDTHH:MM:SS[.fraction] followed by Z or +HH:MM / -HH:MM (RFC 3339 section 5.6;
 * T and Z may be lower case) into milliseconds since the Unix epoch; digits of the fraction after
 * the third are dropped. A leap second (:60) counts as the next second's start. -EINVAL and the
 * reason (never the text itself) for anything else, an impossible date included. */
int rfc3339_parse_ms(const char *s, int64_t *ret, struct err *err);

#endif
