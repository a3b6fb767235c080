#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/counter.h"
#include "core/base/log.h"
#include "core/engine/engine_internal.h"

/* mpamd wants at least this many reads per counter wrap, so a late tick cannot hide a wrap. */
#define READS_PER_WRAP	   2
#define SIM_CLOCK_START_NS 1000000000ull
/* Weight of the newest sample in the smoothed rate: the policies see noise damped over ~3 ticks. */
#define SMOOTHING 0.5

size_t engine_partition_count(const struct engine *e)
{
	return e->config->partition_count;
}

const struct partition_status *engine_partition(const struct engine *e, size_t index)
{
	return &e->partitions[index].status;
}

uint64_t engine_ticks_done(const struct engine *e)
{
	return e->ticks_done;
}

double engine_last_tick_s(const struct engine *e)
{
	return (double)(e->last_tick_ns - e->start_ns) / 1e9;
}

const struct config *engine_config(const struct engine *e)
{
	return e->config;
}

const struct event_log *engine_events(const struct engine *e)
{
	return &e->events;
}

bool engine_has_truth(const struct engine *e)
{
	return e->hw.control_ops && e->hw.control_ops->truth_mbps != NULL;
}

uint64_t engine_t_ms(const struct engine *e, uint64_t now_ns)
{
	return (now_ns - e->start_ns) / 1000000u;
}

/* Refuses an interval in which a counter could wrap more than once between reads. */
static int check_interval(struct engine *e, struct err *err)
{
	for (unsigned d = 0; d < e->hw.domain_count; d++) {
		const struct engine_domain *dom = &e->hw.domains[d];
		double capacity = dom->capacity_mbps > 0 ? dom->capacity_mbps : e->config->global.capacity_mbps;
		if (dom->counter_bits >= 64)
			continue; /* byte counts: centuries to wrap */
		if (capacity <= 0) {
			log_info("domain %s: capacity unknown, the counter wrap check is skipped (set capacity_mbps)",
				 dom->name);
			continue;
		}
		uint64_t wrap_ns = counter_wrap_ns(dom->counter_bits, dom->counter_scale, capacity);
		if (e->interval_ns * READS_PER_WRAP > wrap_ns)
			return err_set(
				err, -EINVAL,
				"interval_ms = %u is too long: a %u-bit counter (scale %u) at %.0f MB/s wraps in "
				"%.0f ms and needs at least %d reads per wrap; use interval_ms <= %llu",
				e->config->global.interval_ms, dom->counter_bits, dom->counter_scale, capacity,
				(double)wrap_ns / 1e6, READS_PER_WRAP,
				(unsigned long long)(wrap_ns / READS_PER_WRAP / 1000000u));
	}
	return 0;
}

/* The policies' copy of a partition's configuration (refreshed after set and reload): its goals whole,
 * so a new goal key needs nothing here. */
void engine_policy_config(struct engine *e, size_t index)
{
	struct policy_partition *pp = &e->policy[index];
	const struct partition_config *p = &e->config->partitions[index];

	pp->name = p->name;
	pp->goals = p->goals;
	pp->escalation_allowed = e->config->global.escalate && p->cgroup != NULL;
}

static void open_partition(struct engine *e, size_t i)
{
	const struct partition_config *p = &e->config->partitions[i];
	struct engine_partition *ep = &e->partitions[i];
	struct partition_limits want = engine_limits(e, p, p->goals.mb_max, p->goals.mb_min);
	struct err err = { "" };

	ep->status.name = p->name;
	engine_policy_config(e, i);
	/* A limit the hardware cannot hold fails this partition before anything is created for it. */
	int r = engine_check_goals(e, p, &err);
	if (r == 0)
		r = engine_validate_limits(e, &want, &err);
	if (r == 0)
		r = composition_partition_open(&e->hw, i, p, &ep->ref, &err);
	if (r == 0)
		r = engine_apply_limits(e, i, &want, &err);
	if (r < 0) {
		log_error("partition %s: %s", p->name, err.text);
		ep->status.reason = "failed to open or apply limits (see log)";
		return;
	}
	ep->status.open = e->policy[i].open = true;
	engine_pmu_open(e, i);
}

static int alloc_partitions(struct engine *e)
{
	size_t n = e->config->partition_count ? e->config->partition_count : 1;
	size_t domains = e->hw.domain_count ? e->hw.domain_count : 1;

	e->partitions = calloc(n, sizeof(*e->partitions));
	e->policy = calloc(n, sizeof(*e->policy));
	e->decisions = calloc(n, sizeof(*e->decisions));
	e->samples = calloc(n * domains, sizeof(*e->samples));
	e->pmu = calloc(n, sizeof(*e->pmu));
	return e->partitions && e->policy && e->decisions && e->samples && e->pmu ? 0 : -ENOMEM;
}

