/* perf's event grammar: "pmu/term=value,term,alias/mods", generic hardware and software names,
 * raw "rNNN", and aliases of any PMU by their plain name, with the modifiers u, k and h. */
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/perf/perf_event.h"

#define MAX_TERMS 64

struct named_event {
	const char *name;
	uint64_t config;
};

static const struct named_event hardware_events[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct named_event software_events[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
	{ "bpf-output", 10 },
	{ "cgroup-switches", 11 },
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Terms perf knows without a format file that make sense for counting. */
static const char *const hardcoded_terms[] = { "config", "config1", "config2", "config3", "name" };

struct term {
	char name[64];
	char value[PERF_NAME_MAX]; /* as written; "" when has_value is false */
	bool has_value;
	bool required; /* "?": the user must supply it */
	bool from_alias;
};

struct term_list {
	struct term t[MAX_TERMS];
	size_t n;
};

void perf_event_desc_clear(struct perf_event_desc *d)
{
	free(d->cpus);
	memset(d, 0, sizeof(*d));
}

/* Decimal or 0x/0X hexadecimal, the full u64 range. */
static int parse_number(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	const char *p = s;
	unsigned base = 10;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!*p)
		return -EINVAL;
	for (; *p; p++) {
		unsigned d;
		if (isdigit((unsigned char)*p))
			d = (unsigned)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*ret = v;
	return 0;
}

static bool valid_term_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

/* Splits "a=1,b,c=?" into list (appending). */
static int split_terms(const char *text, size_t len, bool from_alias, struct term_list *list, const char *where,
		       struct err *err)
{
	size_t i = 0;

	if (len == 0)
		return err_set(err, -EINVAL, "%s: empty term list", where);
	while (i <= len) {
		size_t j = i;
		while (j < len && text[j] != ',')
			j++;
		size_t tl = j - i;
		if (tl == 0)
			return err_set(err, -EINVAL, "%s: empty term", where);
		if (list->n == MAX_TERMS)
			return err_set(err, -E2BIG, "%s: more than %d terms", where, MAX_TERMS);
		struct term *t = &list->t[list->n];
		memset(t, 0, sizeof(*t));
		t->from_alias = from_alias;
		const char *eq = memchr(text + i, '=', tl);
		size_t nl = eq ? (size_t)(eq - (text + i)) : tl;
		if (nl >= sizeof(t->name))
			return err_set(err, -EINVAL, "%s: term name '%.40s...' too long", where, text + i);
		memcpy(t->name, text + i, nl);
		t->name[nl] = '\0';
		if (!valid_term_name(t->name))
			return err_set(err, -EINVAL, "%s: bad term '%.*s'", where, (int)(tl > 60 ? 60 : tl), text + i);
		if (eq) {
			size_t vl = tl - nl - 1;
			if (vl == 0)
				return err_set(err, -EINVAL, "%s: term '%s' has '=' but no value", where, t->name);
			if (vl >= sizeof(t->value))
				return err_set(err, -EINVAL, "%s: value of term '%s' too long", where, t->name);
			memcpy(t->value, eq + 1, vl);
			t->value[vl] = '\0';
			t->has_value = true;
			t->required = !strcmp(t->value, "?");
		}
		list->n++;
		i = j + 1;
	}
	return 0;
}

/* "event, umask; events: a, b; also config, config1, config2, config3, name" */
static void valid_terms(const struct perf_pmu *p, char *buf, size_t size)
{
	size_t used = 0;

#define APPEND(...)                                                              \
	do {                                                                     \
		if (used < size) {                                               \
			int n_ = snprintf(buf + used, size - used, __VA_ARGS__); \
			used += n_ > 0 ? (size_t)n_ : 0;                         \
		}                                                                \
	} while (0)

	buf[0] = '\0';
	APPEND("valid terms: ");
	for (size_t i = 0; i < p->nformats; i++)
		APPEND("%s%s", i ? ", " : "", p->formats[i].name);
	for (size_t i = 0; i < COUNT_OF(hardcoded_terms); i++)
		APPEND("%s%s", (i || p->nformats) ? ", " : "", hardcoded_terms[i]);
	if (p->naliases) {
		APPEND("; events: ");
		for (size_t i = 0; i < p->naliases; i++)
			APPEND("%s%s", i ? ", " : "", p->aliases[i].name);
	}
#undef APPEND
	if (used >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

static int term_error(const struct perf_pmu *p, int code, struct err *err, const char *fmt, const char *a,
		      const char *b)
{
	char what[200], terms[300];

	snprintf(what, sizeof(what), fmt, a, b);
	valid_terms(p, terms, sizeof(terms));
	return err_set(err, code, "%s for PMU '%s'; %s", what, p->name, terms);
}

static int parse_modifiers(const char *mods, const char *text, struct perf_event_desc *d, struct err *err)
{
	bool u = false, k = false, h = false;

	if (*mods == ':')
		mods++;
	if (!*mods)
		return 0;
	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'u':
			u = true;
			break;
		case 'k':
			k = true;
			break;
		case 'h':
			h = true;
			break;
		default:
			return err_set(err, -EINVAL,
				       "unknown modifier '%c' in '%.80s'; supported: u (user only), k (kernel only), "
				       "h (hypervisor only), combined as in :uk",
				       *m, text);
		}
	}
	d->exclude_user = !u;
	d->exclude_kernel = !k;
	d->exclude_hv = !h;
	return 0;
}

static int find_named(const struct named_event *tab, size_t n, const char *name, uint64_t *config)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name)) {
			*config = tab[i].config;
			return 1;
		}
	return 0;
}

