#include "core/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "core/clock.h"
#include "core/counter.h"
#include "core/log.h"
#include "core/record.h"

/* mpamd wants at least this many reads per counter wrap, so a late tick cannot hide a wrap. */
#define READS_PER_WRAP	   2
#define SIM_CLOCK_START_NS 1000000000ull

struct engine {
	const struct config *config;
	struct engine_options opts;
	struct clock clock;
	const struct backend_ops *ops;
	struct backend *backend;
	struct backend_caps caps;
	struct partition_status *status;
	struct partition_limits *wanted;
	struct sample *samples; /* [partition][domain] */
	struct record *record;
	uint64_t interval_ns;
	uint64_t start_ns;
	uint64_t ticks_done;
};

size_t engine_partition_count(const struct engine *e)
{
	return e->config->partition_count;
}

const struct partition_status *engine_partition(const struct engine *e, size_t index)
{
	return &e->status[index];
}

uint64_t engine_ticks_done(const struct engine *e)
{
	return e->ticks_done;
}

/* Refuses an interval in which a counter could wrap more than once between reads. */
static int check_interval(struct engine *e, struct err *err)
{
	if (e->caps.counter_bits >= 64)
		return 0; /* resctrl's byte counts: centuries to wrap */
	for (unsigned d = 0; d < e->caps.domain_count; d++) {
		const struct backend_domain_caps *dom = &e->caps.domains[d];
		if (!dom->measures)
			continue;
		if (dom->capacity_mbps <= 0) {
			log_info("domain %s: capacity unknown, the counter wrap check is skipped", dom->name);
			continue;
		}
		uint64_t wrap_ns = counter_wrap_ns(e->caps.counter_bits, e->caps.counter_scale, dom->capacity_mbps);
		if (e->interval_ns * READS_PER_WRAP > wrap_ns)
			return err_set(
				err, -EINVAL,
				"interval_ms = %u is too long: a %u-bit counter (scale %u) at %.0f MB/s wraps in "
				"%.0f ms and needs at least %d reads per wrap; use interval_ms <= %llu",
				e->config->global.interval_ms, e->caps.counter_bits, e->caps.counter_scale,
				dom->capacity_mbps, (double)wrap_ns / 1e6, READS_PER_WRAP,
				(unsigned long long)(wrap_ns / READS_PER_WRAP / 1000000u));
	}
	return 0;
}

static int open_partitions(struct engine *e)
{
	size_t opened = 0;

	for (size_t i = 0; i < e->config->partition_count; i++) {
		const struct partition_config *p = &e->config->partitions[i];
		struct partition_status *st = &e->status[i];
		struct err err = { "" };
		st->name = p->name;
		e->wanted[i] =
			(struct partition_limits){ .mb_max = p->mb_max, .mb_min = p->mb_min, .l3_cbm = p->l3_cbm };
		int r = e->ops->partition_open(e->backend, i, p, &err);
		if (r == 0) {
			struct partition_limits eff;
			r = e->ops->apply(e->backend, i, &e->wanted[i], &eff, &err);
			if (r == 0) {
				st->mb_max = eff.mb_max;
				st->mb_min = eff.mb_min;
			}
		}
		if (r < 0) {
			log_error("partition %s: %s", p->name, err.text);
			st->reason = "failed to open or apply limits (see log)";
			continue;
		}
		st->open = true;
		opened++;
	}
	return opened > 0 || e->config->partition_count == 0 ? 0 : -ENODEV;
}

static int engine_setup(struct engine *e, struct err *err)
{
	size_t n = e->config->partition_count;
	int r;

	e->interval_ns = (uint64_t)e->config->global.interval_ms * 1000000u;
	if (e->opts.sim_clock && e->config->global.backend != BACKEND_SIM)
		return err_set(err, -EINVAL, "--sim-clock needs backend = sim");
	e->ops = backend_for(e->config->global.backend);
	if (!e->ops)
		return err_set(err, -EOPNOTSUPP, "backend %s is not available in this build",
			       backend_kind_names[e->config->global.backend]);
	if (e->opts.sim_clock)
		clock_init_simulated(&e->clock, SIM_CLOCK_START_NS);
	else
		clock_init_monotonic(&e->clock);
	if ((r = e->ops->open(e->config, &e->clock, &e->backend, err)) < 0)
		return r;
	e->ops->caps(e->backend, &e->caps);
	if ((r = check_interval(e, err)) < 0)
		return r;
	e->status = calloc(n ? n : 1, sizeof(*e->status));
	e->wanted = calloc(n ? n : 1, sizeof(*e->wanted));
	e->samples = calloc((n ? n : 1) * (e->caps.domain_count ? e->caps.domain_count : 1), sizeof(*e->samples));
	if (!e->status || !e->wanted || !e->samples)
		return err_set(err, -ENOMEM, "out of memory");
	if (open_partitions(e) < 0)
		return err_set(err, -ENODEV, "no partition could be opened");
	const char *record = e->opts.record_path ? e->opts.record_path : e->config->global.record;
	if (record && (r = record_open(record, e->ops->truth_mbps != NULL, &e->record, err)) < 0)
		return r;
	return 0;
}

