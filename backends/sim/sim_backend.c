/* backend = sim: the MMIO driver over simulated MSC buses, with traffic advanced on the engine's clock
 * before every read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/mmio/mmio_backend.h"
#include "backends/sim/sim_host.h"
#include "core/log.h"
#include "core/mpam_regs.h"

struct sim_backend {
	struct backend base;
	struct sim_host *host;
	struct mmio_backend *mb;
	char (*names)[NAME_MAX_LEN + 1];
	uint64_t *reported;   /* per MSC: model errors + refused accesses already logged */
	double capacity_mbps; /* per MSC: the simulator knows what the hardware cannot tell */
};

static struct sim_backend *sim_of(struct backend *b)
{
	return (struct sim_backend *)b;
}

static void sim_close(struct backend *b)
{
	struct sim_backend *s = sim_of(b);

	if (!s)
		return;
	mmio_backend_destroy(s->mb);
	sim_host_free(s->host);
	free(s->names);
	free(s->reported);
	free(s);
}

static int make_buses(struct sim_backend *s, struct msc_bus **buses, const char **names, struct err *err)
{
	size_t n = sim_host_msc_count(s->host);

	for (size_t i = 0; i < n; i++) {
		buses[i] = bus_sim_new(sim_host_msc(s->host, i), SIM_MSC_BASE + i * MPAM_MSC_PAGE_SIZE);
		if (!buses[i]) {
			for (size_t j = 0; j < i; j++)
				bus_close(buses[j]);
			return err_set(err, -ENOMEM, "out of memory");
		}
		snprintf(s->names[i], sizeof(s->names[i]), "sim%zu", i);
		names[i] = s->names[i];
	}
	return 0;
}

static int sim_open(const struct config *config, struct clock *clock, struct backend **ret, struct err *err)
{
	struct sim_backend *s = calloc(1, sizeof(*s));
	size_t n = config->sim.mscs;
	struct msc_bus **buses = calloc(n, sizeof(*buses));
	const char **names = calloc(n, sizeof(*names));
	int r = 0;

	if (s) {
		s->names = calloc(n, sizeof(*s->names));
		s->reported = calloc(n, sizeof(*s->reported));
	}
	if (!s || !s->names || !s->reported || !buses || !names)
		r = err_set(err, -ENOMEM, "out of memory");
	if (r == 0)
		r = sim_host_new(config, clock_now(clock), &s->host, err);
	if (r == 0)
		r = make_buses(s, buses, names, err);
	if (r == 0)
		r = mmio_backend_create(config, buses, names, n, false, &s->mb, err);
	free(buses);
	free(names);
	if (r < 0) {
		sim_close(s ? &s->base : NULL);
		return r;
	}
	s->capacity_mbps = config->sim.capacity_mbps;
	s->base.ops = &backend_sim_ops;
	*ret = &s->base;
	return 0;
}

static void sim_caps(struct backend *b, struct backend_caps *ret)
{
	struct sim_backend *s = sim_of(b);

	mmio_backend_caps(s->mb, ret);
	for (unsigned i = 0; i < ret->domain_count; i++)
		ret->domains[i].capacity_mbps = s->capacity_mbps;
}

static int sim_partition_open(struct backend *b, size_t index, const struct partition_config *p, struct err *err)
{
	return mmio_backend_partition_open(sim_of(b)->mb, index, p, err);
}

static int sim_apply(struct backend *b, size_t index, const struct partition_limits *limits,
		     struct partition_limits *effective, struct err *err)
{
	return mmio_backend_apply(sim_of(b)->mb, index, limits, effective, err);
}

/* The simulator sees what real hardware would hide (an MSC without ESR, an access outside the
 * window): any such mistake by the driver is a bug, reported as loudly as an MSC error. */
static void check_models(struct sim_backend *s)
{
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

static int sim_read(struct backend *b, uint64_t now_ns, struct sample *samples, struct err *err)
{
	struct sim_backend *s = sim_of(b);

	sim_host_advance(s->host, now_ns);
	int r = mmio_backend_read(s->mb, now_ns, samples, err);
	check_models(s);
	return r;
}

static double sim_truth(struct backend *b, size_t index)
{
	return sim_host_truth_mbps(sim_of(b)->host, index);
}

static json_t *sim_describe(struct backend *b)
{
	struct sim_backend *s = sim_of(b);
	json_t *d = mmio_backend_describe(s->mb);

	json_object_set_new(d, "capacity_mbps_per_msc", json_real(s->capacity_mbps));
	return d;
}

const struct backend_ops backend_sim_ops = {
	.name = "sim",
	.open = sim_open,
	.close = sim_close,
	.caps = sim_caps,
	.partition_open = sim_partition_open,
	.apply = sim_apply,
	.read = sim_read,
	.truth_mbps = sim_truth,
	.describe = sim_describe,
};
