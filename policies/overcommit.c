/* Goals a domain cannot all hold: guarantees whose shares on a domain sum over its capacity, hardware
 * minimums that sum over 100% of it, targets that with the guarantees sum over its capacity. The
 * policy that decides what happens then (the guard for guarantees and minimums, the target controller
 * for targets) counts the asks here and says so in one event: when it starts, and again only after it
 * ended (the sum fell below OVERCOMMIT_CLEAR_FRACTION of the whole) and came back (the target
 * controller also when the shares it decided change). The memory of what was said is a bit per
 * domain on each partition the event concerned (struct overcommit_memory), so an event stays said
 * while a partition joins or leaves the overcommitted set. */
#include "policies/overcommit.h"

#include <stdio.h>

#include "policies/domains.h"

static uint64_t *told_of(struct policy_partition *p, enum overcommit_kind kind)
{
	return kind == OVERCOMMIT_TARGETS ? &p->overcommit.told_targets : &p->overcommit.told_minimums;
}

static double ask_of(const struct policy_host *h, const struct policy_partition *p, unsigned d,
		     const struct policy_decision *decisions, size_t i, overcommit_ask_fn ask)
{
	return p->open ? ask(h, p, d, &decisions[i]) : 0;
}

void overcommit_sums(const struct policy_host *h, const struct policy_partition *parts, size_t count,
		     const struct policy_decision *decisions, overcommit_ask_fn ask, overcommit_asks_fn asks,
		     double *sums)
{
	unsigned domains = pol_domains(h);

	for (unsigned d = 0; d < domains; d++)
		sums[d] = 0;
	/* Partition-major: each domain's sum still adds the asks in the partitions' order. */
	for (size_t i = 0; i < count; i++)
		for (unsigned d = 0; parts[i].open && asks(&parts[i]) && d < domains; d++)
			sums[d] += ask(h, &parts[i], d, &decisions[i]);
}

size_t overcommit_largest(const struct policy_host *h, const struct policy_partition *parts, size_t count, unsigned d,
			  const struct policy_decision *decisions, overcommit_ask_fn ask)
{
	size_t best = count;
	double most = 0;

	for (size_t i = 0; i < count; i++) {
		double a = ask_of(h, &parts[i], d, decisions, i, ask);
		if (a > most) {
			most = a;
			best = i;
		}
	}
	return best;
}

bool overcommit_news(const struct policy_host *h, struct policy_partition *parts, size_t count, unsigned d,
		     const struct policy_decision *decisions, overcommit_ask_fn ask, enum overcommit_kind kind,
		     bool over)
{
	uint64_t bit = UINT64_C(1) << d;
	bool told = false;

	if (!over)
		return false; /* neither over nor clear: as it was */
	for (size_t i = 0; i < count; i++)
		told |= ask_of(h, &parts[i], d, decisions, i, ask) > 0 && (*told_of(&parts[i], kind) & bit);
	for (size_t i = 0; i < count; i++)
		if (ask_of(h, &parts[i], d, decisions, i, ask) > 0)
			*told_of(&parts[i], kind) |= bit;
	return !told;
}

void overcommit_forget(struct policy_partition *parts, size_t count, enum overcommit_kind kind, uint64_t domains)
{
	if (!domains)
		return;
	for (size_t i = 0; i < count; i++)
		*told_of(&parts[i], kind) &= ~domains;
}

void overcommit_list(char *buf, size_t len, const struct policy_host *h, const struct policy_partition *parts,
		     size_t count, unsigned d, const struct policy_decision *decisions, overcommit_ask_fn ask,
		     overcommit_ask_fn value, bool pct)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < count && used < len; i++) {
		if (!(ask_of(h, &parts[i], d, decisions, i, ask) > 0))
			continue;
		double v = value(h, &parts[i], d, &decisions[i]);
		int n = pct ? snprintf(buf + used, len - used, "%s%s %g%%", used ? ", " : "", parts[i].name, v)
			    : snprintf(buf + used, len - used, "%s%s %.0f", used ? ", " : "", parts[i].name, v);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}
