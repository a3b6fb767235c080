/* The simulated MSC bus: every access goes straight to the register model, so the model's side
 * effects (selection, NRDY, ESR) and its refusal of bad accesses are exactly what the driver sees.
 * The window bounds are checked by the model, not here, so that refused accesses are counted
 * (msc_model_bad_accesses) whichever way they arrive. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "backends/mmio/bus.h"
#include "backends/sim/msc_model.h"
#include "backends/mpam/mpam_regs.h"

struct bus_sim {
	struct msc_bus bus; /* first, as bus.h requires */
	struct msc_model *model;
};

static struct msc_model *model_of(struct msc_bus *bus)
{
	return ((struct bus_sim *)bus)->model;
}

static int bus_sim_read32(struct msc_bus *bus, uint32_t offset, uint32_t *ret)
{
	return msc_model_read32(model_of(bus), offset, ret);
}

static int bus_sim_write32(struct msc_bus *bus, uint32_t offset, uint32_t value)
{
	return msc_model_write32(model_of(bus), offset, value);
}

static int bus_sim_read64(struct msc_bus *bus, uint32_t offset, uint64_t *ret)
{
	return msc_model_read64(model_of(bus), offset, ret);
}

static int bus_sim_write64(struct msc_bus *bus, uint32_t offset, uint64_t value)
{
	return msc_model_write64(model_of(bus), offset, value);
}

/* Frees the bus only: the model belongs to whoever created it. */
static void bus_sim_free(struct msc_bus *bus)
{
	free(bus);
}

static const struct msc_bus_ops bus_sim_ops = {
	.read32 = bus_sim_read32,
	.write32 = bus_sim_write32,
	.read64 = bus_sim_read64,
	.write64 = bus_sim_write64,
	.free = bus_sim_free,
};

int bus_sim_new(struct msc_model *model, uint64_t base, struct msc_bus **ret)
{
	struct bus_sim *sim;

	if (!model)
		return -EINVAL;
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -ENOMEM;
	sim->bus.ops = &bus_sim_ops;
	sim->bus.base = base;
	sim->bus.size = MPAM_MSC_PAGE_SIZE;
	sim->model = model;
	*ret = &sim->bus;
	return 0;
}
