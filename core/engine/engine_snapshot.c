/* The snapshot the replies are built from (see engine_snapshot.h): a copy of the engine's state
 * taken on the tick thread, plain data with its own strings, shared by reference count. */
#include "core/engine/engine_snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/engine_internal.h"

#define STATUS_EVENTS 20	  /* the newest events status carries, as many as show's */
#define TEXT_CHUNK    (64 * 1024) /* the snapshot's strings are kept in chunks of this */

uint64_t engine_snapshot_generation(const struct engine *e)
{
	/* Both only grow, each by one per event: their sum never repeats a state's number. */
	return e->ticks.done + e->changes;
}

void engine_snapshot_changed(struct engine *e)
{
	e->changes++;
}

/* ---- the snapshot's strings ---- */

/* Chunks linked through their first bytes: pointers into a chunk stay valid while more are added. */
#define TEXT_RECENT 4 /* copies remembered by their original: most partitions share their reasons' texts */

struct text_chunks {
	char *head; /* the chunk being filled; its first sizeof(char *) bytes link to the one before */
	size_t used;
	bool failed;
	/* The last texts copied, by the address they were copied from: a string the engine does not
	 * change while a snapshot is taken (on the tick thread) is copied once, however many rows name it. */
	const char *from[TEXT_RECENT], *copy[TEXT_RECENT];
	unsigned next;
};

static const char *text_copy_new(struct text_chunks *t, const char *s)
{
	size_t n = strlen(s) + 1;
	if (!t->head || t->used + n > TEXT_CHUNK) {
		size_t size = n + sizeof(char *) > TEXT_CHUNK ? n + sizeof(char *) : TEXT_CHUNK;
		char *chunk = malloc(size);
		if (!chunk) {
			t->failed = true;
			return "";
		}
		memcpy(chunk, &t->head, sizeof(char *));
		t->head = chunk;
		t->used = sizeof(char *);
	}
	char *copy = memcpy(t->head + t->used, s, n);
	t->used += n;
	return copy;
}

static const char *text_copy(struct text_chunks *t, const char *s)
{
	if (!s)
		return NULL;
	for (unsigned i = 0; i < TEXT_RECENT; i++)
		if (t->from[i] == s)
			return t->copy[i];
	const char *copy = text_copy_new(t, s);
	if (t->failed)
		return copy;
	t->from[t->next] = s;
	t->copy[t->next] = copy;
	t->next = (t->next + 1) % TEXT_RECENT;
	return copy;
}

static void text_free(char *head)
{
	while (head) {
		char *before;
		memcpy(&before, head, sizeof(char *));
		free(head);
		head = before;
	}
}

/* ---- one partition ---- */

/* An open partition with an error could not have its limits applied: those in force are shown. */
static enum snapshot_state state_of(const struct engine_partition *ep)
{
	return ep->status.open ? SNAPSHOT_OPEN : ep->failed ? SNAPSHOT_FAILED : SNAPSHOT_CLOSED;
}

const char *snapshot_row_class(const struct snapshot_row *row)
{
	return partition_class_names[row->class_of];
}

const char *snapshot_row_state(const struct snapshot_row *row)
{
	static const char *const names[] = {
		[SNAPSHOT_OPEN] = "open", [SNAPSHOT_FAILED] = "failed", [SNAPSHOT_CLOSED] = "closed"
	};

	return names[row->state];
}

static void row_status(struct snapshot_row *row, const struct partition_status *st, struct text_chunks *t)
{
	/* The event text (most of the struct) is the record's, not the replies'. */
	memcpy(&row->status, st, offsetof(struct partition_status, event));
	row->status.event = NULL;
	row->status.name = text_copy(t, st->name);
	row->status.reason = text_copy(t, st->reason);
	row->status.pmu_reason = text_copy(t, st->pmu_reason);
}

static void row_domains(const struct engine *e, size_t slot, struct domain_status *out, struct text_chunks *t)
{
	for (unsigned d = 0; d < e->domains.count; d++) {
		out[d] = *engine_partition_domain(e, slot, d);
		out[d].reason = text_copy(t, out[d].reason);
	}
}

const struct domain_status *snapshot_row_domains(const struct engine_snapshot *s, const struct snapshot_row *row)
{
	return s->row_domains + (size_t)(row - s->rows) * s->domain_count;
}

static void row_fill(const struct engine *e, size_t slot, struct snapshot_row *row, struct domain_status *domains,
		     struct placement_status **placements, struct text_chunks *t)
{
	const struct engine_partition *ep = &e->slots.partitions[slot];
	const struct partition_goals *g = &ep->config->goals;
	const struct placement_status *placed = ep->status.open ? composition_placement(&e->hw, slot) : NULL;

