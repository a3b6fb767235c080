/* The contract every feedback policy follows: state in, limits out, no I/O.
 *
 * Each tick the engine fills a policy_host and one policy_partition per configured partition,
 * sets every decision to the limits the configuration asks for, and runs the chain of policies in
 * order (static, target, guard, share, escalate); each policy reads the state and the decisions of
 * the policies before it and adjusts the decisions. The engine then rounds the decisions to the
 * hardware's steps, applies only what changed, and logs every non-empty event. An event is logged when
 * something changes: a policy that would only repeat itself says nothing and counts the event as folded.
 *
 * Domains. Limits are set per domain (a socket's memory controllers, an MSC) and rates measured per
 * domain, so a partition pinned to one domain is judged and limited there alone. The host has
 * domain_count domains; each partition brings one struct policy_domain per domain (its rate and
 * limits there, and the policies' memory of it) and each decision one limit per domain. A host
 * without domain arrays (domain_count 0) is one domain whose figures are the totals: its partitions'
 * rate, limits and decision are the scalar fields, and their memory of that domain is domains[0]. Every
 * policy works the same on both (policies/domains.h).
 *
 * A policy may keep memory between ticks in its own member of policy_partition (the engine stores
 * it and never looks inside; the target controller's only for a partition with a target, see
 * policy_partition.target). Everything else a policy needs arrives in its arguments, so each one
 * can be unit-tested on synthetic histories and replayed against a recorded or simulated run. */
#ifndef MPAMD_POLICIES_POLICY_H
#define MPAMD_POLICIES_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/ladder.h"
#include "core/config/model.h"

#define POLICY_EVENT_MAX 384
/* Domains a host may have (as many as a control may probe). */
#define POLICY_MAX_DOMAINS 64

/* One domain of the host this tick. */
struct policy_host_domain {
	/* The settings a ceiling and a minimum can hold here (core/base/ladder.h): decisions are rungs. */
	const struct ladder *max_ladder, *min_ladder;
	double capacity_mbps;  /* 0 when unknown */
	bool capacity_learned; /* the highest total ever measured on it, not a known figure */
	double total_mbps;     /* sum of this tick's valid partition rates on it */
	bool total_valid;      /* every open partition had a valid sample on it */
};

/* The host as the policies see it this tick. */
struct policy_host {
	uint64_t tick;
	unsigned interval_ms;
	double capacity_mbps;  /* all measuring domains together; 0 when unknown */
	bool capacity_learned; /* the highest total ever measured, not a known figure */
	/* The settings a ceiling and a minimum can hold on a host without domain arrays (or, where
	 * domains differ, the coarsest). NULL: whole percents from 1 (policies/steps.h). */
	const struct ladder *max_ladder, *min_ladder;
	bool has_mb_min;   /* a hardware minimum (MPAM MBW_MIN) can be programmed */
	unsigned cpus;	   /* online CPUs, for CPU quotas */
	double total_mbps; /* sum of this tick's valid partition rates */
	bool total_valid;  /* every open partition had a valid sample */
	/* Its domains (see the file comment); 0 and NULL: one domain, the totals above. */
	unsigned domain_count;
	const struct policy_host_domain *domains;
	/* Room for at least `count` entries, for a policy that orders partitions (the guard sorts the
	 * ones it may cut); NULL: the policy finds room of its own (an allocation per call). */
	size_t *work;
};

/* Per-policy memory kept between ticks (see each policy's file for the meaning of the fields). */
/* A rung the target controller measured, and the mean rate it gave (pct 0: none). */
struct target_point {
	double pct, mbps;
};

