/* The MBWU driver (backends/mmio/monitors.c) over one simulated MSC (backends/sim/msc_model.c), for
 * the tests of the driver: the model behind the simulated bus, probed, with monitors for a number of
 * partition slots, and a clock that moves 100 ms per tick. */
#ifndef MPAMD_TESTS_MBWU_RIG_H
#define MPAMD_TESTS_MBWU_RIG_H

#include <stddef.h>
#include <stdint.h>

#include "backends/mmio/monitors.h"
#include "backends/mmio/msc.h"
#include "backends/sim/msc_model.h"

#define MBWU_RIG_TICK_NS 100000000ull

struct mbwu_rig {
	struct msc_model *model;
	struct msc msc;		   /* msc.bus may be swapped for a bus that wraps it: the driver takes it every tick */
	struct msc_monitors *mons; /* NULL when set up for 0 partitions */
	struct sample samples[64];
	uint64_t now;
};

/* Fails the test when the model, the probe or the monitors cannot be made. */
void mbwu_rig_setup(struct mbwu_rig *rig, const struct msc_model_params *params, size_t partitions,
		    const struct msc_probe_opts *access);
/* Checks the property every driver test keeps (no MSC error, ESR clear, no refused access), then frees
 * everything, the bus in msc.bus included. */
void mbwu_rig_teardown(struct mbwu_rig *rig);
/* Advances 100 ms: the model ticks (NRDY countdowns), then the driver reads into samples. */
void mbwu_rig_tick(struct mbwu_rig *rig);

#endif
