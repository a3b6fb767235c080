/* The candidates of a guard's cut (guard_cut.c), largest user first: a binary max-heap of partition
 * indices.
 *
 * Cost: the candidates of a domain are put in a heap once per tick (linear) and taken largest first,
 * so a cut that goes down k of n partitions costs O(n + k log n), not a scan of all n per cut. */
#include <stdbool.h>
#include <stddef.h>

#include "policies/domains.h"
#include "policies/guard_internal.h"
#include "policies/policy.h"

/* a ranks before b: it uses more on the domain; ties go to the lower index, so the order is total. */
static bool ranks_before(const struct guard_heap *hp, size_t a, size_t b)
{
	double ma = guard_use(hp->est, pol_cdom(&hp->parts[a], hp->d), hp->d),
	       mb = guard_use(hp->est, pol_cdom(&hp->parts[b], hp->d), hp->d);

	return ma > mb || (ma == mb && a < b);
}

static void sift_down(struct guard_heap *hp, size_t k)
{
	for (;;) {
		size_t l = 2 * k + 1, r = l + 1, top = k;
		if (l < hp->n && ranks_before(hp, hp->at[l], hp->at[top]))
			top = l;
		if (r < hp->n && ranks_before(hp, hp->at[r], hp->at[top]))
			top = r;
		if (top == k)
			return;
		size_t t = hp->at[k];
		hp->at[k] = hp->at[top];
		hp->at[top] = t;
		k = top;
	}
}

size_t guard_heap_pop(struct guard_heap *hp)
{
	size_t top = hp->at[0];

	hp->at[0] = hp->at[--hp->n];
	sift_down(hp, 0);
	return top;
}

/* The best-effort partitions that use domain d, in a heap (Floyd's construction: linear). */
void guard_heap_build(struct guard_heap *hp, struct policy_partition *parts, size_t count, unsigned d)
{
	hp->n = 0;
	hp->parts = parts;
	hp->d = d;
	for (size_t i = 0; i < count; i++) {
		const struct policy_domain *dom = pol_cdom(&parts[i], d);
		if (best_effort(&parts[i]) && parts[i].valid && dom->valid && guard_use(hp->est, dom, d) > 0)
			hp->at[hp->n++] = i;
	}
	for (size_t k = hp->n / 2; k-- > 0;)
		sift_down(hp, k);
}
