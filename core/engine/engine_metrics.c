/* The engine's side of the metrics: the view the formatter reads, made from a snapshot
 * (engine_snapshot.h) on whichever thread holds it, the tick duration histogram, the reload outcome
 * and the textfile (on the tick thread). */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "core/base/log.h"
#include "core/engine/engine_internal.h"
#include "core/engine/engine_snapshot.h"

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
	textfile_fini(&m->textfile);
}

void engine_metrics_reloaded(struct engine *e, bool ok)
{
	e->metrics.reload_ok = ok;
	if (ok)
		e->metrics.reload_ok_unix_s = unix_now_s();
}

static void fill_input(const struct engine_snapshot *s, struct metrics_partition *parts, struct metrics_domain *domains,
		       struct metrics_input *in)
{
	for (size_t i = 0; i < s->row_count; i++) {
		const struct snapshot_row *row = &s->rows[i];
		parts[i] = (struct metrics_partition){
			.status = &row->status,
			.guarantee_mbps = row->guarantee_mbps,
			.target_mbps = row->target_mbps,
			.domains = s->domain_count ? snapshot_row_domains(s, row) : NULL,
			.invalid_samples = row->invalid_samples,
			.placement = row->placement,
		};
	}
	for (unsigned d = 0; d < s->domain_count; d++)
		domains[d] = (struct metrics_domain){ s->domains[d].name, s->domains[d].capacity_mbps,
						      s->domains[d].learned, s->domains[d].source };
	*in = (struct metrics_input){
		.version = s->version,
		.partitions = parts,
		.partition_count = s->row_count,
		.domains = domains,
		.domain_count = s->domain_count,
		.events = &s->event_counts,
		.events_folded = s->events->folded,
		.has_guarantees = s->has_guarantees,
		.guarantees_enforced = !s->guarantees_pending,
		.tick_duration = &s->tick_duration,
		.ticks = s->ticks,
		.overruns = s->overruns,
		.interval_s = (double)s->interval_ms / 1e3,
		.uptime_s = s->uptime_s,
		.last_tick_unix_s = s->last_tick_unix_s,
		.capacity_mbps = s->capacity_mbps,
		.reload_ok = s->reload_ok,
		.reload_ok_unix_s = s->reload_ok_unix_s,
		.proc_connector = s->proc_connector,
		.proc_events_lost = s->place_lost,
		.record = s->record_present ? &s->record_health : NULL,
		.classes = s->classes_shared ? &s->class_room : NULL,
	};
}

/* The exposition of snapshot `s` into `text`; 0 or -ENOMEM. */
static int format_snapshot(const struct engine_snapshot *s, struct metrics_buf *text)
{
	struct metrics_partition *parts = calloc(s->row_count ? s->row_count : 1, sizeof(*parts));
	struct metrics_domain domains[ENGINE_MAX_DOMAINS];
	struct metrics_input in;

	if (!parts)
		return -ENOMEM;
	fill_input(s, parts, domains, &in);
	int r = metrics_format(&in, text);
	free(parts);
	return r;
}

json_t *engine_metrics_reply(const struct engine_snapshot *s)
{
	struct metrics_buf text = { 0 };
	json_t *reply = NULL;

	if (format_snapshot(s, &text) == 0)
		reply = json_pack("{s:s,s:s%}", "format", METRICS_FORMAT, "text", text.data, text.len);
	metrics_buf_fini(&text);
	return reply;
}

bool engine_metrics_reply_text(const struct engine_snapshot *s, struct json_text *t)
{
	struct metrics_buf text = { 0 };
	bool ok = format_snapshot(s, &text) == 0;

	if (ok) {
		json_text_lit(t, "{\"format\":");
		json_text_string(t, METRICS_FORMAT);
		json_text_lit(t, ",\"text\":");
		ok = json_text_string_n(t, text.data, text.len);
		json_text_lit(t, "}");
	}
	metrics_buf_fini(&text);
	return ok && !t->failed;
}

void engine_metrics_textfile(struct engine *e, const struct engine_snapshot *s, uint64_t mono_now_ns)
{
	struct engine_metrics *m = &e->metrics;
	struct err err = { "" };

	if (!textfile_follows_config(e))
		return;
	if (m->textfile_tried_ns && mono_now_ns - m->textfile_tried_ns < TEXTFILE_PERIOD_NS)
		return;
	m->textfile_tried_ns = mono_now_ns;
	if (format_snapshot(s, &m->text) < 0) {
		log_error("metrics textfile: out of memory building the text");
		return;
	}
	textfile_write(&m->textfile, m->text.data, m->text.len, &err); /* it logs what goes wrong */
}

void engine_metrics_tick_done(struct engine *e, uint64_t duration_ns)
{
	histogram_observe(&e->metrics.tick_duration, (double)duration_ns / 1e9);
	e->metrics.last_tick_unix_s = unix_now_s();
}

void engine_metrics_stop(struct engine *e)
{
	textfile_remove(&e->metrics.textfile);
}
