/* The resctrl backend's parts (not a public API): text parsers, the probed capabilities, file
 * access relative to the resctrl root, groups, and counters. */
#ifndef MPAMD_BACKENDS_RESCTRL_RESCTRL_H
#define MPAMD_BACKENDS_RESCTRL_RESCTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backends/contracts/monitor.h"
#include "core/base/error.h"

#define RESCTRL_MAX_DOMAINS MONITOR_MAX_DOMAINS
#define RESCTRL_NAME_MAX    16
/* Room for a file that lists every domain (schemata, num_mbm_cntrs, mbm_L3_assignments): hosts with one
 * L3 per CCX have dozens, and each takes some 12 characters a line. */
#define RESCTRL_TEXT_MAX 8192
/* The most one write may carry: kernfs refuses a longer one with E2BIG (a page). */
#define RESCTRL_WRITE_MAX 4096

/* ---- parse.c: pure text parsers ---- */

struct schemata_domain {
	unsigned id;
	uint64_t value; /* a bitmap (hex) or an MB value (decimal) */
};

struct schemata_line {
	char resource[RESCTRL_NAME_MAX]; /* "L3", "MB", "L3CODE"... */
	struct schemata_domain domains[RESCTRL_MAX_DOMAINS];
	unsigned count;
};

struct schemata {
	struct schemata_line lines[8];
	unsigned count;
};

/* Parses a schemata file. Bitmaps (L3*, L2*) are hex, everything else decimal. */
int resctrl_parse_schemata(const char *text, struct schemata *ret, struct err *err);
const struct schemata_line *schemata_find(const struct schemata *s, const char *resource);
/* The value of domain `id`, or false. */
bool schemata_value(const struct schemata_line *line, unsigned id, uint64_t *ret);

/* "0=4;1=4" (num_mbm_cntrs, available_mbm_cntrs): up to `max` id=value pairs. */
int resctrl_parse_id_values(const char *text, struct schemata_domain *ret, unsigned max, unsigned *ret_count);

/* A mon_data counter file's `len` bytes (no NUL needed; one trailing newline allowed): a decimal byte
 * count, or one of the kernel's states, which become a static reason and -ENODATA ("Unavailable",
 * "Error") or -ENOENT ("Unassigned": the group holds no counter for the event in mbm_event mode, the
 * kernel's ENOENT). Anything else sets a static reason and fails, *ret untouched: -EINVAL when empty,
 * not a number, or followed by anything (a sign, blanks, hex, a second line are not the kernel's
 * "%llu\n"), -ERANGE for more than 20 digits or above 2^64 - 1. */
int resctrl_parse_counter(const char *text, size_t len, uint64_t *ret, const char **reason);

/* mbm_assign_mode: the mode in brackets is the active one. */
int resctrl_parse_assign_mode(const char *text, char *active, size_t len);

/* ---- files.c: I/O relative to the root ---- */

/* Reads a small file (up to len-1 bytes) into buf, NUL-terminated, trailing newline kept; -EFBIG when
 * it holds more. */
int resctrl_read_at(int dirfd, const char *path, char *buf, size_t len);
/* Reads a decimal or bare-hex number file. */
int resctrl_read_uint_at(int dirfd, const char *path, unsigned base, uint64_t *ret);
/* One write(2) of `text` to an existing file; returns 0 or -errno. */
int resctrl_write_at(int dirfd, const char *path, const char *text);
/* info/last_cmd_status without its newline ("" when unreadable). */
void resctrl_last_status(int rootfd, char *buf, size_t len);
/* err = "WHAT: strerror(r) (last_cmd_status: ...)", or that the kernel gave no reason; returns r. Call
 * it right after the failed write or mkdir. */
int resctrl_fail_with_status(int rootfd, struct err *err, int r, const char *what);
bool resctrl_exists_at(int dirfd, const char *path);

/* ---- probe.c ---- */

