/* What one partition looked like at the last tick, on the whole and on each of the engine's domains:
 * what the engine publishes and every report of it reads (metrics, the control socket's status and
 * list, mpamd --print-every). */
#ifndef MPAMD_CORE_REPORT_PARTITION_STATUS_H
#define MPAMD_CORE_REPORT_PARTITION_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/report/events.h"

/* What one partition looked like on one domain at the last tick (the engine's domains: see
 * engine_domain_count in core/engine/engine.h). */
struct domain_status {
	bool valid;	/* mbps was measured (or estimated) there */
	bool estimated; /* some counter of the domain was extrapolated */
	/* The guard's verdict there (policies/guard_victims.c): judged where the partition has a
	 * guarantee, a valid sample and the domain a known capacity and total; then whether it is short
	 * of its guarantee, held back there. Where the policies decide on the whole partition (not per
	 * domain), every domain carries the verdict on its totals. (The flags side by side: no padding
	 * between, in every slot and snapshot row.) */
	bool guard_judged;
	bool guard_short;
	double mbps;	       /* there; 0 when not valid */
	const char *reason;    /* why not valid */
	double mb_max, mb_min; /* in force there (rungs, percent) */
	double mb_max_mbps;    /* what that ceiling lets through there, in MB/s; 0 where unknown */
	double mb_max_asked;   /* the ceiling it asked for there; mb_max unless a shared class holds it */
	double truth_mbps;     /* simulator only, else 0 */
};

/* What one partition looked like at the last tick. */
struct partition_status {
	const char *name; /* NULL: a free slot */
	/* Its flags side by side (no padding between, in every slot and snapshot row); what they tell is
	 * in the figures below them. */
	bool open; /* the backend accepted it */
	/* It could not be opened or its limits applied: `reason` is the last error, and it is tried
	 * again at retry_ms (ms since the start, as t_ms; 0: only a reload tries again). */
	bool failed;
	bool valid;	  /* mbps was measured (or estimated) */
	bool estimated;	  /* some domain was extrapolated */
	bool pmu_open;	  /* the PMU sampler counts this partition */
	bool ipc_valid;	  /* instructions and cycles were counted (ipc) */
	bool stall_valid; /* backend stalls and cycles were counted (stall_ratio) */
	bool in_class;	  /* classes = shared: it is in class class_id (below) */
	uint64_t retry_ms;
	double mbps;		/* summed over domains */
	double smoothed_mbps;	/* exponentially smoothed over valid samples */
	double truth_mbps;	/* simulator only, else 0 */
	uint64_t bytes_total;	/* bytes counted since the start (estimates included) */
	double mb_max, mb_min;	/* in force (rungs, percent) */
	unsigned cpu_quota_pct; /* escalation in force, percent of one CPU; 0: none */
	/* classes = shared: the class that holds mb_max for it; it asked for mb_max_asked (percent, the
	 * highest of its domains). */
	unsigned class_id;
	double mb_max_asked;
	const char *reason; /* why it is not open, or why the sample is invalid */
	/* PMU counts of the last tick (see backends/contracts/pmu.h): each value only when counted. */
	double ipc;		/* instructions / cycles */
	double stall_ratio;	/* stall cycles / cycles */
	const char *pmu_reason; /* why it is not counted, or a role is not; NULL when all are */
	/* What the policies did this tick (at most EVENT_TEXT_MAX bytes), NULL when nothing: the engine's
	 * buffer, allocated for a partition's first event and not for the many that have none. */
	const char *event;
};

#endif
