/* Partitions onto classes (class_assign.h has the rule). The distinct wanted limits, sorted by kind and
 * then by their values, are the first classes; a class is always a run of neighbours in that order,
 * so merging two classes is joining two runs, and only the merges next to the last one change cost:
 * n partitions cost O(n log n) to sort and O(n) merges of O(run) each. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/class_assign.h"

/* One distinct wanted limit: its values, how many partitions want it, whether one is protected. */
struct distinct {
	const double *at;
	size_t members;
	size_t start; /* its partitions are order[start, start + members) */
	bool protected_;
};

/* A run of distinct limits [first, last] that is one class; next and prev link the runs alive. */
struct run {
	size_t first, last;
	long next, prev;
	double cost;	  /* the run's deviation */
	double join_cost; /* the deviation joining it with the next run adds; INFINITY: not allowed */
};

/* The naming of the runs (at most one per class). */
struct naming {
	long *run;	    /* the runs in order */
	int *wish, *id;	    /* per run: the previous class most members were in, the one it gets */
	size_t *wish_votes; /* per run: how many were */
	size_t *votes;	    /* per class, zero between uses */
};

struct work {
	const struct class_want *wants;
	size_t count;
	unsigned domains;
	const double *held;   /* what each class holds now (NULL: not known) */
	const double **eff;   /* per partition: what it is placed as wanting (hysteresis) */
	size_t *order;	      /* partitions sorted by kind and eff */
	struct distinct *dis; /* distinct wants in that order */
	size_t dis_count;
	struct run *runs;
	bool kinds_may_mix;
};

static int cmp_vec(const double *a, const double *b, unsigned domains)
{
	for (unsigned d = 0; d < domains; d++)
		if (a[d] != b[d])
			return a[d] < b[d] ? -1 : 1;
	return 0;
}

/* Best-effort first, then protected; each by its limits; the partition's index breaks ties, so
 * the order (and all that follows) does not depend on qsort. */
static int cmp_partition(const void *pa, const void *pb, void *ctx)
{
	const struct work *w = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	bool ka = w->wants[a].protected_, kb = w->wants[b].protected_;

	if (ka != kb)
		return ka ? 1 : -1;
	int c = cmp_vec(w->eff[a], w->eff[b], w->domains);
	return c ? c : (a > b) - (a < b);
}

bool class_within_band(const double *want, const double *held, unsigned domains, bool protected_, double band)
{
	for (unsigned d = 0; d < domains; d++) {
		double over = held[d] - want[d];
		if (protected_ ? over < 0 || over > band : over > 0 || -over > band)
			return false;
	}
	return true;
}

static void place_wants(struct work *w, unsigned classes, const double *held, double band)
{
	for (size_t i = 0; i < w->count; i++) {
		const struct class_want *cw = &w->wants[i];
		const double *now = held && cw->previous >= 0 && (unsigned)cw->previous < classes
					    ? &held[(size_t)cw->previous * w->domains]
					    : NULL;
		w->eff[i] = now && band > 0 && class_within_band(cw->mb_max_at, now, w->domains, cw->protected_, band)
				    ? now
				    : cw->mb_max_at;
	}
}

static void find_distinct(struct work *w)
{
	for (size_t k = 0; k < w->count; k++) {
		size_t i = w->order[k];
		struct distinct *last = w->dis_count ? &w->dis[w->dis_count - 1] : NULL;
		bool kind = w->wants[i].protected_;
		if (!last || last->protected_ != kind || cmp_vec(last->at, w->eff[i], w->domains))
			w->dis[w->dis_count++] = (struct distinct){ .at = w->eff[i], .start = k, .protected_ = kind };
		w->dis[w->dis_count - 1].members++;
	}
}

/* What a run [first, last] holds on domain d: the highest want when a member is protected, else the
 * lowest. */
static double run_holds(const struct work *w, size_t first, size_t last, unsigned d)
{
	bool high = false;
	double lo = INFINITY, hi = -INFINITY;

	for (size_t k = first; k <= last; k++) {
		high |= w->dis[k].protected_;
		lo = fmin(lo, w->dis[k].at[d]);
		hi = fmax(hi, w->dis[k].at[d]);
	}
	return high ? hi : lo;
}

static double run_cost(const struct work *w, size_t first, size_t last)
{
	double cost = 0;

	for (unsigned d = 0; d < w->domains; d++) {
		double holds = run_holds(w, first, last, d);
		for (size_t k = first; k <= last; k++)
			cost += (double)w->dis[k].members * fabs(holds - w->dis[k].at[d]);
	}
	return cost;
}