enum mb_units {
	MB_NONE,
	MB_PERCENT,  /* Intel, MPAM: percent of a domain, steps of bandwidth_gran */
	MB_ABSOLUTE, /* AMD: non-linear delay, absolute units (1/8 GB/s) up to the hardware's maximum */
	MB_MBPS,     /* mounted with mba_MBps: the kernel's controller owns MB */
};

/* Where AMD's MB maximum was learned. */
#define RESCTRL_MB_MAX_FROM_CPUID  "cpuid"
#define RESCTRL_MB_MAX_FROM_KERNEL "kernel"
#define RESCTRL_MB_MAX_FROM_ROOT   "default group"

/* AMD's MB unit: one eighth of a GB/s (Documentation/filesystems/resctrl.rst). */
#define RESCTRL_AMD_MBPS_PER_UNIT 125.0

struct resctrl_cache_res {
	bool present;
	char name[RESCTRL_NAME_MAX]; /* L3, L2, or L3CODE/L3DATA with CDP */
	unsigned num_closids;
	uint64_t cbm_mask;
	unsigned cbm_bits;
	unsigned min_cbm_bits;
	uint64_t shareable_bits;
	bool sparse_masks;
	unsigned domain_ids[RESCTRL_MAX_DOMAINS];
	unsigned domain_count;
};

struct resctrl_info {
	bool is_resctrl_mount; /* false: an explicit root that is not resctrl (an emulator or a copy) */
	struct resctrl_cache_res l3, l2;
	bool cdp_l3, cdp_l2;
	/* MB */
	bool mb_present;
	enum mb_units mb_units;
	unsigned mb_num_closids, bandwidth_gran, min_bandwidth;
	bool delay_linear;
	char thread_throttle_mode[RESCTRL_NAME_MAX];
	uint64_t mb_max_value; /* 100 for percent; the hardware's maximum for absolute units */
	/* What MB can hold (core/base/ladder.h): Intel's steps, MPAM's bands through Linux's MPAM glue
	 * (BWA_WD told by bandwidth_gran and min_bandwidth; 8 or more look alike), AMD's units. */
	struct ladder mb_ladder;
	unsigned mb_bwa_wd;	/* MPAM: the BWA_WD the ladder assumes (0 elsewhere) */
	char mb_max_source[16]; /* AMD: where mb_max_value came from, RESCTRL_MB_MAX_FROM_* */
	bool mb_bwa_wd_exact;	/* false: resctrl shows only that it is 8 or more */
	unsigned mb_domain_ids[RESCTRL_MAX_DOMAINS];
	unsigned mb_domain_count;
	/* monitoring: the resource whose info/RES_MON directory exists (L3 on most hosts; MB where the
	 * counters sit at the memory controllers), its domains mon_data/mon_RES_NN */
	bool mon_present;
	char mon_res[16];
	unsigned num_rmids;
	bool mbm_total, mbm_local, llc_occupancy;
	uint64_t max_threshold_occupancy;
	bool assign_supported; /* mbm_assign_mode exists */
	char assign_mode[32];  /* the active one */
	bool assign_on_mkdir;
	struct schemata_domain num_mbm_cntrs[RESCTRL_MAX_DOMAINS];
	unsigned num_mbm_cntrs_count;
	unsigned mon_domain_ids[RESCTRL_MAX_DOMAINS]; /* from mon_data/mon_RES_XX */
	unsigned mon_domain_count;
	bool debug;	       /* ctrl_hw_id exists: groups tell their CLOSID (MPAM PARTID) */
	bool io_alloc;	       /* info/L3/io_alloc reads "enabled": it holds the highest CLOSID */
	bool io_alloc_capable; /* info/L3/io_alloc exists */
	unsigned num_closids;  /* the smallest over the control resources */
};

/* Probes `root` (opened as rootfd). With `explicit_root`, a directory that is not a resctrl mount is
 * accepted with a warning; otherwise it is an error that says how to mount resctrl. */
