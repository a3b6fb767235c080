/* What each domain, and the host, can carry: known (the hardware's figure, else [global]
 * capacity_mbps) or learned from the totals seen (core/engine/capacity_learner.c states the rule),
 * as status, metrics and the policies see it, and whether the guarantees are enforced on it yet.
 *
 * The policies take a learned figure as learned (policy.h: the guard then cuts only on a saturation
 * sign of its own and programs no minimum) until the domain has shown saturation, and as known from
 * then on: the guard protects a guarantee at once, as it does with capacity_mbps set. Status, list
 * and the metrics go on calling the figure learned, since nobody configured it. */
#include <string.h>

#include "backends/shared/hmat_capacity.h"
#include "core/base/log.h"
#include "core/engine/engine_internal.h"

/* As the guard judges a guaranteed partition (policies/guard_internal.h): short below 98% of its
 * guarantee, idle under 5% of it, and using a domain that carries 5% of its traffic. */
#define SHORT_FRACTION 0.98
#define IDLE_FRACTION  0.05
#define DOMAIN_SHARE   0.05

#define GUARANTEES_PENDING                                                                                     \
	"not enforced yet: capacity unknown, learning it (each domain's capacity_mbps is the highest total "   \
	"seen so far); the guard takes it as the capacity once the domain shows saturation (a guaranteed "     \
	"partition short while best-effort partitions run at that total, or losing what they gain there), "    \
	"until then it cuts only on a drop of the guaranteed partition at that peak and programs no "          \
	"minimum; set [global] capacity_mbps, or keep a [global] record (mpamd starts from the most it shows " \
	"each domain carried), to enforce them from the start"

static bool guaranteed(const struct partition_config *p)
{
	return p->goals.class == CLASS_LATENCY_CRITICAL && p->goals.guarantee_mbps > 0;
}

static bool short_of_guarantee(const struct partition_status *st, double guarantee)
{
	return st->valid && st->mbps >= IDLE_FRACTION * guarantee && st->mbps < SHORT_FRACTION * guarantee;
}

/* What a partition brings to the total of a domain or the host, worked out once for all of them. */
struct capacity_part {
	bool best_effort, guaranteed;
	bool is_short; /* short of its guarantee: on a domain with DOMAIN_SHARE of its rate, a contention sign */
	double mbps;   /* its total */
};

static struct capacity_part capacity_part_of(const struct partition_config *p, const struct partition_status *st)
{
	bool g = guaranteed(p);

	return (struct capacity_part){ .best_effort = p->goals.class == CLASS_BEST_EFFORT,
				       .guaranteed = g,
				       .is_short = g && short_of_guarantee(st, p->goals.guarantee_mbps),
				       .mbps = st->mbps };
}

/* A partition (`part`) into what a domain, or the host, carried this tick: `mbps` of it there. */
static void add_to_tick(struct capacity_tick *t, const struct capacity_part *part, double mbps)
{
	t->total_mbps += mbps;
	if (part->best_effort)
		t->best_effort_mbps += mbps;
	if (!part->guaranteed)
		return;
	t->guarantee_mbps += mbps;
	t->guarantee_short |= mbps >= DOMAIN_SHARE * part->mbps && part->is_short;
}

static void gather(const struct engine *e, struct capacity_tick *dom, struct capacity_tick *host)
{
	for (unsigned d = 0; d < e->domains.count; d++)
		dom[d] = (struct capacity_tick){ .valid = true };
	*host = (struct capacity_tick){ .valid = true };
	for (size_t i = 0; i < e->slots.count; i++) {
		const struct engine_partition *ep = &e->slots.partitions[i];
		if (!ep->used || !ep->status.open)
			continue;
		struct capacity_part part = capacity_part_of(ep->config, &ep->status);
		host->valid &= ep->status.valid;
		if (ep->status.valid)
			add_to_tick(host, &part, ep->status.mbps);
		const struct domain_status *row = e->domains.count ? engine_partition_domain(e, i, 0) : NULL;
		for (unsigned d = 0; d < e->domains.count; d++) {
			dom[d].valid &= row[d].valid;
			if (row[d].valid)
				add_to_tick(&dom[d], &part, row[d].mbps);
		}
	}
}

static void say_learned(const char *where, const struct capacity_learner *l)
{
	log_info("%s: capacity learned: %.0f MB/s, the highest total seen (saturation seen at %.0f MB/s: %s); "
		 "the guarantees are enforced on it from now on",
		 where, l->peak_mbps, l->evidence_mbps, capacity_evidence_text(l->evidence));
}

void engine_capacity_learn(struct engine *e, struct capacity_tick *dom, struct capacity_tick *ret_host)
{
	struct capacity_tick host;
	char where[sizeof(e->domains.dom[0].name) + sizeof(e->domains.dom[0].what) + 16];

	gather(e, dom, &host);
	for (unsigned d = 0; d < e->domains.count; d++) {
		struct engine_dom *ed = &e->domains.dom[d];
		if (capacity_learn(&ed->learn, &dom[d]) && !(engine_dom_known_capacity(e, d) > 0)) {
			snprintf(where, sizeof(where), "domain %s (%s)", ed->name, ed->what);
			say_learned(where, &ed->learn);
		}
	}
	bool learned;
	engine_host_capacity(e, &learned);
	if (capacity_learn(&e->policy.host_learn, &host) && learned && !e->domains.per_domain)
		say_learned("host", &e->policy.host_learn);
	*ret_host = host;
}

