/* Ladders: the settings a bandwidth control can hold (see ladder.h). */
#include "core/base/ladder.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Linux's MPAM conversions ----
 * drivers/resctrl/mpam_resctrl.c (7.1-7.3): a BWA_WD = w field splits 0..100% into 2^w bands; the
 * kernel writes the band whose top is nearest the percent, and shows the nearest percent to the
 * top of the band a field holds. The u16 return keeps the kernel's truncation: a percent above 100
 * (bw_validate rounds 99 up to 105 when bandwidth_gran is 7) can wrap to field 0. */

static uint32_t div_round_closest(uint32_t num, uint32_t den)
{
	return (num + den / 2) / den;
}

uint16_t ladder_kernel_percent_to_mbw_max(uint32_t pct, unsigned bwa_wd)
{
	uint32_t val = (uint8_t)pct; /* the kernel's argument is a u8 */

	val <<= bwa_wd;
	val = div_round_closest(val, 100);
	val = (val > 1 ? val : 1) - 1;
	val <<= 16 - bwa_wd;
	return (uint16_t)val;
}

uint32_t ladder_kernel_mbw_max_to_percent(uint16_t field, unsigned bwa_wd)
{
	uint32_t val = field;

	val >>= 16 - bwa_wd;
	val += 1;
	val *= 100;
	return div_round_closest(val, UINT32_C(1) << bwa_wd);
}

uint32_t ladder_kernel_mpam_gran(unsigned bwa_wd)
{
	uint32_t bands = UINT32_C(1) << bwa_wd;

	return (100 + bands - 1) / bands;
}

uint32_t ladder_kernel_mpam_min(unsigned bwa_wd)
{
	return ladder_kernel_mbw_max_to_percent(0, bwa_wd);
}

/* ---- construction ---- */

static uint32_t round_up(uint32_t v, uint32_t gran)
{
	return (v + gran - 1) / gran * gran;
}

static bool wd_valid(unsigned bwa_wd)
{
	return bwa_wd >= 1 && bwa_wd <= LADDER_MPAM_WD_MAX;
}

static int refuse(struct ladder *ret)
{
	memset(ret, 0, sizeof(*ret));
	return -EINVAL;
}

int ladder_percent(uint32_t gran, uint32_t min, struct ladder *ret)
{
	if (gran == 0 || gran > 100 || min > 100)
		return refuse(ret);
	memset(ret, 0, sizeof(*ret));
	ret->kind = LADDER_PERCENT;
	ret->gran = gran;
	ret->min = round_up(min, gran); /* the lowest value the kernel stores */
	ret->count = (round_up(100, gran) - ret->min) / gran + 1;
	return 0;
}

static int mpam_fraction(enum ladder_kind kind, unsigned bwa_wd, struct ladder *ret)
{
	if (!wd_valid(bwa_wd))
		return refuse(ret);
	memset(ret, 0, sizeof(*ret));
	ret->kind = kind;
	ret->bwa_wd = (uint8_t)bwa_wd;
	ret->count = UINT32_C(1) << bwa_wd;
	return 0;
}

int ladder_mpam_max(unsigned bwa_wd, struct ladder *ret)
{
	return mpam_fraction(LADDER_MPAM_MAX, bwa_wd, ret);
}

int ladder_mpam_min(unsigned bwa_wd, struct ladder *ret)
{
	return mpam_fraction(LADDER_MPAM_MIN, bwa_wd, ret);
}

/* The band the kernel programs for a percent written to the schemata (after bw_validate). */
static uint32_t kernel_band(const struct ladder *l, uint32_t written)
{
	uint16_t field = ladder_kernel_percent_to_mbw_max(round_up(written, l->gran), l->bwa_wd);

	return (uint32_t)field >> (16 - l->bwa_wd);
}

static double band_top_pct(uint32_t band, unsigned bwa_wd)
{
	return (double)(band + 1) * LADDER_PCT_FULL / (double)(UINT32_C(1) << bwa_wd);
}

