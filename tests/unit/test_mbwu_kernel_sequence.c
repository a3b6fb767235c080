/* mpamd's MBWU driver against the way Linux (7.1+, drivers/resctrl) programs and reads a bandwidth
 * monitor, both run on register models of the same MSC that see the same traffic.
 *
 * The reference below is test code of its own, written from what Linux is documented to do:
 *  - programming: write FLT, write CTL with EN clear, write CTL with EN set, then zero the counter
 *    (MSMON_MBWU, or MSMON_MBWU_L low word then high word);
 *  - reading: select the monitor; read CTL and FLT; note the overflow status of the counter in use;
 *    reprogram when CTL (status bits masked) or FLT differ from what is wanted, and forget the
 *    overflow then; otherwise clear a seen overflow in CTL; read the counter (a long one high, low,
 *    high, three tries); a set NRDY makes the read fail with EBUSY, and the caller tries once more
 *    after the not-ready time (0 on a model); an overflow adds the counter's range to a running
 *    correction, and the result is value + correction;
 *  - on an NVIDIA T241 (IIDR 0x2410036b, erratum T241-MPAM-6) the value and the overflow's range are
 *    both multiplied by 64, for every counter width.
 * What a sample is, from those reads: the difference of two successive successful reads, invalid
 * when either failed or the count went down (a reset, never a wrap, for a 64-bit sum).
 *
 * mpamd must give a measured sample exactly when the reference has a valid one, with the same bytes,
 * in both NRDY modes (the MSC clears NRDY itself, or leaves it to software), for 31-, 44- and 63-bit
 * counters and on a T241, through wraps, a CTL rewritten by someone else and a counter zeroed under it.
 * One difference is by design: as the sole user of a long counter, mpamd reads CTL back only on the
 * monitor's staggered check, so a rewritten CTL that leaves the monitor counting forwards and ready
 * (NRDY cleared by the MSC) is found up to MSC_MONITORS_CHECK_TICKS ticks after Linux finds it; until
 * then each sample must be exactly the bytes the partition moved. Beside the kernel, mpamd follows
 * Linux's sequence on every read and agrees on every tick. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "backends/mmio/monitors.h"
#include "backends/mmio/msc.h"
#include "backends/mpam/mpam_regs.h"
#include "backends/sim/msc_model.h"
#include "tests/util/msc_io.h"

#define MS     1000000ull
#define PARTID 5
#define TICKS  120
/* The reference's monitor; mpamd's pool hands out monitor 0 first too, but the top one beside the
 * kernel (whose driver hands out from the bottom). */
#define MON    0
#define TAMPER 30 /* after this tick's reads someone rewrites CTL */
#define ZEROED 60 /* after this tick's reads someone zeroes the counter */

/* ---- the reference: Linux's sequence, on one model ---- */

struct reference {
	struct msc_model *model;
	bool is_long;
	unsigned bits;
	uint64_t unit; /* 64 on a T241, else 1 */
	uint64_t correction;
	bool has_prev;
	uint64_t prev;
};

static uint32_t reference_ctl(void)
{
	return (uint32_t)(mpam_field_prep(MSMON_CFG_CTL_TYPE, MSMON_CFG_CTL_TYPE_MBWU) | MSMON_CFG_CTL_MATCH_PARTID);
}

static uint32_t reference_flt(void)
{
	return (uint32_t)mpam_field_prep(MSMON_CFG_MBWU_FLT_PARTID, PARTID);
}

static void reference_program(struct reference *k)
{
	model_wr32(k->model, MSMON_CFG_MBWU_FLT, reference_flt());
	model_wr32(k->model, MSMON_CFG_MBWU_CTL, reference_ctl());
	model_wr32(k->model, MSMON_CFG_MBWU_CTL, reference_ctl() | (uint32_t)MSMON_CFG_CTL_EN);
	if (!k->is_long) {
		model_wr32(k->model, MSMON_MBWU, 0);
	} else {
		model_wr32(k->model, MSMON_MBWU_L, 0);
		model_wr32(k->model, MSMON_MBWU_L + 4, 0);
	}
}

