/* See emu_cpumask.h. The parsers follow lib/bitmap-str.c step by step, quirks included (e.g. a
 * non-hex character right before a full 8-digit chunk is skipped, as the kernel does). */
#include "emu_cpumask.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#define WORDS (EMU_CPU_BITS / 64)

void emu_cpumask_zero(struct emu_cpumask *m)
{
	memset(m, 0, sizeof(*m));
}

void emu_cpumask_fill(struct emu_cpumask *m, unsigned ncpus)
{
	emu_cpumask_zero(m);
	for (unsigned cpu = 0; cpu < ncpus && cpu < EMU_CPU_BITS; cpu++)
		emu_cpumask_set(m, cpu);
}

void emu_cpumask_set(struct emu_cpumask *m, unsigned cpu)
{
	if (cpu < EMU_CPU_BITS)
		m->w[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

bool emu_cpumask_test(const struct emu_cpumask *m, unsigned cpu)
{
	return cpu < EMU_CPU_BITS && (m->w[cpu / 64] >> (cpu % 64)) & 1;
}

bool emu_cpumask_empty(const struct emu_cpumask *m)
{
	for (unsigned i = 0; i < WORDS; i++)
		if (m->w[i])
			return false;
	return true;
}

void emu_cpumask_or(struct emu_cpumask *dst, const struct emu_cpumask *a, const struct emu_cpumask *b)
{
	for (unsigned i = 0; i < WORDS; i++)
		dst->w[i] = a->w[i] | b->w[i];
}

void emu_cpumask_and(struct emu_cpumask *dst, const struct emu_cpumask *a, const struct emu_cpumask *b)
{
	for (unsigned i = 0; i < WORDS; i++)
		dst->w[i] = a->w[i] & b->w[i];
}

void emu_cpumask_andnot(struct emu_cpumask *dst, const struct emu_cpumask *a, const struct emu_cpumask *b)
{
	for (unsigned i = 0; i < WORDS; i++)
		dst->w[i] = a->w[i] & ~b->w[i];
}

static bool region_end(char c)
{
	return isspace((unsigned char)c) || c == ',';
}

static int hex_value(char c)
{
	return isxdigit((unsigned char)c) ? (isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10)
					  : -1;
}

/* bitmap_get_x32_reverse(): one chunk of at most 8 hex digits read backwards from text[*i]. */
static int get_x32_reverse(const char *text, long *i, uint32_t *num)
{
	uint32_t val = 0;

	for (unsigned shift = 0; shift < 32; shift += 4) {
		int c = hex_value(text[(*i)--]);
		if (c < 0)
			return -EINVAL;
		val |= (uint32_t)c << shift;
		if (*i < 0 || region_end(text[*i])) {
			*num = val;
			return 0;
		}
	}
	if (hex_value(text[(*i)--]) >= 0)
		return -EOVERFLOW;
	*num = val;
	return 0;
}

int emu_cpumask_parse(const char *text, unsigned nbits, struct emu_cpumask *m)
{
	long i = (long)strcspn(text, "\n") - 1;
	unsigned chunk = 0;

	emu_cpumask_zero(m);
	for (;;) {
		while (i >= 0 && region_end(text[i]))
			i--;
		if (i < 0)
			break;
		if (chunk == (nbits + 31) / 32)
			return -EOVERFLOW;
		uint32_t val;
		int r = get_x32_reverse(text, &i, &val);
		if (r)
			return r;
		m->w[chunk / 2] |= (uint64_t)val << (32 * (chunk % 2));
		chunk++;
	}
	/* A bit past the last CPU in the chunks given. */
	for (unsigned bit = nbits; bit < chunk * 32; bit++)
		if (emu_cpumask_test(m, bit))
			return -EOVERFLOW;
	return 0;
}

struct region {
	unsigned start, end, off, group_len;
};

static bool str_end(char c)
{
	return c == '\0' || c == '\n';
}

/* bitmap_getnum(): a decimal number, or N for the last CPU. */
static const char *get_num(const char *s, unsigned *num, unsigned last, int *err)
{
	unsigned long long n;
	bool overflow;

	if (s[0] == 'N') {
		*num = last;
		return s + 1;
	}
	size_t len = emu_parse_integer(s, 10, &n, &overflow);
	if (!len)
		*err = -EINVAL;
	else if (overflow || n > UINT32_MAX)
		*err = -EOVERFLOW;
	*num = (unsigned)n;
	return s + len;
}

/* bitmap_parse_region(): START[-END[:USED/GROUP]] or all[:USED/GROUP]. */
static const char *parse_region(const char *s, struct region *r, unsigned last, int *err)
{
	bool ranged = false;

	if (strncasecmp(s, "all", 3) == 0) {
		r->start = 0;
		r->end = last;
		s += 3;
		ranged = true;
	} else {
		s = get_num(s, &r->start, last, err);
		r->end = r->start;
		if (!*err && !region_end(*s) && !str_end(*s)) {
			if (*s != '-')
				*err = -EINVAL;
			else
				s = get_num(s + 1, &r->end, last, err);
			ranged = true;
		}
	}
	r->off = r->group_len = r->end + 1;
	if (*err || !ranged || region_end(*s) || str_end(*s))
		return s;
	if (*s != ':') {
		*err = -EINVAL;
		return s;
	}
	s = get_num(s + 1, &r->off, last, err);
	if (*err)
		return s;
	if (*s != '/') {
		*err = -EINVAL;
		return s;
	}
	return get_num(s + 1, &r->group_len, last, err);
}

static int check_region(const struct region *r, unsigned nbits)
{
	if (r->start > r->end || r->group_len == 0 || r->off > r->group_len)
		return -EINVAL;
	return r->end >= nbits ? -ERANGE : 0;
}

static void set_region(const struct region *r, struct emu_cpumask *m)
{
	for (unsigned long start = r->start; start <= r->end; start += r->group_len)
		for (unsigned long cpu = start; cpu <= r->end && cpu < start + r->off; cpu++)
			emu_cpumask_set(m, (unsigned)cpu);
}

int emu_cpulist_parse(const char *text, unsigned nbits, struct emu_cpumask *m)
{
	const char *s = text;

	emu_cpumask_zero(m);
	for (;;) {
		while (region_end(*s))
			s++;
		if (str_end(*s))
			return 0;
		struct region r;
		int err = 0;
		s = parse_region(s, &r, nbits - 1, &err);
		if (!err)
			err = check_region(&r, nbits);
		if (err)
			return err;
		set_region(&r, m);
	}
}

static uint32_t chunk32(const struct emu_cpumask *m, unsigned bit)
{
	return (uint32_t)(m->w[bit / 64] >> (bit % 64));
}

/* bitmap_string(): 32-bit chunks, most significant first; the first is as wide as its bits need. */
void emu_cpumask_print(const struct emu_cpumask *m, unsigned nbits, struct emu_buf *out)
{
	unsigned chunks = (nbits + 31) / 32;
	unsigned width = nbits - (chunks - 1) * 32; /* bits in the top chunk, 1..32 */

	for (unsigned c = chunks; c-- > 0;) {
		uint32_t mask = width == 32 ? UINT32_MAX : (UINT32_C(1) << width) - 1;
		emu_buf_printf(out, "%s%0*x", c == chunks - 1 ? "" : ",", (int)((width + 3) / 4),
			       chunk32(m, c * 32) & mask);
		width = 32;
	}
	emu_buf_putc(out, '\n');
}

void emu_cpulist_print(const struct emu_cpumask *m, unsigned nbits, struct emu_buf *out)
{
	bool first = true;

	for (unsigned cpu = 0; cpu < nbits; cpu++) {
		if (!emu_cpumask_test(m, cpu))
			continue;
		unsigned last = cpu;
		while (last + 1 < nbits && emu_cpumask_test(m, last + 1))
			last++;
		if (last == cpu)
			emu_buf_printf(out, "%s%u", first ? "" : ",", cpu);
		else
			emu_buf_printf(out, "%s%u-%u", first ? "" : ",", cpu, last);
		first = false;
		cpu = last;
	}
	emu_buf_putc(out, '\n');
}