static int hardcoded_word(const char *name)
{
	if (!strcmp(name, "config"))
		return 0;
	if (!strcmp(name, "config1"))
		return 1;
	if (!strcmp(name, "config2"))
		return 2;
	if (!strcmp(name, "config3"))
		return 3;
	return -1;
}

/* Expands aliases in user terms, then encodes: config words first, then format terms ORed in. */
static int encode_pmu_terms(const struct perf_pmu *p, const struct term_list *user, struct perf_event_desc *d,
			    struct err *err)
{
	struct term_list all;
	uint64_t cfg[PERF_CONFIG_WORDS] = { 0 };
	const struct perf_alias *first_alias = NULL;
	char where[PERF_NAME_MAX + 32];
	int r;

	all.n = 0;
	for (size_t i = 0; i < user->n; i++) {
		const struct term *t = &user->t[i];
		const struct perf_alias *a = perf_pmu_alias(p, t->name);
		if (t->required)
			return term_error(p, -EINVAL, err, "term '%s' needs a number, not '?'%s", t->name, "");
		if (a && !perf_pmu_format(p, t->name) && hardcoded_word(t->name) < 0 && strcmp(t->name, "name")) {
			if (t->has_value)
				return term_error(p, -EINVAL, err, "event '%s' takes no value (got '%s')", t->name,
						  t->value);
			snprintf(where, sizeof(where), "%.60s/events/%.60s", p->name, a->name);
			r = split_terms(a->terms, strlen(a->terms), true, &all, where, err);
			if (r < 0)
				return r;
			if (!first_alias)
				first_alias = a;
			continue;
		}
		if (all.n == MAX_TERMS)
			return err_set(err, -E2BIG, "PMU '%s': more than %d terms", p->name, MAX_TERMS);
		all.t[all.n++] = *t;
	}

