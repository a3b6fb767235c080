/* A bandwidth control's ladder: the ordered settings the hardware can hold on one domain, each with
 * what it really enforces. Policies decide rungs and the operator's numbers are snapped to one here,
 * by one function, so what mpamd decides, writes, reads back and reports is always a setting that
 * exists.
 *
 * A rung has three faces:
 *   value  what is written: a resctrl MB number (percent, or AMD's absolute units) or an MPAM
 *          MBW_MAX/MBW_MIN register field;
 *   shown  what the hardware (or the kernel) shows afterwards: the schemata's number, the field;
 *   pct    what it enforces, in percent of the domain's full scale (an MBW_MAX field enforces the top
 *          of its band, an MBW_MIN field guarantees the bottom of its band). Every pct a ladder
 *          returns is a dyadic or whole number, exact in a double, so rungs compare exactly.
 *
 * The kinds:
 *   percent         resctrl MB in percent (Intel MBA, and what else is linear): the kernel accepts
 *                   min..100 and rounds a value up to a multiple of bandwidth_gran
 *                   (fs/resctrl/ctrlmondata.c bw_validate);
 *   mpam_max/min    MPAM MBW_MAX / MBW_MIN written over MMIO, BWA_WD bits of fraction: 2^w rungs;
 *   resctrl_mpam    MB through Linux's MPAM driver: the percent is rounded up to bandwidth_gran,
 *                   then to the nearest band (drivers/resctrl/mpam_resctrl.c percent_to_mbw_max),
 *                   and shown as the nearest percent to the band's top (mbw_max_to_percent);
 *   units           absolute units (AMD: 1/8 GB/s a unit, 0..2^n): MB/s known without a capacity.
 * Pure functions, no I/O. */
#ifndef MPAMD_CORE_BASE_LADDER_H
#define MPAMD_CORE_BASE_LADDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LADDER_PCT_FULL	   100.0
#define LADDER_MPAM_WD_MAX 16u
/* Percent values a resctrl MB file takes (0..100). */
#define LADDER_PERCENTS 101u

enum ladder_kind {
	LADDER_NONE, /* no bandwidth control here */
	LADDER_PERCENT,
	LADDER_MPAM_MAX,
	LADDER_MPAM_MIN,
	LADDER_RESCTRL_MPAM,
	LADDER_UNITS,
};

/* How a request between two rungs is settled. */
enum ladder_round {
	LADDER_DOWN,	/* the highest rung at or below (the lowest rung when below every one) */
	LADDER_UP,	/* the lowest rung at or above (the highest when above every one) */
	LADDER_NEAREST, /* the nearer of the two; a tie goes down (a maximum leans to holding) */
};

struct ladder {
	enum ladder_kind kind;
	uint32_t count;	      /* rungs; 0 for LADDER_NONE */
	uint32_t gran;	      /* percent, resctrl_mpam: bandwidth_gran (percent) */
	uint32_t min;	      /* percent, resctrl_mpam: min_bandwidth (percent); units: the lowest unit */
	uint32_t max;	      /* units: the highest unit (the hardware's maximum, "no throttling") */
	uint8_t bwa_wd;	      /* mpam_*, resctrl_mpam: bits of fraction */
	double mbps_per_unit; /* units: MB/s one unit stands for; 0 elsewhere */
	/* resctrl_mpam: the percent written for each rung (of those that land on its band, the one nearest
	 * its top). */
	uint8_t written[LADDER_PERCENTS];
};

/* Constructors. Each returns -EINVAL (and leaves *ret a LADDER_NONE) for parameters no hardware
 * has: a granularity of 0 or over 100, a minimum over 100, a BWA_WD outside 1..16, a unit range
 * that is empty or a unit size that is not positive. */
int ladder_percent(uint32_t gran, uint32_t min, struct ladder *ret);
int ladder_mpam_max(unsigned bwa_wd, struct ladder *ret);
int ladder_mpam_min(unsigned bwa_wd, struct ladder *ret);
int ladder_resctrl_mpam(unsigned bwa_wd, struct ladder *ret);
int ladder_units(uint32_t min, uint32_t max, double mbps_per_unit, struct ladder *ret);

static inline bool ladder_exists(const struct ladder *l)
{
	return l && l->count > 0;
}

static inline uint32_t ladder_top(const struct ladder *l)
{
	return l->count ? l->count - 1 : 0;
}

/* What rung `rung` enforces, percent of full scale; rungs beyond the top are the top. */
double ladder_pct(const struct ladder *l, uint32_t rung);
/* What is written for it. */
uint32_t ladder_value(const struct ladder *l, uint32_t rung);
/* What the hardware shows once it is written. */
uint32_t ladder_shown(const struct ladder *l, uint32_t rung);
/* The rung a shown value stands for: 0 and *ret when a rung shows exactly `shown`; -ERANGE when none
 * does, with *ret the highest rung showing less (the lowest when every one shows more). */
int ladder_of_shown(const struct ladder *l, uint32_t shown, uint32_t *ret);
/* The rung whose written value is `value`: 0, or -ERANGE with *ret the highest rung written lower
 * (the lowest when every one is higher). */
int ladder_of_value(const struct ladder *l, uint32_t value, uint32_t *ret);
/* The rung for a request in percent of full scale. */
uint32_t ladder_snap(const struct ladder *l, double pct, enum ladder_round how);
/* Whether the ladder's rungs are MB/s by themselves (absolute units). */
static inline bool ladder_absolute(const struct ladder *l)
{
	return l->kind == LADDER_UNITS;
}

/* What rung `rung` lets through in MB/s: absolute ladders by their units, the others as their share
 * of `capacity_mbps`; 0 when that is unknown (0). */
double ladder_mbps(const struct ladder *l, uint32_t rung, double capacity_mbps);
/* The percent of full scale `mbps` is: absolute ladders by their units, the others against
 * `capacity_mbps`. -ENODATA when the capacity is needed and unknown. */
int ladder_pct_of_mbps(const struct ladder *l, double mbps, double capacity_mbps, double *ret);
/* The ladder in words for people: "10% steps from 10%", "1/256 steps (MBW_MAX, BWA_WD 8)",
 * "2049 units of 125 MB/s (0..2048)". */
void ladder_describe(const struct ladder *l, char *buf, size_t size);

/* Linux's MPAM MB conversions (drivers/resctrl/mpam_resctrl.c, 7.1-7.3), for the resctrl_mpam
 * ladder and for the emulators that stand in for that kernel: the MBW_MAX field a written percent
 * becomes, the percent the kernel shows for a field, resctrl's bandwidth_gran and min_bandwidth. */
uint16_t ladder_kernel_percent_to_mbw_max(uint32_t pct, unsigned bwa_wd);
uint32_t ladder_kernel_mbw_max_to_percent(uint16_t field, unsigned bwa_wd);
uint32_t ladder_kernel_mpam_gran(unsigned bwa_wd);
uint32_t ladder_kernel_mpam_min(unsigned bwa_wd);

#endif
