/* A register-accurate software model of one Arm MPAM MSC (the registers of Arm IHI 0099 B.a, the
 * MPAM Memory System Component Specification, as backends/mpam/mpam_regs.h maps them).
 *
 * The MMIO driver talks to it through the bus interface (bus_sim.c) exactly as it talks to hardware;
 * the traffic side (sim_host.c) feeds it bytes per PARTID/PMG and reads the programmed limits.
 * It keeps what a test needs to prove the driver well-behaved: the error status register (ESR)
 * the way hardware sets it, and counts of accesses outside the window. */
#ifndef MPAMD_BACKENDS_SIM_MSC_MODEL_H
#define MPAMD_BACKENDS_SIM_MSC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

struct msc_model_params {
	uint16_t partid_max;
	uint8_t pmg_max;
	/* RIS: with has_ris, RIS 0..ris_max exist and each has its own configuration and monitors. */
	bool has_ris;
	uint8_t ris_max;
	/* Bandwidth partitioning (MPAMF_MBW_IDR). bwa_wd 0 means no MBW_MAX, MBW_MIN or MBW_PROP. */
	uint8_t bwa_wd;
	bool has_min, has_max;
	uint8_t max_lim;   /* enum mpam_max_lim: 0 HARDLIM read/write, 1 soft only, 2 hard only */
	bool has_prop;	   /* MBW_PROP, its STRIDEM1 bwa_wd bits wide */
	uint16_t bwpbm_wd; /* MBW_PBM portions, 0..4096 (0: no MBW_PBM) */
	/* Cache portion partitioning: CPBM bits; 0 means no CPOR. */
	uint16_t cpbm_wd;
	/* Cache capacity partitioning (MPAMF_CCAP_IDR): CMAX (and CMIN with has_cmin) cmax_wd bits wide,
	 * CASSOC cassoc_wd bits; cmax_wd 0 means no CCAP. They are storage only: no traffic depends on them. */
	uint8_t cmax_wd, cassoc_wd;
	bool has_cmin;
	/* Priority partitioning: INTPRI and DSPRI are each pri_wd bits wide (0: no PRI). */
	uint8_t pri_wd;
	/* PARTID narrowing (MPAMF_IDR.HAS_PARTID_NRW): each RIS holds intpartid_max + 1 configurations,
	 * reached with MPAMCFG_PART_SEL.INTERNAL set; MPAMCFG_INTPARTID maps each request PARTID to one.
	 * At reset every request PARTID maps to intPARTID 0 (the architecture leaves the reset mapping
	 * to the implementation; this one makes a driver that configures an intPARTID without mapping
	 * its PARTID to it see no effect). */
	bool has_partid_nrw;
	uint16_t intpartid_max;
	/* MBWU monitors per RIS (0: no monitors). */
	uint16_t num_mon;
	uint8_t scale; /* MBWUMON_IDR.SCALE, applied to MSMON_MBWU when CTL.SCLEN=1 */
	bool has_long, lwd;
	bool has_rwbw, has_capture, has_ofsr, has_oflow_sr;
	/* Not-ready: after FLT/CTL change (or EN set), NRDY stays set for nrdy_ticks calls of
	 * msc_model_tick. With nrdy_hw=false the hardware never clears it and software may
	 * set and clear it by writing the counter (how Linux probes it). */
	unsigned nrdy_ticks;
	bool nrdy_hw;
	/* Errors: has_esr gives MPAMF_ESR; has_extd_esr its high word (RIS). ext must be set for
	 * either to be visible in MPAMF_IDR, as the architecture requires. */
	bool ext, has_esr, has_extd_esr;
	/* MPAMF_IIDR, and the part the model behaves as: NVIDIA T241 (MPAM_IIDR_NVIDIA_T241) counts
	 * bandwidth in 64-byte units, in every counter view (its erratum T241-MPAM-6). */
	uint32_t iidr;
	uint8_t aidr; /* 0x10 for MPAM v1.0 */
	/* Ticks (msc_model_tick calls) before a write of MBW_MAX, MBW_MIN, MBW_PROP or MBW_PBM governs
	 * the traffic, 0..MSC_MODEL_DELAY_TICKS_MAX; the register reads back the written value at once. */
	unsigned limit_delay_ticks;
};

#define MSC_MODEL_DELAY_TICKS_MAX 16

/* Parameters of a plausible MSC: 64 PARTIDs, 2 PMGs, BWA_WD 8 with MIN and MAX, 16-bit CPBM,
 * 16 monitors with 44-bit long counters, ESR, NRDY managed by hardware for 1 tick. */
void msc_model_params_default(struct msc_model_params *p);

struct msc_model;

/* -EINVAL for parameters no MSC could have, -ENOMEM. */
int msc_model_new(const struct msc_model_params *params, struct msc_model **ret);
void msc_model_free(struct msc_model *model);
const struct msc_model_params *msc_model_params(const struct msc_model *model);

