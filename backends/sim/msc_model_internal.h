/* Shared by the parts of the MSC model (backends/sim): its state, and what each part offers the
 * others. msc_model.c creates the model and dispatches every bus access through the register map;
 * msc_model_config.c holds the MPAMCFG_* registers and msc_model_monitors.c the MBWU monitors, each
 * with the traffic side's view of them. */
#ifndef MPAMD_BACKENDS_SIM_MSC_MODEL_INTERNAL_H
#define MPAMD_BACKENDS_SIM_MSC_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/sim/msc_model.h"

#define CPBM_MAX_WORDS 1024u /* MPAMCFG_CPBM<n>, n <= 1023 */
#define PBM_MAX_WORDS  128u  /* MPAMCFG_MBW_PBM<n>, n <= 127 */
#define LOW_WORD       UINT64_C(0x00000000FFFFFFFF)
#define HIGH_WORD      UINT64_C(0xFFFFFFFF00000000)

/* State kept per RIS: one configuration per PARTID, or per intPARTID with PARTID narrowing (MBW_MAX,
 * MIN, PROP, PBM, CMAX, CMIN, CASSOC, PRI, CPBM), the request PARTIDs' intPARTIDs, and one MBWU
 * monitor state per monitor index. */

/* One configuration in one RIS. CPBM and MBW_PBM words live in ris_state's flipped arrays. */
struct partid_cfg {
	uint16_t mbw_max; /* MAX field, implemented bits only */
	uint16_t mbw_min;
	bool hardlim; /* the stored bit; MAX_LIM may force what reads back */
	bool prop_en;
	uint16_t stridem1;
	uint16_t pbm_portions; /* MBW_PBM bits set (the traffic side's share), kept with the words */
	uint16_t cmax, cmin, cassoc;
	uint16_t intpri, dspri;
};

struct mbwu_mon {
	uint32_t flt; /* implemented FLT bits */
	uint32_t ctl; /* implemented CTL bits, TYPE excluded (it is constant) */
	/* The one underlying count, modulo 2^64, in counting units: bytes, or 64-byte units on a part
	 * that counts those; `residue` holds the bytes short of a whole unit. */
	uint64_t count;
	unsigned residue;
	uint32_t capture;    /* MSMON_MBWU_CAPTURE as captured, NRDY included */
	uint64_t capture_l;  /* MSMON_MBWU_L_CAPTURE as captured, NRDY included */
	bool nrdy;	     /* not ready: counts nothing, reads show NRDY */
	unsigned nrdy_ticks; /* ticks left before hardware clears nrdy (nrdy_hw only) */
	/* Its place in the RIS's monitor index (see ris_state): the next monitor of the same list + 1
	 * (0: last), and the PARTID + 1 whose list holds it (0: the wildcard list, or none). */
	uint32_t index_next;
	uint32_t index_partid;
};

struct ris_state {
	struct partid_cfg *cfg; /* nr_cfgs entries, as the registers read back */
	/* What governs the traffic: nr_cfgs entries that follow cfg limit_delay_ticks late; NULL without
	 * a delay (cfg governs). */
	struct partid_cfg *in_force;
	/* CPBM and MBW_PBM words XOR their reset value (all implemented bits set), so calloc'ed memory
	 * is the reset state and untouched PARTIDs cost no resident memory. */
	uint32_t *cpbm_flipped; /* nr_cfgs * cpbm_words */
	uint32_t *pbm_flipped;	/* nr_cfgs * pbm_words */
	/* PARTID narrowing: the intPARTID of each request PARTID (partid_max + 1 entries; NULL without). */
	uint16_t *intpartid_of;
	struct mbwu_mon *mon;	/* num_mon entries */
	unsigned oflow_pending; /* monitors with OFLOW_STATUS or OFLOW_STATUS_L set */
	/* The monitor index: which enabled monitors can count a PARTID's traffic, so that counting one
	 * PARTID costs the monitors that filter on it, not all of them (a host with a monitor per
	 * partition would otherwise cost partitions x monitors per tick). by_partid[id] heads the list
	 * of monitors matching PARTID id (+ 1, 0: none), `wildcard` that of enabled monitors matching
	 * every PARTID. Rebuilt before the next count after any FLT or CTL change of this RIS. */
	uint32_t *by_partid; /* partid_max + 1 entries */
	uint32_t wildcard;
	bool index_stale;
};

/* A configuration written while the limits lag: what configuration `index` of RIS `ris` holds once
 * the write takes effect, at tick `due`. */
struct cfg_pending {
	uint64_t due;
	unsigned ris, index;
	struct partid_cfg cfg;
};

