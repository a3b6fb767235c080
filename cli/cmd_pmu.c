/* mpamctl pmu: list the PMUs, encode an event as perf_event_attr, count events like perf stat -I. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/perf/perf_event.h"
#include "cli/mpamctl.h"
#include "core/base/parse.h"

#define MAX_EVENTS 64

static void pmu_usage(FILE *out)
{
	fprintf(out, "Usage: mpamctl pmu list [--sysfs-root DIR] [--json]\n"
		     "       mpamctl pmu encode EVENT [--sysfs-root DIR] [--json]\n"
		     "       mpamctl pmu stat EVENT... (--pid PID | --cgroup PATH | --all-cpus) [--interval MS]\n"
		     "                        [--count N] [--sysfs-root DIR] [--json]\n"
		     "\n"
		     "PMU counters through perf_event_open. EVENT is in perf's syntax: PMU/term=value,.../ with\n"
		     "the terms of the PMU's format/ and events/ directories (a term without a value means 1 and\n"
		     "is only allowed on 1-bit fields), a generic hardware event (cycles, instructions,\n"
		     "cache-misses, branch-misses...), a software event (task-clock, cpu-clock,\n"
		     "context-switches...), rNNN for a raw event, or an event name of one PMU; modifiers :u\n"
		     "(user only) and :k (kernel only).\n"
		     "\n"
		     "  list     the PMUs with their type, core/uncore, CPUs, events and format fields\n"
		     "  encode   the perf_event_attr type and config words, and how the event can be opened\n"
		     "  stat     count the events every interval, scaled for multiplexing\n"
		     "\n"
		     "Options:\n"
		     "  -r, --sysfs-root DIR  the PMU tree (default " PERF_SYSFS_DEFAULT_ROOT ")\n"
		     "  -p, --pid PID         count one task\n"
		     "  -G, --cgroup PATH     count a cgroup's tasks (its directory), on every online CPU\n"
		     "  -a, --all-cpus        count system-wide (uncore events on their PMU's cpumask)\n"
		     "  -I, --interval MS     print every MS milliseconds (default 1000, 10..3600000)\n"
		     "  -n, --count N         stop after N intervals (default: run until interrupted)\n"
		     "  -j, --json            print JSON\n"
		     "  -h, --help            show this help\n");
}

static int fail(const char *fmt, const char *text)
{
	fprintf(stderr, "mpamctl pmu: ");
	fprintf(stderr, fmt, text);
	fputc('\n', stderr);
	return EXIT_FAILED;
}

static int usage_error(const char *fmt, const char *text)
{
	fprintf(stderr, "mpamctl pmu: ");
	fprintf(stderr, fmt, text);
	fprintf(stderr, "\nTry 'mpamctl pmu --help'.\n");
	return EXIT_USAGE;
}

/* "0-3,8" from an ascending CPU array. */
static void cpus_text(const int *cpus, size_t n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size;) {
		size_t j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		int w;
		if (j == i)
			w = snprintf(buf + used, size - used, "%s%d", used ? "," : "", cpus[i]);
		else
			w = snprintf(buf + used, size - used, "%s%d-%d", used ? "," : "", cpus[i], cpus[j]);
		used += w > 0 ? (size_t)w : 0;
		i = j + 1;
	}
}

static json_t *cpus_json(const int *cpus, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(cpus[i]));
	return a;
}

static void print_json(json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT);
	if (s)
		puts(s);
	free(s);
	fflush(stdout);
}

struct common {
	const char *root;
	bool json;
};

