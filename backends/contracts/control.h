/* The control contract: where a partition's limits go (resctrl groups, MPAM MSC registers, the
 * simulator). A control probes what the hardware can do, opens (or adopts) each partition, applies
 * limits rounded to the hardware's steps, and describes itself for `mpamctl discover`. It decides
 * nothing: the engine tells it what to apply. It may also plan: say what it would write for a
 * partition without writing it (`mpamctl check-config --host`).
 *
 * Partitions are addressed by their slot (the "index" below): a number the engine gives a partition for
 * its lifetime, which adding or removing another partition never changes. Slots are not bounded by
 * the configuration a control was opened with (a reload adds partitions), and a slot closed or
 * removed may be given to another partition. A failure concerns that partition only; the others
 * carry on. */
#ifndef MPAMD_BACKENDS_CONTRACTS_CONTROL_H
#define MPAMD_BACKENDS_CONTRACTS_CONTROL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "backends/contracts/claim.h"
#include "core/base/clock.h"
#include "core/base/error.h"
#include "core/base/ladder.h"
#include "core/config/model.h"

#define CONTROL_MAX_DOMAINS 64

/* The namespaces of domain ids (control_domain.id_space, monitor_domain.id_space): a monitor's
 * domain measures the control's domain of the same space and id. */
#define DOMAIN_SPACE_RESCTRL "resctrl" /* resctrl domain ids (schemata, mon_data/mon_RES_NN) */
#define DOMAIN_SPACE_MSC     "msc"     /* an MSC's position in the set the control and monitor share */

/* A domain the control sets bandwidth limits in (resctrl: an MB domain of the schemata; MPAM over
 * MMIO: an MSC with bandwidth controls). Limits are per domain; the configuration names a domain by
 * its id (mb_max = 0=30,1=100). */
struct control_domain {
	unsigned id;
	char name[NAME_MAX_LEN + 8]; /* for people: "MB domain 0", "msc mem0" */
	const char *id_space;	     /* DOMAIN_SPACE_* */
	/* The settings its MB ceiling and minimum can hold (core/base/ladder.h); a ladder without rungs
	 * where there is no such control. */
	struct ladder max_ladder, min_ladder;
};

/* Limits of one partition, in percent of each domain's full scale (fractional: the hardware's rungs,
 * core/base/ladder.h, are often not whole percents). mb_min 0 means none, l3_cbm 0 leaves the cache
 * portion as it is. What a control applies is snapped to its ladders first (control_snap_limits);
 * what it returns is always a rung. */
struct partition_limits {
	double mb_max;
	double mb_min;
	uint64_t l3_cbm;
	/* With control_caps.mb_kernel_mbps: each domain's MB/s ceiling, which the kernel's own
	 * controller holds (0: none). Ignored elsewhere. */
	unsigned mb_mbps;
	/* Per domain, when domain_count is the control's (control_caps.domain_count): mb_max_at[d] and
	 * mb_min_at[d] are the limits of control_caps.domains[d], in place of mb_max and mb_min. 0:
	 * mb_max and mb_min on every domain. What apply returns has every domain's, and mb_max and
	 * mb_min the highest of them (limits_summarise). */
	unsigned domain_count;
	double mb_max_at[CONTROL_MAX_DOMAINS];
	double mb_min_at[CONTROL_MAX_DOMAINS];
	/* In what apply returns: the hardware held limits mpamd had not set (another tool changed
	 * them); they have been put back. Controls that always rewrite everything leave it false.
	 * When apply fails with it set, they could not be put back: the other tool's limits, which
	 * the rest of *effective then holds, are in force. */
	bool changed_outside;
};

/* The limits of domain d. */
static inline double limits_max_at(const struct partition_limits *l, unsigned d)
{
	return d < l->domain_count ? l->mb_max_at[d] : l->mb_max;
}

static inline double limits_min_at(const struct partition_limits *l, unsigned d)
{
	return d < l->domain_count ? l->mb_min_at[d] : l->mb_min;
}

