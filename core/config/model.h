/* The typed configuration model: what a config file means once loaded. Every value is resolved
 * (defaults applied, units fixed), so nothing downstream parses strings.
 *
 * The model holds the sections every mpamd has ([global], [msc "NAME"], [partition "NAME"]). Backends
 * add sections and partition keys of their own through extensions (core/config/schema.h); their data
 * is reached with config_ext_data() and config_partition_ext(). */
#ifndef MPAMD_CORE_CONFIG_MODEL_H
#define MPAMD_CORE_CONFIG_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/parse.h"

enum partition_class {
	CLASS_DEFAULT,
	CLASS_LATENCY_CRITICAL,
	CLASS_BEST_EFFORT,
};

/* NULL-terminated, indexed by the enum (shared by the loader, the CLI and JSON). */
extern const char *const partition_class_names[];

/* Which threads of a partition's cgroup or VM are placed in its group. */
enum partition_threads {
	THREADS_ALL,  /* every thread */
	THREADS_VCPU, /* QEMU's vCPU threads only ("CPU n/KVM", "CPU n/TCG"), as libvirt's memorytune vcpus= */
};

extern const char *const partition_threads_names[];

/* What an MPAM MBW_MAX limit is where the MSC lets software choose (MPAMF_MBW_IDR.MAX_LIM 0). */
enum mb_max_mode {
	MB_MAX_SOFT, /* HARDLIM clear: idle bandwidth above the limit stays usable (as Linux's resctrl) */
	MB_MAX_HARD, /* HARDLIM set: nothing above the limit, idle or not */
};

extern const char *const mb_max_mode_names[];

/* What mpamd leaves in force when it stops (the on_stop key, --on-stop). */
enum stop_mode {
	STOP_KEEP,	 /* every limit as it is, the policies' dynamic ones too */
	STOP_CONFIGURED, /* the configured limits: the policies' cuts and CPU quotas released */
	STOP_RESET,	 /* no limits at all (no ceiling, no minimum, the whole cache, no CPU quota) */
};

extern const char *const stop_mode_names[];

/* Whether partitions share hardware classes (the classes key; mpamd.ini(5) CLASSES). */
enum classes_mode {
	CLASSES_OWN,	/* each partition a class of its own (a resctrl control group, a PARTID) */
	CLASSES_SHARED, /* partitions share classes; each is measured by itself (resctrl: a MON group) */
	CLASSES_AUTO,	/* shared where the partitions outnumber the classes the hardware has, else own */
};

extern const char *const classes_mode_names[];

#define PARTID_LIMIT	     65535u   /* MPAMF_IDR.PARTID_MAX is 16 bits */
#define PID_LIMIT	     4194304u /* PID_MAX_LIMIT on 64-bit Linux */
#define CPU_LIMIT	     4096u    /* CPUs a cpus key can name (0..CPU_LIMIT-1) */
#define GROUP_PREFIX_MAX     32
#define BANDWIDTH_LIMIT_MBPS 100000000u /* 100 TB/s: far above any host, far below overflow */
/* sizeof(sockaddr_un.sun_path) - 1: the longest control socket path a listener can bind. */
#define SOCKET_PATH_MAX 107
/* The smallest record_max_bytes: a file that holds a few ticks even of many partitions (a row is
 * about 100 bytes, so 64 partitions' ticks take some 6 KiB). */
#define RECORD_MAX_BYTES_MIN (64u * 1024u)
/* The longest VM name a vm key or a scope in the cgroup tree can give (libvirt's own limit is
 * higher, but machined's scope names cut it at 64 characters, and a partition name has 64). */
#define VM_NAME_MAX 255
/* The longest name the backend and monitor keys take (a registry's names, "auto"). */
#define CONFIG_KIND_MAX 15
/* Extensions a schema may have (one per backend that adds keys). */
#define CONFIG_MAX_EXTS 8

