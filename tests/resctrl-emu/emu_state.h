/* The emulated resctrl state: groups (the default CTRL_MON group, user CTRL_MON groups and their MON
 * groups), the controls each CLOSID holds per domain, tasks, and the parts other files manage
 * (counter assignment, traffic, faults). Group lifecycle (mkdir/rmdir with CLOSID and RMID
 * allocation) lives here; each file's rules live in the file named after it. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_STATE_H
#define MPAMD_TESTS_RESCTRL_EMU_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "backends/sim/traffic.h"
#include "core/config/model.h"
#include "emu_clock.h"
#include "emu_cpumask.h"
#include "emu_node.h"
#include "emu_profile.h"
#include "emu_status.h"

enum emu_counter_state {
	EMU_CNT_OK,
	EMU_CNT_UNAVAILABLE, /* the architecture returned EINVAL */
	EMU_CNT_ERROR,	     /* ... EIO */
	EMU_CNT_UNASSIGNED,  /* ... ENOENT (no counter in mbm_event mode) */
	EMU_CNT_ZERO,	     /* reads 0 while the count goes on (a read that failed otherwise: the
			      * kernel then prints the accumulated value, which can be 0) */
};

/* What one group made and measured in one L3 domain. */
struct emu_mon {
	double bytes;				      /* traffic since the group was created; fractions kept */
	double mbps;				      /* its rate over the last integrated span */
	double base[EMU_EVT_COUNT];		      /* `bytes` when the event's counter (re)started */
	int cntr[EMU_EVT_COUNT];		      /* assigned counter in mbm_event mode, -1 if none */
	enum emu_counter_state forced[EMU_EVT_COUNT]; /* set by the "counter" control command */
	uint64_t ready_ns[EMU_EVT_COUNT];	      /* an assigned counter is not ready (NRDY) before */
};

struct emu_group {
	char *name;	      /* "" for the default group */
	unsigned long serial; /* unique per group ever made: an open file outlives its group's name */
	bool is_mon;
	struct emu_group *parent; /* MON group: its CTRL_MON group */
	struct emu_group *next;	  /* the next CTRL_MON group, or the next MON group of the same parent */
	struct emu_group *mons;	  /* CTRL_MON group: its MON groups */
	unsigned closid;
	unsigned rmid;		       /* what mon_hw_id shows (the PMG on MPAM) */
	unsigned rmid_idx;	       /* the allocator's index */
	bool exclusive;		       /* mode: exclusive rather than shareable */
	enum emu_event mba_mbps_event; /* mba_MBps: the event the kernel's controller follows */
	struct emu_cpumask cpus;
	int partition; /* config partition whose demand this group makes, -1 for none */
	struct emu_mon mon[EMU_MAX_DOMAINS];
};

/* A thread of a process the emulator follows (emu_threads.c). A thread is known by its id and its
 * start time, so that a reused id is a new thread, as it is for the kernel. */
struct emu_task {
	pid_t tid;
	pid_t tgid;		  /* its process */
	unsigned long long start; /* /proc/TID/stat starttime, 0 if unreadable */
	struct emu_group *group;  /* the group it is in: the default group, a CTRL_MON or a MON group */
};

struct emu_options {
	const char *prefix;	   /* a group named prefix + partition name gets that partition's demand */
	bool debug;		   /* the -o debug mount option */
	unsigned ncpus;		   /* online CPUs: 0..ncpus-1 */
	unsigned possible_cpus;	   /* nr_cpu_ids, the width of every CPU mask (>= ncpus) */
	const char *proc_root;	   /* where the host's threads are listed: /proc, or a test's fake tree */
	unsigned llc_half_life_ms; /* how fast a removed group's cache lines fade (emu_ids.h) */
	unsigned nrdy_ms;	   /* MPAM: an assigned counter's not-ready time (emu_counters.h) */
	long root_mb;		   /* the default group's MB value at mount; 0 or -1: the maximum */
};

/* One fault armed through .emu_ctl: the next `remaining` operations (of its kind, on a path ending
 * in `suffix`) fail with `err` and change nothing; last_cmd_status then reads `status` (empty: "ok",
 * as the kernel's for an error it gives no message for). */