int ladder_resctrl_mpam(unsigned bwa_wd, struct ladder *ret)
{
	if (!wd_valid(bwa_wd))
		return refuse(ret);
	memset(ret, 0, sizeof(*ret));
	ret->kind = LADDER_RESCTRL_MPAM;
	ret->bwa_wd = (uint8_t)bwa_wd;
	ret->gran = ladder_kernel_mpam_gran(bwa_wd);
	ret->min = ladder_kernel_mpam_min(bwa_wd);
	/* Each band a percent the kernel accepts lands on, once, written as the percent nearest the band's
	 * top (what the kernel shows for it; a tie goes to the lower). A percent whose rounding wraps the
	 * field (see above) lands below the bands already seen: never a rung. */
	for (uint32_t p = ret->min; p <= 100; p++) {
		uint32_t band = kernel_band(ret, p);
		uint32_t last = ret->count ? kernel_band(ret, ret->written[ret->count - 1]) : 0;
		if (ret->count && band < last)
			continue;
		if (!ret->count || band > last) {
			ret->written[ret->count++] = (uint8_t)p;
			continue;
		}
		double top = band_top_pct(band, bwa_wd), have = ret->written[ret->count - 1];
		if (fabs(p - top) < fabs(have - top))
			ret->written[ret->count - 1] = (uint8_t)p;
	}
	return 0;
}

int ladder_units(uint32_t min, uint32_t max, double mbps_per_unit, struct ladder *ret)
{
	if (min > max || !(mbps_per_unit > 0) || !isfinite(mbps_per_unit))
		return refuse(ret);
	memset(ret, 0, sizeof(*ret));
	ret->kind = LADDER_UNITS;
	ret->min = min;
	ret->max = max;
	ret->mbps_per_unit = mbps_per_unit;
	ret->count = max - min + 1;
	return 0;
}

/* ---- rungs ---- */

static uint32_t clamp_rung(const struct ladder *l, uint32_t rung)
{
	return rung < l->count ? rung : ladder_top(l);
}

/* percent: the value the kernel stores for the rung (may pass 100 on the top rung, see ladder_value). */
static uint32_t percent_stored(const struct ladder *l, uint32_t rung)
{
	return l->min + rung * l->gran;
}

double ladder_pct(const struct ladder *l, uint32_t rung)
{
	if (!l->count)
		return LADDER_PCT_FULL;
	rung = clamp_rung(l, rung);
	switch (l->kind) {
	case LADDER_PERCENT: {
		uint32_t stored = percent_stored(l, rung);
		return stored > 100 ? LADDER_PCT_FULL : (double)stored;
	}
	case LADDER_MPAM_MAX:
		return band_top_pct(rung, l->bwa_wd);
	case LADDER_MPAM_MIN:
		return (double)rung * LADDER_PCT_FULL / (double)(UINT32_C(1) << l->bwa_wd);
	case LADDER_RESCTRL_MPAM:
		return band_top_pct(kernel_band(l, l->written[rung]), l->bwa_wd);
	case LADDER_UNITS:
		return (double)(l->min + rung) * LADDER_PCT_FULL / (double)l->max;
	case LADDER_NONE:
		break;
	}
	return LADDER_PCT_FULL;
}

uint32_t ladder_value(const struct ladder *l, uint32_t rung)
{
	if (!l->count)
		return 0;
	rung = clamp_rung(l, rung);
	switch (l->kind) {
	case LADDER_PERCENT: {
		/* The top rung is written as 100 (the kernel takes no more) and stored rounded up. */
		uint32_t stored = percent_stored(l, rung);
		return stored > 100 ? 100 : stored;
	}
	case LADDER_MPAM_MAX:
	case LADDER_MPAM_MIN:
		return rung << (16 - l->bwa_wd);
	case LADDER_RESCTRL_MPAM:
		return l->written[rung];
	case LADDER_UNITS:
		return l->min + rung;
	case LADDER_NONE:
		break;
	}
	return 0;
}

uint32_t ladder_shown(const struct ladder *l, uint32_t rung)
{
	if (!l->count)
		return 0;
	rung = clamp_rung(l, rung);
	switch (l->kind) {
	case LADDER_PERCENT:
		return percent_stored(l, rung);
	case LADDER_RESCTRL_MPAM:
		return ladder_kernel_mbw_max_to_percent(
			(uint16_t)(kernel_band(l, l->written[rung]) << (16 - l->bwa_wd)), l->bwa_wd);
	default:
		return ladder_value(l, rung);
	}
}

/* The first rung whose `key` (a face of the rungs that ascends with them) is above v; count where none
 * is. */
