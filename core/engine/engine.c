#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/contracts/ground_truth.h"
#include "core/base/counter.h"
#include "core/base/log.h"
#include "core/engine/domain_limits.h"
#include "core/engine/engine_internal.h"

/* mpamd wants at least this many reads per counter wrap, so a late tick cannot hide a wrap. */
#define READS_PER_WRAP	   2
#define SIM_CLOCK_START_NS 1000000000ull
/* Weight of the newest sample in the smoothed rate: the policies see noise damped over ~3 ticks. */
#define SMOOTHING 0.5

size_t engine_partition_count(const struct engine *e)
{
	return e->slots.count;
}

size_t engine_partitions_in_use(const struct engine *e)
{
	size_t used = 0;

	for (size_t i = 0; i < e->slots.count; i++)
		used += e->slots.partitions[i].used;
	return used;
}

size_t engine_config_partitions_held(const struct engine *e)
{
	size_t held = 0;

	for (const struct engine_gen *g = e->gens.held; g; g = g->next)
		held += g->config->partition_count;
	return held;
}

const char *engine_partition_origin(const struct engine *e, size_t index)
{
	const struct engine_partition *ep = &e->slots.partitions[index];

	return ep->used ? ep->origin : NULL;
}

const struct partition_status *engine_partition(const struct engine *e, size_t index)
{
	return &e->slots.partitions[index].status;
}

uint64_t engine_ticks_done(const struct engine *e)
{
	return e->ticks.done;
}

double engine_last_tick_s(const struct engine *e)
{
	return (double)(e->ticks.last_ns - e->ticks.start_ns) / 1e9;
}

const struct config *engine_config(const struct engine *e)
{
	return e->gens.config;
}

const struct event_log *engine_events(const struct engine *e)
{
	return &e->events;
}

bool engine_has_truth(const struct engine *e)
{
	return e->hw.shared.truth != NULL;
}

uint64_t engine_t_ms(const struct engine *e, uint64_t now_ns)
{
	return (now_ns - e->ticks.start_ns) / 1000000u;
}

int engine_check_interval(const struct engine *e, unsigned interval_ms, struct err *err)
{
	uint64_t interval_ns = (uint64_t)interval_ms * 1000000u;

	for (unsigned d = 0; d < e->hw.domain_count; d++) {
		const struct engine_domain *dom = &e->hw.domains[d];
		double capacity = engine_monitor_capacity(e, d);
		if (dom->counter_bits >= 64)
			continue; /* byte counts: centuries to wrap */
		if (capacity <= 0) {
			log_info("domain %s: capacity unknown, the counter wrap check is skipped (set capacity_mbps)",
				 dom->name);
			continue;
		}
		uint64_t wrap_ns = counter_wrap_ns(dom->counter_bits, dom->counter_scale, capacity);
		if (interval_ns * READS_PER_WRAP > wrap_ns)
			return err_set(
				err, -EINVAL,
				"interval_ms = %u is too long: a %u-bit counter (scale %u) at %.0f MB/s wraps in "
				"%.0f ms and needs at least %d reads per wrap; use interval_ms <= %llu",
				interval_ms, dom->counter_bits, dom->counter_scale, capacity, (double)wrap_ns / 1e6,
				READS_PER_WRAP, (unsigned long long)(wrap_ns / READS_PER_WRAP / 1000000u));
	}
	return 0;
}

int engine_target_room(struct engine *e, size_t index, const struct partition_goals *g, struct err *err)
{
	struct policy_partition *pp = &e->policy.partitions[index];

	if (!g->target_mbps || pp->target)
		return 0;
	pp->target = calloc(1, sizeof(*pp->target));
	if (!pp->target)
		return err_set(err, -ENOMEM, "out of memory for the target controller of partition %s",
			       e->slots.partitions[index].config->name);
	return 0;
}

/* The policies' view of a partition's configuration (refreshed after set and reload): its goals, the
 * configuration's read through a pointer (a set changes them in place), so a new goal key needs
 * nothing here; their per-domain values reach the policies resolved, as each domain's cfg_max and
 * cfg_min. */
void engine_policy_config(struct engine *e, size_t index)
{
	struct policy_partition *pp = &e->policy.partitions[index];
	const struct partition_config *p = e->slots.partitions[index].config;
	struct err err = { "" };

	/* A set asked for it before it changed the goals (and refuses the set without it); the file's
	 * and a reload's targets get it here. */
	if (engine_target_room(e, index, &p->goals, &err) < 0)
		log_error("%s: its target_mbps is not held until a set or reload gives it room", err.text);
	pp->name = p->name;
	pp->goals = &p->goals;
	pp->escalation_allowed = e->gens.config->global.escalate && p->cgroup != NULL;
	/* The configured limits as rungs, once per change of the configuration, not every tick. */
	struct partition_goals_buf buf;
	const struct partition_goals *g = engine_goals_pct(e, &p->goals, &buf);
	pp->cfg_max = domain_goal_max(&e->hw.caps, g, CONTROL_MAX_DOMAINS);
	pp->cfg_min = domain_goal_min(&e->hw.caps, g, CONTROL_MAX_DOMAINS);
	engine_domains_config(e, index);
	if (e->slots.partitions[index].status.open)
		composition_monitors_keep(&e->hw, index, p); /* a guarantee set or reloaded */
}