int resctrl_probe(int rootfd, const char *root, bool explicit_root, struct resctrl_info *ret, struct err *err);

/* A JSON description for `mpamctl discover`. */
json_t *resctrl_info_to_json(const struct resctrl_info *info, const char *root);
/* That description for people (describe_print.c). */
void resctrl_describe_print(json_t *description, FILE *out);

/* ---- fs.c: a resctrl mount as the control and the monitor share it ---- */

struct resctrl_fs {
	int rootfd; /* -1 while resctrl is not mounted at root (it went while mpamd ran) */
	char *root;
	struct resctrl_info info;
	/* How often resctrl was found mounted again: a new mount starts with no groups, and with its
	 * counters assigned afresh (the monitor counts again what it may hand out). */
	unsigned mounts;
};

/* Opens and probes the mount at `root` (an explicit, non-default root may be a copy or an emulator). */
int resctrl_fs_new(const char *root, bool ask_kernel, struct resctrl_fs **ret, struct err *err);
void resctrl_fs_free(struct resctrl_fs *fs);
/* Cheap enough for every tick (an fstat and a stat): 0 when rootfd still is the mount the root's path
 * names. When it is not (resctrl was unmounted, or unmounted and mounted again), rootfd is closed at
 * once, and the mount there is opened and probed: 1 when it is resctrl again, a negative errno and
 * why while it is not back (or came back measuring other domains), rootfd then -1. The groups' and
 * counters' files on the old tree are their owners' to close: the old mount lives until they are. */
int resctrl_fs_reopen(struct resctrl_fs *fs, struct err *err);
/* The control's and the monitor's claim (claim.h): the mount at the configuration's resctrl_root, by
 * its real path, so that two spellings of one mount are one claim. */
int resctrl_claim_root(const struct config *config, const struct claim_sink *sink, struct err *err);

/* ---- partid.c: the PARTID MSC monitors count a group by, beside resctrl ---- */

struct config;
struct partition_config;

/* Whether monitor = auto may take the MSCs' MBWU monitors here (resctrl has no MBM, [msc] sections
 * exist, mmio_beside_kernel): it does if their windows can be mapped. */
bool resctrl_msc_may_count_groups(const struct resctrl_info *info, const struct config *config);
/* Whether nothing tells partition p's PARTID: no ctrl_hw_id (mounted without -o debug), no partid key. */
bool resctrl_partid_unknown(const struct resctrl_fs *fs, const struct partition_config *p);
/* -EOPNOTSUPP and what to do when monitor = mmio counts the groups and p's PARTID is unknown. */
int resctrl_check_partid_source(const struct resctrl_fs *fs, const struct config *config,
				const struct partition_config *p, struct err *err);
/* What to do about an unknown PARTID, into buf. */
void resctrl_partid_advice(const struct resctrl_fs *fs, char *buf, size_t len);

/* ---- group.c: one control group per partition ---- */

/* What a new group may still take: resctrl's CLOSIDs and RMIDs and how many are left, as far as the
 * groups that exist (and those planned before) tell; RMIDs in limbo cannot be seen. A mkdir when none
 * is left would fail and write the kernel's "Out of CLOSIDs" over info/last_cmd_status, which other
 * tools read: it is refused before it is made. */
struct resctrl_room {
	unsigned closids;	    /* resctrl's CLOSIDs, for the message when none is left */
	bool io_alloc;		    /* io_alloc holds a CLOSID too, for that message */
	unsigned closids_left;	    /* a mkdir is refused with -ENOSPC, as the kernel's would be, when 0 */
	bool rmids_counted;	    /* resctrl monitors: every group takes an RMID too */
	unsigned rmids, rmids_left; /* likewise for RMIDs */
	const char *mon_res;	    /* the monitoring resource, for info/RES_MON */
};

/* A dry run of the group functions below (`mpamctl check-config --host`): given a plan, each records
 * the writes it would make, and what it would do that writes nothing, instead of doing it. NULL:
 * the writes are made. */