/* Whether two limits put the same MB limits in force on a control of `domains` domains. */
static inline bool limits_same_mb(const struct partition_limits *a, const struct partition_limits *b, unsigned domains)
{
	if (a->mb_mbps != b->mb_mbps)
		return false;
	if (!domains)
		return a->mb_max == b->mb_max && a->mb_min == b->mb_min;
	for (unsigned d = 0; d < domains; d++)
		if (limits_max_at(a, d) != limits_max_at(b, d) || limits_min_at(a, d) != limits_min_at(b, d))
			return false;
	return true;
}

/* Whether any domain (or the summary) asks for a minimum. */
static inline bool limits_any_min(const struct partition_limits *l)
{
	bool any = l->mb_min != 0;

	for (unsigned d = 0; d < l->domain_count && !any; d++)
		any = l->mb_min_at[d] != 0;
	return any;
}

/* The lowest ceiling of any domain (or the summary). */
static inline double limits_lowest_max(const struct partition_limits *l)
{
	double lowest = l->mb_max;

	for (unsigned d = 0; d < l->domain_count; d++)
		lowest = l->mb_max_at[d] < lowest ? l->mb_max_at[d] : lowest;
	return lowest;
}

/* No MB limit on any of `domains` domains: 100%, no minimum. */
static inline struct partition_limits limits_unlimited(unsigned domains)
{
	struct partition_limits l = { .mb_max = 100, .domain_count = domains };

	for (unsigned d = 0; d < domains; d++)
		l.mb_max_at[d] = 100;
	return l;
}

/* mb_max and mb_min as the highest of the per-domain values (the partition's summary: what a tool that
 * reads one limit per partition sees). */
static inline void limits_summarise(struct partition_limits *l)
{
	if (!l->domain_count)
		return;
	l->mb_max = l->mb_min = 0;
	for (unsigned d = 0; d < l->domain_count; d++) {
		l->mb_max = l->mb_max_at[d] > l->mb_max ? l->mb_max_at[d] : l->mb_max;
		l->mb_min = l->mb_min_at[d] > l->mb_min ? l->mb_min_at[d] : l->mb_min;
	}
}

/* What a control found when it probed the hardware. */
struct control_caps {
	unsigned partitions_max; /* PARTIDs (MPAM) or CLOSIDs (resctrl), all domains together */
	/* Of those, held before mpamd opens any partition: resctrl's default group has a CLOSID. */
	unsigned partitions_reserved;
	unsigned pmgs;
	/* The settings MB limits can hold where no domain is named (domain_count 0), or where one ladder
	 * must serve every domain (a decision for the host as a whole): the coarsest of the domains'. No
	 * rungs without MB control (or without MBW_MIN for min_ladder). */
	struct ladder max_ladder, min_ladder;
	bool has_mb_min;
	/* MB limits are MB/s ceilings a controller of the kernel's holds (resctrl mounted with
	 * mba_MBps): mpamd must not run a bandwidth loop of its own on top. */
	bool mb_kernel_mbps;
	unsigned cbm_bits; /* 0 without cache portion control */
	/* Where MB limits are set, one by one (0: no MB control, or nowhere to tell them apart). */
	unsigned domain_count;
	struct control_domain domains[CONTROL_MAX_DOMAINS];
};

/* The ladders of domain d (the control-wide ones past its domains). */
static inline const struct ladder *control_max_ladder(const struct control_caps *c, unsigned d)
{
	return d < c->domain_count ? &c->domains[d].max_ladder : &c->max_ladder;
}

static inline const struct ladder *control_min_ladder(const struct control_caps *c, unsigned d)
{
	return d < c->domain_count ? &c->domains[d].min_ladder : &c->min_ladder;
}

/* Puts every limit of `l` on a rung of its domain's ladders: a ceiling on the nearest (a tie goes
 * down), a minimum on the nearest at or above it (a minimum is never short), 0 staying "none". The
 * one place a limit is rounded: policies decide rungs already, a configured or `set` value is snapped
 * here, and controls write the rung's value. */
