/* The engine's record file: where it is, the wall-clock time of each tick, one row per partition
 * per tick and one per partition per domain, and reopening on SIGHUP. A failing disk loses ticks'
 * rows (the record counts them, says so once, and tries again), never the control loop. */
#include "core/base/log.h"
#include "core/engine/engine_internal.h"
#include "core/report/record.h"

const char *engine_record_path(const struct engine *e)
{
	return e->opts.record_path ? e->opts.record_path : e->gens.config->global.record;
}

/* The wall-clock time of `now_ns` (a tick's, an event's). On the simulated clock a run of thousands of ticks takes a fraction
 * of a second: its times are the real start plus the simulated time, so they still advance by one
 * interval per tick. */
uint64_t engine_wall_ms(const struct engine *e, uint64_t now_ns)
{
	if (e->clock.simulated)
		return e->record.wall_start_ms + engine_t_ms(e, now_ns);
	return clock_wall_ms();
}

static struct record_options record_options(const struct engine *e)
{
	return (struct record_options){ .with_truth = engine_has_truth(e),
					.with_ipc = e->hw.pmu.ops != NULL,
					.with_classes = engine_classes_shared(e),
					.now_ms = clock_wall_ms(),
					.max_bytes = e->gens.config->global.record_max_bytes };
}

int engine_record_open(struct engine *e, struct err *err)
{
	const char *path = engine_record_path(e);
	struct record_options opts = record_options(e);

	e->record.wall_start_ms = clock_wall_ms();
	if (!path)
		return 0;
	return record_new(path, &opts, &e->record.file, err);
}

/* What the partition's ceilings let through on all its domains together; 0 unless every one is known. */
static double ceiling_mbps(const struct engine *e, size_t i)
{
	double sum = 0;

	for (unsigned d = 0; d < e->domains.count; d++) {
		double mbps = engine_partition_domain(e, i, d)->mb_max_mbps;
		if (!(mbps > 0))
			return 0;
		sum += mbps;
	}
	return sum;
}

/* The partition's rows on each domain, after its total. The goals are the partition's, not split
 * per domain, but for the kernel's mba_MBps controller, which holds target_mbps on every domain; so
 * is its class, which holds its limits on every domain. */
static void record_domains(struct engine *e, size_t i, const struct record_row *total)
{
	double target_mbps = e->hw.caps.mb_kernel_mbps ? total->target_mbps : 0;

	for (unsigned d = 0; d < e->domains.count; d++) {
		const struct domain_status *ds = engine_partition_domain(e, i, d);
		struct record_row row = {
			.t_ms = total->t_ms,
			.time_ms = total->time_ms,
			.partition = total->partition,
			.domain = e->domains.dom[d].name,
			.valid = ds->valid,
			.estimated = ds->estimated,
			.mbps = ds->mbps,
			.mb_max = ds->mb_max,
			.mb_min = ds->mb_min,
			.mb_max_mbps = ds->mb_max_mbps,
			.no_limits = total->no_limits,
			.target_mbps = target_mbps,
			.has_truth = total->has_truth,
			.truth_mbps = ds->truth_mbps,
			.in_class = total->in_class,
			.class_id = total->class_id,
			.mb_max_asked = ds->mb_max_asked,
		};
		record_write(e->record.file, &row);
	}
}

void engine_record_tick(struct engine *e, uint64_t now_ns)
{
	struct err err = { "" };

	if (!e->record.file)
		return;
	uint64_t t_ms = engine_t_ms(e, now_ns), time_ms = engine_wall_ms(e, now_ns);
	for (size_t i = 0; i < e->slots.count; i++) {
		const struct partition_status *st = &e->slots.partitions[i].status;
		if (!e->slots.partitions[i].used)
			continue;
		const struct partition_goals *goals = &e->slots.partitions[i].config->goals; /* set's included */
		struct record_row row = {
			.t_ms = t_ms,
			.time_ms = time_ms,
			.partition = st->name,
			.valid = st->valid,
			.estimated = st->estimated,
			.mbps = st->mbps,
			.mb_max = st->mb_max,
			.mb_min = st->mb_min,
			.mb_max_mbps = ceiling_mbps(e, i),
			.no_limits = !st->open,
			.guarantee_mbps = goals->guarantee_mbps,
			.target_mbps = goals->target_mbps,
			.event = st->event,
			.has_truth = engine_has_truth(e),
			.truth_mbps = st->truth_mbps,
			.ipc_valid = st->ipc_valid,
			.ipc = st->ipc,
			.in_class = st->open && st->in_class,
			.class_id = st->class_id,
			.mb_max_asked = st->mb_max_asked,
		};
		record_write(e->record.file, &row);
		record_domains(e, i, &row);
	}
	/* A failure loses this tick's rows only: the record counts it, says it once and tries again. */
	record_end_tick(e->record.file, &err);
}

void engine_record_reopen(struct engine *e)
{
	const char *path = engine_record_path(e);
	struct record_options opts = record_options(e);
	struct err err = { "" };

	if (!path) {
		engine_record_close(e);
		return;
	}
	if (e->record.file) { /* a failure is the record's to say, count and try again */
		if (record_reopen(e->record.file, path, &opts, &err) == 0)
			log_info("record file %s reopened", path);
		return;
	}
	if (record_new(path, &opts, &e->record.file, &err) < 0) {
		log_error("%s; recording starts at the next SIGHUP or reload that can open it", err.text);
		e->record.file = NULL;
		return;
	}
	log_info("record file %s opened", path);
}

void engine_record_close(struct engine *e)
{
	struct err err = { "" };

	if (record_free(e->record.file, &err) < 0)
		log_error("%s", err.text);
	e->record.file = NULL;
}