struct resctrl_plan {
	const char *root;	  /* the recorded paths start here */
	struct resctrl_room room; /* what the groups planned so far leave */
	json_t *writes;		  /* [{"what", "path", "value"}] (struct control_plan) */
	json_t *notes;		  /* strings */
};

/* A group's path under the root: a control group's name, or CLASS/mon_groups/NAME for a monitoring
 * group in a class (classes = shared). */
#define RESCTRL_GROUP_PATH_MAX (2 * GROUP_PREFIX_MAX + NAME_MAX_LEN + 32)

struct resctrl_group {
	char name[RESCTRL_GROUP_PATH_MAX];
	int dirfd;    /* -1 for a group that is only planned */
	bool created; /* by this mpamd (or planned); false when an existing group was adopted */
	/* A monitoring group: a task enters it only from its control group (the kernel refuses one from
	 * another, "Can't move task to different control group"), whose directory (not owned) this is. */
	bool has_parent;
	int parent_dirfd;
	long hw_id; /* ctrl_hw_id (the CLOSID, on MPAM the PARTID), -1 when not shown */
	/* What the group's schemata holds, per MB / L3 domain index of resctrl_info. */
	bool mb_known, l3_known;
	uint64_t mb[RESCTRL_MAX_DOMAINS];
	uint64_t l3[RESCTRL_MAX_DOMAINS];
};

/* Creates the group, or adopts it when it exists. -ENOSPC when resctrl is out of CLOSIDs or RMIDs:
 * found in `room` (NULL: not looked at; a plan uses its own) before a mkdir, or the kernel's answer
 * without `room`; with it, the kernel's ENOSPC is -EAGAIN (what holds the room cannot be seen, and may
 * let go by itself: RMIDs in limbo), its message kept. */
int resctrl_group_open(int rootfd, const char *name, const struct resctrl_room *room, struct resctrl_group *g,
		       struct resctrl_plan *plan, struct err *err);
void resctrl_group_close(struct resctrl_group *g);
/* The control groups resctrl has at `rootfd`, the default group (the root) included: each holds a
 * CLOSID. */
unsigned resctrl_count_groups(int rootfd);
/* The groups at `rootfd` that hold an RMID: every control group and every monitoring group. */
unsigned resctrl_count_rmid_holders(int rootfd);

/* A monitoring group at `path` (CTRL/mon_groups/NAME): created, or adopted when it exists. It takes an
 * RMID and no CLOSID: -ENOSPC and why when `room` has no RMID left (no mkdir is made). */
int resctrl_mon_group_open(int rootfd, const char *path, int parent_dirfd, const struct resctrl_room *room,
			   struct resctrl_group *g, struct err *err);
/* rename(2) of monitoring group `g` to `path` (another control group's mon_groups): its RMID, counts
 * and tasks go with it (Linux 6.2 on, fs/resctrl/rdtgroup.c mongrp_reparent). 0 and g->name is the
 * new path and `parent_dirfd` its control group's, or a negative errno with the kernel's last_cmd_status. */
int resctrl_mon_group_rename(int rootfd, struct resctrl_group *g, const char *path, int parent_dirfd, struct err *err);
/* Moves every thread `from` lists into `to` (one write each; one that exited meanwhile is skipped),
 * listing again until `from` is empty or after a few passes: 0, or the first error. */
int resctrl_group_move_tasks(int rootfd, const struct resctrl_group *from, struct resctrl_group *to, struct err *err);
/* Whether renaming a monitoring group into another control group keeps its counts: x86 (Intel,
 * AMD), where an RMID is independent of the CLOSID. On Arm MPAM an RMID is a PMG of its PARTID: the
 * kernel allows the rename, but the group then names (new PARTID, old PMG), which none of its tasks
 * use (their counts read 0); mpamd never renames there. */
bool resctrl_rename_keeps_counts(const struct resctrl_info *info);

