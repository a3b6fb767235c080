/* Goals a domain cannot all hold (internal to policies/): what the guard (guarantees, minimums) and
 * the target controller (targets with the guarantees, target_share.c) ask of a domain, added up against what it has, and the event that says so once
 * (policies/overcommit.c). */
#ifndef MPAMD_POLICIES_OVERCOMMIT_H
#define MPAMD_POLICIES_OVERCOMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policies/policy.h"

/* Over is more than the whole; it ends only below OVERCOMMIT_CLEAR_FRACTION of it, so that shares that
 * jitter with the samples around the whole do not say it again every few ticks. */
#define OVERCOMMIT_CLEAR_FRACTION 0.98

enum overcommit_kind {
	OVERCOMMIT_MINIMUMS, /* guarantees and hardware minimums (overcommit_memory.told_minimums) */
	OVERCOMMIT_TARGETS,  /* targets (told_targets) */
};

/* What partition p asks of domain d (MB/s or percent, as the caller counts); 0: nothing. */
typedef double (*overcommit_ask_fn)(const struct policy_host *h, const struct policy_partition *p, unsigned d,
				    const struct policy_decision *dec);

/* Whether partition p asks anything of any domain (a cheap test on its goals); an ask is 0 without it. */
typedef bool (*overcommit_asks_fn)(const struct policy_partition *p);

/* The asks of the open partitions on every domain, added up: sums[d] for domain d, in one pass over the
 * partitions, and no call of `ask` for a partition `asks` says asks nothing (they would add 0). */
void overcommit_sums(const struct policy_host *h, const struct policy_partition *parts, size_t count,
		     const struct policy_decision *decisions, overcommit_ask_fn ask, overcommit_asks_fn asks,
		     double *sums);

/* The open partition that asks most of domain d (the one whose decision carries the event); count when
 * none asks anything. */
size_t overcommit_largest(const struct policy_host *h, const struct policy_partition *parts, size_t count, unsigned d,
			  const struct policy_decision *decisions, overcommit_ask_fn ask);

/* Whether domain d's overcommit is news: it is `over` and none of the partitions that ask something
 * there was told. Then (and while it lasts) each of them is marked told. Once it is clear, the caller
 * adds bit d to the domains it forgets (overcommit_forget). */
bool overcommit_news(const struct policy_host *h, struct policy_partition *parts, size_t count, unsigned d,
		     const struct policy_decision *decisions, overcommit_ask_fn ask, enum overcommit_kind kind,
		     bool over);

/* The overcommits of `domains` (bit d for domain d) ended: no partition was told of them any more. One
 * pass over the partitions for every domain that cleared this tick. */
void overcommit_forget(struct policy_partition *parts, size_t count, enum overcommit_kind kind, uint64_t domains);

/* "db 12000, web 10000" (MB/s) or "db 60%, web 50%" (`pct`): each open partition that asks something of
 * domain d, with what `value` gives (its ask, or what it gets). */
void overcommit_list(char *buf, size_t len, const struct policy_host *h, const struct policy_partition *parts,
		     size_t count, unsigned d, const struct policy_decision *decisions, overcommit_ask_fn ask,
		     overcommit_ask_fn value, bool pct);

#endif
