/* The emulated hosts. Values follow what Linux's fs/resctrl, arch/x86/kernel/cpu/resctrl and
 * drivers/resctrl/mpam_resctrl.c make of such hardware, and Documentation/filesystems/resctrl.rst;
 * each choice is explained where it is made. */
#include "emu_profile.h"

#include <stddef.h>
#include <string.h>

#include "backends/mpam/mpam_regs.h"
#include "core/base/ladder.h"

#define KIB		  (UINT64_C(1) << 10)
#define MIB		  (UINT64_C(1) << 20)
#define ALL_EVENTS	  ((1u << EMU_EVT_LLC) | (1u << EMU_EVT_TOTAL) | (1u << EMU_EVT_LOCAL))
#define AMD_MBPS_PER_UNIT 125.0 /* AMD MB units are 1/8 GB/s */
#define MPAM_BWA_WD	  5

/* What Linux's MPAM glue makes of the same MSCs on 7.1 and 7.3: MB from MBW_MAX (BWA_WD 5), CPOR with
 * the whole mask shareable, 32 PARTIDs with 2 PMGs each. */
#define MPAM_CONTROLS                                                                                          \
	.domains = 1, .cbm_len = 16, .min_cbm_bits = 1, .shareable_bits = 0xffff, .sparse_masks = true,        \
	.l3_bytes = 32 * MIB, .num_closids = 32, .mb_kind = EMU_MB_MPAM, .mb_max = 100, .bwa_wd = MPAM_BWA_WD, \
	.delay_linear = true, .rmid_depends_on_closid = true, .pmg_max = 1, .num_rmids = 2 * 32

static const struct emu_profile profiles[] = {
	{
		/* A two-socket Xeon: 11-bit CBM, MBA in steps of 10%, MBM total and local. */
		.name = "intel",
		.kernel = 702,
		.domains = 2,
		.cbm_len = 11,
		.min_cbm_bits = 1,
		.l3_bytes = 22 * MIB,
		.num_closids = 16,
		.mb_kind = EMU_MB_PERCENT,
		.mb_min = 10,
		.mb_max = 100,
		.mb_gran = 10,
		.delay_linear = true,
		.throttle_mode = "max",
		.num_rmids = 32,
		.events = ALL_EVENTS,
		.pseudo_lock = true,
	},
	{
		/* EPYC: absolute MB (MAX_MBA_BW_AMD = 2048 units, step 1, minimum 0), sparse CBMs and
		 * min_cbm_bits 0 (rdt_init_res_defs_amd), ABMC counters in mbm_event mode. The MB
		 * throttle mode is undefined, so like the kernel we create no thread_throttle_mode. */
		.name = "amd",
		.kernel = 702,
		.domains = 2,
		.cbm_len = 16,
		.min_cbm_bits = 0,
		.sparse_masks = true,
		.l3_bytes = 32 * MIB,
		.realloc_limit_bytes = 512 * KIB, /* the L2 of Zen 2 and 3, and of QEMU's AMD CPUs */
		.num_closids = 16,
		.mb_kind = EMU_MB_AMD,
		.mb_min = 0,
		.mb_max = 2048,
		.mb_gran = 1,
		.num_rmids = 64,
		.events = ALL_EVENTS,
		.cntr_assignable = true,
		.num_mbm_cntrs = 4,
		.cntr_configurable = true,
		.mbm_cfg_mask = 0x7f, /* CPUID 0x80000020.3 ECX: all seven transaction types */
		.pseudo_lock = true,
	},
	{
		/* Linux 7.1 MPAM: MPAM_CONTROLS, CSU (llc_occupancy) only. ctrl_hw_id and mon_hw_id only with
		 * --debug, as with -o debug (fs/resctrl/rdtgroup.c: RFTYPE_DEBUG). */
		.name = "mpam",
		.kernel = 701,
		MPAM_CONTROLS,
		.events = 1u << EMU_EVT_LLC,
	},
	{
		/* Linux 7.3 MPAM: the 7.1 controls plus mbm_total_bytes, counted only through assigned
		 * counters (drivers/resctrl/mpam_resctrl.c mpam_resctrl_monitor_init_abmc: assignable,
		 * assign_on_mkdir, not configurable, mode fixed; mbm_cfg_mask MAX_EVT_CONFIG_BITS;
		 * num_mbm_cntrs = the class's MBWU monitors). No mbm_local_bytes. */
		.name = "mpam73",
		.kernel = 703,
		MPAM_CONTROLS,
		.events = (1u << EMU_EVT_LLC) | (1u << EMU_EVT_TOTAL),
		.cntr_assignable = true,
		.num_mbm_cntrs = 8,
		.assign_fixed = true,
		.mbm_cfg_mask = 0x7f,
	},
};