static void price_join(struct work *w, long r)
{
	struct run *a = &w->runs[r];

	if (a->next < 0) {
		a->join_cost = INFINITY;
		return;
	}
	struct run *b = &w->runs[a->next];
	bool mixed = w->dis[a->last].protected_ != w->dis[b->first].protected_;
	a->join_cost = mixed && !w->kinds_may_mix ? INFINITY : run_cost(w, a->first, b->last) - a->cost - b->cost;
}

/* The run whose join with the next is cheapest (the first of equals), -1 when none may join. */
static long cheapest_join(const struct work *w)
{
	long best = -1;

	for (long r = 0; r >= 0; r = w->runs[r].next)
		if (isfinite(w->runs[r].join_cost) && (best < 0 || w->runs[r].join_cost < w->runs[best].join_cost))
			best = r;
	return best;
}

static void join(struct work *w, long r)
{
	struct run *a = &w->runs[r], *b = &w->runs[a->next];

	a->last = b->last;
	a->cost = run_cost(w, a->first, a->last);
	a->next = b->next;
	if (a->next >= 0)
		w->runs[a->next].prev = r;
	price_join(w, r);
	if (a->prev >= 0)
		price_join(w, a->prev);
}

static void reprice_all(struct work *w)
{
	for (long r = 0; r >= 0; r = w->runs[r].next)
		price_join(w, r);
}

/* Runs, one per distinct want, joined until at most `classes` are left: each kind by itself first. */
static size_t make_runs(struct work *w, unsigned classes)
{
	size_t alive = w->dis_count;

	for (size_t k = 0; k < w->dis_count; k++)
		w->runs[k] = (struct run){ .first = k,
					   .last = k,
					   .next = k + 1 < w->dis_count ? (long)k + 1 : -1,
					   .prev = (long)k - 1,
					   .cost = 0 };
	reprice_all(w);
	while (alive > classes) {
		long r = cheapest_join(w);
		if (r < 0 && !w->kinds_may_mix) {
			w->kinds_may_mix = true;
			reprice_all(w);
			continue;
		}
		join(w, r);
		alive--;
	}
	return alive;
}

static double run_holds(const struct work *w, size_t first, size_t last, unsigned d);

/* How far what class c holds now is from what `run` will hold (0 without what it holds). */
static double held_distance(const struct work *w, const struct run *run, int c)
{
	double distance = 0;

	for (unsigned d = 0; w->held && d < w->domains; d++)
		distance += fabs(w->held[(size_t)c * w->domains + d] - run_holds(w, run->first, run->last, d));
	return distance;
}

/* Whether class p, with `votes` of the run's members, is a better wish than `best` with `best_votes`:
 * more members, then what it holds nearer to what the run will hold (fewer writes), then the lower. */
static bool better_wish(const struct work *w, const struct run *run, int p, size_t votes, int best, size_t best_votes)
{
	if (votes != best_votes)
		return votes > best_votes;
	double dp = held_distance(w, run, p), db = held_distance(w, run, best);
	return dp != db ? dp < db : p < best;
}

/* The previous class most of the run's members were in (-1: none), *ret how many; votes (classes
 * zeros) is left zeroed. */
static int run_previous(const struct work *w, const struct run *run, unsigned classes, size_t *votes, size_t *ret)
{
	size_t from = w->dis[run->first].start, to = w->dis[run->last].start + w->dis[run->last].members;
	int best = -1;

	*ret = 0;
	for (size_t k = from; k < to; k++) {
		int p = w->wants[w->order[k]].previous;
		if (p < 0 || (unsigned)p >= classes)
			continue;
		votes[p]++;
		if (best < 0 || better_wish(w, run, p, votes[p], best, *ret)) {
			*ret = votes[p];
			best = p;
		}
	}
	for (size_t k = from; k < to; k++) {
		int p = w->wants[w->order[k]].previous;
		if (p >= 0 && (unsigned)p < classes)
			votes[p] = 0;
	}
	return best;
}

/* Class ids: each run keeps the id most of its members had, the runs with most such members first
 * (the first of equals); a run whose id is taken, or that had none, takes the lowest free id. */