/* The long counter's two words, read until the high word holds still; NRDY alone when it never does. */
static uint64_t reference_read_long(struct reference *k)
{
	uint32_t high2 = model_rd32(k->model, MSMON_MBWU_L + 4), high1, low;
	int tries = 3;

	do {
		high1 = high2;
		low = model_rd32(k->model, MSMON_MBWU_L);
		high2 = model_rd32(k->model, MSMON_MBWU_L + 4);
	} while (high1 != high2 && --tries > 0);
	return high1 == high2 ? (uint64_t)high1 << 32 | low : MSMON_MBWU_L_NRDY;
}

/* One pass over the monitor: 0 and the running count, or -EBUSY. */
static int reference_read_once(struct reference *k, uint64_t *ret)
{
	uint32_t status_l = (uint32_t)MSMON_CFG_CTL_OFLOW_STATUS_L, status = (uint32_t)MSMON_CFG_CTL_OFLOW_STATUS;

	model_wr32(k->model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, MON));
	uint32_t ctl = model_rd32(k->model, MSMON_CFG_MBWU_CTL), flt = model_rd32(k->model, MSMON_CFG_MBWU_FLT);
	bool overflow = (ctl & (k->is_long ? status_l : status)) != 0;
	ctl &= ~(status | status_l);
	if (flt != reference_flt() || ctl != (reference_ctl() | (uint32_t)MSMON_CFG_CTL_EN)) {
		reference_program(k);
		overflow = false;
	} else if (overflow) {
		model_wr32(k->model, MSMON_CFG_MBWU_CTL, ctl);
	}
	uint64_t now, nrdy;
	if (k->is_long) {
		now = reference_read_long(k);
		nrdy = now & MSMON_MBWU_L_NRDY;
		now &= mpam_counter_mask(k->bits);
	} else {
		now = model_rd32(k->model, MSMON_MBWU);
		nrdy = now & MSMON_MBWU_NRDY;
		now &= MSMON_MBWU_VALUE;
	}
	now *= k->unit;
	if (nrdy)
		return -EBUSY;
	if (overflow)
		k->correction += (UINT64_C(1) << k->bits) * k->unit;
	*ret = now + k->correction;
	return 0;
}

/* A tick's sample by the reference: -1 invalid, else the bytes. */
static int64_t reference_sample(struct reference *k)
{
	uint64_t now = 0;
	int r = reference_read_once(k, &now);

	if (r == -EBUSY)
		r = reference_read_once(k, &now); /* once more after the not-ready time, 0 here */
	if (r < 0) {
		k->has_prev = false;
		return -1;
	}
	bool valid = k->has_prev && now >= k->prev;
	int64_t bytes = valid ? (int64_t)(now - k->prev) : -1;
	k->has_prev = true;
	k->prev = now;
	return bytes;
}

/* ---- the comparison ---- */

/* CTL of hardware monitor `mon` as the model holds it now. */
static uint32_t model_ctl_now(struct msc_model *m, uint16_t mon)
{
	model_wr32(m, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, mon));
	return model_rd32(m, MSMON_CFG_MBWU_CTL);
}

struct twin {
	struct msc_model *ref_model, *drv_model;
	struct reference ref;
	struct msc msc;
	struct msc_monitors *mons;
	uint16_t drv_mon; /* the hardware monitor mpamd's pool handed out */
};

static void twin_setup(struct twin *t, unsigned bits, bool nrdy_hw, bool t241, bool beside_kernel)
{
	struct msc_model_params p;
	/* The simulator's host: no SMCCC SoC id, so only the T241 quirks that need none apply. */
	struct msc_probe_opts access = { .soc = { .known = true, .id = 0 }, .beside_kernel = beside_kernel };
	struct err err = { "" };

	memset(t, 0, sizeof(*t));
	msc_model_params_default(&p);
	p.num_mon = 4;
	p.has_long = bits != 31;
	p.lwd = bits == 63;
	p.nrdy_hw = nrdy_hw;
	p.nrdy_ticks = 1;
	p.iidr = t241 ? MPAM_IIDR_NVIDIA_T241 : p.iidr;
	assert_int_equal(msc_model_new(&p, &t->ref_model), 0);
	assert_int_equal(msc_model_new(&p, &t->drv_model), 0);
	t->ref =
		(struct reference){ .model = t->ref_model, .is_long = bits != 31, .bits = bits, .unit = t241 ? 64 : 1 };
	assert_int_equal(bus_sim_new(t->drv_model, 0x1000000, &t->msc.bus), 0);
	snprintf(t->msc.name, sizeof(t->msc.name), "twin");
	t->msc.access = access;
	t->drv_mon = beside_kernel ? p.num_mon - 1 : MON;
	if (msc_probe(t->msc.bus, &access, &t->msc.caps, &err) < 0 ||
	    msc_monitors_new(&t->msc, 1, &t->mons, &err) < 0 || msc_monitors_add(t->mons, 0, PARTID, &err) < 0)
		fail_msg("driver: %s", err.text);
	/* Beside the kernel the NRDY probe, which writes a monitor, is skipped. */
	enum msc_nrdy want = nrdy_hw ? MSC_NRDY_HARDWARE : MSC_NRDY_SOFTWARE;
	assert_int_equal(t->msc.caps.nrdy, beside_kernel ? MSC_NRDY_NOT_PROBED : want);
}