void control_snap_limits(const struct control_caps *c, struct partition_limits *l);
/* One ceiling or minimum (0: none) on its ladder, as control_snap_limits puts it; a ladder without
 * rungs leaves the value as it is. */
double control_snap_max(const struct ladder *l, double pct);
double control_snap_min(const struct ladder *l, double pct);

/* How the hardware knows an open partition: what monitors and actuators need to find it again. */
struct partition_ref {
	const struct partition_config *config;
	const char *group; /* resctrl: the group's name; NULL elsewhere */
	int group_dirfd;   /* resctrl: the group's directory (owned by the control); -1 elsewhere */
	long hw_id;	   /* the PARTID (MPAM) its traffic carries, -1 when the control cannot tell */
	/* Why no monitor can count this partition by itself, NULL when one can: resctrl on Arm MPAM with
	 * classes = shared, its tasks in its class's own group when the class's PARTID has no PMG left for
	 * a monitoring group of its own. Monitors are not given such a partition (the class group's count
	 * is the whole class's); its samples are invalid with this reason. Owned by the control. */
	const char *unmeasured;
};

/* Hardware a control drives that monitors and actuators composed with it may use too (opaque here;
 * each is defined by the backend that owns it). NULL where the control has none. */
struct msc_set;
struct resctrl_fs;
struct sim_host;
struct ground_truth; /* backends/contracts/ground_truth.h */

/* How a control lets user space put a thread in a partition (resctrl: the group's tasks file takes one
 * thread id per write). */
struct thread_placer {
	void *ctx;
	/* Moves thread `tid` into partition `index`: 0; -ESRCH when the thread has exited (no message);
	 * another negative errno and why (the kernel's words). */
	int (*place)(void *ctx, size_t index, pid_t tid, struct err *err);
	/* The threads partition `index` holds now, sorted ascending (*ret malloc'ed). */
	int (*members)(void *ctx, size_t index, pid_t **ret, size_t *ret_count, struct err *err);
};

struct control_shared {
	struct clock *clock;
	struct msc_set *mscs;	    /* MPAM MSCs: mmio, sim */
	struct resctrl_fs *resctrl; /* a resctrl mount: resctrl */
	struct sim_host *sim;	    /* the simulated host: sim */
	/* NULL where tasks cannot be placed, and then why not in `cannot_place`: MPAM over MMIO (the
	 * kernel gives each task its PARTID, user space cannot), the simulator (it has no tasks). */
	const struct thread_placer *placer;
	const char *cannot_place;
	/* What a simulated host really served, to report beside the measurements; NULL on real
	 * hardware. */
	const struct ground_truth *truth;
};

/* What a control would do for one partition, found without writing anything (control_ops.plan). */
struct control_plan {
	/* Every write partition_open and apply would make, in order: an array of {"what", "path" or
	 * "msc", "value"}. resctrl: "mkdir" (no value), "tasks" (one thread id per write), "cpus_list",
	 * "schemata" (its lines, one write), each with the file's path. MPAM: the register's name
	 * ("MPAMCFG_MBW_MAX"...) with the MSC's name, "ris" and "partid" (MPAMCFG_PART_SEL selects them
	 * before each write) and the value in hex. */
	json_t *writes;
	/* What it would do that writes nothing, a sentence each ("adopt existing group ..."). */
	json_t *notes;
	/* What would be in force afterwards, as apply would report it. */
	struct partition_limits effective;
};

static inline void control_plan_fini(struct control_plan *plan)
{
	json_decref(plan->writes);
	json_decref(plan->notes);
	plan->writes = plan->notes = NULL;
}

struct control;

/* Classes (classes = shared): partitions share hardware allocations (resctrl: CTRL_MON groups, each a
 * CLOSID) while each keeps what measures it (resctrl: a MON group of its own, with its own RMID, inside
 * its class's group). Which partition is in which class, and what each class holds, the engine decides
 * (policies/class_assign.c); the control only makes the classes, writes their limits and moves
 * partitions between them. Classes are numbered 0.. by the engine. */
