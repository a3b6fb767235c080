/* The emulated hardware: what each --profile (intel, amd, mpam, mpam73) exposes through resctrl, and how its
 * MB schemata values map to hardware settings and to a share of memory bandwidth. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_PROFILE_H
#define MPAMD_TESTS_RESCTRL_EMU_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#define EMU_MAX_DOMAINS 64 /* L3 domains (--domains): AMD hosts have one per CCX, 8 to 32 a socket */
#define EMU_MAX_CLOSIDS 32 /* resctrl keeps CLOSIDs in a u32 bitmap */
#define EMU_MAX_RMIDS	1024
#define EMU_MAX_CNTRS	64 /* assignable MBM counters per domain */

enum emu_event {
	EMU_EVT_LLC,   /* llc_occupancy */
	EMU_EVT_TOTAL, /* mbm_total_bytes */
	EMU_EVT_LOCAL, /* mbm_local_bytes */
	EMU_EVT_COUNT,
};

enum emu_mb_kind {
	EMU_MB_PERCENT, /* Intel MBA: the schemata value is the throttle percentage */
	EMU_MB_AMD,	/* AMD: absolute units of 1/8 GB/s */
	EMU_MB_MPAM,	/* Arm MPAM: percent stored as an MBW_MAX fixed-point fraction */
};

struct emu_profile {
	const char *name;
	/* The Linux version whose fs/resctrl rules apply, major * 100 + minor (--kernel): from 703 on,
	 * every access to a group's file clears info/last_cmd_status, reads included
	 * (rdtgroup_kn_lock_live calls rdt_last_cmd_clear), and a write without its newline says so. */
	unsigned kernel;
	unsigned domains;
	/* L3 cache allocation */
	unsigned cbm_len;
	unsigned min_cbm_bits;
	uint32_t shareable_bits;
	bool sparse_masks;
	uint64_t l3_bytes;
	/* The cache size the kernel bases RMID reuse on (resctrl_rmid_realloc_limit, the limit of
	 * max_threshold_occupancy, which starts at it / num_rmids): x86's boot_cpu_data.x86_cache_size,
	 * the L3's on Intel (init_intel_cacheinfo) but the L2's on AMD, where only
	 * cpu_detect_cache_sizes() sets it (CPUID 0x80000006); MPAM takes the L3's cacheinfo size.
	 * 0: l3_bytes. */
	uint64_t realloc_limit_bytes;
	unsigned num_closids;
	/* MB */
	enum emu_mb_kind mb_kind;
	unsigned mb_min, mb_max, mb_gran;
	unsigned bwa_wd; /* EMU_MB_MPAM only */
	bool delay_linear;
	const char *throttle_mode; /* NULL: the kernel does not create thread_throttle_mode */
	/* monitoring */
	unsigned num_rmids;
	bool rmid_depends_on_closid; /* MPAM: RMID = (CLOSID, PMG) */
	unsigned pmg_max;
	unsigned events;	/* bit (1 << enum emu_event) per event in mon_features */
	const char *mon_res;	/* the monitoring resource's name: mon_<RES>_NN, info/<RES>_MON,
				 * mbm_<RES>_assignments; NULL for "L3" */
	bool cntr_assignable;	/* counter assignment (mbm_event mode) supported */
	unsigned num_mbm_cntrs; /* assignable counters per domain (may be 0 when assignable) */
	bool assign_fixed;	/* mbm_cntr_assign_fixed: mbm_event mode cannot be turned off */
	/* mbm_cntr_configurable (AMD ABMC): info/<RES>_MON/event_configs/<event>/event_filter, which
	 * every profile with assignable counters has, is 0644 and takes a list of transactions. */
	bool cntr_configurable;
	uint32_t mbm_cfg_mask; /* the memory transactions the counters can count (bits of
				* include/linux/resctrl_types.h READS_TO_LOCAL_MEM...) */
	bool mba_sc;	       /* mounted with -o mba_MBps: MB values are MB/s that the kernel's
				    * software controller holds (is_mba_sc()) */
	bool cdp;	       /* mounted with -o cdp: L3CODE and L3DATA, half the CLOSIDs (--cdp) */
	bool io_alloc_capable; /* info/L3/io_alloc and io_alloc_cbm (AMD SDCIAE; --io-alloc) */
	/* CONFIG_RESCTRL_FS_PSEUDO_LOCK (x86 selects it): mode takes "pseudo-locksetup", which no
	 * emulated CPU can do (resctrl_arch_get_prefetch_disable_bits() knows two Intel models). */
	bool pseudo_lock;
};

/* MBA_MAX_MBPS: what an unthrottled group's MB shows under mba_MBps. */
#define EMU_MBA_MAX_MBPS 4294967295u

/* resctrl_rmid_realloc_limit: the bytes max_threshold_occupancy may be set to. */
uint64_t emu_realloc_limit(const struct emu_profile *p);

/* The monitoring resource's name ("L3" unless the profile says otherwise). */
const char *emu_mon_res(const struct emu_profile *p);

/* A copy of the named profile, so the command line can adjust it; false if unknown. */
bool emu_profile_get(const char *name, struct emu_profile *ret);

bool emu_profile_has_event(const struct emu_profile *p, enum emu_event ev);
const char *emu_event_name(enum emu_event ev);
/* The event called `name` among the profile's events; -1 when none. */
int emu_event_by_name(const struct emu_profile *p, const char *name);

/* MB values: `value` is what a schemata write asks for, already range-checked and rounded up to
 * bandwidth_gran; the result is what the hardware holds. */
uint32_t emu_mb_to_hw(const struct emu_profile *p, uint32_t value);
/* What schemata shows for a hardware value. */
uint32_t emu_mb_from_hw(const struct emu_profile *p, uint32_t hw);
/* The share of a domain's capacity a hardware value lets a CLOSID use, 0..1. */
double emu_mb_fraction(const struct emu_profile *p, uint32_t hw, double capacity_mbps);

#endif