	row->slot = (uint32_t)slot;
	row_status(row, &ep->status, t);
	row->class_of = (uint8_t)g->class;
	row->target_mbps = g->target_mbps;
	row->guarantee_mbps = g->guarantee_mbps;
	row->weight = g->weight;
	row->state = (uint8_t)state_of(ep);
	row->error = ep->error && ep->error[0] ? text_copy(t, ep->error) : NULL;
	row->retry_known = ep->failed && ep->retry_ns;
	row->retry_in_s = ep->retry_ns > e->ticks.last_ns ? (double)(ep->retry_ns - e->ticks.last_ns) / 1e9 : 0.0;
	row->attempts = ep->attempts;
	row->origin = text_copy(t, ep->origin);
	row->invalid_samples = ep->invalid_samples;
	row->placement = NULL;
	if (placed && *placements) {
		**placements = *placed;
		row->placement = (*placements)++;
	}
	row_domains(e, slot, domains, t);
}

/* ---- the daemon ---- */

static void take_domains(const struct engine *e, struct engine_snapshot *s, struct text_chunks *t)
{
	s->domain_count = e->domains.count;
	for (unsigned d = 0; d < e->domains.count; d++) {
		struct snapshot_domain *sd = &s->domains[d];
		sd->name = text_copy(t, e->domains.dom[d].name);
		sd->what = text_copy(t, e->domains.dom[d].what);
		sd->capacity_mbps = engine_domain_capacity(e, d, &sd->learned);
		sd->source = engine_domain_capacity_source(e, d);
		sd->total_mbps = 0;
		for (size_t r = 0; r < s->row_count; r++)
			if (s->row_domains[r * s->domain_count + d].valid)
				sd->total_mbps += s->row_domains[r * s->domain_count + d].mbps;
	}
}

/* The newest STATUS_EVENTS events, oldest first from items[0], and every count. */
static int take_events(const struct event_log *log, struct engine_snapshot *s)
{
	size_t keep = log->count < STATUS_EVENTS ? log->count : STATUS_EVENTS;
	size_t first = (log->next + EVENTS_KEPT - keep) % EVENTS_KEPT;

	s->events = malloc(sizeof(*s->events));
	s->event_counts.slots = calloc(log->counts.used ? log->counts.used : 1, sizeof(*s->event_counts.slots));
	if (!s->events || !s->event_counts.slots)
		return -1;
	for (size_t i = 0; i < keep; i++)
		s->events->items[i] = log->items[(first + i) % EVENTS_KEPT];
	s->events->next = keep % EVENTS_KEPT;
	s->events->count = keep;
	s->events->total = log->total;
	s->events->folded = log->folded;
	s->events->counts = (struct event_counts){ 0 };
	for (size_t i = 0; i < log->counts.capacity && s->event_counts.used < log->counts.used; i++)
		if (log->counts.slots[i].count)
			s->event_counts.slots[s->event_counts.used++] = log->counts.slots[i];
	s->event_counts.capacity = s->event_counts.used;
	return 0;
}

static void take_daemon(const struct engine *e, struct engine_snapshot *s, struct text_chunks *t)
{
	s->version = MPAMD_VERSION;
	s->backend = e->hw.control_ops->name;
	s->pmu = e->hw.pmu.ops ? e->hw.pmu.ops->name : NULL;
	s->classes_shared = engine_classes_room(e, &s->class_room) &&
			    engine_classes_deviation(e, &s->class_deviation_pp, &s->class_members);
	s->interval_ms = e->gens.config->global.interval_ms;
	s->ticks = e->ticks.done;
	s->overruns = e->ticks.overruns;
	s->uptime_s = engine_last_tick_s(e);
	s->last_tick_ns = e->ticks.stats.last_ns;
	s->max_tick_ns = e->ticks.stats.max_ns;
	s->last_tick_unix_s = e->metrics.last_tick_unix_s;
	s->tick_duration = e->metrics.tick_duration;
	s->sim_clock = e->opts.sim_clock;
	s->capacity_mbps = engine_host_capacity(e, &s->capacity_learned);
	s->has_guarantees = engine_has_guarantees(e);
	s->guarantees_pending = engine_guarantees_pending(e);
	s->reload_ok = e->metrics.reload_ok;
	s->reload_ok_unix_s = e->metrics.reload_ok_unix_s;
	s->record = e->record.file ? record_status_json(e->record.file) : NULL;
	s->record_present = e->record.file != NULL;
	if (e->record.file)
		s->record_health = *record_health(e->record.file);
	s->proc_connector = e->place.connector != NULL;
	s->proc_connector_off = e->place.why[0] ? text_copy(t, e->place.why) : NULL;
	s->reconcile_ms = e->gens.config->global.reconcile_ms;
	s->reconciles = e->place.reconciles;
	s->place_events = e->place.events;
	s->place_lost = e->place.lost;
	s->has_truth = engine_has_truth(e);
}

/* The rows' block: the rows (at least one), then each row's domains, then the placements. */
struct rows_size {
	size_t used;   /* partitions in use: a row each */
	size_t placed; /* open ones with a placement */
	size_t bytes;
};