/* Per-domain values of a key (mb_max = 50,0=30): the key's own field holds the value of every domain
 * that is not named here; these replace it on the domains they name. A domain is named by the id the
 * control gives it (`mpamctl discover`): a resctrl domain id, or an MSC's position (0, 1...). Which
 * ids a host has is known only once its control is open. */
#define DOMAIN_VALUES_MAX 64 /* as many as a control has domains (AMD: one L3 per CCX, dozens a host) */
#define DOMAIN_ID_MAX	  65535u

struct domain_value {
	uint32_t domain;
	double value; /* in the key's unit: whole MB/s for capacity_mbps, a percent or MB/s for limits */
};

/* The domains named, in an array of exactly `count` (NULL when none): most partitions name none, and
 * 64 inline (DOMAIN_VALUES_MAX) cost a kilobyte a key in every copy of the goals. The array belongs to
 * the struct that holds it (a partition's or [global]'s in a configuration, the engine's copy of the
 * file's goals): a key's parse replaces it and frees the old one, and the holder's fini frees it. A
 * plain struct copy shares it: it is a view, for reading while the holder lives (copy a holder's
 * with domain_values_copy or partition_goals_copy). */
struct domain_values {
	uint32_t count;
	struct domain_value *at;
};

/* The value of domain `id`: its own when it is named, else `all`. */
double domain_values_get(const struct domain_values *v, uint32_t id, double all);
/* Whether domain `id` is named. */
bool domain_values_has(const struct domain_values *v, uint32_t id);
/* *dst becomes a copy of *src with an array of its own (what *dst held is not freed): 0 or -ENOMEM,
 * and then *dst names none. */
int domain_values_copy(struct domain_values *dst, const struct domain_values *src);
/* Frees the array: none named. */
void domain_values_free(struct domain_values *v);

/* A set of CPUs, as in cpus_list. */
struct cpu_set {
	uint64_t bits[CPU_LIMIT / 64];
	unsigned count;
};

bool cpu_set_has(const struct cpu_set *set, unsigned cpu);
/* "0-3,8" form; returns the length it would need, like snprintf. */
int cpu_set_format(const struct cpu_set *set, char *buf, size_t len);

/* Where a section came from: its header's line and the line of each key it sets. A key is known by
 * its index in the section's key table (for partitions: the base keys, then each extension's).
 * key_lines holds only the keys set, as pairs (index, line), ended by a pair whose line is 0: most
 * of a partition's keys are not set (the loader keeps a line for every key while it reads a
 * section, and config_origin_compact makes this of it). */
struct config_origin {
	unsigned line;
	unsigned *key_lines;
};

/* The line of key `index` (0: not set, or a negative index). */
unsigned config_origin_key_line(const struct config_origin *o, int index);
/* `dense` (a line for each of `count` keys, 0 where not set) as key_lines: a new array, or NULL when
 * out of memory. Only keys below `count` are kept. */
unsigned *config_origin_compact(const unsigned *dense, size_t count);
/* A copy of o's key_lines without keys from `count` on: a new array, or NULL when out of memory. */
unsigned *config_origin_copy(const struct config_origin *o, size_t count);