/* The file's partitions get slots 0..n-1 in the file's order. mpamd starts when one of them opens, or
 * when one failed in a way that can pass and is tried again (resctrl's RMIDs all in limbo after a
 * restart that removed its groups, EBUSY): only when every one failed for good is there nothing to do. */
static int open_partitions(struct engine *e, uint64_t now_ns, struct err *err)
{
	size_t n = e->gens.config->partition_count, opened = 0, retrying = 0;

	engine_pool_tidy(e, e->gens.config, now_ns); /* what an earlier run left takes no room from these */
	for (size_t i = 0; i < n; i++) {
		size_t slot;
		int r = engine_slot_alloc(e, &slot, err);
		if (r < 0)
			return r;
		engine_slot_fill(e, slot, e->gens.current, &e->gens.config->partitions[i], "");
		opened += engine_slot_open(e, slot, now_ns) == 0;
		retrying += e->slots.partitions[slot].failed && e->slots.partitions[slot].retry_ns;
	}
	if (opened == 0 && retrying == 0 && n > 0)
		return err_set(err, -ENODEV, "no partition could be opened");
	return 0;
}

int engine_open_backend(struct engine *e, struct err *err)
{
	int r;

	e->ticks.interval_ns = (uint64_t)e->gens.config->global.interval_ms * 1000000u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	e->cpus = cpus > 0 ? (unsigned)cpus : 1;
	if ((r = composition_open(e->registry, e->gens.config, &e->clock, &e->hw, err)) < 0)
		return r;
	e->gens.hw = e->gens.current;
	engine_gen_hold(e->gens.hw);
	engine_domains_map(e);
	if ((r = engine_check_capacity_domains(e, e->gens.config, err)) < 0)
		return r;
	if ((r = engine_check_interval(e, e->gens.config->global.interval_ms, err)) < 0)
		return r;
	if (e->hw.caps.mb_kernel_mbps)
		log_info("resctrl is mounted with mba_MBps: the kernel's own controller holds each group's MB/s; "
			 "mpamd writes target_mbps as that ceiling and runs no bandwidth policy on top");
	engine_classes_start(e);
	if ((r = open_partitions(e, clock_now(&e->clock), err)) < 0)
		return r;
	/* The first read only sets every counter's baseline; a failure there is worth knowing. */
	struct err read_err = { "" };
	if (composition_read(&e->hw, clock_now(&e->clock), e->slots.samples, &read_err) < 0)
		log_warning("first reading of the counters failed: %s", read_err.text);
	engine_pmu_tick(e, clock_now(&e->clock)); /* the PMU baselines too */
	return 0;
}

void engine_close_backend(struct engine *e)
{
	composition_close(&e->hw);
	engine_classes_free(e);
	engine_slots_free(e);
	engine_gen_drop(&e->gens, e->gens.hw);
	e->gens.hw = NULL;
}

static int engine_setup(struct engine *e, struct err *err)
{
	const struct control_ops *control = engine_registry_control(e->registry, e->gens.config->global.backend);
	int r;

	if (e->opts.sim_clock && !e->opts.sim_clock_in_step && (!control || !control->simulated)) {
		char simulated[96];
		engine_registry_simulated_names(e->registry, simulated, sizeof(simulated));
		return err_set(err, -EINVAL, "--sim-clock needs backend = %s", simulated);
	}
	if (e->opts.sim_clock)
		clock_init_simulated(&e->clock, SIM_CLOCK_START_NS);
	else
		clock_init_monotonic(&e->clock);
	e->ticks.start_ns = e->ticks.last_ns = clock_now(&e->clock);
	if ((r = engine_open_backend(e, err)) < 0)
		return r;
	engine_capacity_from_record(e);
	if ((r = engine_record_open(e, err)) < 0)
		return r;
	engine_vms_start(e);
	engine_ctl_handler(e, &e->ctl.handler);
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
	e->gens.config = config;
	if (!(e->gens.current = engine_gen_new(&e->gens, config))) {
		free(e);
		return err_set(err, -ENOMEM, "out of memory");
	}
	engine_gen_hold(e->gens.current);
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
	engine_vms_fini(e);
	engine_close_backend(e);
	engine_metrics_fini(e);
	event_log_fini(&e->events);
	engine_gen_drop(&e->gens, e->gens.current);
	free(e);
}

/* A rate far above what a domain can carry is not traffic: a count that jumped (another agent
 * wrote the counter, a glitch) or a wrap taken for progress. The count goes on from the monitor's
 * new baseline; this one sample is refused. */
