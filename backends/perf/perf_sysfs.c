/* Reading the event_source tree: a PMU's type, format/, events/ (with .scale and .unit), cpumask/cpus. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/perf/perf_event.h"
#include "core/base/parse.h"

struct pmu_slot {
	char name[PERF_NAME_MAX];
	struct perf_pmu *pmu; /* NULL until loaded */
};

struct perf_sysfs {
	char root[512];
	struct pmu_slot *slots; /* sorted by name */
	size_t nslots;
};

/* Reads a small file into buf without the trailing newline and blanks. */
static int read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	int failed = ferror(f);
	fclose(f);
	if (failed)
		return -EIO;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The entries of `dir` (no dot files), sorted, malloc'ed; -errno when it cannot be opened. */
static int list_dir(const char *dir, char ***ret, size_t *ret_n)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **grown = realloc(names, cap * sizeof(*names));
			if (!grown)
				goto nomem;
			names = grown;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*ret = names;
	*ret_n = n;
	return 0;
nomem:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return -ENOMEM;
}

static void free_list(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static bool is_sidecar(const char *name)
{
	return ends_with(name, ".scale") || ends_with(name, ".unit") || ends_with(name, ".per-pkg") ||
	       ends_with(name, ".snapshot");
}

int perf_cpulist_parse(const char *text, int **ret_cpus, size_t *ret_n, struct err *err)
{
	uint64_t bits[PERF_CPU_LIMIT / 64];
	struct err pe;
	unsigned count = 0;
	int *cpus;
	size_t n = 0;

	int r = parse_cpu_list(text, PERF_CPU_LIMIT, bits, &count, &pe);
	if (r < 0)
		return err_set(err, r, "%s", pe.text);
	cpus = malloc((count ? count : 1) * sizeof(*cpus));
	if (!cpus)
		return err_set(err, -ENOMEM, "out of memory");
	for (unsigned c = 0; c < PERF_CPU_LIMIT; c++)
		if (bits[c / 64] >> (c % 64) & 1)
			cpus[n++] = (int)c;
	*ret_cpus = cpus;
	*ret_n = n;
	return 0;
}

int perf_online_cpus(const char *path, int **ret_cpus, size_t *ret_n, struct err *err)
{
	char buf[4096];

	if (!path)
		path = PERF_ONLINE_CPUS_PATH;
	int r = read_small(path, buf, sizeof(buf));
	if (r < 0)
		return err_set(err, r, "%s: %s", path, strerror(-r));
	r = perf_cpulist_parse(buf, ret_cpus, ret_n, err);
	if (r < 0)
		err_prefix(err, "%s", path);
	return r;
}

static void pmu_free(struct perf_pmu *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->naliases; i++)
		free(p->aliases[i].terms);
	free(p->aliases);
	free(p->formats);
	free(p->cpus);
	free(p);
}

/* The files of one of a PMU's directories: room made for `n` of them, then each loaded by its path and
 * its name there. */
struct pmu_entries {
	const char *sub;
	bool (*make_room)(struct perf_pmu *p, size_t n);
	int (*load)(struct perf_pmu *p, const char *path, const char *name, struct err *err);
};

/* Every file of DIR/SUB through `e`; a PMU without SUB has none. */
static int load_entries(struct perf_pmu *p, const char *dir, const struct pmu_entries *e, struct err *err)
{
	char path[1024];
	char **names = NULL;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, e->sub);
	int r = list_dir(path, &names, &n);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return err_set(err, r, "%s: %s", path, strerror(-r));
	r = e->make_room(p, n) ? 0 : err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n && r == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, e->sub, names[i]);
		r = e->load(p, path, names[i], err);
	}
	free_list(names, n);
	return r;
}

static bool formats_room(struct perf_pmu *p, size_t n)
{
	p->formats = calloc(n ? n : 1, sizeof(*p->formats));
	return p->formats != NULL;
}

static bool aliases_room(struct perf_pmu *p, size_t n)
{
	p->aliases = calloc(n ? n : 1, sizeof(*p->aliases));
	return p->aliases != NULL;
}