struct target_memory {
	uint32_t last_target; /* target_mbps the controller last worked toward */
	/* While the targets and guarantees on its domains sum over their capacity: the MB/s it holds
	 * instead, its share (policies/target_share.c); 0: its target. */
	uint32_t budget;
	uint32_t last_goal;  /* the budget or target its search last started for */
	bool budget_moved;   /* the budget changed this tick (the overcommit event says so) */
	double mbps_per_pct; /* learned average gain, rate over ceiling (0: not yet known) */
	double out_pct;	     /* the controller's own output, percent, a rung (0: not engaged) */
	/* The last move: the rate measured before it, and the samples taken since (see target_evidence.c:
	 * a move is judged only once it shows). */
	double from_pct, from_mbps;
	unsigned since_move;
	bool settling;	    /* the last move has not shown yet */
	bool moved_flat;    /* the last move changed nothing the noise could not explain */
	bool awaiting;	    /* ... and may still show (a delay longer than thought) */
	unsigned delay;	    /* learned actuation delay: samples after a move still under the old limit */
	bool delay_known;   /* delay was seen on a move */
	bool engaged_once;  /* a move was judged (the first one waits longest for its effect) */
	unsigned n;	    /* samples at out_pct since its move showed */
	double mean_mbps;   /* their mean (over the last TARGET_MEAN_WINDOW) */
	double last_sample; /* the last of them */
	double recent_mbps; /* their mean weighted toward the last (see target_evidence.c) */
	double noise_rel;   /* mean absolute deviation of a sample from that mean, relative to it */
	unsigned noise_n;   /* differences it was learned from (up to a few; 0: noise_rel not measured) */
	/* The search: the highest rung measured at or below the target, the lowest above it, and the
	 * point measured before the one in force (for a secant). */
	struct target_point lo, hi, prev;
	int last_side;		   /* the side of the target the last rung measured was on: -1 at or below, +1 above */
	unsigned same_side;	   /* rungs measured on that side in a row */
	bool settled;		   /* the search is over: out_pct holds */
	double settled_mbps;	   /* the mean the rung gave when it was chosen */
	double bound_lo, bound_hi; /* the rungs it could use when it last judged (0: not yet) */
	bool said_gap;		   /* "no rung within 5%" was said for this search */
	bool said_unheld;	   /* "its ceiling does not hold it" was said since the last move */
	/* The domains it holds the partition's total on: bit d for domain d, where the partition's
	 * traffic was seen (see policies/target.c); 0: not known yet. */
	uint64_t domains;
};

/* The guard's memory of one partition on one domain. */
struct guard_domain_memory {
	/* (Its flags side by side, then its counts, then its figures: no padding between, in every
	 * partition's every domain.) */
	bool throttled;	      /* the guard holds this (best-effort) partition below its configured mb_max here */
	bool for_guarantee;   /* held for a guarantee still wanted: cut for one, and its victim was not
			     * judged to want less since (guard_cut.c holds such a crowd to a budget) */
	bool dropped_at_peak; /* on a guaranteed partition: its rate here fell while the domain stayed at
			       * its peak total (evidence a learned capacity needs, see policies/guard.c) */
	/* This tick's verdict on a guaranteed partition (what monitoring reads, see guard_victims.c):
	 * judged (it has a guarantee, a valid sample, and the domain's capacity and total are known),
	 * and then whether it is short of its guarantee here, held back on this domain. */
	bool judged;
	bool short_here;
	/* On a guaranteed partition: said that no ceiling on this domain could go lower while it was
	 * short here (once, until it has its guarantee again). */
	bool told_unprotectable;
	uint16_t estimate_ticks; /* its rate here has been an estimate this many ticks in a row (at most
				  * UINT16_MAX; guard_estimates.c) */
	unsigned dwell; /* ticks since the guard last cut this partition here (minimum dwell before giving back) */
	unsigned calm;	/* consecutive ticks without pressure here (hysteresis before giving back) */
	unsigned squeeze_age; /* ticks since squeeze_pct was learned */
	unsigned since_drop;  /* ticks since that fall (when dropped_at_peak) */
	double cut_pct;	      /* the guard's current ceiling for it here, in percent (when throttled) */
	double squeeze_pct;   /* on a best-effort partition: the ceiling at which it last squeezed a
			       * victim here; giving back stops below it (0: none known) */
	double want_mbps;     /* what the guard wants it to use here at most, MB/s (when throttled) */
	double last_mbps;     /* its rate here last tick (0: none); kept on a guaranteed partition, and on
			       * any while its rate here is estimated (guard_estimates.c) */
	double min_pct;	      /* on a guaranteed partition: the minimum the guard programmed here (0: none) */
};