struct global_config {
	char backend[CONFIG_KIND_MAX + 1]; /* the control: a name of the schema's backends */
	bool backend_from_command_line;	   /* --backend replaced the file's key */
	char monitor[CONFIG_KIND_MAX + 1]; /* "auto" or a name of the schema's monitors */
	unsigned interval_ms;
	char *resctrl_root;
	char group_prefix[GROUP_PREFIX_MAX + 1]; /* resctrl groups are named PREFIX + partition name */
	uint32_t capacity_mbps; /* per domain, for hardware that cannot tell; 0: ask the backend or learn it */
	struct domain_values capacity_mbps_at; /* per-domain values of capacity_mbps */
	bool escalate;			       /* the escalation actuator may lower CPU quotas */
	bool mmio_beside_kernel;	       /* touch MSCs over MMIO although the kernel's MPAM driver drives them */
	unsigned mb_max_mode;		       /* enum mb_max_mode, for MSCs mpamd programs */
	unsigned on_stop;		       /* enum stop_mode */
	unsigned classes;		       /* enum classes_mode */
	char *socket;
	char *record;		/* NULL: no record file */
	char *metrics_textfile; /* NULL: none; else an absolute path ending in .prom */
	char *include;		/* NULL: none; else a glob of files with more [partition] sections */
	/* NULL: none; else the directory of mpamctl set --persist's files (core/config/config_persist.h),
	 * whose keys replace the main file's */
	char *persist_dir;
	uint64_t record_max_bytes; /* rotate the record to PATH.1 before it passes this; 0: no cap */
	/* Where partitions' cgroups and VMs' scopes are found: NULL for the host's cgroup mounts, else
	 * one directory of a cgroup hierarchy (tests point it at a private subtree). */
	char *cgroup_root;
	unsigned reconcile_ms; /* how often every partition's threads are checked (rounded up to ticks) */
	bool proc_connector;   /* new threads are placed on the kernel's proc connector events */
	struct config_origin origin;
};

struct msc_config {
	char name[NAME_MAX_LEN + 1];
	uint64_t base;
	uint64_t size;
	struct config_origin origin;
};

/* What a partition aims at: exactly the keys `mpamctl set` may change while mpamd runs (the key
 * table marks them CONFIG_KEY_RUNTIME and a test checks that those and only those live here). The
 * engine hands it to the policies whole, so a new goal needs no copying code. */
struct partition_goals {
	/* (Its narrow fields first, side by side: no padding between, in each copy of the goals.) */
	enum partition_class class;
	uint32_t guarantee_mbps; /* 0 = none */
	uint32_t target_mbps;	 /* 0 = none */
	unsigned weight;	 /* share of what is left among best-effort partitions */
	/* mb_min and mb_max: a percent of a domain's full scale (fractions allowed), or MB/s on each
	 * domain where the key says so ("6000MB/s": the *_mbps flag, for the key's every value). Either is
	 * a request: the hardware holds the rung its ladder puts it on (core/base/ladder.h). */
	bool mb_min_mbps;
	bool mb_max_mbps;
	double mb_min; /* 0 = no minimum */
	double mb_max;
	uint64_t l3_cbm;  /* 0 = not set: the backend leaves the cache portion alone */
	double ipc_guard; /* latency-critical: an IPC drop below its baseline, as a fraction, that makes it
			   * a victim of its neighbours (0 = off) */
	struct domain_values mb_min_at; /* per-domain values of mb_min (0 allowed: none there) */
	struct domain_values mb_max_at; /* per-domain values of mb_max */
};

/* *dst becomes a copy of *src whose per-domain values are its own (what *dst held is not freed): 0 or
 * -ENOMEM, and then *dst holds nothing to free. */
int partition_goals_copy(struct partition_goals *dst, const struct partition_goals *src);
/* Frees the goals' per-domain values. */
void partition_goals_fini(struct partition_goals *g);

/* Goals with room for a value on each domain, for code that works out goals of its own from a
 * partition's (domain_goals_pct: MB/s made percents) without an allocation. */
struct partition_goals_buf {
	struct partition_goals goals;
	struct domain_value max_at[DOMAIN_VALUES_MAX], min_at[DOMAIN_VALUES_MAX];
};

struct partition_config {
	char name[NAME_MAX_LEN + 1];
	uint16_t partid;
	bool has_partid;  /* false: no PARTID (resctrl allocates its own CLOSID) */
	bool partid_auto; /* not in the file: the simulator picked the lowest free PARTID */
	bool included;	  /* defined in a file the include key names, not in the main file */
	struct partition_goals goals;
	char *cgroup; /* relative to the cgroup root, normalized; NULL if none */
	char *vm;     /* a libvirt VM whose cgroup scope holds the partition's tasks; NULL if none */
	enum partition_threads threads;
	pid_t *pids;
	size_t pid_count;
	struct cpu_set *cpus; /* NULL if none: resctrl gives the group these CPUs */
	/* Each extension's data for it, in the schema's order; NULL where it sets none of the extension's
	 * keys (config_partition_ext reads the extension's defaults then). */
	void *ext[CONFIG_MAX_EXTS];
	struct config_origin origin;
};

