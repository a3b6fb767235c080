/* Parsers for resctrl's file formats (Documentation/filesystems/resctrl.rst; fs/resctrl's show functions). Pure:
 * text in, values out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/resctrl/resctrl.h"
#include "core/base/parse.h"

static bool is_bitmap_resource(const char *name)
{
	return !strncmp(name, "L3", 2) || !strncmp(name, "L2", 2);
}

/* Strips blanks (and a newline) around a token in place. */
static char *trim(char *s)
{
	s += strspn(s, " \t");
	size_t len = strlen(s);
	while (len && strchr(" \t\n", s[len - 1]))
		s[--len] = '\0';
	return s;
}

/* "id=val;id=val" after the colon. */
static int parse_domains(char *text, bool hex, struct schemata_line *line, struct err *err)
{
	for (char *save = NULL, *item = strtok_r(text, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(item, '=');
		struct err perr;
		uint64_t id, value;
		if (!eq)
			return err_set(err, -EINVAL, "schemata %s: '%s' is not id=value", line->resource, trim(item));
		*eq = '\0';
		char *key = trim(item), *val = trim(eq + 1);
		if (parse_uint(key, 0, 0xffff, &id, &perr) < 0 ||
		    (hex ? parse_hex(val, 0, UINT64_MAX, &value, &perr)
			 : parse_uint(val, 0, UINT64_MAX, &value, &perr)) < 0)
			return err_set(err, -EINVAL, "schemata %s: '%s=%s': %s", line->resource, key, val, perr.text);
		if (line->count >= RESCTRL_MAX_DOMAINS)
			return err_set(err, -E2BIG, "schemata %s: more than %d domains", line->resource,
				       RESCTRL_MAX_DOMAINS);
		line->domains[line->count++] = (struct schemata_domain){ (unsigned)id, value };
	}
	return 0;
}

int resctrl_parse_schemata(const char *text, struct schemata *ret, struct err *err)
{
	char *copy = strdup(text);
	struct schemata s = { 0 };
	int r = 0;

	if (!copy)
		return err_set(err, -ENOMEM, "out of memory");
	for (char *save = NULL, *ln = strtok_r(copy, "\n", &save); ln && r == 0; ln = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(ln, ':');
		if (!colon) {
			r = err_set(err, -EINVAL, "schemata line '%s' has no ':'", ln);
			break;
		}
		*colon = '\0';
		char *name = ln + strspn(ln, " ");
		size_t nlen = strcspn(name, " ");
		name[nlen] = '\0';
		if (s.count >= sizeof(s.lines) / sizeof(s.lines[0]) || nlen == 0 || nlen >= RESCTRL_NAME_MAX) {
			r = err_set(err, -EINVAL, "schemata resource '%s' unexpected", name);
			break;
		}
		struct schemata_line *line = &s.lines[s.count++];
		snprintf(line->resource, sizeof(line->resource), "%s", name);
		r = parse_domains(colon + 1, is_bitmap_resource(name), line, err);
	}
	free(copy);
	if (r == 0)
		*ret = s;
	return r;
}

const struct schemata_line *schemata_find(const struct schemata *s, const char *resource)
{
	for (unsigned i = 0; i < s->count; i++)
		if (!strcmp(s->lines[i].resource, resource))
			return &s->lines[i];
	return NULL;
}

bool schemata_value(const struct schemata_line *line, unsigned id, uint64_t *ret)
{
	for (unsigned i = 0; line && i < line->count; i++) {
		if (line->domains[i].id == id) {
			*ret = line->domains[i].value;
			return true;
		}
	}
	return false;
}

int resctrl_parse_id_values(const char *text, struct schemata_domain *ret, unsigned max, unsigned *ret_count)
{
	struct schemata_line line = { .resource = "ids" };
	char copy[RESCTRL_TEXT_MAX];
	int r;

	snprintf(copy, sizeof(copy), "%s", text);
	copy[strcspn(copy, "\n")] = '\0';
	if ((r = parse_domains(copy, false, &line, NULL)) < 0)
		return r;
	unsigned n = line.count < max ? line.count : max;
	memcpy(ret, line.domains, n * sizeof(*ret));
	*ret_count = n;
	return 0;
}

/* What rdtgroup_mondata_show (fs/resctrl/ctrlmondata.c) writes for a read that failed, each with its
 * newline: the kernel's -EIO, -EINVAL, and -ENOENT (mbm_event mode, no counter assigned). */
static const struct counter_state {
	const char *word, *reason;
	int err;
} counter_states[] = {
	{ "Error", "resctrl reports a counter Error", -ENODATA },
	{ "Unavailable", "resctrl reports the counter Unavailable", -ENODATA },
	{ "Unassigned", "no counter assigned to this group (mbm_event mode)", -ENOENT },
};

/* "%llu": 1 to 20 digits and nothing else, read once per counter per tick, so one pass, no copy and no
 * generic parser. The value may wrap on the way: a count of more than 20 digits is refused, and one of
 * 20 is compared with 2^64 - 1's as text (same length, so in order). */
static int parse_count(const char *text, size_t len, uint64_t *ret, const char **reason)
{
	static const char max[] = "18446744073709551615";
	size_t digits = 0;
	uint64_t value = 0;

	for (unsigned digit; digits < len && (digit = (unsigned)(text[digits] - '0')) < 10; digits++)
		value = value * 10 + digit;
	if (digits < len) {
		*reason = "counter file holds something after its number";
		return -EINVAL;
	}
	if (digits > sizeof(max) - 1) {
		*reason = "counter file holds more than 20 digits (no 64-bit count has)";
		return -ERANGE;
	}
	if (digits == sizeof(max) - 1 && memcmp(text, max, digits) > 0) {
		*reason = "counter file holds a number above 2^64 - 1";
		return -ERANGE;
	}
	*ret = value;
	return 0;
}

int resctrl_parse_counter(const char *text, size_t len, uint64_t *ret, const char **reason)
{
	if (len && text[len - 1] == '\n')
		len--;
	if (len == 0) {
		*reason = "counter file is empty";
		return -EINVAL;
	}
	if (text[0] >= '0' && text[0] <= '9')
		return parse_count(text, len, ret, reason);
	/* A state is the rare case, a failed read: its words may be measured each time. */
	for (size_t i = 0; i < sizeof(counter_states) / sizeof(counter_states[0]); i++) {
		const struct counter_state *s = &counter_states[i];
		if (len == strlen(s->word) && !memcmp(text, s->word, len)) {
			*reason = s->reason;
			return s->err;
		}
	}
	*reason = "counter file holds neither a number nor a state resctrl writes (Unavailable, Unassigned, Error)";
	return -EINVAL;
}

int resctrl_parse_assign_mode(const char *text, char *active, size_t len)
{
	const char *open = strchr(text, '[');
	const char *close = open ? strchr(open, ']') : NULL;

	if (!open || !close || close == open + 1)
		return -EINVAL;
	snprintf(active, len, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}