struct guard_memory {
	bool throttled;	  /* on some domain (a summary of the domains' memory, for share and escalation) */
	double want_mbps; /* when throttled: what the guard wants it to use at most, MB/s, over every
			   * domain (its use where it is not throttled); may be below what the MB floor lets
			   * through: then it is the escalation actuator's budget */
	/* On a guaranteed partition: did the last cut made for it help? */
	double before_cut_mbps;	   /* its rate when the guard last cut for it; 0: no cut to judge */
	double before_cut_be_mbps; /* then, the best-effort partitions' rate on the domains it uses */
	unsigned since_cut;	   /* ticks since that cut */
	double demand_level_mbps;  /* it stayed at about this rate although it could have had more: what it
				   * wants, below its guarantee (0: not known) */
	unsigned spare_ticks;	   /* consecutive ticks below its guarantee with spare capacity where it runs */
	/* The operator was told it is not held back (a release event) and nothing since said otherwise (a
	 * cut for it, or its guarantee reached): the same judgement again is folded, not logged. */
	bool told_wants_less;
	/* A cut was made for its last measured rate: an estimate (that rate repeated while counters
	 * rotate) asks for no other (see guard_victims.c). */
	bool answered;
	bool estimate_aged; /* some domain's estimate_ticks is not 0 */
};

/* The guard's IPC signal, on a latency-critical partition with ipc_guard (see policies/guard_ipc.c). */
struct guard_ipc_memory {
	double baseline;    /* EWMA of its IPC over counted ticks in which it was not held back (0: none yet) */
	unsigned low_ticks; /* consecutive counted ticks more than ipc_guard below the baseline while
			       * best-effort partitions used bandwidth */
	bool victim;	    /* low for GUARD_IPC_LOW_TICKS: the guard cuts for it this tick */
	double before_cut;  /* its IPC when the guard last cut for it; 0: no cut to judge */
};

/* What was said of goals a domain cannot all hold (see policies/overcommit.c): bit d for domain d, on
 * every partition the event named, so that it is said once while it lasts and again only once it went
 * away and came back. */
struct overcommit_memory {
	uint64_t told_minimums; /* guarantees (or minimums) over the domain's capacity */
	uint64_t told_targets;	/* targets over the domain's capacity */
};

struct escalate_memory {
	unsigned over_ticks;  /* consecutive ticks over budget at the MB floor */
	unsigned under_ticks; /* consecutive ticks without pressure while escalated */
};

/* One partition on one domain: configured, measured and in force there, and the policies' memory. */
struct policy_domain {
	bool valid;		 /* this tick's sample there was measured or estimated: read-only */
	bool estimated;		 /* ... estimated: its last measured rate, its counter elsewhere (read-only) */
	double cfg_max, cfg_min; /* configured (its per-domain values, else the partition's), as rungs: read-only */
	double mbps;		 /* there, this tick: read-only */
	double mb_max, mb_min;	 /* in force there: read-only */
	struct guard_domain_memory guard;
};

