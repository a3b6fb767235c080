/* The MPAM MSC driver: probe an MSC's ID registers and program partition controls, all through the
 * bus interface. Every index is range-checked against the probed limits before it reaches a
 * register, because an out-of-range PARTID, monitor or RIS raises an MSC error (and on Linux an
 * MSC error disables MPAM for good). */
#ifndef MPAMD_BACKENDS_MMIO_MSC_H
#define MPAMD_BACKENDS_MMIO_MSC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "backends/mmio/bus.h"
#include "backends/mmio/soc_id.h"
#include "core/base/error.h"
#include "core/base/parse.h"

#define MSC_MAX_RIS 16

/* Who clears an MBWU monitor's NRDY bit once it has settled (IHI 0099 §6: optional for counting
 * monitors). */
enum msc_nrdy {
	MSC_NRDY_NOT_PROBED, /* the probe was skipped: it writes a monitor */
	MSC_NRDY_HARDWARE,   /* the MSC clears it by itself */
	MSC_NRDY_SOFTWARE,   /* it stays until software writes the counter (mpamd zeroes it after enabling) */
};

struct msc_ris_caps {
	bool has_mbw; /* MBW_MAX (and maybe MIN) present */
	unsigned bwa_wd;
	bool has_min, has_max;
	unsigned max_lim;		     /* enum mpam_max_lim: whether HARDLIM is software's to choose */
	bool has_prop;			     /* MBW_PROP */
	unsigned pbm_wd;		     /* MBW_PBM portions; 0: none */
	unsigned cpbm_wd;		     /* 0: no cache portion control */
	bool has_cmax, has_cmin, has_cassoc; /* cache capacity controls (MPAMF_CCAP_IDR) */
	/* Priorities (MPAMF_PRI_IDR): a width of 0 for a priority the RIS lacks. */
	unsigned intpri_wd, dspri_wd;
	bool intpri_0_is_low, dspri_0_is_low;
	/* PARTID narrowing: the RIS configures intPARTIDs 0..intpartid_max, each request PARTID through
	 * the one MPAMCFG_INTPARTID maps it to. */
	bool has_partid_nrw;
	uint16_t intpartid_max;
	unsigned num_mon; /* MBWU monitors */
	unsigned scale;
	bool has_long, lwd;
	unsigned counter_bits;
	bool has_rwbw, has_capture, has_ofsr;
};

struct msc_caps {
	uint32_t aidr, iidr;
	uint16_t partid_max; /* the smallest over all RIS, and INTPARTID_MAX where they narrow */
	uint8_t pmg_max;
	bool has_ris;
	unsigned ris_count;
	bool has_esr, has_extd_esr;
	enum msc_nrdy nrdy; /* who clears NRDY (for discover: reads honour NRDY either way) */
	int mon_ris;	    /* the RIS whose MBWU monitors are used, -1 when none */
	int mbw_ris;	    /* the first RIS with bandwidth controls, -1 when none */
	struct msc_ris_caps ris[MSC_MAX_RIS];
	uint64_t stale_esr; /* ESR found non-zero at probe (cleared unless monitor-only) */
	unsigned quirks;    /* enum msc_quirk: the workarounds this MSC needs (from IIDR and the SoC) */
};

/* How much of the MSC a probe may touch, and what the host says about it. */
struct msc_probe_opts {
	/* Another owner has the controls (resctrl): write nothing outside the monitor registers (no
	 * PART_SEL, so with RIS only the RIS the owner left selected is seen; no ESR clear). */
	bool monitor_only;
	/* The kernel's MPAM driver is bound too (mmio_beside_kernel): write no monitor either (the NRDY
	 * probe is skipped) and leave ESR to the kernel. */
	bool beside_kernel;
	/* A dry run (check-config --host) beside whoever programs the MSC (a running mpamd): no NRDY
	 * test, no ESR clear; only on an MSC with RIS is MPAMCFG_PART_SEL written, to read each RIS's ID
	 * registers, and then put back as it was found. The controls can be planned, never programmed. */
	bool plan_only;
	/* The SoC, for the errata Linux works around on one SoC only (zero: unknown). */
	struct soc_id soc;
};

#define MSC_PARTIDS 65536u /* MPAMF_IDR.PARTID_MAX is 16 bits */

struct msc {
	char name[NAME_MAX_LEN + 1];
	struct msc_bus *bus; /* owned */
	struct msc_caps caps;
	struct msc_probe_opts access; /* what it was probed with, and what mpamd may do with it since */
	double capacity_mbps;	      /* what the platform says it carries (the simulator knows); 0: unknown */
	/* MBW_MAX limits are asked to be hard (HARDLIM set) where the MSC lets software choose
	 * ([global] mb_max_mode = hard); false: soft, as Linux's resctrl leaves them. */
	bool hard_limits;
	/* Bit p: PARTID p was taken over (its controls reset, msc_take_over) since the probe. */
	uint64_t taken_over[MSC_PARTIDS / 64];
};

/* Probes the MSC behind `bus`. */
int msc_probe(struct msc_bus *bus, const struct msc_probe_opts *opts, struct msc_caps *ret, struct err *err);

