/* Where no capacity is configured, published by the hardware or by ACPI HMAT, mpamd starts each
 * domain's learner (and the host's) from its own record file: the most the domain carried over
 * CAPACITY_SMOOTH_TICKS ticks in a row in earlier runs (core/report/record_history.h says which files
 * are read and when one is of another host). That is a lower bound, the same kind of figure as the
 * learned peak, kept across restarts by the record itself; the policies take it as the capacity from
 * the first tick (capacity_learner.c says why and what a figure too low does), and a higher total
 * seen raises it, as a learned peak is raised. Status calls it `record` until then, `learned` after. */
#include "core/base/log.h"
#include "core/engine/engine_internal.h"
#include "core/report/record_history.h"

static void say_seeded(const char *where, double mbps, const char *path, const struct record_history *h)
{
	log_info("%s: capacity %.0f MB/s from the record %s: the most it carried over %u ticks in a row in %llu "
		 "ticks of earlier runs, a lower bound; the guarantees are enforced on it, and a higher total seen "
		 "raises it",
		 where, mbps, path, CAPACITY_SMOOTH_TICKS, (unsigned long long)h->ticks);
}

void engine_capacity_from_record(struct engine *e)
{
	const char *path = engine_record_path(e), *names[ENGINE_MAX_DOMAINS];
	double mbps[ENGINE_MAX_DOMAINS];
	struct record_history h;
	bool learned;

	engine_host_capacity(e, &learned);
	if (!path || !learned) /* every domain's capacity is known: nothing to start from */
		return;
	for (unsigned d = 0; d < e->domains.count; d++)
		names[d] = e->domains.dom[d].name;
	record_history_read(path, CAPACITY_SMOOTH_TICKS, names, e->domains.count, mbps, &h);
	for (unsigned i = 0; i < h.note_count; i++)
		log_warning("record file %s: not used for the capacity", h.notes[i]);
	for (unsigned d = 0; d < e->domains.count; d++) {
		struct engine_dom *dom = &e->domains.dom[d];
		char where[sizeof(dom->name) + sizeof(dom->what) + 16];
		if (engine_dom_known_capacity(e, d) > 0 || !(mbps[d] > 0))
			continue;
		capacity_seed(&dom->learn, mbps[d]);
		dom->record_mbps = mbps[d];
		snprintf(where, sizeof(where), "domain %s (%s)", dom->name, dom->what);
		say_seeded(where, mbps[d], path, &h);
	}
	if (h.total_mbps > 0) {
		capacity_seed(&e->policy.host_learn, h.total_mbps);
		if (!e->domains.per_domain)
			say_seeded("host", h.total_mbps, path, &h);
	}
}