static int pmu_list(int argc, char **argv, struct common *c)
{
	struct perf_sysfs *s;
	struct err err;
	json_t *out = NULL;

	if (argc > optind)
		return usage_error("pmu list takes no arguments ('%s')", argv[optind]);
	if (perf_sysfs_new(c->root, &s, &err) < 0)
		return fail("%s", err.text);
	if (c->json)
		out = json_array();
	else
		printf("%-28s %6s %-7s %-12s %6s %7s\n", "PMU", "type", "kind", "cpus", "events", "formats");
	for (size_t i = 0; i < perf_sysfs_count(s); i++) {
		const struct perf_pmu *p;
		char cpus[256];
		if (perf_sysfs_pmu(s, perf_sysfs_name(s, i), &p, &err) < 0) {
			json_decref(out);
			perf_sysfs_free(s);
			return fail("%s", err.text);
		}
		cpus_text(p->cpus, p->ncpus, cpus, sizeof(cpus));
		if (c->json) {
			json_t *o =
				json_pack("{s:s, s:I, s:s, s:b, s:o, s:s, s:I, s:I}", "name", p->name, "type",
					  (json_int_t)p->type, "kind", perf_pmu_kind_name(p->kind), "uncore",
					  p->kind == PERF_PMU_UNCORE, "cpus", cpus_json(p->cpus, p->ncpus), "cpus_from",
					  p->has_cpumask ? "cpumask"
					  : p->ncpus	 ? "cpus"
							 : "none",
					  "events", (json_int_t)p->naliases, "formats", (json_int_t)p->nformats);
			json_array_append_new(out, o);
		} else {
			printf("%-28s %6u %-7s %-12s %6zu %7zu\n", p->name, p->type, perf_pmu_kind_name(p->kind),
			       p->ncpus ? cpus : "any", p->naliases, p->nformats);
		}
	}
	if (out) {
		print_json(out);
		json_decref(out);
	}
	perf_sysfs_free(s);
	return EXIT_OK;
}

static const char *opens_text(const struct perf_event_desc *d)
{
	if (d->uncore)
		return "system-wide only, on the PMU's CPUs";
	if (d->kind == PERF_PMU_CORE)
		return "per cgroup (one event per CPU), per task, or system-wide";
	return "per task, per cgroup (one event per CPU), or system-wide";
}

static int pmu_encode(int argc, char **argv, struct common *c)
{
	struct perf_event_desc d;
	struct perf_sysfs *s;
	struct err err;

	if (argc - optind != 1)
		return usage_error("%s", argc == optind ? "pmu encode needs one EVENT" : "pmu encode takes one EVENT");
	if (perf_sysfs_new(c->root, &s, &err) < 0)
		return fail("%s", err.text);
	if (perf_resolve(s, argv[optind], &d, &err) < 0) {
		perf_sysfs_free(s);
		return fail("%s", err.text);
	}
	perf_sysfs_free(s);
	char cfg[4][24];
	const uint64_t words[4] = { d.config, d.config1, d.config2, d.config3 };
	for (int i = 0; i < 4; i++)
		snprintf(cfg[i], sizeof(cfg[i]), "0x%llx", (unsigned long long)words[i]);
	if (c->json) {
		json_t *opens = json_array();
		if (d.uncore) {
			json_array_append_new(opens, json_string("system-wide"));
		} else {
			json_array_append_new(opens, json_string("cgroup"));
			json_array_append_new(opens, json_string("task"));
			json_array_append_new(opens, json_string("system-wide"));
		}
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:b, s:b, s:b, s:f, s:s, s:b, "
				      "s:o, s:o}",
				      "event", argv[optind], "name", d.name, "pmu", d.pmu, "kind",
				      perf_pmu_kind_name(d.kind), "type", (json_int_t)d.type, "config", cfg[0],
				      "config1", cfg[1], "config2", cfg[2], "config3", cfg[3], "exclude_user",
				      d.exclude_user, "exclude_kernel", d.exclude_kernel, "exclude_hv", d.exclude_hv,
				      "scale", d.scale, "unit", d.unit, "uncore", d.uncore, "cpus",
				      d.cpus ? cpus_json(d.cpus, d.ncpus) : json_null(), "opens", opens);
		print_json(o);
		json_decref(o);
	} else {
		char cpus[256];
		cpus_text(d.cpus, d.ncpus, cpus, sizeof(cpus));
		printf("event    %s\n", argv[optind]);
		printf("pmu      %s (%s)\n", d.pmu[0] ? d.pmu : "generic", perf_pmu_kind_name(d.kind));
		printf("type     %u (0x%x)\n", d.type, d.type);
		printf("config   %s\nconfig1  %s\nconfig2  %s\n", cfg[0], cfg[1], cfg[2]);
		if (d.config3)
			printf("config3  %s\n", cfg[3]);
		printf("exclude  user=%d kernel=%d hv=%d\n", d.exclude_user, d.exclude_kernel, d.exclude_hv);
		if (d.scale != 1.0 || d.unit[0])
			printf("scale    %.10g %s\n", d.scale, d.unit);
		printf("cpus     %s\n", d.ncpus ? cpus : "any");
		printf("opens    %s\n", opens_text(&d));
	}
	perf_event_desc_clear(&d);
	return EXIT_OK;
}