#define IMPLAUSIBLE_FACTOR 2.0

static const char *const implausible_reason = "counter jumped: more than the domain can carry in one interval";

static bool implausible(struct engine *e, size_t index, unsigned d, double capacity, double mbps)
{
	const struct engine_domain *dom = &e->hw.domains[d];

	if (capacity <= 0 || mbps <= IMPLAUSIBLE_FACTOR * capacity)
		return false;
	if (!e->slots.partitions[index].jumped) /* once per run of such samples: not at every tick */
		log_warning("partition %s: domain %s counted %.0f MB/s, more than the domain can carry (%.0f MB/s): "
			    "the counter jumped; the sample is not used",
			    e->slots.partitions[index].config->name, dom->name, mbps, capacity);
	return true;
}

/* A sample more than its domain can carry (capacity[d], engine_monitor_capacity: taken once a tick) is
 * invalid, with that reason, for the partition's total and for its domain alike; so is every sample of
 * a partition no monitor counts by itself. Each sample's rate goes into rates[] for the domains' sums
 * after (0 where there is none: a closed partition, an invalid sample), and every sample into *sum, the
 * partition's total, in the same pass. */
static void screen_samples(struct engine *e, size_t index, const double *capacity, double *rates,
			   struct sample_sum *sum)
{
	struct sample *row = &e->slots.samples[index * e->hw.domain_count];
	const char *unmeasured = e->slots.partitions[index].ref.unmeasured;
	bool open = e->slots.partitions[index].status.open, jumped = false;

	for (unsigned d = 0; d < e->hw.domain_count; d++) {
		if (open && unmeasured) /* no monitor counts it by itself (partition_ref.unmeasured): no value */
			row[d] = (struct sample){ .state = SAMPLE_INVALID, .reason = unmeasured };
		bool counted = open && row[d].state != SAMPLE_INVALID;
		rates[d] = counted ? counter_rate_mbps(row[d].bytes, row[d].elapsed_ns) : 0;
		if (counted && implausible(e, index, d, capacity[d], rates[d])) {
			row[d] = (struct sample){ .state = SAMPLE_INVALID, .reason = implausible_reason };
			jumped = true;
		}
		sample_sum_add(sum, &row[d], rates[d]);
	}
	e->slots.partitions[index].jumped = jumped;
}

/* The partition's status from the sum of its samples (screen_samples). */
static void summarise(struct engine *e, size_t index, const struct sample_sum *sum)
{
	struct partition_status *st = &e->slots.partitions[index].status;

	st->valid = st->open;
	st->estimated = false;
	st->mbps = 0;
	st->event = NULL;
	engine_slot_show_failure(e, index);
	if (!st->open)
		return;
	st->valid = sum->valid;
	st->estimated = sum->estimated;
	st->mbps = sum->mbps;
	st->reason = sum->reason;
	if (e->hw.domain_count == 0) {
		st->valid = false; /* nothing measures: no value, rather than a made-up 0 */
		st->reason = "no bandwidth counters";
	} else if (!st->valid) {
		e->slots.partitions[index].invalid_samples++; /* a counter failed: what the metrics count */
	}
	if (st->valid) {
		st->reason = NULL;
		st->bytes_total += sum->bytes;
		st->smoothed_mbps =
			st->smoothed_mbps > 0 ? SMOOTHING * st->mbps + (1 - SMOOTHING) * st->smoothed_mbps : st->mbps;
	}
	const struct ground_truth *truth = e->hw.shared.truth;
	st->truth_mbps = truth ? truth->mbps(truth->ctx, index) : 0.0;
}

static void publish(struct engine *e, uint64_t now_ns)
{
	engine_record_tick(e, now_ns);
}

void engine_tick(struct engine *e, uint64_t now_ns)
{
	struct err read_err = { "" };

	e->ticks.last_ns = now_ns;
	engine_place_tick(e);
	engine_heal(e, now_ns);
	if (composition_read(&e->hw, now_ns, e->slots.samples, &read_err) < 0)
		log_error("reading counters failed: %s", read_err.text);
	engine_domains_begin_tick(e);
	double capacity[ENGINE_MAX_DOMAINS]; /* per monitor domain */
	for (unsigned m = 0; m < e->hw.domain_count; m++)
		capacity[m] = engine_monitor_capacity(e, m);
	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used) {
			double rates[ENGINE_MAX_DOMAINS]; /* per monitor domain, the samples' MB/s */
			struct sample_sum sum = { .valid = true };
			screen_samples(e, i, capacity, rates, &sum);
			summarise(e, i, &sum);
			engine_domains_summarise(e, i, rates);
		}
	engine_pmu_tick(e, now_ns);
	engine_run_policies(e, now_ns);
	e->ticks.done++;
	publish(e, now_ns);
	if (e->opts.on_tick)
		e->opts.on_tick(e->opts.on_tick_ctx, e);
}
