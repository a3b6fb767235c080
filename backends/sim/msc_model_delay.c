/* The controls in force of the MSC model (msc_model_internal.h): real MSCs apply a new bandwidth limit
 * some time after software writes it, while the register reads back the new value at once. With
 * limit_delay_ticks N a write made during tick k (before the k+1-th msc_model_tick) governs the
 * traffic from tick k + N on: after N more calls of msc_model_tick.
 *
 * Each RIS keeps a second copy of its configurations, the one in force, and the MSC a queue of the
 * writes still on their way, in the order they were made. The queue holds at most one write per
 * configuration and due tick (a second write in the same tick replaces the first, as only the last
 * one would be seen), so it never holds more than nr_ris * nr_cfgs * N entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/sim/msc_model_internal.h"
#include "core/base/grow.h"

static bool delayed(const struct msc_model *m)
{
	return m->p.limit_delay_ticks > 0;
}

int msc_model_delay_init(struct msc_model *m)
{
	if (!delayed(m))
		return 0;
	for (unsigned r = 0; r < m->nr_ris; r++) {
		struct ris_state *ris = &m->ris[r];
		ris->in_force = malloc((size_t)m->nr_cfgs * sizeof(*ris->in_force));
		if (!ris->in_force)
			return -ENOMEM;
		memcpy(ris->in_force, ris->cfg, (size_t)m->nr_cfgs * sizeof(*ris->in_force));
	}
	return 0;
}

void msc_model_delay_free(struct msc_model *m)
{
	for (unsigned r = 0; m->ris && r < m->nr_ris; r++)
		free(m->ris[r].in_force);
	free(m->pending);
}

void msc_model_delay_settle(struct msc_model *m, unsigned ris, unsigned index)
{
	if (delayed(m))
		m->ris[ris].in_force[index] = m->ris[ris].cfg[index];
}

static void apply(struct msc_model *m, const struct cfg_pending *w)
{
	m->ris[w->ris].in_force[w->index] = w->cfg;
}

/* Out of memory for the queue: every write takes effect now, so the traffic never obeys a value the
 * registers no longer hold (the delay is lost, never a write). */
static void flush(struct msc_model *m)
{
	for (size_t i = 0; i < m->pending_count; i++)
		apply(m, &m->pending[m->pending_head + i]);
	m->pending_head = m->pending_count = 0;
}

/* Room for one more write at the end of the queue. */
static bool make_room(struct msc_model *m)
{
	if (m->pending_head + m->pending_count < m->pending_cap)
		return true;
	if (m->pending_head > 0) {
		memmove(m->pending, &m->pending[m->pending_head], m->pending_count * sizeof(*m->pending));
		m->pending_head = 0;
		return true;
	}
	return array_grow((void **)&m->pending, &m->pending_cap, m->pending_count + 1, sizeof(*m->pending), NULL) == 0;
}

/* The write already queued for this configuration and due tick: the writes of one tick are at the
 * end of the queue. */
static struct cfg_pending *queued(struct msc_model *m, unsigned ris, unsigned index, uint64_t due)
{
	for (size_t i = m->pending_count; i > 0; i--) {
		struct cfg_pending *w = &m->pending[m->pending_head + i - 1];
		if (w->due != due)
			break;
		if (w->ris == ris && w->index == index)
			return w;
	}
	return NULL;
}

void msc_model_delay_written(struct msc_model *m, unsigned ris, unsigned index)
{
	uint64_t due = m->ticks + m->p.limit_delay_ticks;
	struct cfg_pending *w;

	if (!delayed(m))
		return;
	if ((w = queued(m, ris, index, due))) {
		w->cfg = m->ris[ris].cfg[index];
		return;
	}
	if (!make_room(m)) {
		flush(m);
		msc_model_delay_settle(m, ris, index);
		return;
	}
	m->pending[m->pending_head + m->pending_count++] =
		(struct cfg_pending){ .due = due, .ris = ris, .index = index, .cfg = m->ris[ris].cfg[index] };
}

void msc_model_delay_tick(struct msc_model *m)
{
	m->ticks++;
	while (m->pending_count > 0 && m->pending[m->pending_head].due <= m->ticks) {
		apply(m, &m->pending[m->pending_head++]);
		m->pending_count--;
	}
	if (m->pending_count == 0)
		m->pending_head = 0;
}

const struct partid_cfg *msc_model_in_force(const struct msc_model *m, unsigned ris, unsigned index)
{
	const struct ris_state *r = &m->ris[ris];

	return r->in_force ? &r->in_force[index] : &r->cfg[index];
}
