/* What an earlier owner (firmware, another tool) left in the simulated MSCs for some PARTIDs, from
 * the [sim] keys preload_mbw_prop and preload_mbw_pbm: "PARTID:VALUE PARTID:VALUE ...". */
#ifndef MPAMD_BACKENDS_SIM_SIM_PRELOAD_H
#define MPAMD_BACKENDS_SIM_SIM_PRELOAD_H

#include <stdint.h>

#include "core/config/schema.h"

#define SIM_PRELOAD_MAX 64

struct sim_preload {
	uint16_t partid;
	uint64_t value;
};

/* In the order given; a PARTID at most once. */
struct sim_preloads {
	struct sim_preload at[SIM_PRELOAD_MAX];
	unsigned count;
};

/* Config types of a struct sim_preloads field (key->offset), each VALUE in key->min..key->max (decimal
 * or 0x hex): written back in decimal (a percentage) or as 0x hex (a bitmap). */
extern const struct config_type sim_preload_decimal_type;
extern const struct config_type sim_preload_hex_type;

/* MBW_PROP's STRIDEM1 for a partition meant to get about `pct` percent (1..100) of an MSC to itself
 * against traffic that always wants more (the simulator's reading of MBW_PROP, msc_model.h): the
 * stride 100 / pct rounded, within the `bwa_wd`-bit field. */
uint16_t sim_preload_stridem1(uint64_t pct, unsigned bwa_wd);

#endif