/* format/NAME: which bits of which config word a term sets. */
static int load_format(struct perf_pmu *p, const char *path, const char *name, struct err *err)
{
	char text[512];
	struct perf_format *f = &p->formats[p->nformats];
	int r = read_small(path, text, sizeof(text));

	if (r == 0)
		r = perf_format_parse(text, f, err);
	else
		err_set(err, r, "%s", strerror(-r));
	if (r < 0) {
		err_prefix(err, "%s", path);
		return r;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	p->nformats++;
	return 0;
}

/* events/NAME: an alias's terms, with its NAME.scale and NAME.unit sidecars when they exist. */
static int load_alias(struct perf_pmu *p, const char *path, const char *name, struct err *err)
{
	char text[4096], sidecar[1100];

	if (is_sidecar(name))
		return 0; /* .scale, .unit, .per-pkg, .snapshot sidecars */
	struct perf_alias *a = &p->aliases[p->naliases];
	int r = read_small(path, text, sizeof(text));
	if (r < 0)
		return err_set(err, r, "%s: %s", path, strerror(-r));
	a->terms = strdup(text);
	if (!a->terms)
		return err_set(err, -ENOMEM, "out of memory");
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->scale = 1.0;
	p->naliases++;
	snprintf(sidecar, sizeof(sidecar), "%s.scale", path);
	if (read_small(sidecar, text, sizeof(text)) == 0) {
		char *end;
		double v = strtod(text, &end);
		if (end == text || *end)
			return err_set(err, -EINVAL, "%s: '%.40s' is not a number", sidecar, text);
		a->scale = v;
	}
	snprintf(sidecar, sizeof(sidecar), "%s.unit", path);
	if (read_small(sidecar, text, sizeof(text)) == 0)
		snprintf(a->unit, sizeof(a->unit), "%.*s", (int)sizeof(a->unit) - 1, text);
	return 0;
}

static const struct pmu_entries pmu_formats = { "format", formats_room, load_format };
static const struct pmu_entries pmu_aliases = { "events", aliases_room, load_alias };

static int pmu_load(const char *root, const char *name, struct perf_pmu **ret, struct err *err)
{
	char dir[768], path[1024], text[4096];
	struct perf_pmu *p = calloc(1, sizeof(*p));
	struct err pe;
	uint64_t type;
	int r;

	if (!p)
		return err_set(err, -ENOMEM, "out of memory");
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	snprintf(path, sizeof(path), "%s/type", dir);
	r = read_small(path, text, sizeof(text));
	if (r < 0) {
		err_set(err, r, "%s: %s", path, strerror(-r));
		goto fail;
	}
	r = parse_uint(text, 0, UINT32_MAX, &type, &pe);
	if (r < 0) {
		err_set(err, r, "%s: %s", path, pe.text);
		goto fail;
	}
	p->type = (uint32_t)type;

	bool has_cpus_file = false;
	snprintf(path, sizeof(path), "%s/cpumask", dir);
	r = read_small(path, text, sizeof(text));
	if (r == 0) {
		p->has_cpumask = true;
	} else {
		snprintf(path, sizeof(path), "%s/cpus", dir);
		r = read_small(path, text, sizeof(text));
		has_cpus_file = r == 0;
	}
	if (r == 0 && text[0]) {
		r = perf_cpulist_parse(text, &p->cpus, &p->ncpus, err);
		if (r < 0) {
			err_prefix(err, "%s", path);
			goto fail;
		}
	}
	if (!strcmp(name, "cpu") || has_cpus_file)
		p->kind = PERF_PMU_CORE;
	else if (p->has_cpumask)
		p->kind = PERF_PMU_UNCORE;
	else
		p->kind = PERF_PMU_OTHER;

	r = load_entries(p, dir, &pmu_formats, err);
	if (r < 0)
		goto fail;
	r = load_entries(p, dir, &pmu_aliases, err);
	if (r < 0)
		goto fail;
	*ret = p;
	return 0;
fail:
	pmu_free(p);
	return r;
}

int perf_sysfs_new(const char *root, struct perf_sysfs **ret, struct err *err)
{
	struct perf_sysfs *s = calloc(1, sizeof(*s));
	char **names = NULL;
	size_t n = 0;

	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	if (!root)
		root = PERF_SYSFS_DEFAULT_ROOT;
	snprintf(s->root, sizeof(s->root), "%s", root);
	int r = list_dir(root, &names, &n);
	if (r < 0) {
		free(s);
		return err_set(err, r, "%s: %s", root, strerror(-r));
	}
	s->slots = calloc(n ? n : 1, sizeof(*s->slots));
	if (!s->slots) {
		free_list(names, n);
		free(s);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		char path[1024];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s/type", root, names[i]);
		if (stat(path, &st) != 0)
			continue; /* not a PMU directory */
		snprintf(s->slots[s->nslots++].name, PERF_NAME_MAX, "%s", names[i]);
	}
	free_list(names, n);
	*ret = s;
	return 0;
}

void perf_sysfs_free(struct perf_sysfs *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nslots; i++)
		pmu_free(s->slots[i].pmu);
	free(s->slots);
	free(s);
}

const char *perf_sysfs_root(const struct perf_sysfs *s)
{
	return s->root;
}

size_t perf_sysfs_count(const struct perf_sysfs *s)
{
	return s->nslots;
}

const char *perf_sysfs_name(const struct perf_sysfs *s, size_t i)
{
	return i < s->nslots ? s->slots[i].name : NULL;
}

void perf_sysfs_names(const struct perf_sysfs *s, char *buf, size_t size)
{
	size_t used = 0;

	if (!size)
		return;
	buf[0] = '\0';
	if (!s->nslots) {
		snprintf(buf, size, "none");
		return;
	}
	for (size_t i = 0; i < s->nslots && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", s->slots[i].name);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

int perf_sysfs_pmu(struct perf_sysfs *s, const char *name, const struct perf_pmu **ret, struct err *err)
{
	for (size_t i = 0; i < s->nslots; i++) {
		struct pmu_slot *slot = &s->slots[i];
		if (strcmp(slot->name, name) != 0)
			continue;
		if (!slot->pmu) {
			int r = pmu_load(s->root, name, &slot->pmu, err);
			if (r < 0) {
				err_prefix(err, "PMU '%s'", name);
				return r;
			}
		}
		*ret = slot->pmu;
		return 0;
	}
	char names[300];
	perf_sysfs_names(s, names, sizeof(names));
	return err_set(err, -ENOENT, "unknown PMU '%.100s'; PMUs present in %.100s: %s", name, s->root, names);
}

const struct perf_format *perf_pmu_format(const struct perf_pmu *p, const char *name)
{
	for (size_t i = 0; i < p->nformats; i++)
		if (!strcmp(p->formats[i].name, name))
			return &p->formats[i];
	return NULL;
}

const struct perf_alias *perf_pmu_alias(const struct perf_pmu *p, const char *name)
{
	for (size_t i = 0; i < p->naliases; i++)
		if (!strcmp(p->aliases[i].name, name))
			return &p->aliases[i];
	return NULL;
}

const char *perf_pmu_kind_name(enum perf_pmu_kind kind)
{
	switch (kind) {
	case PERF_PMU_CORE:
		return "core";
	case PERF_PMU_UNCORE:
		return "uncore";
	default:
		return "other";
	}
}