	/* "?" parameters of an alias need a numeric term of the same name from the user */
	for (size_t i = 0; i < all.n; i++) {
		const struct term *t = &all.t[i];
		if (!t->required)
			continue;
		bool supplied = false;
		for (size_t j = 0; j < all.n; j++)
			if (!all.t[j].from_alias && !strcmp(all.t[j].name, t->name))
				supplied = true;
		if (!supplied)
			return err_set(err, -EINVAL,
				       "event '%s' of PMU '%s' needs a value for parameter '%s': write %s/%s,%s=VALUE/",
				       first_alias ? first_alias->name : "?", p->name, t->name, p->name,
				       first_alias ? first_alias->name : "?", t->name);
	}

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < all.n; i++) {
			const struct term *t = &all.t[i];
			int word = hardcoded_word(t->name);
			uint64_t v = 1;
			if (t->required)
				continue;
			if (!strcmp(t->name, "name")) {
				if (pass == 0) {
					if (!t->has_value)
						return term_error(p, -EINVAL, err, "term 'name' needs a value%s%s", "",
								  "");
					snprintf(d->name, sizeof(d->name), "%s", t->value);
				}
				continue;
			}
			if ((word >= 0) != (pass == 0))
				continue;
			const struct perf_format *f = word >= 0 ? NULL : perf_pmu_format(p, t->name);
			if (word < 0 && !f)
				return term_error(p, -EINVAL, err, "unknown term '%s'%s", t->name, "");
			if (!t->has_value) {
				if (word >= 0 || f->width != 1) {
					char bits[32];
					snprintf(bits, sizeof(bits), "%u", word >= 0 ? 64 : f->width);
					return term_error(
						p, -EINVAL, err,
						"term '%s' needs a value: it is %s bits wide (only 1-bit terms "
						"may omit it)",
						t->name, bits);
				}
			} else {
				r = parse_number(t->value, &v);
				if (r == -ERANGE)
					return term_error(p, -ERANGE, err,
							  "value '%s' of term '%s' does not fit in 64 bits", t->value,
							  t->name);
				if (r < 0)
					return term_error(p, -EINVAL, err, "value '%s' of term '%s' is not a number",
							  t->value, t->name);
			}
			if (word >= 0) {
				cfg[word] = v;
				continue;
			}
			if (perf_format_place(f, v, cfg) < 0) {
				char layout[96];
				perf_format_describe(f, layout, sizeof(layout));
				return err_set(err, -ERANGE,
					       "value %s too big for term '%s' of PMU '%s' (%s, %u bits): maximum is "
					       "%llu (0x%llx)",
					       t->value, t->name, p->name, layout, f->width,
					       (unsigned long long)perf_format_max(f),
					       (unsigned long long)perf_format_max(f));
			}
		}
	}
	d->config = cfg[0];
	d->config1 = cfg[1];
	d->config2 = cfg[2];
	d->config3 = cfg[3];
	if (first_alias) {
		d->scale = first_alias->scale;
		snprintf(d->unit, sizeof(d->unit), "%s", first_alias->unit);
	}
	return 0;
}

static int resolve_pmu(struct perf_sysfs *s, const char *pmu_name, const char *terms, size_t terms_len,
		       struct perf_event_desc *d, struct err *err)
{
	struct term_list user;
	const struct perf_pmu *p;
	int r;

	r = perf_sysfs_pmu(s, pmu_name, &p, err);
	if (r < 0)
		return r;
	user.n = 0;
	r = split_terms(terms, terms_len, false, &user, pmu_name, err);
	if (r < 0) {
		char vt[300];
		valid_terms(p, vt, sizeof(vt));
		err_prefix(err, "PMU '%s'", pmu_name);
		size_t l = strlen(err->text);
		snprintf(err->text + l, sizeof(err->text) - l, "; %s", vt);
		return r;
	}
	snprintf(d->pmu, sizeof(d->pmu), "%s", p->name);
	d->type = p->type;
	d->kind = p->kind;
	d->uncore = p->kind == PERF_PMU_UNCORE;
	r = encode_pmu_terms(p, &user, d, err);
	if (r < 0)
		return r;
	if (p->ncpus) {
		d->cpus = malloc(p->ncpus * sizeof(*d->cpus));
		if (!d->cpus)
			return err_set(err, -ENOMEM, "out of memory");
		memcpy(d->cpus, p->cpus, p->ncpus * sizeof(*d->cpus));
		d->ncpus = p->ncpus;
	}
	return 0;
}

static bool is_raw(const char *name)
{
	if (name[0] != 'r' || !name[1])
		return false;
	for (const char *c = name + 1; *c; c++)
		if (!isxdigit((unsigned char)*c))
			return false;
	return strlen(name + 1) <= 16;
}