static void twin_teardown(struct twin *t)
{
	assert_int_equal(msc_model_error_count(t->ref_model), 0);
	assert_int_equal(msc_model_error_count(t->drv_model), 0);
	msc_monitors_free(t->mons);
	bus_free(t->msc.bus);
	msc_model_free(t->ref_model);
	msc_model_free(t->drv_model);
}

/* The same thing happens to both MSCs. */
static void both_count(struct twin *t, uint64_t bytes)
{
	uint64_t reads = bytes * 7 / 10;

	msc_model_count(t->ref_model, 0, PARTID, 0, reads, bytes - reads);
	msc_model_count(t->drv_model, 0, PARTID, 0, reads, bytes - reads);
	msc_model_count(t->ref_model, 0, PARTID + 1, 0, bytes / 3, 0); /* a neighbour nobody measures */
	msc_model_count(t->drv_model, 0, PARTID + 1, 0, bytes / 3, 0);
}

/* Someone else, between two ticks, writes the measuring monitor of both MSCs. */
static void both_meddle(struct twin *t, uint32_t off, uint32_t value)
{
	struct msc_model *models[] = { t->ref_model, t->drv_model };
	uint16_t mons[] = { MON, t->drv_mon };

	for (int i = 0; i < 2; i++) {
		model_wr32(models[i], MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, mons[i]));
		model_wr32(models[i], off, off == MSMON_CFG_MBWU_CTL ? model_rd32(models[i], off) | value : value);
	}
}

/* Someone else, between two ticks, zeroes monitor 0's counter on both MSCs, both words of a long one. */
static void both_zero(struct twin *t, unsigned bits)
{
	both_meddle(t, bits == 31 ? MSMON_MBWU : MSMON_MBWU_L, 0);
	if (bits != 31)
		both_meddle(t, MSMON_MBWU_L + 4, 0);
}

/* Traffic of tick `i`: enough that a 31-bit counter wraps every second or third tick (of 64-byte
 * units on a T241). */
static uint64_t traffic(unsigned bits, bool t241, int i)
{
	uint64_t base = bits == 31 ? 900000000ull : 3000000000ull;

	return (base + (uint64_t)(i % 7) * 123456789ull + (uint64_t)i) * (t241 ? 64 : 1);
}

/* Whether mpamd's sample of tick `i` may differ from Linux's: in the sole user's window after the
 * CTL was rewritten (the staggered check, then the new baseline), a measured sample of exactly the
 * bytes moved, or none. */
static bool late_finding_allowed(int i, bool sole_user_long, const struct sample *s, uint64_t moved)
{
	if (!sole_user_long || i <= TAMPER || i > TAMPER + (int)MSC_MONITORS_CHECK_TICKS + 2)
		return false;
	return s->state == SAMPLE_MEASURED ? s->bytes == moved : s->reason != NULL;
}