static void name_runs(const struct work *w, unsigned classes, struct class_assignment *a, struct naming *n)
{
	size_t runs = 0;

	for (long r = 0; r >= 0; r = w->runs[r].next, runs++) {
		n->run[runs] = r;
		n->wish[runs] = run_previous(w, &w->runs[r], classes, n->votes, &n->wish_votes[runs]);
		n->id[runs] = -1;
	}
	for (size_t done = 0; done < runs; done++) {
		long best = -1;
		for (size_t k = 0; k < runs; k++)
			if (n->id[k] < 0 && n->wish[k] >= 0 && (best < 0 || n->wish_votes[k] > n->wish_votes[best]))
				best = (long)k;
		if (best < 0)
			break;
		if (!a->used[n->wish[best]])
			n->id[best] = n->wish[best];
		a->used[n->wish[best]] |= n->id[best] >= 0;
		n->wish[best] = -1; /* decided: kept, or given the lowest free below */
	}
	for (size_t k = 0; k < runs; k++)
		for (unsigned c = 0; n->id[k] < 0 && c < classes; c++)
			if (!a->used[c]) {
				n->id[k] = (int)c;
				a->used[c] = true;
			}
}

static void fill(const struct work *w, const struct naming *n, struct class_assignment *a)
{
	size_t k = 0;

	for (long r = 0; r >= 0; r = w->runs[r].next, k++) {
		const struct run *run = &w->runs[r];
		size_t from = w->dis[run->first].start, to = w->dis[run->last].start + w->dis[run->last].members;
		for (unsigned d = 0; d < w->domains; d++)
			a->limits[(size_t)n->id[k] * w->domains + d] = run_holds(w, run->first, run->last, d);
		for (size_t j = from; j < to; j++)
			a->class_of[w->order[j]] = n->id[k];
	}
}

/* Partition i's deviation in class c: the sum over domains of |held - wanted|; INFINITY where c holds
 * a limit on the side i's kind does not allow (a best-effort partition above its want, a protected
 * one below). */
static double cost_in(const struct work *w, const struct class_assignment *a, size_t i, int c)
{
	const struct class_want *cw = &w->wants[i];
	const double *holds = &a->limits[(size_t)c * w->domains];
	double cost = 0;

	for (unsigned d = 0; d < w->domains; d++) {
		double over = holds[d] - cw->mb_max_at[d];
		if (cw->protected_ ? over < 0 : over > 0)
			return INFINITY;
		cost += fabs(over);
	}
	return cost;
}

/* Whether every partition of distinct want k was in class p, and staying there suits each: a class
 * on its kind's side costing it at most `band` more than the plan's. */
static bool group_may_stay(const struct work *w, const struct class_assignment *a, size_t k, int p, double band)
{
	const struct distinct *dis = &w->dis[k];

	for (size_t j = dis->start; j < dis->start + dis->members; j++) {
		size_t i = w->order[j];
		if (w->wants[i].previous != p || cost_in(w, a, i, p) > cost_in(w, a, i, a->class_of[i]) + band)
			return false;
	}
	return true;
}

/* Rule 4: partitions of one want that the merges would move together stay in the class they are all
 * in when that class is still used, holds limits on their kind's side, and staying costs each at most
 * `band` more deviation than moving. What the classes hold is left as the merges made it: a class
 * that keeps them holds what their kind allows, and one that loses them still holds what its other
 * members allow (the lowest of a best-effort run is at most theirs, the highest of a protected one at
 * least theirs). A merge plan shifts with every want that moves (a target's controller, the guard),
 * and without this partitions whose own want stood still would be moved to and fro; equal wants
 * still share a class (rule 1), as a group stays only whole, and kinds share one only where the
 * merges mixed them. */
static void keep_stayers(const struct work *w, struct class_assignment *a, unsigned classes, double band)
{
	/* per class in the plan, a bit set: 1 a best-effort member, 2 a protected one (0: unused) */
	unsigned char *kind = calloc(classes, sizeof(*kind));

	if (!kind)
		return; /* the merges' plan, which is also the rule's, only moves more */
	for (size_t i = 0; i < w->count; i++)
		kind[a->class_of[i]] |= 1 + w->wants[i].protected_;
	for (size_t k = 0; band > 0 && k < w->dis_count; k++) {
		size_t first = w->order[w->dis[k].start];
		int p = w->wants[first].previous;
		if (p < 0 || (unsigned)p >= classes || p == a->class_of[first] || !kind[p])
			continue;
		/* kinds share a class only where the merges mixed them */
		if (!w->kinds_may_mix && kind[p] != 1 + w->dis[k].protected_)
			continue;
		if (!group_may_stay(w, a, k, p, band))
			continue;
		for (size_t j = w->dis[k].start; j < w->dis[k].start + w->dis[k].members; j++)
			a->class_of[w->order[j]] = p;
	}
	free(kind);
}

