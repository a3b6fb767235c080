/* The engine's side of the metrics: the view the formatter reads, the text cached per tick (a
 * control request is served in the tick thread, and a thousand partitions must stay cheap), the tick
 * duration histogram, the reload outcome and the textfile. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "core/base/log.h"
#include "core/engine/engine_internal.h"

#define TEXTFILE_PERIOD_NS 1000000000ull
/* Tick duration buckets as fractions of the interval: a tick normally takes a small part of it, and
 * one near 1 is about to overrun. */
static const double tick_bucket_fractions[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2 };

static double unix_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The textfile at the path the configuration names now (a reload may have changed it); whether there
 * is one. A path mpamd cannot write is said when it is first named (textfile.h). */
static bool textfile_follows_config(struct engine *e)
{
	struct err err = { "" };

	if (textfile_set_path(&e->metrics.textfile, e->gens.config->global.metrics_textfile, &err) < 0) {
		log_error("metrics textfile: %s", err.text);
		return false;
	}
	return e->metrics.textfile.path != NULL;
}

void engine_metrics_init(struct engine *e)
{
	struct engine_metrics *m = &e->metrics;
	size_t n = sizeof(tick_bucket_fractions) / sizeof(tick_bucket_fractions[0]);
	double bounds[sizeof(tick_bucket_fractions) / sizeof(tick_bucket_fractions[0])];

	/* Fixed at the start: buckets that moved with a reload would break every rate over them. */
	for (size_t i = 0; i < n; i++)
		bounds[i] = tick_bucket_fractions[i] * (double)e->ticks.interval_ns / 1e9;
	histogram_init(&m->tick_duration, bounds, n);
	m->reload_ok = true; /* the configuration mpamd started with loaded */
	m->reload_ok_unix_s = unix_now_s();
	textfile_follows_config(e); /* a path it cannot write is said at start-up */
}

void engine_metrics_fini(struct engine *e)
{
	struct engine_metrics *m = &e->metrics;

	metrics_buf_fini(&m->text);
	json_decref(m->reply);
	m->reply = NULL;
	textfile_fini(&m->textfile);
}

void engine_metrics_stale(struct engine *e)
{
	e->metrics.fresh = false;
}

void engine_metrics_reloaded(struct engine *e, bool ok)
{
	e->metrics.reload_ok = ok;
	if (ok)
		e->metrics.reload_ok_unix_s = unix_now_s();
	engine_metrics_stale(e);
}

static void fill_input(struct engine *e, struct metrics_partition *parts, struct metrics_domain *domains,
		       struct metrics_input *in)
{
	const struct config *c = e->gens.config;
	size_t n = 0;
	bool learned;

	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used)
			parts[n++] = (struct metrics_partition){
				.status = &e->slots.partitions[i].status,
				.goals = &e->slots.partitions[i].config->goals,
				.domains = e->domains.count ? engine_partition_domain(e, i, 0) : NULL,
				.invalid_samples = e->slots.partitions[i].invalid_samples,
				.placement =
					e->slots.partitions[i].status.open ? composition_placement(&e->hw, i) : NULL,
			};
	for (unsigned d = 0; d < e->domains.count; d++) {
		domains[d].name = e->domains.dom[d].name;
		domains[d].capacity_mbps = engine_domain_capacity(e, d, &domains[d].learned);
	}
	*in = (struct metrics_input){
		.version = MPAMD_VERSION,
		.partitions = parts,
		.partition_count = n,
		.domains = domains,
		.domain_count = e->domains.count,
		.events = &e->events.counts,
		.events_folded = e->events.folded,
		.has_guarantees = engine_has_guarantees(e),
		.guarantees_enforced = !engine_guarantees_pending(e),
		.tick_duration = &e->metrics.tick_duration,
		.ticks = e->ticks.done,
		.overruns = e->ticks.overruns,
		.interval_s = (double)c->global.interval_ms / 1e3,
		.uptime_s = engine_last_tick_s(e),
		.last_tick_unix_s = e->metrics.last_tick_unix_s,
		.capacity_mbps = engine_host_capacity(e, &learned),
		.reload_ok = e->metrics.reload_ok,
		.reload_ok_unix_s = e->metrics.reload_ok_unix_s,
		.proc_connector = e->place.connector != NULL,
		.proc_events_lost = e->place.lost,
		.record = e->record.file ? record_health(e->record.file) : NULL,
	};
}

/* The text of this tick: built when it is not yet, else the one already built. */
static const struct metrics_buf *current_text(struct engine *e)
{
	struct engine_metrics *m = &e->metrics;
	size_t n = e->slots.count;

	if (m->fresh && m->tick == e->ticks.done)
		return &m->text;
	json_decref(m->reply);
	m->reply = NULL;
	struct metrics_partition *parts = calloc(n ? n : 1, sizeof(*parts));
	struct metrics_domain domains[ENGINE_MAX_DOMAINS];
	struct metrics_input in;
	if (!parts)
		return NULL;
	fill_input(e, parts, domains, &in);
	int r = metrics_format(&in, &m->text);
	free(parts);
	if (r < 0)
		return NULL;
	m->tick = e->ticks.done;
	m->fresh = true;
	return &m->text;
}

json_t *engine_metrics_reply(struct engine *e)
{
	struct engine_metrics *m = &e->metrics;
	const struct metrics_buf *text = current_text(e);

	if (!text)
		return NULL;
	if (!m->reply)
		m->reply = json_pack("{s:s,s:s%}", "format", METRICS_FORMAT, "text", text->data, text->len);
	return m->reply ? json_incref(m->reply) : NULL;
}

static void write_textfile(struct engine *e, uint64_t mono_now_ns)
{
	struct engine_metrics *m = &e->metrics;
	struct err err = { "" };

	if (!textfile_follows_config(e))
		return;
	if (m->textfile_tried_ns && mono_now_ns - m->textfile_tried_ns < TEXTFILE_PERIOD_NS)
		return;
	m->textfile_tried_ns = mono_now_ns;
	const struct metrics_buf *text = current_text(e);
	if (!text) {
		log_error("metrics textfile: out of memory building the text");
		return;
	}
	textfile_write(&m->textfile, text->data, text->len, &err); /* it logs what goes wrong */
}

void engine_metrics_tick_done(struct engine *e, uint64_t duration_ns, uint64_t mono_now_ns)
{
	histogram_observe(&e->metrics.tick_duration, (double)duration_ns / 1e9);
	e->metrics.last_tick_unix_s = unix_now_s();
	engine_metrics_stale(e);
	write_textfile(e, mono_now_ns);
}

void engine_metrics_stop(struct engine *e)
{
	textfile_remove(&e->metrics.textfile);
}