/* One kernel-group set: events of one type, opened on one target. */
struct stat_group {
	struct perf_event_desc *ev[MAX_EVENTS];
	size_t n;
	struct perf_group *g;
	struct perf_count *before, *after;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_interval(double t, struct stat_group *groups, size_t ngroups, bool json)
{
	json_t *arr = json ? json_array() : NULL;

	for (size_t gi = 0; gi < ngroups; gi++) {
		struct stat_group *sg = &groups[gi];
		size_t ncpus = perf_group_cpus(sg->g);
		for (size_t e = 0; e < sg->n; e++) {
			struct perf_delta d = perf_delta_sum(sg->before, sg->after, ncpus, sg->n, e);
			const struct perf_event_desc *ev = sg->ev[e];
			double v = d.value * ev->scale;
			if (json) {
				json_t *o = json_pack("{s:s, s:b, s:I, s:I, s:I}", "event", ev->name, "counted",
						      d.counted, "raw", (json_int_t)d.raw, "enabled_ns",
						      (json_int_t)d.enabled, "running_ns", (json_int_t)d.running);
				json_object_set_new(o, "value", d.counted ? json_real(v) : json_null());
				json_object_set_new(o, "unit", json_string(ev->unit));
				json_object_set_new(o, "running_pct",
						    d.counted ? json_real(d.running_pct) : json_null());
				json_array_append_new(arr, o);
				continue;
			}
			char val[64];
			if (!d.counted)
				snprintf(val, sizeof(val), "<not counted>");
			else if (ev->scale != 1.0)
				snprintf(val, sizeof(val), "%.2f", v);
			else
				snprintf(val, sizeof(val), "%.0f", v);
			printf("%14.6f %20s %-8s %s", t, val, ev->unit, ev->name);
			if (d.counted && d.running_pct < 99.995)
				printf("  (%.2f%%)", d.running_pct);
			putchar('\n');
		}
	}
	if (json) {
		json_t *o = json_pack("{s:f, s:o}", "t", t, "events", arr);
		print_json(o);
		json_decref(o);
	} else {
		fflush(stdout);
	}
}

static int pmu_stat(int argc, char **argv, struct common *c, const struct perf_target *base, uint64_t interval_ms,
		    uint64_t count)
{
	struct perf_event_desc descs[MAX_EVENTS];
	struct stat_group groups[MAX_EVENTS];
	size_t ndescs = 0, ngroups = 0;
	struct perf_sysfs *s = NULL;
	struct err err;
	int rc = EXIT_FAILED;

	memset(groups, 0, sizeof(groups));
	if (argc == optind)
		return usage_error("%s", "pmu stat needs at least one EVENT");
	if (argc - optind > MAX_EVENTS)
		return usage_error("%s", "pmu stat counts at most 64 events");
	if (perf_sysfs_new(c->root, &s, &err) < 0)
		return fail("%s", err.text);
	for (int i = optind; i < argc; i++) {
		if (perf_resolve(s, argv[i], &descs[ndescs], &err) < 0) {
			fail("%s", err.text);
			goto out;
		}
		struct perf_event_desc *d = &descs[ndescs++];
		if (d->uncore && base->kind != PERF_TARGET_CPUS) {
			fprintf(stderr,
				"mpamctl pmu: %s is on uncore PMU '%s', which counts system-wide only: use "
				"--all-cpus\n",
				d->name, d->pmu);
			goto out;
		}
		/* software events group with each other; others with events of the same type */
		size_t gi = 0;
		while (gi < ngroups && groups[gi].ev[0]->type != d->type)
			gi++;
		if (gi == ngroups)
			ngroups++;
		groups[gi].ev[groups[gi].n++] = d;
	}
	for (size_t gi = 0; gi < ngroups; gi++) {
		struct stat_group *sg = &groups[gi];
		struct perf_event_desc list[MAX_EVENTS];
		struct perf_target t = *base;
		for (size_t e = 0; e < sg->n; e++)
			list[e] = *sg->ev[e];
		if (t.kind == PERF_TARGET_CPUS && sg->ev[0]->uncore) {
			t.cpus = sg->ev[0]->cpus;
			t.ncpus = sg->ev[0]->ncpus;
		}
		if (perf_group_new(list, sg->n, &t, &sg->g, &err) < 0) {
			fail("%s", err.text);
			goto out;
		}
		size_t n = perf_group_cpus(sg->g) * sg->n;
		sg->before = calloc(n, sizeof(*sg->before));
		sg->after = calloc(n, sizeof(*sg->after));
		if (!sg->before || !sg->after) {
			fail("%s", "out of memory");
			goto out;
		}
	}
	for (size_t gi = 0; gi < ngroups; gi++)
		if (perf_group_read(groups[gi].g, groups[gi].before, &err) < 0) {
			fail("%s", err.text);
			goto out;
		}
	double start = now_s();
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (uint64_t i = 0; count == 0 || i < count; i++) {
		next.tv_sec += (time_t)(interval_ms / 1000);
		next.tv_nsec += (long)(interval_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		for (size_t gi = 0; gi < ngroups; gi++)
			if (perf_group_read(groups[gi].g, groups[gi].after, &err) < 0) {
				fail("%s", err.text);
				goto out;
			}
		print_interval(now_s() - start, groups, ngroups, c->json);
		for (size_t gi = 0; gi < ngroups; gi++) {
			struct perf_count *tmp = groups[gi].before;
			groups[gi].before = groups[gi].after;
			groups[gi].after = tmp;
		}
	}
	rc = EXIT_OK;
out:
	for (size_t gi = 0; gi < ngroups; gi++) {
		perf_group_free(groups[gi].g);
		free(groups[gi].before);
		free(groups[gi].after);
	}
	for (size_t i = 0; i < ndescs; i++)
		perf_event_desc_clear(&descs[i]);
	perf_sysfs_free(s);
	return rc;
}

int cmd_pmu(int argc, char **argv, const struct ctl_options *opts)
{
	static const struct option options[] = {
		{ "sysfs-root", required_argument, NULL, 'r' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "interval", required_argument, NULL, 'I' },
		{ "count", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct common c = { .root = NULL, .json = opts->json };
	struct perf_target target = { .kind = PERF_TARGET_PID, .pid = 0, .cgroup_fd = -1 };
	const char *cgroup = NULL;
	int targets = 0;
	uint64_t interval = 1000, count = 0, v;
	struct err pe;
	int ch;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		pmu_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	const char *sub = argv[1];
	if (strcmp(sub, "list") && strcmp(sub, "encode") && strcmp(sub, "stat"))
		return usage_error("unknown pmu command '%s' (list, encode, stat)", sub);
	argc--;
	argv++;
	optind = 0;
	/* '+' is not used: options may follow the events, as in the synopsis */
	while ((ch = getopt_long(argc, argv, "r:p:G:aI:n:jh", options, NULL)) != -1) {
		switch (ch) {
		case 'r':
			c.root = optarg;
			break;
		case 'p':
			if (parse_uint(optarg, 1, 0x7fffffff, &v, &pe) < 0)
				return usage_error("--pid: %s", pe.text);
			target.kind = PERF_TARGET_PID;
			target.pid = (pid_t)v;
			targets++;
			break;
		case 'G':
			cgroup = optarg;
			target.kind = PERF_TARGET_CGROUP;
			targets++;
			break;
		case 'a':
			target.kind = PERF_TARGET_CPUS;
			targets++;
			break;
		case 'I':
			if (parse_uint(optarg, 10, 3600000, &interval, &pe) < 0)
				return usage_error("--interval: %s", pe.text);
			break;
		case 'n':
			if (parse_uint(optarg, 1, UINT32_MAX, &count, &pe) < 0)
				return usage_error("--count: %s", pe.text);
			break;
		case 'j':
			c.json = true;
			break;
		case 'h':
			pmu_usage(stdout);
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'mpamctl pmu --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (strcmp(sub, "stat") != 0) {
		if (targets)
			return usage_error("%s", "--pid, --cgroup and --all-cpus are for pmu stat");
		return !strcmp(sub, "list") ? pmu_list(argc, argv, &c) : pmu_encode(argc, argv, &c);
	}
	if (targets != 1)
		return usage_error("%s", "pmu stat needs exactly one of --pid, --cgroup, --all-cpus");
	if (cgroup) {
		target.cgroup_fd = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (target.cgroup_fd < 0) {
			fprintf(stderr, "mpamctl pmu: cgroup %s: %s\n", cgroup, strerror(errno));
			return EXIT_FAILED;
		}
	}
	int rc = pmu_stat(argc, argv, &c, &target, interval, count);
	if (target.cgroup_fd >= 0)
		close(target.cgroup_fd);
	return rc;
}