static int resolve_plain(struct perf_sysfs *s, const char *name, struct perf_event_desc *d, struct err *err)
{
	uint64_t config;

	if (find_named(hardware_events, COUNT_OF(hardware_events), name, &config)) {
		d->type = PERF_TYPE_HARDWARE;
		d->config = config;
		d->kind = PERF_PMU_CORE;
		return 0;
	}
	if (find_named(software_events, COUNT_OF(software_events), name, &config)) {
		d->type = PERF_TYPE_SOFTWARE;
		d->config = config;
		d->kind = PERF_PMU_OTHER;
		if (config == PERF_COUNT_SW_CPU_CLOCK || config == PERF_COUNT_SW_TASK_CLOCK) {
			d->scale = 1e-6;
			snprintf(d->unit, sizeof(d->unit), "msec");
		}
		return 0;
	}
	if (is_raw(name)) {
		d->type = PERF_TYPE_RAW;
		d->config = 0;
		for (const char *c = name + 1; *c; c++)
			d->config = d->config << 4 |
				    (uint64_t)(isdigit((unsigned char)*c) ? *c - '0'
									  : tolower((unsigned char)*c) - 'a' + 10);
		d->kind = PERF_PMU_CORE;
		return 0;
	}

	/* an alias of some PMU, by its plain name */
	const char *found = NULL;
	char others[300] = "";
	size_t used = 0;
	for (size_t i = 0; i < perf_sysfs_count(s); i++) {
		const struct perf_pmu *p;
		struct err ignored;
		if (perf_sysfs_pmu(s, perf_sysfs_name(s, i), &p, &ignored) < 0)
			continue;
		if (!perf_pmu_alias(p, name))
			continue;
		if (used < sizeof(others)) {
			int n = snprintf(others + used, sizeof(others) - used, "%s%s", used ? ", " : "", p->name);
			used += n > 0 ? (size_t)n : 0;
		}
		if (found)
			found = "";
		else
			found = perf_sysfs_name(s, i);
	}
	if (found && *found)
		return resolve_pmu(s, found, name, strlen(name), d, err);
	if (found)
		return err_set(err, -EINVAL, "event '%.60s' is offered by several PMUs (%s): write PMU/%.60s/", name,
			       others, name);
	char names[300];
	perf_sysfs_names(s, names, sizeof(names));
	return err_set(err, -ENOENT,
		       "unknown event '%.60s': not a hardware, software or raw (rNNN) event, nor an event of any "
		       "PMU; PMUs present: %s",
		       name, names);
}

int perf_resolve(struct perf_sysfs *s, const char *text, struct perf_event_desc *ret, struct err *err)
{
	struct perf_event_desc d;
	const char *slash = strchr(text, '/');
	int r;

	memset(&d, 0, sizeof(d));
	d.scale = 1.0;
	snprintf(d.text, sizeof(d.text), "%s", text);
	memset(ret, 0, sizeof(*ret));
	if (!*text)
		return err_set(err, -EINVAL, "empty event");
	if (slash) {
		const char *last = strrchr(text, '/');
		char pmu[PERF_NAME_MAX];
		size_t pl = (size_t)(slash - text);
		if (pl == 0)
			return err_set(err, -EINVAL, "'%.80s': expected PMU/terms/ (no PMU name before '/')", text);
		if (last == slash)
			return err_set(err, -EINVAL, "'%.80s': expected PMU/terms/ (missing closing '/')", text);
		if (pl >= sizeof(pmu))
			return err_set(err, -EINVAL, "'%.80s': PMU name too long", text);
		memcpy(pmu, text, pl);
		pmu[pl] = '\0';
		r = resolve_pmu(s, pmu, slash + 1, (size_t)(last - slash - 1), &d, err);
		if (r == 0)
			r = parse_modifiers(last + 1, text, &d, err);
	} else {
		char name[PERF_NAME_MAX];
		const char *colon = strchr(text, ':');
		size_t nl = colon ? (size_t)(colon - text) : strlen(text);
		if (nl == 0)
			return err_set(err, -EINVAL, "'%.80s': no event name before ':'", text);
		if (nl >= sizeof(name))
			return err_set(err, -EINVAL, "'%.80s...': event name too long", text);
		memcpy(name, text, nl);
		name[nl] = '\0';
		r = resolve_plain(s, name, &d, err);
		if (r == 0 && colon)
			r = parse_modifiers(colon, text, &d, err);
	}
	if (r < 0) {
		perf_event_desc_clear(&d);
		memset(ret, 0, sizeof(*ret));
		return r;
	}
	if (!d.name[0])
		snprintf(d.name, sizeof(d.name), "%s", text);
	*ret = d;
	return 0;
}
