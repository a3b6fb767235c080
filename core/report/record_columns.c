#include "core/report/record_columns.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/base/decimal_text.h"
#include "core/base/parse.h"
#include "core/base/rfc3339.h"

/* Not required: what older files lack (time, domain) or a hand-made file may leave out. */
const struct record_column record_columns[RECORD_COL_COUNT] = {
	[RECORD_COL_TIME] = { "time", RECORD_WRITTEN_ALWAYS, false, RECORD_KIND_TIME, NULL },
	[RECORD_COL_T_MS] = { "t_ms", RECORD_WRITTEN_ALWAYS, true, RECORD_KIND_MS, NULL },
	[RECORD_COL_PARTITION] = { "partition", RECORD_WRITTEN_ALWAYS, true, RECORD_KIND_TEXT, NULL },
	[RECORD_COL_DOMAIN] = { "domain", RECORD_WRITTEN_ALWAYS, false, RECORD_KIND_TEXT,
				"the partition's total, like " RECORD_DOMAIN_TOTAL },
	[RECORD_COL_MBPS] = { "mbps", RECORD_WRITTEN_ALWAYS, true, RECORD_KIND_MBPS,
			      "not measured: the sample is not valid (never 0)" },
	[RECORD_COL_MB_MAX] = { "mb_max", RECORD_WRITTEN_ALWAYS, true, RECORD_KIND_PERCENT,
				"no limit in force (a failed partition): mb_min is empty too" },
	[RECORD_COL_MB_MIN] = { "mb_min", RECORD_WRITTEN_ALWAYS, true, RECORD_KIND_PERCENT,
				"no limit in force (a failed partition): mb_max is empty too" },
	[RECORD_COL_MB_MAX_MBPS] = { "mb_max_mbps", RECORD_WRITTEN_ALWAYS, false, RECORD_KIND_MBPS,
				     "not known: neither the hardware's units nor the domain's capacity say it" },
	/* classes = shared: the class the partition is in holds mb_max for it; mb_max_asked is what it
	 * asked (a domain row's: on that domain; the total row's: the highest of its domains'). */
	[RECORD_COL_HW_CLASS] = { "hw_class", RECORD_WRITTEN_WITH_CLASSES, false, RECORD_KIND_CLASS,
				  "in no class: the partition is not open (failed) or not placed yet" },
	[RECORD_COL_MB_MAX_ASKED] = { "mb_max_asked", RECORD_WRITTEN_WITH_CLASSES, false, RECORD_KIND_PERCENT,
				      "in no class: hw_class is empty too" },
	/* The goals are the partition's: the engine does not split them per domain (the guard's share of a
	 * guarantee on a domain is that domain's mb_min), but the kernel's mba_MBps controller holds
	 * target_mbps as every domain's ceiling. */
	[RECORD_COL_GUARANTEE_MBPS] = { "guarantee_mbps", RECORD_WRITTEN_ALWAYS, false, RECORD_KIND_MBPS,
					"none; a domain row's, always: the guarantee is the partition's total" },
	[RECORD_COL_TARGET_MBPS] = { "target_mbps", RECORD_WRITTEN_ALWAYS, false, RECORD_KIND_MBPS,
				     "none; a domain row's, but under the kernel's mba_MBps controller (where it is "
				     "every domain's ceiling): the target is the partition's total" },
	[RECORD_COL_VALID] = { "valid", RECORD_WRITTEN_ALWAYS, false, RECORD_KIND_FLAG, NULL },
	[RECORD_COL_ESTIMATED] = { "estimated", RECORD_WRITTEN_ALWAYS, false, RECORD_KIND_FLAG, NULL },
	[RECORD_COL_EVENT] = { "event", RECORD_WRITTEN_ALWAYS, false, RECORD_KIND_TEXT, "no event" },
	[RECORD_COL_SIM_MBPS] = { "sim_mbps", RECORD_WRITTEN_WITH_TRUTH, false, RECORD_KIND_MBPS, "not known" },
	[RECORD_COL_IPC] = { "ipc", RECORD_WRITTEN_WITH_IPC, false, RECORD_KIND_RATIO,
			     "not counted (never 0); a domain row's, always: IPC is the partition's" },
};