/* Register accesses. Offsets outside MPAM_MSC_PAGE_SIZE or not naturally aligned return -EFAULT,
 * change nothing, and are counted (msc_model_bad_accesses). Unimplemented locations read as zero
 * and ignore writes (RAZ/WI). A 64-bit access to a 32-bit register pair acts on both halves. */
int msc_model_read32(struct msc_model *model, uint32_t offset, uint32_t *ret);
int msc_model_write32(struct msc_model *model, uint32_t offset, uint32_t value);
int msc_model_read64(struct msc_model *model, uint32_t offset, uint64_t *ret);
int msc_model_write64(struct msc_model *model, uint32_t offset, uint64_t value);

/* Traffic: `read_bytes` and `write_bytes` of requests with this PARTID and PMG passed through
 * RIS `ris`. Every enabled MBWU monitor of that RIS whose filter matches (and whose NRDY is clear)
 * counts them. A request PARTID or PMG out of range sets ESR (codes 2 and 4) and is not counted. */
void msc_model_count(struct msc_model *model, unsigned ris, uint16_t partid, uint8_t pmg, uint64_t read_bytes,
		     uint64_t write_bytes);

/* One tick of time: for not-ready countdowns, and the writes that take effect (limit_delay_ticks). */
void msc_model_tick(struct msc_model *model);

/* Faults as hardware can show them, for tests:
 * - every MBWU monitor reads NRDY and counts nothing for the next `ticks` calls of msc_model_tick,
 *   whatever software writes (0 ends the fault);
 * - every enabled monitor's count jumps by `units` counting units (negative: back), as when another
 *   agent writes the counters, with no overflow status;
 * - the MSC raises error `errcode` (enum mpam_errcode) for `partid`/`pmg` on RIS `ris`, as if a
 *   request had caused it: ESR holds it (overwrite flagged) until software clears it. */
void msc_model_hold_nrdy(struct msc_model *model, unsigned ticks);
void msc_model_jump(struct msc_model *model, int64_t units);
void msc_model_raise_error(struct msc_model *model, unsigned errcode, uint16_t partid, uint8_t pmg, unsigned ris);

/* State an earlier owner (firmware, another tool) left for request PARTID `partid` on every RIS: MBW_PROP
 * enabled with `stridem1`, or MBW_PBM holding `portions` (bit n: portion n; portions from 64 up are
 * cleared). With PARTID narrowing the PARTID is first mapped to the intPARTID of the same number, as
 * firmware that gave it controls of its own would have. -EINVAL when the MSC lacks the control or the
 * PARTID (or, narrowing, that intPARTID) is out of range. */
int msc_model_preload_mbw_prop(struct msc_model *model, uint16_t partid, uint16_t stridem1);
int msc_model_preload_mbw_pbm(struct msc_model *model, uint16_t partid, uint64_t portions);

/* The controls programmed for requests with this PARTID on RIS `ris` (through the PARTID's intPARTID
 * with narrowing), as raw register fields as they read back (for tests). A control the MSC does
 * not have, or a RIS or PARTID out of range, reads as the value that limits nothing. */
uint16_t msc_model_mbw_max(const struct msc_model *model, unsigned ris, uint16_t partid);
uint16_t msc_model_mbw_min(const struct msc_model *model, unsigned ris, uint16_t partid);
bool msc_model_mbw_hardlim(const struct msc_model *model, unsigned ris, uint16_t partid);

/* Everything the traffic model asks of one PARTID on one RIS, in one lookup (it asks for every
 * PARTID on every MSC, every tick): the controls in force, which lag the registers by
 * limit_delay_ticks (msc_model_mbw_max and its kin read the registers). */
struct msc_model_limits {
	uint16_t mbw_max, mbw_min; /* raw fields */
	bool hardlim;		   /* as it reads back (MAX_LIM may force it) */
	/* The share of the MSC's bandwidth MBW_PROP and MBW_PBM leave it, 0..1 (1: the control is off or
	 * absent). MBW_PROP is a relative cost, STRIDEM1 + 1, of bandwidth among contenders; the model
	 * takes it as a ceiling of 1 / (STRIDEM1 + 1), the share it wins against unregulated traffic that
	 * always wants more. MBW_PBM grants the portions its bitmap holds: portions set / BWPBM_WD. */
	double prop_share, pbm_share;
};
void msc_model_traffic_limits(const struct msc_model *model, unsigned ris, uint16_t partid,
			      struct msc_model_limits *ret);

/* The raw ESR as hardware holds it (also when has_esr is false and software cannot see it),
 * how many errors were raised since creation, and how many bus accesses were refused. */
uint64_t msc_model_esr(const struct msc_model *model);
uint64_t msc_model_error_count(const struct msc_model *model);
uint64_t msc_model_bad_accesses(const struct msc_model *model);

/* The simulated bus over a model (bus_sim.c). The bus does not own the model. */
struct msc_bus;
int bus_sim_new(struct msc_model *model, uint64_t base, struct msc_bus **ret);

#endif