struct emu_fault {
	int err;	  /* 0: none armed */
	long remaining;	  /* EMU_FAULT_ALWAYS: until cleared */
	char suffix[256]; /* "" matches any path */
	char status[256];
};

#define EMU_FAULT_ALWAYS (-1L)

struct emu_faults {
	struct emu_fault write, mkdir, rmdir, rename;
};

/* An RMID in limbo (emu_ids.c). */
struct emu_limbo {
	uint64_t busy;			   /* bit per domain where it is still dirty; 0: not in limbo */
	uint64_t freed_ns;		   /* when it was freed, on the emulator's clock */
	double occupancy[EMU_MAX_DOMAINS]; /* the bytes it held in each domain then */
};

/* CLOSID and RMID allocators (emu_ids.c). */
struct emu_ids {
	uint32_t closid_free;		   /* bit per free CLOSID */
	unsigned rmid_free[EMU_MAX_RMIDS]; /* free RMID indices, least recently freed first */
	unsigned rmid_free_count;
	struct emu_limbo limbo[EMU_MAX_RMIDS]; /* by RMID index */
	unsigned limbo_count;
	unsigned dirty[EMU_MAX_CLOSIDS];	 /* RMIDs in limbo per CLOSID (where RMIDs depend on it) */
	uint64_t limbo_next_ns[EMU_MAX_DOMAINS]; /* each domain's next limbo check, UINT64_MAX when idle */
};

/* The traffic model's inputs and progress (emu_counters.c). */
struct emu_traffic {
	double capacity_mbps; /* per domain */
	uint64_t interval_ns; /* one sim_demand tick */
	struct traffic_rng rng;
	uint64_t demand_tick; /* the tick demand[] holds; UINT64_MAX before the first */
	double *demand;	      /* per config partition, MB/s, noise applied */
	bool *on;	      /* per config partition: its burst is on in the current segment */
	uint64_t last_ns;     /* traffic is integrated up to here */
	/* [sim] delay_ticks: the MB values at the end of each of the last delay_ticks ticks, the one of
	 * tick t at t % delay_ticks (NULL without a delay) */
	unsigned delay_ticks;
	uint32_t (*mb_past)[EMU_MAX_CLOSIDS][EMU_MAX_DOMAINS];
	/* [sim] measure_noise_pct: its own random sequence, and per config partition and domain the
	 * factor of this tick's counted bytes */
	unsigned measure_noise_pct;
	struct traffic_rng measure_rng;
	double *gain;
};

/* One assignable MBM counter of a domain (emu_assign.c). */
struct emu_cntr {
	struct emu_group *group; /* NULL when free */
	enum emu_event event;
};

struct emu_assign {
	bool enabled;			 /* mbm_assign_mode is mbm_event */
	bool on_mkdir;			 /* mbm_assign_on_mkdir */
	uint32_t evt_cfg[EMU_EVT_COUNT]; /* each MBM event's event_filter (struct mon_evt's evt_cfg) */
	struct emu_cntr cntr[EMU_MAX_DOMAINS][EMU_MAX_CNTRS];
};

struct emu {
	struct emu_profile prof;
	struct emu_options opt;
	const struct config *config; /* the -c file, NULL without one */
	struct emu_status status;
	struct emu_group *groups;			    /* CTRL_MON groups, the default group first */
	uint32_t l3[EMU_MAX_CLOSIDS][EMU_MAX_DOMAINS];	    /* the L3 CBMs; with CDP, the data ones */
	uint32_t l3_code[EMU_MAX_CLOSIDS][EMU_MAX_DOMAINS]; /* with CDP, the code ones */
	bool io_alloc;					    /* io_alloc enabled: it holds emu_io_alloc_closid() */
	uint32_t mb[EMU_MAX_CLOSIDS][EMU_MAX_DOMAINS];	    /* hardware values (see emu_mb_to_hw) */
	struct emu_ids ids;
	struct emu_task *tasks; /* the threads of the followed processes (emu_threads.c), by id */
	size_t task_count, task_cap;
	pid_t *procs; /* every process the last look at the proc root found, sorted */
	size_t proc_count;
	struct emu_assign assign;
	struct emu_clock clock;
	struct emu_traffic traffic;
	struct emu_faults faults;
	unsigned max_threshold; /* info/L3_MON/max_threshold_occupancy */
	time_t mount_time;
	bool vanish;		  /* the "vanish" command: unmount and exit once the current request is answered */
	unsigned long changes;	  /* writes, mkdirs, rmdirs and renames that succeeded (.emu_ctl's excepted) */
	unsigned long listings;	  /* directories listed (readdir): what a walk of the groups costs */
	unsigned long nrdy_waits; /* counter reads that waited for a not-ready monitor */
};