/* What a reader's message says a field of each kind should be. */
static const char *const kind_wants[] = {
	[RECORD_KIND_TIME] = "an RFC 3339 time such as 2026-12-03T10:15:42.123Z",
	[RECORD_KIND_MS] = "milliseconds, a whole number",
	[RECORD_KIND_TEXT] = "text",
	[RECORD_KIND_MBPS] = "MB/s, a number >= 0",
	[RECORD_KIND_PERCENT] = "a percentage 0..100",
	[RECORD_KIND_FLAG] = "0 or 1",
	[RECORD_KIND_RATIO] = "a number >= 0",
	[RECORD_KIND_CLASS] = "a class such as c3",
};

bool record_domain_is_total(const char *domain)
{
	return !*domain || !strcmp(domain, RECORD_DOMAIN_TOTAL);
}

/* snprintf's contract for the `n` bytes of `text`: a row has a dozen fields, and printf's own
 * machinery for each was most of what writing one cost. */
static size_t copy_out(const char *text, size_t n, char *buf, size_t len)
{
	if (len) {
		size_t fits = n < len ? n : len - 1;
		memcpy(buf, text, fits);
		buf[fits] = '\0';
	}
	return n;
}

static size_t format_uint(uint64_t v, char *buf, size_t len)
{
	char digits[20];
	size_t n = 0;

	do {
		digits[sizeof(digits) - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return copy_out(digits + sizeof(digits) - n, n, buf, len);
}

/* A whole number as "%.0f" writes it; anything else through it. */
static size_t format_whole(double v, char *buf, size_t len)
{
	if (v >= 0 && v <= 1e15 && v == (double)(uint64_t)v)
		return format_uint((uint64_t)v, buf, len);
	return (size_t)snprintf(buf, len, "%.0f", v);
}

/* v with `places` (1..3) decimals exactly as "%.*f" writes it, without printf's float path: v is
 * m * 2^-shift with m its 53-bit significand (read from its bits: frexp and ldexp were a tenth of a
 * row), so v * 10^places is m * 10^places (below 2^63) shifted right, rounded to nearest with ties to
 * even on the exact remainder, as glibc rounds. Negative numbers (and -0), infinities, NaN and
 * numbers from 2^53 on go through snprintf. */
static size_t format_fixed(double v, unsigned places, char *buf, size_t len)
{
	static const uint64_t scale[] = { 1, 10, 100, 1000 };
	uint64_t bits;

	if (places < 1 || places > 3 || !(v >= 0 && v < 0x1p53) || signbit(v))
		return (size_t)snprintf(buf, len, "%.*f", (int)places, v);
	memcpy(&bits, &v, sizeof(bits));
	int biased = (int)(bits >> 52 & 0x7ff); /* IEEE 754 binary64: v = 1.fraction * 2^(biased - 1023) */
	uint64_t m = bits & ((UINT64_C(1) << 52) - 1), q;
	if (biased)
		m |= UINT64_C(1) << 52;
	else
		biased = 1; /* subnormal: 0.fraction * 2^-1022 */
	uint64_t scaled = m * scale[places];
	int shift = 1075 - biased; /* v = m * 2^-shift; shift >= 0 since v < 2^53 */
	if (shift == 0) {
		q = scaled;
	} else if (shift >= 64) {
		q = 0; /* v * 10^places < 2^63 * 2^-64: below a half */
	} else {
		uint64_t rem = scaled & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
		q = scaled >> shift;
		q += rem > half || (rem == half && (q & 1));
	}
	char text[32];
	size_t n = format_uint(q / scale[places], text, sizeof(text));
	uint64_t frac = q % scale[places];
	text[n++] = '.';
	for (unsigned i = places; i-- > 0; frac /= 10)
		text[n + i] = (char)('0' + frac % 10);
	n += places;
	return copy_out(text, n, buf, len);
}

/* The length of `text` when it needs no quotes; else -1. One pass over the few bytes of a name (a
 * partition's, a domain's): strpbrk and then strlen for each were a twentieth of a row. */
static long plain_length(const char *text)
{
	const char *c = text;

	for (; *c; c++)
		if (*c == ',' || *c == '"' || *c == '\r' || *c == '\n')
			return -1;
	return c - text;
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled. */
static size_t format_text(const char *text, char *buf, size_t len)
{
	long plain = plain_length(text);

	if (plain >= 0)
		return copy_out(text, (size_t)plain, buf, len);
	size_t need = 2;
	for (const char *c = text; *c; c++)
		need += *c == '"' ? 2 : 1;
	if (need >= len)
		return copy_out("", 0, buf, len) + need;
	char *out = buf;
	*out++ = '"';
	for (const char *c = text; *c; c++) {
		*out++ = *c;
		if (*c == '"')
			*out++ = '"';
	}
	*out++ = '"';
	*out = '\0';
	return need;
}

/* A rung that is a multiple of 1/1024 of a percent up to 100% (a hardware ladder's: 0.390625 is
 * 100/256) as decimal_text writes it, without its rounds of printf and strtod: such a number is
 * exact in 10 decimals and at most 12 significant digits, so its shortest text that reads back is
 * its exact decimals without the trailing zeros, and %g writes it without an exponent. SIZE_MAX for
 * any other number. */
#define DYADIC_BITS 10
static size_t format_dyadic_percent(double v, char *buf, size_t len)
{
	double scaled = v * (1 << DYADIC_BITS); /* exact: a power of two */

	if (!(v > 0 && v <= 100) || scaled != floor(scaled))
		return SIZE_MAX;
	uint64_t n = (uint64_t)scaled, frac = (n & ((1u << DYADIC_BITS) - 1)) * 9765625; /* 10^10 / 2^10 */
	char text[32];
	size_t used = format_uint(n >> DYADIC_BITS, text, sizeof(text));
	if (frac) {
		text[used++] = '.';
		for (int i = 9; i >= 0; i--, frac /= 10)
			text[used + (size_t)i] = (char)('0' + frac % 10);
		used += 10;
		while (text[used - 1] == '0')
			used--;
	}
	return copy_out(text, used, buf, len);
}

static size_t format_class(unsigned class_id, char *buf, size_t len)
{
	char text[1 + 10 + 1] = "c"; /* c and an unsigned's digits */
	size_t n = 1 + format_uint(class_id, text + 1, sizeof(text) - 1);

	return copy_out(text, n, buf, len);
}

static size_t format_time(int64_t time_ms, char *buf, size_t len)
{
	char text[RFC3339_MS_LEN + 1];

	rfc3339_format_ms(time_ms, text, sizeof(text)); /* empty for a year it cannot write */
	return copy_out(text, strlen(text), buf, len);
}

size_t record_field_format(enum record_col col, const struct record_value *v, char *buf, size_t len)
{
	if (v->empty)
		return copy_out("", 0, buf, len);
	switch (record_columns[col].kind) {
	case RECORD_KIND_TIME:
		return format_time(v->time_ms, buf, len);
	case RECORD_KIND_MS:
		return format_uint(v->ms, buf, len);
	case RECORD_KIND_TEXT:
		return format_text(v->text, buf, len);
	case RECORD_KIND_MBPS:
		return format_fixed(v->number, 1, buf, len);
	case RECORD_KIND_PERCENT: { /* a rung: a whole percent, or a fraction written to read back exactly */
		if (v->number == floor(v->number))
			return format_whole(v->number, buf, len);
		size_t n = format_dyadic_percent(v->number, buf, len);
		if (n != SIZE_MAX)
			return n;
		char text[32]; /* 17 digits, a point and an exponent: snprintf's contract, not cut short */
		decimal_text(v->number, text, sizeof(text));
		return copy_out(text, strlen(text), buf, len);
	}
	case RECORD_KIND_FLAG:
		return copy_out(v->number != 0 ? "1" : "0", 1, buf, len);
	case RECORD_KIND_RATIO:
		return format_fixed(v->number, 3, buf, len);
	case RECORD_KIND_CLASS:
		return format_class(v->class_id, buf, len);
	}
	return copy_out("", 0, buf, len);
}

int record_field_refused(enum record_col col, const char *s, struct err *err)
{
	const struct record_column *c = &record_columns[col];

	if (c->kind == RECORD_KIND_TEXT && !*s)
		return err_set(err, -EINVAL, "empty %s name", c->name);
	return err_set(err, -EINVAL, "bad value in column %s: '%.40s'%s (want %s)", c->name, s,
		       strlen(s) > 40 ? "..." : "", kind_wants[c->kind]);
}

/* A field that is not empty: whether its column's kind takes it. */
static bool parse_value(enum record_kind kind, const char *s, struct record_value *v)
{
	switch (kind) {
	case RECORD_KIND_TIME:
		return rfc3339_parse_ms(s, &v->time_ms, NULL) == 0;
	case RECORD_KIND_MS:
		return parse_uint_decimal(s, 0, UINT64_MAX, &v->ms, NULL) == 0;
	case RECORD_KIND_TEXT:
		v->text = s;
		return true;
	case RECORD_KIND_MBPS:
	case RECORD_KIND_RATIO:
		return parse_real(s, 0, DBL_MAX, &v->number, NULL) == 0;
	case RECORD_KIND_PERCENT:
		return parse_real(s, 0, 100, &v->number, NULL) == 0;
	case RECORD_KIND_FLAG:
		v->number = s[0] == '1';
		return !strcmp(s, "0") || !strcmp(s, "1");
	case RECORD_KIND_CLASS: {
		uint64_t id;
		if (s[0] != 'c' || parse_uint_decimal(s + 1, 0, UINT_MAX, &id, NULL) < 0)
			return false;
		v->class_id = (unsigned)id;
		return true;
	}
	}
	return false;
}

int record_field_parse(enum record_col col, const char *s, struct record_value *ret, struct err *err)
{
	const struct record_column *c = &record_columns[col];

	*ret = (struct record_value){ .text = s };
	if (!*s && c->empty) {
		ret->empty = true;
		return 0;
	}
	if (!*s || !parse_value(c->kind, s, ret))
		return record_field_refused(col, s, err);
	return 0;
}

static int column_named(const char *name)
{
	for (int c = 0; c < RECORD_COL_COUNT; c++)
		if (!strcmp(record_columns[c].name, name))
			return c;
	return -1;
}

int record_layout_read(struct record_layout *l, const char *const *names, size_t count, unsigned also_required,
		       struct err *err)
{
	char missing[256] = "";

	l->fields = count;
	for (size_t c = 0; c < RECORD_COL_COUNT; c++)
		l->at[c] = -1;
	for (size_t i = 0; i < count; i++) {
		int c = column_named(names[i]);
		if (c < 0)
			continue;
		if (l->at[c] >= 0)
			return err_set(err, -EINVAL, "column '%s' appears twice", names[i]);
		l->at[c] = (int)i;
	}
	for (size_t c = 0; c < RECORD_COL_COUNT; c++) {
		bool required = record_columns[c].required || (also_required & RECORD_COL_BIT(c));
		if (required && l->at[c] < 0) {
			size_t used = strlen(missing);
			snprintf(missing + used, sizeof(missing) - used, "%s'%s'", used ? ", " : "",
				 record_columns[c].name);
		}
	}
	if (missing[0])
		return err_set(err, -EINVAL, "missing required column%s %s", strchr(missing, ',') ? "s" : "", missing);
	return 0;
}