/* The rows' block the engine needs now, in one pass over the slots. */
static struct rows_size rows_size(const struct engine *e)
{
	struct rows_size z = { 0 };

	for (size_t i = 0; i < e->slots.count; i++) {
		const struct engine_partition *ep = &e->slots.partitions[i];
		z.used += ep->used;
		z.placed += ep->used && ep->status.open && composition_placement(&e->hw, i) != NULL;
	}
	z.bytes = (z.used ? z.used : 1) *
			  (sizeof(struct snapshot_row) + e->domains.count * sizeof(struct domain_status)) +
		  z.placed * sizeof(struct placement_status);
	return z;
}

/* Fills the rows into s->rows, a block of z's size or more (allocated here when NULL). */
static int take_rows(const struct engine *e, struct engine_snapshot *s, const struct rows_size *z,
		     struct text_chunks *t)
{
	size_t used = z->used, domains = e->domains.count;
	struct domain_status *dom;
	struct placement_status *place;

	if (s->rows)
		memset(s->rows, 0, z->bytes); /* what calloc gives a new one */
	else if ((s->rows = calloc(1, z->bytes)) != NULL)
		s->rows_bytes = z->bytes;
	else
		return -1;
	dom = s->row_domains = (struct domain_status *)(s->rows + (used ? used : 1));
	place = z->placed ? (struct placement_status *)(dom + (used ? used : 1) * domains) : NULL;
	for (size_t i = 0; i < e->slots.count && s->row_count < used; i++) {
		const struct engine_partition *ep = &e->slots.partitions[i];
		if (!ep->used)
			continue;
		row_fill(e, i, &s->rows[s->row_count], dom + s->row_count * domains, &place, t);
		s->partitions_open += ep->status.open;
		s->partitions_failed += ep->failed;
		s->row_count++;
	}
	return 0;
}

/* Everything but the struct and its rows' block. */
static void free_parts(struct engine_snapshot *s)
{
	json_decref(s->record);
	free(s->events);
	free(s->event_counts.slots);
	text_free(s->text);
}

/* Fills `s`, a cleared snapshot with one reference (its rows' block kept, or NULL); 0, or -ENOMEM
 * (then `s` is whole enough to be dropped). */
static int take_into(const struct engine *e, struct engine_snapshot *s, const struct rows_size *z)
{
	struct text_chunks t = { 0 };

	take_daemon(e, s, &t);
	int r = take_rows(e, s, z, &t);
	if (r == 0)
		r = take_events(&e->events, s);
	if (r == 0)
		take_domains(e, s, &t);
	s->text = t.head;
	return r < 0 || t.failed ? -ENOMEM : 0;
}

struct engine_snapshot *engine_snapshot_take(const struct engine *e)
{
	struct engine_snapshot *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	atomic_init(&s->refs, 1);
	struct rows_size z = rows_size(e);
	if (take_into(e, s, &z) < 0) {
		engine_snapshot_unref(s);
		return NULL;
	}
	return s;
}

int engine_snapshot_retake(const struct engine *e, struct engine_snapshot *s)
{
	struct snapshot_row *rows = s->rows;
	size_t kept = s->rows_bytes;

	/* acquire: whatever a reply that dropped its reference read of it happens before it is rewritten. */
	if (atomic_load_explicit(&s->refs, memory_order_acquire) != 1)
		return -EBUSY;
	struct rows_size z = rows_size(e);
	/* A block far larger than needed (partitions removed) is given back with the snapshot. */
	if (z.bytes > kept || z.bytes < kept / 2)
		return -EBUSY;
	free_parts(s);
	memset(s, 0, sizeof(*s));
	atomic_init(&s->refs, 1);
	s->rows = rows;
	s->rows_bytes = kept;
	return take_into(e, s, &z);
}

struct engine_snapshot *engine_snapshot_ref(struct engine_snapshot *s)
{
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	return s;
}

void engine_snapshot_unref(struct engine_snapshot *s)
{
	/* acq_rel: what every holder did with it happens before the free. */
	if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
		return;
	free_parts(s);
	free(s->rows);
	free(s);
}

const struct snapshot_row *engine_snapshot_row(const struct engine_snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->row_count; i++)
		if (!strcmp(s->rows[i].status.name, name))
			return &s->rows[i];
	return NULL;
}

/* ---- the engine as it is now ---- */

json_t *engine_snapshot_status(const struct engine *e)
{
	struct engine_snapshot *s = engine_snapshot_take(e);
	json_t *status = s ? snapshot_status_json(s) : NULL;

	engine_snapshot_unref(s);
	return status;
}

json_t *engine_snapshot_list(const struct engine *e)
{
	struct engine_snapshot *s = engine_snapshot_take(e);
	json_t *list = s ? snapshot_list_json(s) : NULL;

	engine_snapshot_unref(s);
	return list;
}