/* 0 or -ENOMEM. The profile and options are copied; config must outlive the emulator. */
int emu_init(struct emu *e, const struct emu_profile *p, const struct emu_options *o, const struct config *config);
void emu_fini(struct emu *e);

bool emu_debug(const struct emu *e);
/* Whether the emulated kernel is Linux `version` (major * 100 + minor) or later. */
bool emu_kernel_at_least(const struct emu *e, unsigned version);
/* A group's file read or written, or a group removed: what rdtgroup_kn_lock_live() does to
 * last_cmd_status, which from Linux 7.3 on it clears (7.2 leaves it to each handler). */
void emu_group_locked(struct emu *e);
/* A group file's write without its trailing newline (schemata, mode, mba_MBps_event): -EINVAL;
 * Linux 7.2 refuses it before touching last_cmd_status, 7.3 says "<file>: Invalid input". */
int emu_missing_newline(struct emu *e, const char *file);
struct emu_group *emu_default_group(struct emu *e);
/* Every group in turn: pass NULL for the first; CTRL_MON groups are followed by their MON groups. */
struct emu_group *emu_next_group(struct emu *e, struct emu_group *g);
/* The CTRL_MON group a group belongs to (itself for a CTRL_MON group). */
struct emu_group *emu_ctrl_of(struct emu_group *g);
struct emu_group *emu_find_ctrl(struct emu *e, const char *name);
struct emu_group *emu_find_mon(struct emu_group *ctrl, const char *name);
/* The CTRL_MON group holding a CLOSID, NULL if it is free. */
struct emu_group *emu_group_of_closid(struct emu *e, unsigned closid);
bool emu_closid_allocated(const struct emu *e, unsigned closid);
/* closids_supported(): the smallest CLOSID count of the schemata, halved for the L3 under CDP. */
unsigned emu_closids(const struct emu *e);
/* Whether MB is a schema: not on MPAM under CDP (mpam_resctrl.c resctrl_arch_set_cdp_enabled: "The
 * mbw_max feature can't hide cdp as it's a per-partid maximum", so MBA is no longer alloc_capable). */
bool emu_has_mb(const struct emu *e);
/* A CLOSID's L3 CBM in a domain: the code one with CDP when `code`, else the data (or only) one. */
uint32_t *emu_cbm(struct emu *e, bool code, unsigned closid, unsigned d);

/* mkdir at the root and in a mon_groups directory, rmdir of either: 0 or -errno, with the kernel's
 * last_cmd_status messages. */
int emu_mkdir_ctrl(struct emu *e, const char *name);
int emu_mkdir_mon(struct emu *e, struct emu_group *ctrl, const char *name);
/* A mkdir anywhere else: -EPERM where the parent belongs to a group (a CTRL_MON or MON group's own
 * directory, mon_data...), last_cmd_status cleared first; -ENODEV in info/, which has no group. */
int emu_mkdir_elsewhere(struct emu *e, enum emu_node_kind parent);
int emu_rmdir(struct emu *e, struct emu_group *g);
/* mongrp_reparent() (rename, emu_rename.h): MON group m goes to the end of parent's MON groups and
 * takes its CLOSID; its RMID, tasks and counts stay with it. */
void emu_mon_reparent(struct emu_group *m, struct emu_group *parent);

#endif
