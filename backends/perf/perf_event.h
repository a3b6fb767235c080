/* PMU counters through perf_event_open: the public types of backends/perf.
 *
 * An event string (perf's syntax: "pmu/term=value,term/mods", "cycles:u", "task-clock") is
 * resolved against a sysfs tree (/sys/bus/event_source/devices or a copy of it) into a
 * struct perf_event_desc: what perf_event_attr needs, plus what a caller needs to decide how to
 * open it (per task or cgroup, or system-wide on the PMU's CPUs).
 *
 * Nothing here knows about mpamd's daemon: these are plain Linux perf facilities. */
#ifndef MPAMD_BACKENDS_PERF_PERF_EVENT_H
#define MPAMD_BACKENDS_PERF_PERF_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/error.h"

#define PERF_SYSFS_DEFAULT_ROOT "/sys/bus/event_source/devices"
#define PERF_PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
#define PERF_ONLINE_CPUS_PATH	"/sys/devices/system/cpu/online"

/* config, config1, config2, config3 */
#define PERF_CONFIG_WORDS 4
#define PERF_NAME_MAX	  128
#define PERF_UNIT_MAX	  32
#define PERF_CPU_LIMIT	  4096 /* CPUs numbered from 0 to PERF_CPU_LIMIT - 1 */

/* ---- perf_format.c: format/<term> files ---- */

/* A format field: the bits of config..config3 that carry the value, LSB first. */
struct perf_format {
	char name[64];
	uint64_t mask[PERF_CONFIG_WORDS];
	unsigned width; /* popcount of all masks */
};

/* Parses "config:0-7,32-35", "config1:1,6-10,44", "config2:0-63" (several items separated by blanks
 * also work). Rejects unknown words, reversed or out-of-range bits and an empty field. */
int perf_format_parse(const char *text, struct perf_format *ret, struct err *err);
/* The largest value the field holds: 2^width - 1 (UINT64_MAX from 64 bits up). */
uint64_t perf_format_max(const struct perf_format *f);
/* Scatters `value` LSB first into the field's bits and ORs them into config[], as perf does (a
 * term never clears bits another term set). -ERANGE when the value does not fit (config unchanged). */
int perf_format_place(const struct perf_format *f, uint64_t value, uint64_t config[PERF_CONFIG_WORDS]);
/* Writes the field back as it reads in sysfs ("config:0-7,config1:3"); returns snprintf's count. */
int perf_format_describe(const struct perf_format *f, char *buf, size_t size);

/* ---- perf_sysfs.c: the event_source tree ---- */

enum perf_pmu_kind {
	PERF_PMU_OTHER,	 /* software, tracepoint, uprobe, msr...: per task or CPU */
	PERF_PMU_CORE,	 /* the CPU's PMU ("cpu", or one with a "cpus" file) */
	PERF_PMU_UNCORE, /* has a "cpumask" and is no core PMU: system-wide on those CPUs only */
};

/* events/<name>: an alias, its terms as written ("event=0x11", "type=0x5,nodeid=?"). */
struct perf_alias {
	char name[PERF_NAME_MAX];
	char *terms;
	double scale; /* 1.0 unless <name>.scale says otherwise */
	char unit[PERF_UNIT_MAX];
};

struct perf_pmu {
	char name[PERF_NAME_MAX];
	uint32_t type;
	enum perf_pmu_kind kind;
	bool has_cpumask; /* cpus[] came from "cpumask" (else "cpus", else empty: any CPU) */
	int *cpus;	  /* ascending */
	size_t ncpus;
	struct perf_format *formats; /* sorted by name */
	size_t nformats;
	struct perf_alias *aliases; /* sorted by name */
	size_t naliases;
};

struct perf_sysfs;

/* Lists the PMUs under `root` (NULL: PERF_SYSFS_DEFAULT_ROOT); PMUs are loaded when first asked for. */
int perf_sysfs_new(const char *root, struct perf_sysfs **ret, struct err *err);
void perf_sysfs_free(struct perf_sysfs *s);
const char *perf_sysfs_root(const struct perf_sysfs *s);
size_t perf_sysfs_count(const struct perf_sysfs *s);
const char *perf_sysfs_name(const struct perf_sysfs *s, size_t i); /* sorted */
/* The PMU called `name`, loaded (and kept) on first use; -ENOENT with the PMUs present when absent. */
int perf_sysfs_pmu(struct perf_sysfs *s, const char *name, const struct perf_pmu **ret, struct err *err);
/* "a, b, c": the PMUs present, for error messages. */
void perf_sysfs_names(const struct perf_sysfs *s, char *buf, size_t size);

const struct perf_format *perf_pmu_format(const struct perf_pmu *p, const char *name);
const struct perf_alias *perf_pmu_alias(const struct perf_pmu *p, const char *name);
const char *perf_pmu_kind_name(enum perf_pmu_kind kind);

