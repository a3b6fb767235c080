/* The typed configuration model: what a config file means once loaded. Every value is resolved
 * (defaults applied, units fixed), so nothing downstream parses strings. */
#ifndef MPAMD_CORE_MODEL_H
#define MPAMD_CORE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/parse.h"

enum backend_kind {
	BACKEND_RESCTRL,
	BACKEND_MMIO,
	BACKEND_SIM,
};

enum monitor_kind {
	MONITOR_AUTO,
	MONITOR_RESCTRL,
	MONITOR_MMIO,
};

enum partition_class {
	CLASS_DEFAULT,
	CLASS_LATENCY_CRITICAL,
	CLASS_BEST_EFFORT,
};

/* NULL-terminated name tables, indexed by the enums above (shared by loader, CLI and JSON). */
extern const char *const backend_kind_names[];
extern const char *const monitor_kind_names[];
extern const char *const partition_class_names[];

#define PARTID_LIMIT	     65535u   /* MPAMF_IDR.PARTID_MAX is 16 bits */
#define PID_LIMIT	     4194304u /* PID_MAX_LIMIT on 64-bit Linux */
#define CPU_LIMIT	     4096u    /* CPUs a cpus key can name (0..CPU_LIMIT-1) */
#define GROUP_PREFIX_MAX     32
#define BANDWIDTH_LIMIT_MBPS 100000000u /* 100 TB/s: far above any host, far below overflow */

/* Simulated demand: piecewise constant, point i holds from its tick until the next point's tick.
 * A constant demand is one point at tick 0. Before the first point the demand is 0. */
struct demand_point {
	uint64_t tick;
	uint32_t mbps;
};

struct demand_profile {
	struct demand_point *points;
	size_t count; /* 0: no demand configured (an idle partition) */
};

/* A set of CPUs, as in cpus_list. */
struct cpu_set {
	uint64_t bits[CPU_LIMIT / 64];
	unsigned count;
};

bool cpu_set_has(const struct cpu_set *set, unsigned cpu);
/* "0-3,8" form; returns the length it would need, like snprintf. */
int cpu_set_format(const struct cpu_set *set, char *buf, size_t len);

struct global_config {
	enum backend_kind backend;
	enum monitor_kind monitor;
	unsigned interval_ms;
	char *resctrl_root;
	char group_prefix[GROUP_PREFIX_MAX + 1]; /* resctrl groups are named PREFIX + partition name */
	uint32_t capacity_mbps; /* per domain, for hardware that cannot tell; 0: ask the backend or learn it */
	bool escalate;		/* the escalation actuator may lower CPU quotas */
	char *socket;
	char *record; /* NULL: no record file */
};

struct msc_config {
	char name[NAME_MAX_LEN + 1];
	uint64_t base;
	uint64_t size;
	unsigned line; /* where its section starts, for messages */
};

/* The simulated host (backend = sim): see mpamd.ini(5) for each key. */
struct sim_config {
	unsigned mscs;
	uint32_t capacity_mbps; /* per MSC */
	unsigned monitors;	/* MBWU monitors per MSC */
	unsigned counter_bits;	/* 31, 44 or 63 */
	unsigned scale;		/* MBWUMON_IDR.SCALE */
	unsigned bwa_wd;
	unsigned nrdy_ticks;
	unsigned partid_max;
	uint64_t seed;
	unsigned noise_pct;
};

struct partition_config {
	char name[NAME_MAX_LEN + 1];
	uint16_t partid;
	bool has_partid;  /* false: no PARTID (resctrl allocates its own CLOSID) */
	bool partid_auto; /* not in the file: the loader picked the lowest free PARTID */
	enum partition_class class;
	char *cgroup; /* relative to the cgroup root, normalized; NULL if none */
	pid_t *pids;
	size_t pid_count;
	struct cpu_set *cpus;	 /* NULL if none: resctrl gives the group these CPUs */
	unsigned mb_min;	 /* percent; 0 = no minimum */
	unsigned mb_max;	 /* percent */
	uint32_t guarantee_mbps; /* 0 = none */
	uint32_t target_mbps;	 /* 0 = none */
	uint64_t l3_cbm;	 /* 0 = not set: the backend leaves the cache portion alone */
	unsigned weight;	 /* share of what is left among best-effort partitions */
	struct demand_profile sim_demand;
	unsigned line;
};

struct config {
	struct global_config global;
	struct sim_config sim;
	struct msc_config *mscs;
	size_t msc_count;
	struct partition_config *partitions;
	size_t partition_count;
};

/* Defaults of every section; used by the loader and by tests that build models by hand. */
void global_config_defaults(struct global_config *g);
void sim_config_defaults(struct sim_config *s);
void partition_config_defaults(struct partition_config *p);

void partition_config_fini(struct partition_config *p);
void config_free(struct config *config);

/* Demand of a profile at a tick. */
uint32_t demand_profile_at(const struct demand_profile *d, uint64_t tick);

#endif