int engine_open_backend(struct engine *e, struct err *err)
{
	size_t n = e->config->partition_count;
	int r;

	e->interval_ns = (uint64_t)e->config->global.interval_ms * 1000000u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	e->cpus = cpus > 0 ? (unsigned)cpus : 1;
	if ((r = composition_open(e->registry, e->config, &e->clock, &e->hw, err)) < 0)
		return r;
	if ((r = check_interval(e, err)) < 0)
		return r;
	if (e->hw.caps.mb_kernel_mbps)
		log_info("resctrl is mounted with mba_MBps: the kernel's own controller holds each group's MB/s; "
			 "mpamd writes target_mbps as that ceiling and runs no bandwidth policy on top");
	if (alloc_partitions(e) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	size_t opened = 0;
	for (size_t i = 0; i < n; i++) {
		open_partition(e, i);
		opened += e->partitions[i].status.open;
	}
	if (opened == 0 && n > 0)
		return err_set(err, -ENODEV, "no partition could be opened");
	/* The first read only sets every counter's baseline; a failure there is worth knowing. */
	struct err read_err = { "" };
	if (composition_read(&e->hw, clock_now(&e->clock), e->samples, &read_err) < 0)
		log_warning("first reading of the counters failed: %s", read_err.text);
	engine_pmu_tick(e, clock_now(&e->clock)); /* the PMU baselines too */
	return 0;
}

void engine_close_backend(struct engine *e)
{
	composition_close(&e->hw);
	free(e->partitions);
	free(e->policy);
	free(e->decisions);
	free(e->samples);
	free(e->pmu);
	e->pmu = NULL;
	e->partitions = NULL;
	e->policy = NULL;
	e->decisions = NULL;
	e->samples = NULL;
}

static int engine_setup(struct engine *e, struct err *err)
{
	const struct control_ops *control = engine_registry_control(e->registry, e->config->global.backend);
	int r;

	if (e->opts.sim_clock && (!control || !control->simulated))
		return err_set(err, -EINVAL, "--sim-clock needs backend = sim");
	if (e->opts.sim_clock)
		clock_init_simulated(&e->clock, SIM_CLOCK_START_NS);
	else
		clock_init_monotonic(&e->clock);
	e->start_ns = e->last_tick_ns = clock_now(&e->clock);
	if ((r = engine_open_backend(e, err)) < 0)
		return r;
	if ((r = engine_record_open(e, err)) < 0)
		return r;
	engine_ctl_handler(e, &e->handler);
	engine_metrics_init(e);
	return 0;
}

int engine_new(struct config *config, const struct engine_options *opts, struct engine **ret, struct err *err)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e) {
		config_free(config);
		return err_set(err, -ENOMEM, "out of memory");
	}
	e->config = config;
	e->opts = *opts;
	e->registry = opts->registry ? opts->registry : &engine_registry_default;
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
	engine_record_close(e);
	engine_close_backend(e);
	engine_metrics_fini(e);
	event_log_fini(&e->events);
	config_free(e->config);
	free(e);
}

/* Sums a partition's domains into one rate; invalid when any measuring domain is. */
static void summarise(struct engine *e, size_t index)
{
	struct partition_status *st = &e->partitions[index].status;
	const struct sample *row = &e->samples[index * e->hw.domain_count];
	uint64_t bytes = 0;

	st->valid = st->open;
	st->estimated = false;
	st->mbps = 0;
	st->event[0] = '\0';
	if (!st->open)
		return;
	for (unsigned d = 0; d < e->hw.domain_count; d++) {
		if (row[d].state == SAMPLE_INVALID) {
			st->valid = false;
			st->reason = row[d].reason;
			continue;
		}
		st->estimated |= row[d].state == SAMPLE_ESTIMATED;
		st->mbps += counter_rate_mbps(row[d].bytes, row[d].elapsed_ns);
		bytes += row[d].bytes;
	}
	if (e->hw.domain_count == 0) {
		st->valid = false; /* nothing measures: no value, rather than a made-up 0 */
		st->reason = "no bandwidth counters";
	} else if (!st->valid) {
		e->partitions[index].invalid_samples++; /* a counter failed: what the metrics count */
	}
	if (st->valid) {
		st->reason = NULL;
		st->bytes_total += bytes;
		st->smoothed_mbps =
			st->smoothed_mbps > 0 ? SMOOTHING * st->mbps + (1 - SMOOTHING) * st->smoothed_mbps : st->mbps;
	}
	st->truth_mbps = engine_has_truth(e) ? e->hw.control_ops->truth_mbps(e->hw.control, index) : 0.0;
}

static void publish(struct engine *e, uint64_t now_ns)
{
	engine_record_tick(e, now_ns);
}

void engine_tick(struct engine *e, uint64_t now_ns)
{
	struct err read_err = { "" };

	e->last_tick_ns = now_ns;
	if (composition_read(&e->hw, now_ns, e->samples, &read_err) < 0)
		log_error("reading counters failed: %s", read_err.text);
	for (size_t i = 0; i < e->config->partition_count; i++)
		summarise(e, i);
	engine_pmu_tick(e, now_ns);
	engine_run_policies(e, now_ns);
	e->ticks_done++;
	publish(e, now_ns);
	if (e->opts.on_tick)
		e->opts.on_tick(e->opts.on_tick_ctx, e);
}
