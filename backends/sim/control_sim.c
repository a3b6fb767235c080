/* backend = sim: the real MMIO driver over the simulator's register models. The simulated host lends
 * its MSCs to the MBWU monitor, runs its traffic up to the moment they are read, and checks afterwards
 * that the driver raised no MSC error and made no access a real MSC would refuse. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/contracts/ground_truth.h"
#include "backends/mmio/mmio_control.h"
#include "backends/mmio/msc_set.h"
#include "backends/mpam/mpam_regs.h"
#include "backends/sim/sim_config.h"
#include "backends/sim/sim_host.h"
#include "backends/sim/sim_ops.h"
#include "core/base/log.h"

struct sim_control {
	struct msc_control msc; /* first: a sim_control is an msc_control */
	struct sim_host *host;
	uint64_t *reported;	   /* per MSC: model errors + refused accesses already logged */
	struct ground_truth truth; /* lent to the engine: what the host served */
};

static struct sim_control *sim_of(struct control *c)
{
	return (struct sim_control *)c;
}

static void sim_free(struct control *c)
{
	struct sim_control *s = sim_of(c);

	if (!s)
		return;
	mmio_limits_free(s->msc.limits);
	msc_set_free(s->msc.set);
	sim_host_free(s->host);
	free(s->reported);
	free(s);
}

/* The simulator sees what real hardware would hide (an MSC without ESR, an access outside the
 * window): any such mistake by the driver is a bug, reported as loudly as an MSC error. */
static void check_models(void *ctx)
{
	struct sim_control *s = ctx;

	for (size_t i = 0; i < sim_host_msc_count(s->host); i++) {
		struct msc_model *m = sim_host_msc(s->host, i);
		uint64_t errors = msc_model_error_count(m), refused = msc_model_bad_accesses(m);
		if (errors + refused > s->reported[i]) {
			log_error(
				"simulated msc sim%zu: the driver caused %llu MSC error(s) and %llu refused access(es)",
				i, (unsigned long long)errors, (unsigned long long)refused);
			s->reported[i] = errors + refused;
		}
	}
}

static void advance(void *ctx, uint64_t now_ns)
{
	sim_host_advance(((struct sim_control *)ctx)->host, now_ns);
}

/* The simulated host has no SMCCC SoC id, like a SoC whose firmware gives none. */
static const struct msc_probe_opts sim_access = { .soc = { .known = true, .id = 0 } };

static int make_set(struct sim_control *s, struct err *err)
{
	size_t n = sim_host_msc_count(s->host);
	struct msc_bus **buses = calloc(n ? n : 1, sizeof(*buses));
	char(*names)[NAME_MAX_LEN + 1] = calloc(n ? n : 1, sizeof(*names));
	const char **name_of = calloc(n ? n : 1, sizeof(*name_of));
	int r = buses && names && name_of ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n; i++) {
		r = bus_sim_new(sim_host_msc(s->host, i), SIM_MSC_BASE + i * MPAM_MSC_PAGE_SIZE, &buses[i]);
		for (size_t j = 0; r < 0 && j < i; j++)
			bus_free(buses[j]);
		snprintf(names[i], sizeof(names[i]), "sim%zu", i);
		name_of[i] = names[i];
	}
	if (r < 0)
		r = err_set(err, r, "out of memory");
	else
		r = msc_set_new(buses, name_of, n, &sim_access, &s->msc.set, err);
	free(buses);
	free(names);
	free(name_of);
	return r;
}

static double truth_mbps(void *ctx, size_t index)
{
	return sim_host_truth_mbps(((struct sim_control *)ctx)->host, index);
}

/* A control domain is an MSC with bandwidth controls: its truth is that MSC's. */
static double truth_domain_mbps(void *ctx, size_t index, unsigned domain)
{
	struct sim_control *s = ctx;
	size_t msc = mmio_limits_domain_msc(s->msc.limits, domain);

	return msc == SIZE_MAX ? 0.0 : sim_host_msc_truth_mbps(s->host, index, msc);
}

static int sim_open(const struct config *config, struct clock *clock, struct control **ret, struct err *err)
{
	struct sim_control *s = calloc(1, sizeof(*s));
	int r = s ? sim_host_new(config, clock_now(clock), &s->host, err) : err_set(err, -ENOMEM, "out of memory");

	if (r == 0)
		r = make_set(s, err);
	if (r == 0 && !(s->reported = calloc(s->msc.set->count ? s->msc.set->count : 1, sizeof(*s->reported))))
		r = err_set(err, -ENOMEM, "out of memory");
	if (r == 0)
		r = mmio_limits_new(s->msc.set, config->partition_count, &s->msc.limits, err);
	if (r == 0)
		msc_set_limit_mode(s->msc.set, config->global.mb_max_mode == MB_MAX_HARD);
	if (r < 0) {
		sim_free(s ? &s->msc.base : NULL);
		return r;
	}
	/* The simulator knows what its MSCs carry, which real hardware does not tell. */
	for (size_t i = 0; i < s->msc.set->count; i++)
		s->msc.set->mscs[i].capacity_mbps = sim_config_of(config)->capacity_mbps;
	s->msc.set->hooks = (struct msc_set_hooks){ .ctx = s, .sync = advance, .after_read = check_models };
	s->truth = (struct ground_truth){ .ctx = s, .mbps = truth_mbps, .domain_mbps = truth_domain_mbps };
	s->msc.base.ops = &control_sim_ops;
	*ret = &s->msc.base;
	return 0;
}

static void sim_share(struct control *c, struct control_shared *ret)
{
	ret->mscs = sim_of(c)->msc.set;
	ret->sim = sim_of(c)->host;
	ret->truth = &sim_of(c)->truth;
	ret->cannot_place = "the simulator's partitions have simulated traffic, not tasks";
}

static int sim_partition_open(struct control *c, size_t index, const struct partition_config *p,
			      struct partition_ref *ret, struct err *err)
{
	int r = mmio_limits_partition_open(sim_of(c)->msc.limits, index, p, ret, err);

	return r < 0 ? r : sim_host_partition_set(sim_of(c)->host, index, p, err);
}

static void sim_partition_close(struct control *c, size_t index)
{
	mmio_limits_partition_close(sim_of(c)->msc.limits, index);
	/* Its configuration may be freed once it is closed: the slot carries no traffic until opened. */
	sim_host_partition_set(sim_of(c)->host, index, NULL, NULL);
}

static json_t *sim_describe(struct control *c)
{
	struct sim_control *s = sim_of(c);
	json_t *d = mmio_limits_describe(s->msc.limits);

	json_object_set_new(d, "capacity_mbps_per_msc",
			    json_real(s->msc.set->count ? s->msc.set->mscs[0].capacity_mbps : 0));
	return d;
}

const struct control_ops control_sim_ops = {
	.name = "sim",
	.description = "a simulated host: MSC models and traffic ([sim]), for tests and demos",
	.simulated = true,
	.config_ext = &sim_config_ext,
	.open = sim_open,
	.free = sim_free,
	.probe = msc_control_probe,
	.share = sim_share,
	.partition_open = sim_partition_open,
	.partition_close = sim_partition_close,
	.validate = msc_control_validate,
	.apply = msc_control_apply,
	.plan = msc_control_plan,
	.describe = sim_describe,
	.describe_print = mmio_describe_print,
};
