/* format/<term> files: which bits of config..config3 a term's value goes into, and putting it there. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/perf/perf_event.h"

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

/* "config", "config1".."config3" at p; stores the word index and the length. */
static int config_word(const char *p, unsigned *word, size_t *len)
{
	if (strncmp(p, "config", 6) != 0)
		return -1;
	if (p[6] >= '1' && p[6] <= '3') {
		*word = (unsigned)(p[6] - '0');
		*len = 7;
	} else {
		*word = 0;
		*len = 6;
	}
	if (isalnum((unsigned char)p[*len]))
		return -1; /* config4, configx */
	return 0;
}

static int read_bit(const char **pp, unsigned *ret)
{
	const char *p = *pp;
	unsigned v = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > 63)
			return -2;
		p++;
	}
	*pp = p;
	*ret = v;
	return 0;
}

int perf_format_parse(const char *text, struct perf_format *ret, struct err *err)
{
	struct perf_format f;
	const char *p = text;
	unsigned word = 0;
	bool have_word = false;

	memset(&f, 0, sizeof(f));
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		size_t len;
		if (config_word(p, &word, &len) == 0) {
			p += len;
			if (*p != ':')
				return err_set(err, -EINVAL, "expected ':' after the config word");
			p++;
			have_word = true;
		} else if (!have_word) {
			return err_set(err, -EINVAL, "expected config, config1, config2 or config3 at '%.20s'", p);
		}
		/* a comma list of bits and ranges */
		for (;;) {
			unsigned lo, hi;
			int r = read_bit(&p, &lo);
			if (r == -2)
				return err_set(err, -EINVAL, "bit number above 63");
			if (r < 0)
				return err_set(err, -EINVAL, "expected a bit number at '%.20s'", p);
			hi = lo;
			if (*p == '-') {
				p++;
				r = read_bit(&p, &hi);
				if (r == -2)
					return err_set(err, -EINVAL, "bit number above 63");
				if (r < 0)
					return err_set(err, -EINVAL, "expected a bit number at '%.20s'", p);
				if (hi < lo)
					return err_set(err, -EINVAL, "reversed bit range %u-%u", lo, hi);
			}
			for (unsigned b = lo; b <= hi; b++)
				f.mask[word] |= UINT64_C(1) << b;
			if (*p != ',')
				break;
			if (config_word(p + 1, &word, &len) == 0) {
				p++; /* "config:0-7,config1:0": the next item */
				break;
			}
			p++;
		}
		if (*p && !isspace((unsigned char)*p) && strncmp(p, "config", 6) != 0)
			return err_set(err, -EINVAL, "unexpected '%c' in the format", *p);
	}
	for (unsigned w = 0; w < PERF_CONFIG_WORDS; w++)
		f.width += (unsigned)popcount64(f.mask[w]);
	if (f.width == 0)
		return err_set(err, -EINVAL, "empty format: no bits");
	memcpy(ret->mask, f.mask, sizeof(f.mask));
	ret->width = f.width;
	return 0;
}

uint64_t perf_format_max(const struct perf_format *f)
{
	if (f->width >= 64)
		return UINT64_MAX;
	return (UINT64_C(1) << f->width) - 1;
}

int perf_format_place(const struct perf_format *f, uint64_t value, uint64_t config[PERF_CONFIG_WORDS])
{
	unsigned vbit = 0;

	if (value > perf_format_max(f))
		return -ERANGE;
	for (unsigned w = 0; w < PERF_CONFIG_WORDS; w++) {
		for (unsigned b = 0; b < 64; b++) {
			if (!(f->mask[w] >> b & 1))
				continue;
			if (vbit < 64 && (value >> vbit & 1))
				config[w] |= UINT64_C(1) << b;
			vbit++;
		}
	}
	return 0;
}

int perf_format_describe(const struct perf_format *f, char *buf, size_t size)
{
	static const char *const words[] = { "config", "config1", "config2", "config3" };
	size_t used = 0;
	bool first_item = true;

	if (size)
		buf[0] = '\0';
	for (unsigned w = 0; w < PERF_CONFIG_WORDS; w++) {
		uint64_t m = f->mask[w];
		bool first_range = true;
		if (!m)
			continue;
		for (unsigned b = 0; b < 64;) {
			if (!(m >> b & 1)) {
				b++;
				continue;
			}
			unsigned e = b;
			while (e + 1 < 64 && (m >> (e + 1) & 1))
				e++;
			int n;
			const char *sep = first_range ? (first_item ? "" : ",") : ",";
			char range[16];
			if (e == b)
				snprintf(range, sizeof(range), "%u", b);
			else
				snprintf(range, sizeof(range), "%u-%u", b, e);
			char *dst = used < size ? buf + used : NULL;
			size_t room = used < size ? size - used : 0;
			if (first_range)
				n = snprintf(dst, room, "%s%s:%s", sep, words[w], range);
			else
				n = snprintf(dst, room, "%s%s", sep, range);
			used += (size_t)n;
			first_range = false;
			first_item = false;
			b = e + 1;
		}
	}
	return (int)used;
}