struct msc_model {
	struct msc_model_params p;
	uint64_t ticks; /* msc_model_tick calls so far */
	/* Writes not yet in force, oldest first: pending[pending_head .. + pending_count). At most one per
	 * configuration and due tick (a later write in the same tick replaces it), so never more than
	 * nr_ris * nr_cfgs * limit_delay_ticks. */
	struct cfg_pending *pending;
	size_t pending_head, pending_count, pending_cap;
	unsigned unit_shift; /* a counting unit is 2^unit_shift bytes (the part's) */
	unsigned long_bits;  /* the long counter's width (44 or 63) */
	unsigned nr_ris;     /* ris_max + 1 with RIS, else 1 */
	unsigned nr_cfgs;    /* configurations per RIS: intpartid_max + 1 with narrowing, else partid_max + 1 */
	unsigned cpbm_words; /* 32-bit CPBM words that have implemented bits */
	unsigned pbm_words;  /* 32-bit MBW_PBM words that have implemented bits */
	struct ris_state *ris;
	uint32_t part_sel; /* PARTID_SEL, INTERNAL and RIS as written */
	uint32_t mon_sel;  /* MON_SEL and RIS as written */
	uint32_t ecr;
	uint64_t esr; /* what hardware holds, visible or not */
	uint64_t errors;
	unsigned nrdy_hold; /* ticks left of a fault that holds every monitor not ready */
	uint64_t bad_accesses;
	unsigned long nrdy_counting; /* monitors whose NRDY countdown is running */
};

static inline bool ris_exists(const struct msc_model *m, unsigned ris)
{
	return ris < m->nr_ris;
}

/* ---- msc_model_config.c: the MPAMCFG_* registers of the configuration MPAMCFG_PART_SEL selects ---- */

/* Which MPAMCFG register an offset is, when the model implements it. */
enum cfg_reg {
	CFG_NONE,
	CFG_MBW_MAX,
	CFG_MBW_MIN,
	CFG_MBW_PROP,
	CFG_MBW_PBM,
	CFG_CMAX,
	CFG_CMIN,
	CFG_CASSOC,
	CFG_PRI,
	CFG_CPBM,
	CFG_INTPARTID,
};

/* A configuration at reset: MBW_MAX, CMAX and CASSOC 100%, everything else 0 (CPBM's and MBW_PBM's
 * reset, all ones, is all zeroes in the flipped arrays). */
void msc_model_config_reset(struct partid_cfg *cfg, const struct msc_model *m);
/* CFG_CPBM or CFG_MBW_PBM with the word in *ret_word, or CFG_NONE for a location the model does not
 * implement. */
enum cfg_reg msc_model_config_reg_at(const struct msc_model *m, uint32_t offset, unsigned *ret_word);
uint32_t msc_model_config_read(struct msc_model *m, enum cfg_reg reg, unsigned word);
void msc_model_config_write(struct msc_model *m, enum cfg_reg reg, unsigned word, uint32_t value);
/* The MBW_PBM portions a word of configuration `index` grants are recounted after it changes. */
void msc_model_config_write_pbm(struct msc_model *m, unsigned ris, unsigned index, unsigned word, uint32_t value);

/* ---- msc_model_delay.c: the controls in force, limit_delay_ticks behind the registers ---- */

/* Sets up in_force once the configurations are at reset: 0 or -ENOMEM. */
int msc_model_delay_init(struct msc_model *m);
void msc_model_delay_free(struct msc_model *m);
/* Configuration `index` of `ris` was written: it governs the traffic limit_delay_ticks ticks on. */
void msc_model_delay_written(struct msc_model *m, unsigned ris, unsigned index);
/* It governs the traffic from now on (what an earlier owner left). */
void msc_model_delay_settle(struct msc_model *m, unsigned ris, unsigned index);
/* One tick: the writes due take effect. */
void msc_model_delay_tick(struct msc_model *m);
/* The configuration that governs the traffic of configuration `index`. */
const struct partid_cfg *msc_model_in_force(const struct msc_model *m, unsigned ris, unsigned index);

/* ---- msc_model_partsel.c: MPAMCFG_PART_SEL and PARTID narrowing ---- */

void msc_model_config_select(struct msc_model *m, uint32_t value); /* MPAMCFG_PART_SEL written */
/* The configuration an MPAMCFG access other than MPAMCFG_INTPARTID reaches (its index into the RIS's
 * arrays), or false after raising the error the selection makes: the access then has no effect and
 * reads 0. */
bool msc_model_selected_cfg(struct msc_model *m, unsigned *ret_ris, unsigned *ret_index);
/* MPAMCFG_INTPARTID of the request PARTID selected (narrowing only). */
uint32_t msc_model_intpartid_read(struct msc_model *m);
void msc_model_intpartid_write(struct msc_model *m, uint32_t value);
/* The configuration that governs requests with `partid` on `ris`, or -1 when either is out of range. */
long msc_model_cfg_of_request(const struct msc_model *m, unsigned ris, uint16_t partid);

/* ---- msc_model_monitors.c: the MBWU monitor block (MSMON_*), of the monitor MSMON_CFG_MON_SEL
 * selects ---- */

/* A 32-bit register of the block; without monitors the whole block is RAZ/WI. */
uint32_t msc_model_monitor_read(struct msc_model *m, uint32_t offset);
void msc_model_monitor_write(struct msc_model *m, uint32_t offset, uint32_t value);
/* A 64-bit register of the selected monitor (MSMON_MBWU_L, MSMON_MBWU_L_CAPTURE) at its base
 * offset; `mask` says which bytes a write covers. RAZ/WI when not implemented. */
uint64_t msc_model_monitor_wide_read(struct msc_model *m, uint32_t offset);
void msc_model_monitor_wide_write(struct msc_model *m, uint32_t offset, uint64_t value, uint64_t mask);

#endif