struct policy_partition {
	/* configuration: read-only for policies */
	const char *name;
	/* As configured (or set): class, limits, guarantee, target, weight; never NULL. The owner's copy,
	 * read through this pointer (one copy of the goals a partition, not one more here). Policies do
	 * not read their per-domain values: each domain's are domains[d].cfg_max and cfg_min. */
	const struct partition_goals *goals;
	bool escalation_allowed; /* the escalation actuator may act on it (cgroup known, enabled) */
	bool open;		 /* the control manages it; policies leave others alone */
	/* measurement: read-only */
	bool valid;	  /* this tick's sample was measured or estimated */
	bool estimated;	  /* ... estimated on some domain: counters rotate, and the rate there is its last
			       * measured one (backends/shared/counter_pool.h), no news */
	bool ipc_valid;	  /* instructions and cycles were counted this tick (not counted is not 0) */
	bool stall_valid; /* backend stalls and cycles were counted this tick */
	/* in force now (what the last apply achieved; beside the flags: no padding between): read-only */
	unsigned cpu_quota_pct; /* CPU quota in force, percent of one CPU; 0: unlimited (not escalated) */
	double mbps;		/* this tick */
	double smoothed_mbps;	/* exponentially smoothed over valid samples */
	double ipc;		/* instructions per cycle this tick (when ipc_valid) */
	double stall_ratio;	/* stall cycles per cycle this tick (when stall_valid) */
	/* configured, as rungs of the host's ladders (goals->mb_max and mb_min resolved): read-only */
	double cfg_max, cfg_min;
	/* in force now (what the last apply achieved): read-only */
	double mb_max, mb_min;
	/* Per domain: host->domain_count of them; on a host without domain arrays room for one, its single
	 * domain, filled from the fields above by the policies themselves (their memory of it is kept
	 * there). Whoever owns the partitions gives it and keeps it while the partition lives. */
	struct policy_domain *domains;
	/* policy memory */
	/* The target controller's: NULL on a partition without a target_mbps (most have none). Whoever owns
	 * the partitions gives one, zeroed, to each partition with a target before the tick that first
	 * sees it (the controller leaves a target without its memory alone) and keeps it while the
	 * partition lives: when the target goes, the controller says what it leaves and forgets it. */
	struct target_memory *target;
	struct guard_memory guard;
	struct guard_ipc_memory guard_ipc;
	struct overcommit_memory overcommit;
	struct escalate_memory escalate;
};

struct policy_decision {
	double mb_max, mb_min; /* wanted, percent, rungs (on a host without domain arrays) */
	/* Wanted per domain (host->domain_count of them); NULL on a host without domain arrays. */
	double *mb_max_at, *mb_min_at;
	unsigned cpu_quota_pct; /* wanted CPU quota, percent of one CPU (200 = two CPUs); 0: unlimited */
	/* Events not logged because they would only repeat what was logged before, nothing having changed
	 * between (an idle or jittering partition judged again): counted, so that the quiet shows. (Beside
	 * cpu_quota_pct: no padding between, in every slot.) */
	unsigned folded;
	/* "action: reason" (at most POLICY_EVENT_MAX bytes), NULL while no policy said anything: allocated by
	 * the first policy_event, as most decisions have none. Read it with policy_decision_event; whoever
	 * owns the decision frees it with policy_decision_clear before the decision is reset or dropped. */
	char *event;
};

typedef void (*policy_fn)(const struct policy_host *host, struct policy_partition *parts, size_t count,
			  struct policy_decision *decisions);

/* The policies, in the order the engine runs them. */
void policy_static(const struct policy_host *host, struct policy_partition *parts, size_t count,
		   struct policy_decision *decisions);
void policy_target(const struct policy_host *host, struct policy_partition *parts, size_t count,
		   struct policy_decision *decisions);
void policy_guard(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions);
void policy_share(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions);
void policy_escalate(const struct policy_host *host, struct policy_partition *parts, size_t count,
		     struct policy_decision *decisions);

/* A chain of policies; the engine runs mpamd's own by default, benchmarks may run others. */
struct policy_chain {
	const char *name;
	const policy_fn *fns;
	size_t count;
};

extern const struct policy_chain policy_chain_default; /* static, target, guard, share, escalate */
extern const struct policy_chain policy_chain_static;  /* static only: no feedback */
/* mpamd's chain as on hardware without a bandwidth minimum, for tests and comparisons on the
 * simulator (whose MSCs have MBW_MIN). */
extern const struct policy_chain policy_chain_without_min;

/* Appends "action: reason" to a decision's event (events of several policies are joined by "; "). Out
 * of memory for the text, the event says so instead. */
__attribute__((format(printf, 2, 3))) void policy_event(struct policy_decision *d, const char *fmt, ...);
/* A decision's event, "" when none. */
const char *policy_decision_event(const struct policy_decision *d);
/* Frees a decision's event text: it has none after. */
void policy_decision_clear(struct policy_decision *d);

#endif