/* Before mpamd first configures `partid` (msc_set_bandwidth, msc_set_cpbm), everything an earlier
 * owner may have left for it goes: on every RIS, with PARTID narrowing, the PARTID is mapped to the
 * intPARTID of the same number; then every control the RIS has for it is written to its reset value,
 * as Linux resets a PARTID (mpam_reprogram_ris_partid with an empty configuration): CPBM and MBW_PBM
 * all ones, MBW_MIN 0 (a T241's floor there), MBW_MAX all ones with HARDLIM clear, MBW_PROP disabled,
 * CMAX and CASSOC all ones, CMIN 0, INTPRI and DSPRI the highest priority. What differed from the
 * reset values is logged once. A PARTID taken over already is left alone. With `plan`, the writes
 * are only recorded there, as msc_plan_bandwidth records its own, and nothing is marked. */
int msc_take_over(struct msc *msc, uint16_t partid, json_t *plan, struct err *err);
bool msc_taken_over(const struct msc *msc, uint16_t partid);

/* Programs MBW_MAX (percent; HARDLIM per msc->hard_limits where the hardware lets software choose)
 * and MBW_MIN (percent, 0 for none) of `partid` on every RIS with bandwidth controls, reads them back
 * and returns the percentages in force. */
int msc_set_bandwidth(struct msc *msc, uint16_t partid, double max_pct, double min_pct, double *ret_max_pct,
		      double *ret_min_pct, struct err *err);

/* What an MSC with one bandwidth RIS read back of `partid`'s MBW_MAX and MBW_MIN (0 where the RIS has
 * no such control) after msc_set_bandwidth_seen wrote them, and whether limits were to be hard then;
 * `kept` false on an MSC of more bandwidth RIS, or when nothing was written. */
struct msc_bandwidth_seen {
	uint32_t max, min;
	bool hard, kept;
};

/* msc_set_bandwidth, and what was read back into *seen. */
int msc_set_bandwidth_seen(struct msc *msc, uint16_t partid, double max_pct, double min_pct, double *ret_max_pct,
			   double *ret_min_pct, struct msc_bandwidth_seen *seen, struct err *err);

/* Whether `partid`'s MBW_MAX and MBW_MIN still read what *seen holds (kept, with the MSC's limit mode
 * as then): 1 when they do, 0 when one differs (another writer, an MSC reset), or the bus's negative
 * errno. Reads only. */
int msc_bandwidth_as_seen(struct msc *msc, uint16_t partid, const struct msc_bandwidth_seen *seen);

/* Programs the cache portion bitmap of `partid` on every RIS with CPOR and reads it back. */
int msc_set_cpbm(struct msc *msc, uint16_t partid, uint64_t cbm, struct err *err);

/* A dry run of the two above (`mpamctl check-config --host`): the same checks and values, but each
 * control write is appended to `writes` as {"what": register, "msc", "ris", "partid", "value"}, with
 * "intpartid" when the MSC narrows PARTIDs, instead of reaching the bus (and the MPAMCFG_PART_SEL
 * write before it is left out too), and reads back as written. Nothing is read or written on the MSC. */
int msc_plan_bandwidth(struct msc *msc, uint16_t partid, double max_pct, double min_pct, double *ret_max_pct,
		       double *ret_min_pct, json_t *writes, struct err *err);
int msc_plan_cpbm(struct msc *msc, uint16_t partid, uint64_t cbm, json_t *writes, struct err *err);

/* Reads MPAMF_ESR (0 without an ESR); any non-zero value means the MSC saw an error. */
int msc_read_esr(struct msc *msc, uint64_t *ret);
/* Acknowledges the error ESR holds, so that the next one is seen: only on an MSC mpamd owns (-EPERM
 * beside resctrl or the kernel's driver, which own the ESR, and for a dry run). */
int msc_clear_esr(struct msc *msc);

/* The SCALE the monitors of `rc` are read with: the long counter is never scaled; the 31-bit one is,
 * when SCALE gives it more range (CTL.SCLEN). */
unsigned msc_counter_scale(const struct msc *msc, const struct msc_ris_caps *rc);
/* A counter unit of those monitors is 2^shift bytes: the SCALE above, plus 6 on parts that count
 * 64-byte units (T241-MPAM-6, for every counter width, as Linux 7.3 does). */
unsigned msc_counter_unit_shift(const struct msc *msc, const struct msc_ris_caps *rc);

/* Whether any RIS of the MSC narrows PARTIDs (its partid_max is then an INTPARTID_MAX). */
bool msc_narrows_partids(const struct msc *msc);

/* Whether MBW_MAX limits on RIS `rc` are hard: MAX_LIM fixes it, or mpamd chooses (hard_limits). */
bool msc_limits_hard(const struct msc *msc, const struct msc_ris_caps *rc);
/* "soft and hard", "soft only", "hard only" (MPAMF_MBW_IDR.MAX_LIM). */
const char *msc_max_lim_name(unsigned max_lim);

/* "hardware", "software" or "not probed". */
const char *msc_nrdy_name(enum msc_nrdy nrdy);

/* "ERRCODE 5 (monitor selector out of range), PARTID/MON 17, PMG 0, RIS 0" */
void msc_describe_esr(uint64_t esr, char *buf, size_t len);

#endif