/* The control's resctrl domains, and HMAT's figure for each: read once, when the domains are mapped
 * (a reload changes no hardware). Domains of other id spaces (MSCs) are not HMAT's. */
void engine_capacity_probe(struct engine *e)
{
	uint32_t ids[ENGINE_MAX_DOMAINS];
	double mbps[ENGINE_MAX_DOMAINS];
	struct hmat_notes notes = { 0 };
	unsigned count = 0;

	for (unsigned d = 0; d < e->domains.count; d++) {
		int c = e->domains.dom[d].control;
		e->domains.dom[d].hmat_mbps = 0;
		if (c >= 0 && !strcmp(e->hw.caps.domains[c].id_space, DOMAIN_SPACE_RESCTRL))
			ids[count++] = e->hw.caps.domains[c].id;
	}
	if (!e->opts.sysfs_root || !count || count != e->domains.count)
		return;
	hmat_capacity_read(e->opts.sysfs_root, ids, count, mbps, &notes);
	for (unsigned i = 0; i < notes.count; i++)
		log_warning("ACPI HMAT: %s: ignored", notes.text[i]);
	for (unsigned d = 0; d < count; d++) {
		e->domains.dom[d].hmat_mbps = mbps[d];
		if (mbps[d] > 0)
			log_info("domain %s (%s): capacity %.0f MB/s, the memory bandwidth ACPI HMAT publishes for it",
				 e->domains.dom[d].name, e->domains.dom[d].what, mbps[d]);
	}
}

const char *engine_domain_capacity_source(const struct engine *e, unsigned d)
{
	const char *source;

	if (engine_dom_known_capacity_from(e, d, &source) > 0)
		return source;
	const struct engine_dom *dom = &e->domains.dom[d];
	if (dom->record_mbps > 0 && dom->learn.peak_mbps <= dom->record_mbps)
		return "record"; /* no total above the record's seen yet */
	return dom->learn.peak_mbps > 0 ? "learned" : "none";
}

double engine_domain_capacity(const struct engine *e, unsigned d, bool *learned)
{
	double known = engine_dom_known_capacity(e, d);

	*learned = !(known > 0);
	return known > 0 ? known : e->domains.dom[d].learn.peak_mbps;
}

double engine_domain_policy_capacity(const struct engine *e, unsigned d, bool *learned)
{
	double c = engine_domain_capacity(e, d, learned);

	*learned = *learned && !capacity_established(&e->domains.dom[d].learn);
	return c;
}

/* Each domain's as far as it is known (the backend's, else the config's capacity_mbps), else the
 * host's learned figure. */
double engine_host_capacity(const struct engine *e, bool *learned)
{
	double known = 0;
	bool all_known = e->domains.count > 0;

	for (unsigned d = 0; d < e->domains.count && all_known; d++) {
		double c = engine_dom_known_capacity(e, d);
		all_known = c > 0;
		known += c;
	}
	*learned = false;
	if (all_known)
		return known;
	if (!e->domains.count && e->gens.config->global.capacity_mbps)
		return (double)e->gens.config->global.capacity_mbps;
	*learned = true;
	return e->policy.host_learn.peak_mbps;
}

double engine_host_policy_capacity(const struct engine *e, bool *learned)
{
	double c = engine_host_capacity(e, learned);

	*learned = *learned && !capacity_established(&e->policy.host_learn);
	return c;
}

bool engine_has_guarantees(const struct engine *e)
{
	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used && e->slots.partitions[i].status.open &&
		    e->slots.partitions[i].config->goals.guarantee_mbps > 0)
			return true;
	return false;
}

/* The domains the guarantees depend on: those their traffic was seen on (all of them before any
 * was), each known or past learning. */
static bool domains_enforce(const struct engine *e)
{
	bool any_seen = false, all_ready = true, seen_ready = true;

	for (unsigned d = 0; d < e->domains.count; d++) {
		bool learned, ready;
		engine_domain_policy_capacity(e, d, &learned);
		ready = !learned;
		any_seen |= e->domains.dom[d].learn.guarantee_seen;
		all_ready &= ready;
		seen_ready &= ready || !e->domains.dom[d].learn.guarantee_seen;
	}
	return any_seen ? seen_ready : all_ready;
}

const char *engine_guarantees_pending(const struct engine *e)
{
	bool learned = false;

	if (!engine_has_guarantees(e))
		return NULL;
	if (e->domains.per_domain)
		return domains_enforce(e) ? NULL : GUARANTEES_PENDING;
	engine_host_policy_capacity(e, &learned);
	return learned ? GUARANTEES_PENDING : NULL;
}
