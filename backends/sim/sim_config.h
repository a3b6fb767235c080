/* The simulated host's configuration: the [sim] section and the simulator's partition keys
 * (sim_demand), added to the file's schema as a config extension. See mpamd.ini(5) for each key. */
#ifndef MPAMD_BACKENDS_SIM_SIM_CONFIG_H
#define MPAMD_BACKENDS_SIM_SIM_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "backends/sim/burst.h"
#include "backends/sim/mb_curve.h"
#include "backends/sim/msc_model.h"
#include "backends/sim/sim_preload.h"
#include "core/config/model.h"
#include "core/config/schema.h"

/* Who clears a simulated monitor's NRDY once it has settled (the architecture lets MSCs choose). */
enum sim_nrdy {
	SIM_NRDY_HARDWARE, /* the MSC, after nrdy_ticks ticks */
	SIM_NRDY_SOFTWARE, /* nobody but software: it stays set until the counter is written */
};

struct sim_config {
	unsigned mscs;
	uint32_t capacity_mbps; /* per MSC */
	unsigned monitors;	/* MBWU monitors per MSC */
	unsigned counter_bits;	/* 31, 44 or 63 */
	unsigned scale;		/* MBWUMON_IDR.SCALE */
	unsigned bwa_wd;
	unsigned nrdy_ticks;
	unsigned nrdy; /* enum sim_nrdy */
	uint32_t iidr; /* MPAMF_IIDR: the part the MSCs behave as */
	unsigned partid_max;
	uint64_t seed;
	unsigned noise_pct;	    /* demand's variation, percent */
	unsigned measure_noise_pct; /* each measured sample's variation, percent */
	unsigned delay_ticks;	    /* ticks before a written limit governs the traffic */
	struct mb_curve mb_curve;   /* the plant of MB settings (no points: linear) */
	bool mbw_min;		    /* the MSCs implement MBW_MIN (MPAMF_MBW_IDR.HAS_MIN) */
	unsigned max_lim;	    /* MPAMF_MBW_IDR.MAX_LIM: enum mpam_max_lim */
	bool mbw_prop;		    /* the MSCs implement MBW_PROP */
	unsigned mbw_pbm_bits;	    /* MBW_PBM portions (BWPBM_WD); 0: none */
	unsigned partid_nrw;	    /* intPARTIDs of each MSC with PARTID narrowing; 0: no narrowing */
	/* What an earlier owner left: MBW_PROP meant to leave a PARTID about VALUE percent, MBW_PBM a
	 * bitmap of portions. */
	struct sim_preloads preload_mbw_prop, preload_mbw_pbm;
};

/* The most ticks a limit may take to act ([sim] delay_ticks). */
#define SIM_DELAY_TICKS_MAX MSC_MODEL_DELAY_TICKS_MAX
/* The most measurement noise ([sim] measure_noise_pct): a sample is never below half its truth. */
#define SIM_MEASURE_NOISE_PCT_MAX 50

/* The highest PARTID the simulated MSCs configure: partid_max, or the last intPARTID when they
 * narrow PARTIDs (mpamd uses no PARTID above it, as Linux). */
unsigned sim_config_partid_usable(const struct sim_config *s);

/* Domains a partition's traffic can use: bit d for MSC (or resctrl domain) d. */
#define SIM_DOMAINS_MAX 64

/* Simulated demand: piecewise constant, point i holds from its tick until the next point's tick.
 * A constant demand is one point at tick 0. Before the first point the demand is 0. */
struct demand_point {
	uint64_t tick;
	uint32_t mbps;
};

struct demand_profile {
	struct demand_point *points;
	size_t count; /* 0: no demand configured (an idle partition) */
};

/* The IPC model's defaults: a typical out-of-order core's IPC, and a memory-bound workload losing
 * most (not all) of its progress to what it is not served. */
#define SIM_IPC_DEFAULT		    1.5
#define SIM_IPC_SENSITIVITY_DEFAULT 0.6

/* A partition's part of the simulation. */
struct sim_partition_config {
	struct demand_profile demand;
	double ipc;		/* sim_ipc: its IPC when served all it demands */
	double ipc_sensitivity; /* sim_ipc_sensitivity: the share of that IPC it loses per share not served */
	uint64_t domains;	/* sim_domains: bit per domain its traffic uses; 0 for all of them */
	struct burst burst;	/* sim_burst: on/off demand (period 0: always on) */
};

extern const struct config_ext sim_config_ext;

void sim_config_defaults(struct sim_config *s);

/* The [sim] section of a config loaded with sim_config_ext in its schema (defaults when absent);
 * NULL when the schema had no simulator. */
const struct sim_config *sim_config_of(const struct config *config);
/* A partition's simulated demand (an empty profile when none). */
const struct demand_profile *sim_partition_demand(const struct config *config, const struct partition_config *p);

/* A partition's IPC model (the defaults when it has none). */
const struct sim_partition_config *sim_partition_of(const struct config *config, const struct partition_config *p);

/* The IPC model: base * (1 - sensitivity * shortfall), shortfall = 1 - served / demanded in 0..1 (0
 * when it demands nothing: an idle core waits for no memory). */
double sim_ipc_model(const struct sim_partition_config *sp, double demanded_mbps, double served_mbps);

/* Whether a partition sends traffic to domain `d` (its sim_domains, or every domain). */
static inline bool sim_partition_uses_domain(const struct sim_partition_config *sp, unsigned d)
{
	return !sp->domains || (d < SIM_DOMAINS_MAX && (sp->domains >> d) & 1);
}
/* How many of the host's `count` domains it sends traffic to (its demand is split evenly among them). */
unsigned sim_partition_domain_count(const struct sim_partition_config *sp, unsigned count);

/* Demand of a profile at a tick. */
uint32_t demand_profile_at(const struct demand_profile *d, uint64_t tick);

#endif