struct class_room {
	unsigned held;			  /* classes the control holds now */
	unsigned left;			  /* more it could make (the hardware's left, as far as it can tell) */
	bool monitors_counted;		  /* the hardware has a number of monitors (resctrl: RMIDs) */
	unsigned monitors, monitors_used; /* how many, and how many are held (by any group, mpamd's or not) */
	const char *monitors_name;	  /* what the hardware calls them ("RMIDs"); NULL: "monitors" */
};

/* What control_class_ops.move did. */
enum class_move {
	CLASS_MOVE_CONTINUES = 0, /* the partition's group went with its counts (resctrl: rename of the MON group) */
	CLASS_MOVE_ANEW = 1,	  /* it is in a new group whose counts start afresh: *ref changed, the monitors
				   * must take it again (a new baseline) */
};

struct control_class_ops {
	/* From now on partitions open as members of classes; asked once, before any partition opens. */
	int (*share)(struct control *control, struct err *err);
	/* Classes held and left, monitors held and left. With `recount` the hardware is read again (another
	 * tool may have taken or freed room: not on every tick); without, the control may answer from
	 * what it read last and what it made and removed since. */
	void (*room)(struct control *control, bool recount, struct class_room *ret);
	/* The class partition `index` opens in at its next partition_open (kept until changed). */
	void (*set_class)(struct control *control, size_t index, unsigned cls);
	/* Makes class `cls` when it does not exist, and programs `limits` there, as apply does for a
	 * partition: what is in force into *effective. -ENOSPC and why when no class can be made. */
	int (*apply)(struct control *control, unsigned cls, const struct partition_limits *limits,
		     struct partition_limits *effective, struct err *err);
	/* Moves open partition `index` into class `cls` (which apply made): enum class_move, or a negative
	 * errno and why (the partition stays where it was). Its counts never double or get lost: where
	 * they cannot go with it, it says CLASS_MOVE_ANEW. `cls` may be the class it is in when it is not
	 * measured by itself (ref->unmeasured): it is then given a group of its own if the class has a
	 * monitoring id for one now (ref->unmeasured NULL after), and stays as it was otherwise. */
	int (*move)(struct control *control, size_t index, unsigned cls, struct partition_ref *ref, struct err *err);
	/* Class `cls` has no partition any more: removed (what it holds goes back to the hardware). */
	int (*release)(struct control *control, unsigned cls, struct err *err);
};