/* A cpulist ("0-3,8") into a malloc'ed ascending array. */
int perf_cpulist_parse(const char *text, int **ret_cpus, size_t *ret_n, struct err *err);
/* Online CPUs from `path` (NULL: PERF_ONLINE_CPUS_PATH). */
int perf_online_cpus(const char *path, int **ret_cpus, size_t *ret_n, struct err *err);

/* ---- perf_resolve.c: the event grammar ---- */

struct perf_event_desc {
	char text[PERF_NAME_MAX]; /* the string as given (truncated) */
	char name[PERF_NAME_MAX]; /* display name: name= term, or the text */
	char pmu[PERF_NAME_MAX];  /* "" for generic hardware/software/raw events */
	uint32_t type;
	uint64_t config, config1, config2, config3;
	bool exclude_user, exclude_kernel, exclude_hv;
	double scale; /* multiply counts by this to get `unit` */
	char unit[PERF_UNIT_MAX];
	enum perf_pmu_kind kind;
	bool uncore; /* kind == PERF_PMU_UNCORE: only system-wide, on cpus[] */
	int *cpus;   /* the PMU's cpumask/cpus; NULL when any CPU will do */
	size_t ncpus;
};

/* Resolves one event into *ret (which needs no initialising; free it with perf_event_desc_clear).
 * On failure *ret is left cleared and err names the PMU with its valid terms,
 * or lists the PMUs present. */
int perf_resolve(struct perf_sysfs *s, const char *text, struct perf_event_desc *ret, struct err *err);
void perf_event_desc_clear(struct perf_event_desc *d);

/* ---- perf_group.c: perf_event_open ---- */

enum perf_target_kind {
	PERF_TARGET_PID,    /* one task, on any CPU */
	PERF_TARGET_CGROUP, /* a cgroup's tasks, one group per CPU */
	PERF_TARGET_CPUS,   /* everything on the CPUs */
};

struct perf_target {
	enum perf_target_kind kind;
	pid_t pid;	 /* PERF_TARGET_PID */
	int cgroup_fd;	 /* PERF_TARGET_CGROUP: an open cgroup directory */
	const int *cpus; /* CGROUP and CPUS: the CPUs; NULL means every online CPU */
	size_t ncpus;
};

/* The raw counts of one event on one CPU (or the task), as the kernel reports them. */
struct perf_count {
	uint64_t value, enabled, running;
};

struct perf_group;

/* Opens `events` (every one of the same PMU, or software) as one kernel group per CPU (one in
 * total for a pid) and enables them. Failure text carries perf_advice() for the errno. */
int perf_group_new(const struct perf_event_desc *events, size_t nevents, const struct perf_target *target,
		   struct perf_group **ret, struct err *err);
void perf_group_free(struct perf_group *g);
size_t perf_group_events(const struct perf_group *g);
size_t perf_group_cpus(const struct perf_group *g); /* kernel groups: 1 for a pid */
/* Reads every kernel group: counts[cpu * nevents + event], perf_group_cpus() * nevents entries. */
int perf_group_read(struct perf_group *g, struct perf_count *counts, struct err *err);

/* ---- perf_delta.c: pure arithmetic on reads ---- */

/* Decodes a PERF_FORMAT_GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID read of `nbytes` into
 * counts[], matching each value by its id to ids[i]. -EPROTO on a short or inconsistent buffer. */
int perf_read_decode(const void *buf, size_t nbytes, const uint64_t *ids, size_t nevents, struct perf_count *counts,
		     struct err *err);

struct perf_delta {
	bool counted;	    /* false: the event never ran in the interval ("not counted", not 0) */
	uint64_t raw;	    /* value difference */
	uint64_t enabled;   /* time enabled in the interval, ns */
	uint64_t running;   /* time running in the interval, ns */
	double value;	    /* raw * enabled / running: the multiplexing estimate */
	double running_pct; /* 100 * running / enabled */
};

/* One event: after minus before. */
struct perf_delta perf_delta_compute(const struct perf_count *before, const struct perf_count *after);
/* An event over several CPUs: counts[cpu * nevents + event] for each of ncpus; sums the per-CPU
 * estimates of the CPUs where it ran. Not counted if it ran on none. */
struct perf_delta perf_delta_sum(const struct perf_count *before, const struct perf_count *after, size_t ncpus,
				 size_t nevents, size_t event);

/* ---- perf_advice.c: what to do about an errno from perf_event_open ---- */

/* Writes advice for `errnum` (positive) when opening `ev` (may be NULL) for `kind`, reading the
 * paranoid level from `paranoid_path` (NULL: PERF_PARANOID_PATH). Returns buf. */
const char *perf_advice(int errnum, const struct perf_event_desc *ev, enum perf_target_kind kind,
			const char *paranoid_path, char *buf, size_t size);

#endif