/* Writes the schemata lines whose values differ from `want` (MB rounded to the hardware's steps,
 * L3 on every domain), reads them back, and stores what is in force in *eff. */
int resctrl_group_apply(int rootfd, const struct resctrl_info *info, struct resctrl_group *g,
			const struct partition_limits *want, struct partition_limits *eff, struct resctrl_plan *plan,
			struct err *err);

/* Moves every thread of each process in `pids` into the group (the tasks file moves one thread per
 * id), one write per thread so one that has exited (ESRCH, not an error) cannot lose the others.
 * Threads already there are not written again; threads made during the move by threads not yet moved
 * are found by listing again. Threads started later by moved threads are in the group by themselves
 * (the kernel copies a creator's group at clone); others are not followed here. */
int resctrl_group_add_tasks(int rootfd, struct resctrl_group *g, const pid_t *pids, size_t count,
			    struct resctrl_plan *plan, struct err *err);
/* Moves thread `tid` into the group (one write to its tasks file): 0, -ESRCH when the thread has
 * exited (err untouched), another negative errno with the kernel's last_cmd_status. */
int resctrl_group_place(int rootfd, struct resctrl_group *g, pid_t tid, struct err *err);
/* The thread ids the group's tasks file lists, sorted ascending (*ret malloc'ed). */
int resctrl_group_tasks(const struct resctrl_group *g, pid_t **ret, size_t *ret_count, struct err *err);
/* Gives the group exactly these CPUs (cpus_list), unless it has them already. */
int resctrl_group_set_cpus(int rootfd, struct resctrl_group *g, const struct cpu_set *cpus, struct resctrl_plan *plan,
			   struct err *err);

/* An unthrottled group's MB under mba_MBps (the kernel's MBA_MAX_MBPS). */
#define RESCTRL_MBA_MAX_MBPS 4294967295ull

/* ---- pool.c: the groups under group_prefix are mpamd's ---- */

struct name_index;

/* Removes every control group at `rootfd` whose name starts with `prefix` and is not in `keep`
 * (group names): how many it removed, or a negative errno and why when none was and one could not
 * be. An empty prefix marks no group as mpamd's: nothing is removed. */
int resctrl_pool_tidy(int rootfd, const char *prefix, const struct name_index *keep, struct err *err);
/* The same for the monitoring groups in control group `ctrl`'s mon_groups: those under `prefix` that
 * are not in `keep` (their paths, CTRL/mon_groups/NAME) are removed. */
int resctrl_pool_tidy_mon(int rootfd, const char *ctrl, const char *prefix, const struct name_index *keep,
			  struct err *err);

/* ---- mb_ladder.c ---- */

/* Sets info->mb_ladder (and mb_max_value) for the MB control probe_mb found, reading only;
 * `root_value` is the default group's first MB value, AMD's maximum until a better source tells. */
void resctrl_mb_ladder_probe(uint64_t root_value, struct resctrl_info *info);
/* AMD whose maximum came from the default group: asks the kernel through a write it refuses (it
 * changes nothing but last_cmd_status), where writes reach a kernel or an emulator of one. 0, or
 * -ENODATA (said in the log) when the default group's value stays. */
int resctrl_mb_ask_kernel(int rootfd, struct resctrl_info *info);
/* The MB value to write for `pct` percent (the nearest rung's), and the percent (a rung) a value the
 * schemata shows stands for. */
uint64_t resctrl_mb_value(const struct resctrl_info *info, double pct);
double resctrl_mb_percent(const struct resctrl_info *info, uint64_t value);
/* Checks a cache bitmap against cbm_mask, min_cbm_bits and sparse_masks. */
int resctrl_check_cbm(const struct resctrl_cache_res *res, uint64_t cbm, struct err *err);
/* Whether resctrl can hold `want` at all: no mb_min (resctrl has no minimum), a valid L3 mask. */
int resctrl_check_limits(const struct resctrl_info *info, const struct partition_limits *want, struct err *err);

#endif