static uint32_t bisect_above(const struct ladder *l, double (*key)(const struct ladder *, uint32_t), double v)
{
	uint32_t lo = 0, hi = l->count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (key(l, mid) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static double shown_key(const struct ladder *l, uint32_t rung)
{
	return ladder_shown(l, rung);
}

static double value_key(const struct ladder *l, uint32_t rung)
{
	return ladder_value(l, rung);
}

/* The last rung whose `face` (shown or written, both ascending) is v; -ERANGE where none is. */
static int ladder_find(const struct ladder *l, double (*face)(const struct ladder *, uint32_t), uint32_t v,
		       uint32_t *ret)
{
	uint32_t above = bisect_above(l, face, v);

	*ret = above ? above - 1 : 0;
	return l->count && face(l, *ret) == v ? 0 : -ERANGE;
}

int ladder_of_shown(const struct ladder *l, uint32_t shown, uint32_t *ret)
{
	return ladder_find(l, shown_key, shown, ret);
}

int ladder_of_value(const struct ladder *l, uint32_t value, uint32_t *ret)
{
	return ladder_find(l, value_key, value, ret);
}

#define GUESS_WALK_MAX 4

/* The first rung above pct (count where none is), from a guess by interpolation between the end
 * rungs, which is the answer or next to it on every ladder but resctrl_mpam's uneven one: a policy
 * snaps on every domain at every tick, and a search over BWA_WD 16's 65536 rungs was most of a
 * domain's tick. */
static uint32_t first_above(const struct ladder *l, double pct)
{
	double bottom = ladder_pct(l, 0), top = ladder_pct(l, l->count - 1);

	if (pct < bottom)
		return 0;
	if (pct >= top)
		return l->count;
	uint32_t g = (uint32_t)((pct - bottom) / (top - bottom) * (double)(l->count - 1)); /* below count - 1 */
	for (unsigned step = 0; step < GUESS_WALK_MAX; step++) {
		if (ladder_pct(l, g) > pct) {
			if (g == 0 || ladder_pct(l, g - 1) <= pct)
				return g;
			g--;
		} else { /* pct(g) <= pct < top: g + 1 is a rung */
			if (ladder_pct(l, g + 1) > pct)
				return g + 1;
			g++;
		}
	}
	return bisect_above(l, ladder_pct, pct);
}

uint32_t ladder_snap(const struct ladder *l, double pct, enum ladder_round how)
{
	if (!l->count)
		return 0;
	/* down: the last rung at or below pct */
	uint32_t lo = first_above(l, pct);
	uint32_t down = lo ? lo - 1 : 0;
	if (ladder_pct(l, down) == pct || how == LADDER_DOWN)
		return down;
	uint32_t up = lo < l->count ? lo : ladder_top(l);
	if (how == LADDER_UP || ladder_pct(l, down) > pct)
		return up;
	return up != down && ladder_pct(l, up) - pct < pct - ladder_pct(l, down) ? up : down;
}

double ladder_mbps(const struct ladder *l, uint32_t rung, double capacity_mbps)
{
	if (ladder_absolute(l))
		return (double)ladder_value(l, rung) * l->mbps_per_unit;
	return capacity_mbps > 0 ? ladder_pct(l, rung) / LADDER_PCT_FULL * capacity_mbps : 0;
}

int ladder_pct_of_mbps(const struct ladder *l, double mbps, double capacity_mbps, double *ret)
{
	if (ladder_absolute(l)) {
		*ret = mbps / l->mbps_per_unit * LADDER_PCT_FULL / (double)l->max;
		return 0;
	}
	if (!(capacity_mbps > 0))
		return -ENODATA;
	*ret = mbps / capacity_mbps * LADDER_PCT_FULL;
	return 0;
}

void ladder_describe(const struct ladder *l, char *buf, size_t size)
{
	switch (l->count ? l->kind : LADDER_NONE) {
	case LADDER_PERCENT:
		snprintf(buf, size, "%u%% steps from %u%%", l->gran, l->min);
		break;
	case LADDER_MPAM_MAX:
	case LADDER_MPAM_MIN:
		snprintf(buf, size, "1/%u steps (%s, BWA_WD %u)", l->count,
			 l->kind == LADDER_MPAM_MAX ? "MBW_MAX" : "MBW_MIN", l->bwa_wd);
		break;
	case LADDER_RESCTRL_MPAM:
		snprintf(buf, size, "%u bands of 1/%u (MPAM BWA_WD %u through resctrl, %u%% steps from %u%%)", l->count,
			 1u << l->bwa_wd, l->bwa_wd, l->gran, l->min);
		break;
	case LADDER_UNITS:
		snprintf(buf, size, "%u units of %g MB/s (%u..%u)", l->count, l->mbps_per_unit, l->min, l->max);
		break;
	case LADDER_NONE:
		snprintf(buf, size, "no bandwidth control");
		break;
	}
}