struct control_ops {
	const char *name;	 /* the backend key's value */
	const char *description; /* one line for --help: what it drives */
	/* Runs on simulated time and drives no hardware: the engine composes the simulator's actuators
	 * with it, its composition claims nothing, and its [msc] windows are not held to pages. */
	bool simulated;
	/* Keys this control adds to the configuration (NULL: none). */
	const struct config_ext *config_ext;
	/* Names every resource the config has it drive, which no other mpamd may drive at the same time
	 * (see claim.h), before anything is opened: touches nothing, may resolve paths. NULL: none. */
	int (*claims)(const struct config *config, const struct claim_sink *sink, struct err *err);
	/* Opens the hardware the config names. `clock` is the engine's. */
	int (*open)(const struct config *config, struct clock *clock, struct control **ret, struct err *err);
	/* Opens it only to plan, probing without changing anything a running mpamd relies on (MMIO: no
	 * NRDY test on a monitor, no error status cleared, PART_SEL put back as found). The control
	 * probes, validates, plans and describes; it refuses to apply. NULL: open changes nothing. */
	int (*open_to_plan)(const struct config *config, struct clock *clock, struct control **ret, struct err *err);
	void (*free)(struct control *control);
	void (*probe)(struct control *control, struct control_caps *ret);
	/* What it lends to monitors and actuators (fields it has none of stay NULL). */
	void (*share)(struct control *control, struct control_shared *ret);
	/* Makes partition `index` ready (resctrl: create or adopt its group, move its tasks; MPAM: check
	 * its PARTID) and says how to find it. */
	int (*partition_open)(struct control *control, size_t index, const struct partition_config *p,
			      struct partition_ref *ret, struct err *err);
	/* Forgets partition `index` (the hardware keeps its limits; nothing is removed): before it is
	 * opened again, or when mpamd stops. */
	void (*partition_close)(struct control *control, size_t index);
	/* Partition `index` is gone from the configuration: closes it and removes from the hardware what
	 * partition_open created for it (resctrl: its group, only when this mpamd made it; a group it
	 * adopted is left as it was). A failure to remove is said in err; the slot is closed anyway.
	 * NULL: partition_close (nothing was created). */
	int (*partition_remove)(struct control *control, size_t index, struct err *err);
	/* Removes what this control made in an earlier run or for an earlier configuration that no
	 * partition named in `keep` uses any more (resctrl: the groups under group_prefix; a group this
	 * mpamd adopted is never removed). The engine asks at start, before any partition opens, and
	 * after each change of the partitions. The number removed (more than 0: room was freed, so a
	 * partition that found none may try again), or a negative errno and why (what could be removed
	 * was). NULL: this control leaves nothing behind. */
	int (*tidy)(struct control *control, const char *const *keep, size_t count, struct err *err);
	/* Whether the hardware went away (resctrl unmounted, or unmounted and mounted again), and opens
	 * it again once it is back. Asked every tick, so it must be cheap when nothing went. 1: reopened
	 * (every partition must be opened again), 0: it had not gone, a negative errno and why while it
	 * is gone: the engine then closes every open partition, so that no backend keeps a file of the
	 * old hardware open. NULL: nothing of this control can go away. */
	int (*recover)(struct control *control, struct err *err);
	/* Whether the hardware can hold `limits` at all (a cache mask outside the host's, a minimum it
	 * has no control for), writing nothing: -EOPNOTSUPP or -ERANGE and why. Rounding to the
	 * hardware's steps is not a refusal. */
	int (*validate)(struct control *control, const struct partition_limits *limits, struct err *err);
	/* Programs limits on every domain (each its own, see partition_limits.domain_count), rounded to
	 * the hardware's steps; stores what is in force on each domain in *effective (read back from the
	 * hardware where possible). A failure changes nothing, except as changed_outside says. */
	int (*apply)(struct control *control, size_t index, const struct partition_limits *limits,
		     struct partition_limits *effective, struct err *err);
	/* A dry run of partition_open and apply for partition `index` (`p`, not opened) with `limits`
	 * that validate accepted: fills *ret (the caller frees it with control_plan_fini), writing
	 * nothing, through the code apply runs, so the two cannot disagree. Plans are made in partition
	 * order, each counting what the earlier ones would take (resctrl: a CLOSID per new group). What
	 * partition_open or apply would refuse is refused the same way (-ENOSPC no CLOSID left, -ERANGE
	 * a PARTID above PARTID_MAX...), and *ret is then empty. NULL: this control cannot plan. */
	int (*plan)(struct control *control, size_t index, const struct partition_config *p,
		    const struct partition_limits *limits, struct control_plan *ret, struct err *err);
	/* Everything probed, for `mpamctl discover`: a JSON object. */
	json_t *(*describe)(struct control *control);
	/* Prints what describe returned for people (discover without --json); the engine has added
	 * "backend" (this control's name), "monitor", "monitors" and "pmu". NULL: the JSON is printed. */
	void (*describe_print)(json_t *description, FILE *out);
	/* How many tasks partition `index` holds now (resctrl: the lines of its group's tasks file), for
	 * `mpamctl show`; -ENOTSUP where the control has no tasks (NULL: the same). */
	int (*partition_tasks)(struct control *control, size_t index, size_t *ret);
	/* Partitions may share classes (control_class_ops); NULL: each partition is a class of its own. */
	const struct control_class_ops *classes;
};

/* Implementations embed this as their first member. */
struct control {
	const struct control_ops *ops;
};

#endif