/* [vm-template "NAME"]: every running VM whose name matches `match` gets a partition of its own,
 * named after the VM, with the template's keys. `partition` holds those keys (its name is the
 * template's; its origin.key_lines has the partition key space's lines, then match's). */
struct vm_template {
	char name[NAME_MAX_LEN + 1];
	char *match; /* a shell pattern, fnmatch(3) */
	struct partition_config partition;
};

struct config_ext;

/* An extension's data for one config: its own section's object and where it came from. */
struct config_ext_data {
	const struct config_ext *def;
	void *data;
	struct config_origin origin;
};

/* A partition key whose value a file of persist_dir gave (check-config says where each came from). */
struct config_persisted {
	char *file;    /* the persist_dir file, as its directory and name */
	unsigned line; /* its line there */
	char partition[NAME_MAX_LEN + 1];
	const char *key; /* the key table's name */
};

struct config {
	struct global_config global;
	struct msc_config *mscs;
	size_t msc_count;
	struct partition_config *partitions;
	size_t partition_count;
	struct vm_template *templates; /* in the file's order: the first that matches a VM makes it */
	size_t template_count;
	struct config_ext_data exts[CONFIG_MAX_EXTS];
	size_t ext_count;
	/* The values persist_dir's files replaced, in the order read (a later one of the same key wins);
	 * the loader's only: a clone has none. */
	struct config_persisted *persisted;
	size_t persisted_count;
};

/* Defaults of the base sections; used by the loader and by tests that build models by hand. The
 * backend is left empty: its default is the schema's (its first backend), which the loader sets. */
void global_config_defaults(struct global_config *g);
/* A partition at its defaults holds no extension data: each extension's is made when one of its
 * keys is set (config_partition_ext_own). */
void partition_config_defaults(struct partition_config *p);

/* Frees what a partition holds (its extensions' data through `config`'s extension table). */
void partition_config_fini(const struct config *config, struct partition_config *p);
/* Frees what a [global] section holds: its strings (one list, so that a new string key is freed
 * everywhere) and its per-domain values. */
void global_config_fini_owned(struct global_config *g);
/* Gives `dst` (a copy of `src` made with memcpy) copies of what src holds, its strings and its
 * per-domain values: 0 or -ENOMEM (dst's may then be freed as usual). */
int global_config_copy_owned(struct global_config *dst, const struct global_config *src);
/* Frees what a template holds. */
void vm_template_fini(const struct config *config, struct vm_template *t);
void config_free(struct config *config);

/* The data of extension `ext` (its section's object), or NULL when the schema had no such extension. */
void *config_ext_data(const struct config *config, const struct config_ext *ext);
/* Partition `p`'s data of extension `ext` to read: its own, else the extension's defaults (it sets
 * none of the extension's keys); NULL when the schema had no such extension. */
const void *config_partition_ext(const struct config *config, const struct partition_config *p,
				 const struct config_ext *ext);
/* Partition `p`'s own data of extension `ext`, made (at its defaults) if it had none: to write a key
 * into. NULL: out of memory, or no such extension in the schema. */
void *config_partition_ext_own(const struct config *config, struct partition_config *p, const struct config_ext *ext);
/* Where a partition key owned by `owner` (NULL: the core's own keys) is read for partition p. */
static inline const void *config_partition_key_object(const struct config *config, const struct partition_config *p,
						      const struct config_ext *owner)
{
	return owner ? config_partition_ext(config, p, owner) : (const void *)p;
}

/* Lookups by name; NULL when absent. */
const struct partition_config *config_find_partition(const struct config *config, const char *name);

#endif