int engine_new(const struct config *config, const struct engine_options *opts, struct engine **ret, struct err *err)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e)
		return err_set(err, -ENOMEM, "out of memory");
	e->config = config;
	e->opts = *opts;
	int r = engine_setup(e, err);
	if (r < 0) {
		engine_free(e);
		return r;
	}
	*ret = e;
	return 0;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	struct err err;
	if (record_close(e->record, &err) < 0)
		log_error("%s", err.text);
	if (e->backend)
		e->ops->close(e->backend);
	free(e->status);
	free(e->wanted);
	free(e->samples);
	free(e);
}

/* Sums a partition's domains into one rate; invalid when any measuring domain is. */
static void summarise(struct engine *e, size_t index)
{
	struct partition_status *st = &e->status[index];
	const struct sample *row = &e->samples[index * e->caps.domain_count];

	unsigned measured = 0;

	st->valid = st->open;
	st->estimated = false;
	st->mbps = 0;
	if (!st->open)
		return;
	for (unsigned d = 0; d < e->caps.domain_count; d++) {
		if (!e->caps.domains[d].measures)
			continue;
		measured++;
		if (row[d].state == SAMPLE_INVALID) {
			st->valid = false;
			st->reason = row[d].reason;
			continue;
		}
		st->estimated |= row[d].state == SAMPLE_ESTIMATED;
		st->mbps += counter_rate_mbps(row[d].bytes, row[d].elapsed_ns);
	}
	if (measured == 0) {
		st->valid = false; /* nothing measures: no value, rather than a made-up 0 */
		st->reason = "no bandwidth counters";
	}
	if (st->valid)
		st->reason = NULL;
	st->truth_mbps = e->ops->truth_mbps ? e->ops->truth_mbps(e->backend, index) : 0.0;
}

static int publish(struct engine *e, uint64_t now_ns, struct err *err)
{
	for (size_t i = 0; e->record && i < e->config->partition_count; i++) {
		const struct partition_status *st = &e->status[i];
		struct record_row row = {
			.t_ms = (now_ns - e->start_ns) / 1000000u,
			.partition = st->name,
			.valid = st->valid,
			.estimated = st->estimated,
			.mbps = st->mbps,
			.mb_max = st->mb_max,
			.mb_min = st->mb_min,
			.has_truth = e->ops->truth_mbps != NULL,
			.truth_mbps = st->truth_mbps,
		};
		record_write(e->record, &row);
	}
	return e->record ? record_flush(e->record, err) : 0;
}

static void print_table(struct engine *e, uint64_t now_ns)
{
	FILE *out = e->opts.print_out ? e->opts.print_out : stdout;
	bool truth = e->ops->truth_mbps != NULL;

	fprintf(out, "t=%.1fs %-16s %10s %8s %7s %7s%s\n", (double)(now_ns - e->start_ns) / 1e9, "partition", "MB/s",
		"state", "mb_max", "mb_min", truth ? "   sim MB/s" : "");
	for (size_t i = 0; i < e->config->partition_count; i++) {
		const struct partition_status *st = &e->status[i];
		char rate[32];
		snprintf(rate, sizeof(rate), st->valid ? "%.1f" : "-", st->mbps);
		fprintf(out, "       %-16s %10s %8s %6u%% %6u%%", st->name, rate,
			!st->open ? "failed" : (!st->valid ? "invalid" : (st->estimated ? "estimate" : "measured")),
			st->mb_max, st->mb_min);
		if (truth)
			fprintf(out, " %10.1f", st->truth_mbps);
		fputc('\n', out);
	}
	fflush(out);
}

static int tick(struct engine *e, uint64_t now_ns, struct err *err)
{
	struct err read_err = { "" };

	if (e->ops->read(e->backend, now_ns, e->samples, &read_err) < 0)
		log_error("reading counters failed: %s", read_err.text);
	for (size_t i = 0; i < e->config->partition_count; i++)
		summarise(e, i);
	e->ticks_done++;
	if (e->opts.print_every && e->ticks_done % e->opts.print_every == 0)
		print_table(e, now_ns);
	return publish(e, now_ns, err);
}

/* Sleeps to the next deadline; a tick that ran late skips the deadlines it missed rather than
 * stacking them. */
static uint64_t wait_for_tick(struct engine *e, uint64_t *deadline)
{
	uint64_t now = clock_now(&e->clock);

	if (now > *deadline + e->interval_ns) {
		uint64_t missed = (now - *deadline) / e->interval_ns;
		log_warning("tick overran by %llu interval(s); skipping them", (unsigned long long)missed);
		*deadline += missed * e->interval_ns;
	}
	while (clock_sleep_until(&e->clock, *deadline) == -EINTR && !(e->opts.stop && *e->opts.stop))
		;
	now = clock_now(&e->clock);
	*deadline += e->interval_ns;
	return now;
}

int engine_run(struct engine *e, struct err *err)
{
	e->start_ns = clock_now(&e->clock);
	/* The first read only sets every counter's baseline. */
	e->ops->read(e->backend, e->start_ns, e->samples, NULL);
	uint64_t deadline = e->start_ns + e->interval_ns;
	while (!(e->opts.stop && *e->opts.stop) && (e->opts.ticks == 0 || e->ticks_done < e->opts.ticks)) {
		uint64_t now = wait_for_tick(e, &deadline);
		if (e->opts.stop && *e->opts.stop)
			break;
		int r = tick(e, now, err);
		if (r < 0)
			return r;
	}
	return 0;
}