static const char *const event_names[EMU_EVT_COUNT] = { "llc_occupancy", "mbm_total_bytes", "mbm_local_bytes" };

bool emu_profile_get(const char *name, struct emu_profile *ret)
{
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		if (strcmp(profiles[i].name, name) != 0)
			continue;
		*ret = profiles[i];
		if (ret->mb_kind == EMU_MB_MPAM) {
			/* resctrl's view of a w-bit MBW_MAX: get_mba_min() and get_mba_granularity(). */
			ret->mb_min = ladder_kernel_mpam_min(ret->bwa_wd);
			ret->mb_gran = ladder_kernel_mpam_gran(ret->bwa_wd);
		}
		return true;
	}
	return false;
}

uint64_t emu_realloc_limit(const struct emu_profile *p)
{
	return p->realloc_limit_bytes ? p->realloc_limit_bytes : p->l3_bytes;
}

const char *emu_mon_res(const struct emu_profile *p)
{
	return p->mon_res ? p->mon_res : "L3";
}

bool emu_profile_has_event(const struct emu_profile *p, enum emu_event ev)
{
	return (p->events >> ev) & 1u;
}

const char *emu_event_name(enum emu_event ev)
{
	return event_names[ev];
}

int emu_event_by_name(const struct emu_profile *p, const char *name)
{
	for (int ev = 0; ev < EMU_EVT_COUNT; ev++)
		if (emu_profile_has_event(p, (enum emu_event)ev) && strcmp(name, event_names[ev]) == 0)
			return ev;
	return -1;
}

uint32_t emu_mb_to_hw(const struct emu_profile *p, uint32_t value)
{
	if (p->mb_kind == EMU_MB_MPAM)
		return ladder_kernel_percent_to_mbw_max(value, p->bwa_wd); /* as the kernel, wrap included */
	return value;
}

uint32_t emu_mb_from_hw(const struct emu_profile *p, uint32_t hw)
{
	if (p->mb_kind == EMU_MB_MPAM)
		return ladder_kernel_mbw_max_to_percent((uint16_t)hw, p->bwa_wd);
	return hw;
}

double emu_mb_fraction(const struct emu_profile *p, uint32_t hw, double capacity_mbps)
{
	double f;

	/* The kernel's controller holds the group at its MB/s, idealised: at once, exactly. The real
	 * one steps the hardware percentage once a second (update_mba_bw) and overshoots between. */
	if (p->mba_sc) {
		f = capacity_mbps > 0 ? hw / capacity_mbps : 1;
		return f > 1 ? 1 : f;
	}
	switch (p->mb_kind) {
	case EMU_MB_MPAM:
		return mpam_mbw_max_fraction((uint16_t)hw, p->bwa_wd); /* the top of the band */
	case EMU_MB_AMD:
		f = capacity_mbps > 0 ? hw * AMD_MBPS_PER_UNIT / capacity_mbps : 1;
		return f > 1 ? 1 : f;
	case EMU_MB_PERCENT:
	default:
		return hw / 100.0;
	}
}