static void run_twin(unsigned bits, bool nrdy_hw, bool t241, bool beside_kernel)
{
	struct twin t;
	struct sample s;
	unsigned agreed = 0, measured = 0;
	int found_at = -1; /* the tick mpamd reported the rewritten CTL */
	bool sole_user_long = !beside_kernel && bits != 31;
	char name[64];

	snprintf(name, sizeof(name), "%u-bit%s, NRDY %s%s", bits, t241 ? " T241" : "",
		 nrdy_hw ? "hardware" : "software", beside_kernel ? ", beside the kernel" : "");
	twin_setup(&t, bits, nrdy_hw, t241, beside_kernel);
	for (int i = 0; i < TICKS; i++) {
		msc_model_tick(t.ref_model);
		msc_model_tick(t.drv_model);
		both_count(&t, traffic(bits, t241, i));
		int64_t want = reference_sample(&t.ref);
		msc_monitors_read(t.mons, 1000 * MS + (uint64_t)i * 100 * MS, &s, 1);
		bool same = want >= 0 ? s.state == SAMPLE_MEASURED && s.bytes == (uint64_t)want
				      : s.state == SAMPLE_INVALID && s.reason;
		if (s.reason && strstr(s.reason, "MSMON_CFG_MBWU_CTL) was changed by another agent")) {
			assert_int_equal(found_at, -1);
			found_at = i;
		}
		if (!same && late_finding_allowed(i, sole_user_long, &s, traffic(bits, t241, i)))
			continue;
		if (want >= 0 && !same)
			fail_msg("%s, tick %d: Linux's sequence gives %lld bytes, mpamd %s %llu (%s)", name, i,
				 (long long)want, s.state == SAMPLE_MEASURED ? "measured" : "has no sample",
				 (unsigned long long)s.bytes, s.reason ? s.reason : "");
		if (want < 0 && !same)
			fail_msg("%s, tick %d: Linux's sequence has no sample, mpamd measured %llu", name, i,
				 (unsigned long long)s.bytes);
		agreed++;
		measured += want >= 0;
		if (i == TAMPER)
			both_meddle(&t, MSMON_CFG_MBWU_CTL, (uint32_t)MSMON_CFG_CTL_MATCH_PMG);
		if (i == ZEROED) /* all of the counter, as Linux does when the MSC's last CPU goes offline */
			both_zero(&t, bits);
	}
	printf("%s: %u ticks agree, %u of them measured, rewritten CTL found at tick %d\n", name, agreed, measured,
	       found_at);
	/* Only the start, the rewritten CTL and the zeroed counter cost samples. */
	assert_true(measured >= TICKS - 8 - (MSC_MONITORS_CHECK_TICKS + 2) * sole_user_long);
	assert_true(agreed >= TICKS - (MSC_MONITORS_CHECK_TICKS + 2) * sole_user_long);
	/* mpamd found the rewritten CTL as Linux did, at the next read, or (the sole user of a long
	 * counter whose MSC cleared NRDY by then) at the monitor's check, within its window. */
	if (sole_user_long && nrdy_hw)
		assert_true(found_at > TAMPER + 1 && found_at <= TAMPER + (int)MSC_MONITORS_CHECK_TICKS);
	else
		assert_int_equal(found_at, TAMPER + 1);
	assert_int_equal(model_ctl_now(t.drv_model, t.drv_mon) & MSMON_CFG_CTL_MATCH_PMG, 0);
	twin_teardown(&t);
}

/* One counter width, its NRDY hardware- or software-managed: a test each. */
static struct width_case {
	const char *name;
	unsigned bits;
	bool nrdy_hw;
} widths[] = {
	{ "test_hardware_nrdy_31bit", 31, true }, { "test_software_nrdy_31bit", 31, false },
	{ "test_hardware_nrdy_44bit", 44, true }, { "test_software_nrdy_44bit", 44, false },
	{ "test_hardware_nrdy_63bit", 63, true }, { "test_software_nrdy_63bit", 63, false },
};

#define WIDTH_CASES (sizeof(widths) / sizeof(widths[0]))

static void test_width(void **state)
{
	const struct width_case *c = *state;

	run_twin(c->bits, c->nrdy_hw, false, false);
}

/* T241-MPAM-6: 64-byte units, for every counter width. */
static void test_t241_every_width(void **state)
{
	(void)state;
	run_twin(31, true, true, false);
	run_twin(44, false, true, false);
	run_twin(63, true, true, false);
}

/* Beside the kernel's driver, Linux's sequence on every read: every tick agrees. */
static void test_beside_kernel_every_width(void **state)
{
	(void)state;
	run_twin(31, true, false, true);
	run_twin(44, true, false, true);
	run_twin(63, false, false, true);
}

int main(void)
{
	struct CMUnitTest tests[WIDTH_CASES + 2] = {
		[WIDTH_CASES] = cmocka_unit_test(test_t241_every_width),
		[WIDTH_CASES + 1] = cmocka_unit_test(test_beside_kernel_every_width),
	};

	for (size_t i = 0; i < WIDTH_CASES; i++)
		tests[i] = (struct CMUnitTest){ .name = widths[i].name,
						.test_func = test_width,
						.initial_state = &widths[i] };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