/* The classes used, the deviation and the moves of the final placement. */
static void tally(const struct work *w, unsigned classes, struct class_assignment *a)
{
	memset(a->used, 0, classes * sizeof(*a->used));
	for (size_t i = 0; i < w->count; i++) {
		a->classes_used += !a->used[a->class_of[i]];
		a->used[a->class_of[i]] = true;
	}
	for (size_t i = 0; i < w->count; i++) {
		const double *holds = &a->limits[(size_t)a->class_of[i] * w->domains];
		for (unsigned d = 0; d < w->domains; d++)
			a->deviation += fabs(holds[d] - w->wants[i].mb_max_at[d]);
		a->moved += w->wants[i].previous >= 0 && w->wants[i].previous != a->class_of[i];
	}
}

static void work_fini(struct work *w)
{
	free(w->eff);
	free(w->order);
	free(w->dis);
	free(w->runs);
}

static int work_init(struct work *w, const struct class_want *wants, size_t count, unsigned domains)
{
	size_t n = count ? count : 1;

	*w = (struct work){ .wants = wants, .count = count, .domains = domains };
	w->eff = calloc(n, sizeof(*w->eff));
	w->order = calloc(n, sizeof(*w->order));
	w->dis = calloc(n, sizeof(*w->dis));
	w->runs = calloc(n, sizeof(*w->runs));
	return w->eff && w->order && w->dis && w->runs ? 0 : -ENOMEM;
}

static int assignment_init(struct class_assignment *a, size_t count, unsigned domains, unsigned classes)
{
	*a = (struct class_assignment){ 0 };
	a->class_of = calloc(count ? count : 1, sizeof(*a->class_of));
	a->limits = calloc((size_t)classes * domains, sizeof(*a->limits));
	a->used = calloc(classes, sizeof(*a->used));
	return a->class_of && a->limits && a->used ? 0 : -ENOMEM;
}

static void naming_fini(struct naming *n)
{
	free(n->run);
	free(n->wish);
	free(n->id);
	free(n->wish_votes);
	free(n->votes);
}

static int naming_init(struct naming *n, unsigned classes)
{
	n->run = calloc(classes, sizeof(*n->run));
	n->wish = calloc(classes, sizeof(*n->wish));
	n->id = calloc(classes, sizeof(*n->id));
	n->wish_votes = calloc(classes, sizeof(*n->wish_votes));
	n->votes = calloc(classes, sizeof(*n->votes));
	return n->run && n->wish && n->id && n->wish_votes && n->votes ? 0 : -ENOMEM;
}

int class_assign(const struct class_want *wants, size_t count, unsigned domains, unsigned classes, const double *held,
		 double band, struct class_assignment *ret, struct err *err)
{
	struct work w;
	struct naming n = { 0 };

	*ret = (struct class_assignment){ 0 };
	if (!classes || !domains)
		return err_set(err, -EINVAL, "classes: %u classes of %u domains: nothing to assign to", classes,
			       domains);
	int r = work_init(&w, wants, count, domains);
	if (r == 0)
		r = assignment_init(ret, count, domains, classes);
	if (r == 0)
		r = naming_init(&n, classes);
	if (r == 0) {
		w.held = held;
		place_wants(&w, classes, held, band);
		for (size_t i = 0; i < count; i++)
			w.order[i] = i;
		qsort_r(w.order, count, sizeof(*w.order), cmp_partition, &w);
		find_distinct(&w);
		if (w.dis_count) {
			make_runs(&w, classes);
			name_runs(&w, classes, ret, &n);
			fill(&w, &n, ret);
			keep_stayers(&w, ret, classes, band);
			tally(&w, classes, ret);
		}
	}
	naming_fini(&n);
	work_fini(&w);
	if (r < 0) {
		class_assignment_fini(ret);
		return err_set(err, r, "classes: out of memory for %zu partitions", count);
	}
	return 0;
}

void class_assignment_fini(struct class_assignment *a)
{
	free(a->class_of);
	free(a->limits);
	free(a->used);
	*a = (struct class_assignment){ 0 };
}
