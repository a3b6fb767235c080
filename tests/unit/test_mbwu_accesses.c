/* The register accesses the MBWU driver saves while it is the MSC's sole user, and the cases where it
 * must not save them (backends/mmio/monitors.c):
 *  - MSMON_CFG_MON_SEL is written once for a monitor programmed and then read for its baseline, but
 *    never trusted across ticks, after a failed write, or after someone else's write was seen;
 *  - a long counter is read low, high when its high word is the one the last read saw; a carry into
 *    the high word between the two reads is caught and the read done as Linux does (high, low, high);
 *  - a long counter that counted forwards and is ready is taken without reading CTL, whose settings
 *    are read back on each monitor's staggered check (MSC_MONITORS_CHECK_TICKS) instead;
 *  - beside the kernel's MPAM driver none of these savings is made.
 * Each test runs the driver over the register model through a bus that counts accesses and can act
 * as another agent at a chosen moment. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/mmio/monitors.h"
#include "backends/mmio/msc.h"
#include "backends/mpam/mpam_regs.h"
#include "backends/sim/msc_model.h"
#include "tests/util/mbwu_rig.h"
#include "tests/util/test_main.h"

/* A bus between the driver and the model that counts accesses, and can do something at the worst
 * moment: count traffic right after the driver read a long counter's low word, make a MON_SEL write
 * report failure after it took effect, or play another agent that selects and rewrites another
 * monitor between the driver's high-word read and its CTL read. */
struct spy_bus {
	struct msc_bus base;
	struct msc_bus *inner;
	struct msc_model *model;
	unsigned sel_writes, high_reads, ctl_reads, accesses;
	uint64_t carry_bytes; /* counted for carry_partid after the next low-word read, then 0 */
	uint16_t carry_partid;
	uint32_t fail_sel; /* a MON_SEL value whose next write takes effect but reports -EIO */
	bool fail_armed;
	bool meddle_armed; /* before a CTL read that follows a high-word read of monitor 0: select monitor 1, rewrite its CTL */
	bool last_was_high;
	uint32_t selected; /* the last MON_SEL the driver wrote */
};

/* Another agent selects monitor 1 and sets MATCH_PMG in its CTL. */
static void meddle(struct spy_bus *s)
{
	uint32_t ctl = 0;

	assert_int_equal(msc_model_write32(s->model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 1)), 0);
	assert_int_equal(msc_model_read32(s->model, MSMON_CFG_MBWU_CTL, &ctl), 0);
	assert_int_equal(msc_model_write32(s->model, MSMON_CFG_MBWU_CTL, ctl | MSMON_CFG_CTL_MATCH_PMG), 0);
}

static struct spy_bus *spy_of(struct msc_bus *b)
{
	return (struct spy_bus *)b;
}

static int spy_read32(struct msc_bus *b, uint32_t off, uint32_t *ret)
{
	struct spy_bus *s = spy_of(b);

	if (off == MSMON_CFG_MBWU_CTL && s->meddle_armed && s->last_was_high &&
	    s->selected == msmon_cfg_mon_sel(0, 0)) {
		s->meddle_armed = false;
		meddle(s);
	}
	int r = bus_read32(s->inner, off, ret);

	s->accesses++;
	s->last_was_high = r == 0 && off == MSMON_MBWU_L + 4;
	s->high_reads += s->last_was_high;
	s->ctl_reads += off == MSMON_CFG_MBWU_CTL;
	if (r == 0 && off == MSMON_MBWU_L && s->carry_bytes) {
		msc_model_count(s->model, 0, s->carry_partid, 0, s->carry_bytes, 0);
		s->carry_bytes = 0;
	}
	return r;
}

static int spy_write32(struct msc_bus *b, uint32_t off, uint32_t v)
{
	struct spy_bus *s = spy_of(b);
	int r = bus_write32(s->inner, off, v);

	s->accesses++;
	s->last_was_high = false;
	if (off != MSMON_CFG_MON_SEL)
		return r;
	s->selected = v;
	s->sel_writes++;
	if (r == 0 && s->fail_armed && v == s->fail_sel) {
		s->fail_armed = false;
		return -EIO;
	}
	return r;
}

static int spy_read64(struct msc_bus *b, uint32_t off, uint64_t *ret)
{
	spy_of(b)->accesses++;
	spy_of(b)->last_was_high = false;
	return bus_read64(spy_of(b)->inner, off, ret);
}

static int spy_write64(struct msc_bus *b, uint32_t off, uint64_t v)
{
	spy_of(b)->accesses++;
	spy_of(b)->last_was_high = false;
	return bus_write64(spy_of(b)->inner, off, v);
}

static void spy_free(struct msc_bus *b)
{
	bus_free(spy_of(b)->inner);
	free(b);
}

static const struct msc_bus_ops spy_ops = { spy_read32, spy_write32, spy_read64, spy_write64, spy_free };

struct rig {
	struct mbwu_rig r;
	struct spy_bus *spy; /* r.msc.bus */
};

/* An MSC of `monitors` monitors with 44-bit counters and no settling time, read by the driver for
 * `partitions` partitions with PARTIDs 1, 2, ...; the spy goes between them after the probe. */
static void rig_setup(struct rig *rig, unsigned monitors, size_t partitions, bool beside_kernel)
{
	struct msc_model_params p;
	struct err err = { "" };

	msc_model_params_default(&p);
	p.num_mon = (uint16_t)monitors;
	p.nrdy_ticks = 0;
	mbwu_rig_setup(&rig->r, &p, partitions, &(struct msc_probe_opts){ .beside_kernel = beside_kernel });
	for (size_t i = 0; i < partitions; i++)
		if (msc_monitors_add(rig->r.mons, i, (uint16_t)(i + 1), &err) < 0)
			fail_msg("add: %s", err.text);
	rig->spy = calloc(1, sizeof(*rig->spy));
	assert_non_null(rig->spy);
	struct msc_bus *inner = rig->r.msc.bus;
	rig->spy->base = (struct msc_bus){ .ops = &spy_ops, .base = inner->base, .size = inner->size };
	rig->spy->inner = inner;
	rig->spy->model = rig->r.model;
	rig->r.msc.bus = &rig->spy->base;
}

static void rig_teardown(struct rig *rig)
{
	mbwu_rig_teardown(&rig->r);
}

static void rig_tick(struct rig *rig)
{
	mbwu_rig_tick(&rig->r);
}

/* The filter of hardware monitor `mon`, as the model holds it. */
static uint32_t model_flt(struct rig *rig, unsigned mon)
{
	uint32_t flt = 0;

	assert_int_equal(msc_model_write32(rig->r.model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, (uint16_t)mon)), 0);
	assert_int_equal(msc_model_read32(rig->r.model, MSMON_CFG_MBWU_FLT, &flt), 0);
	return flt;
}

/* CTL of hardware monitor `mon`, as the model holds it. */
static uint32_t model_ctl(struct rig *rig, unsigned mon)
{
	uint32_t ctl = 0;

	assert_int_equal(msc_model_write32(rig->r.model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, (uint16_t)mon)), 0);
	assert_int_equal(msc_model_read32(rig->r.model, MSMON_CFG_MBWU_CTL, &ctl), 0);
	return ctl;
}

/* Another agent writes `set` into CTL of hardware monitor `mon`, keeping what is there. */
static void foreign_ctl_set(struct rig *rig, unsigned mon, uint32_t set)
{
	uint32_t ctl = model_ctl(rig, mon);

	assert_int_equal(msc_model_write32(rig->r.model, MSMON_CFG_MBWU_CTL, ctl | set), 0);
}

/* MON_SEL writes of one rotating tick: 2 partitions per monitor, so every monitor is read, programmed
 * for the next partition and read for its baseline on every tick. */
static unsigned rotating_tick_sel_writes(bool beside_kernel)
{
	struct rig rig;

	rig_setup(&rig, 4, 8, beside_kernel);
	assert_true(msc_monitors_rotating(rig.r.mons));
	for (int t = 0; t < 6; t++)
		rig_tick(&rig);
	rig.spy->sel_writes = 0;
	rig_tick(&rig);
	unsigned writes = rig.spy->sel_writes;
	rig_teardown(&rig);
	return writes;
}

/* Sole user: each monitor is selected to be read, then once more to be programmed and read for its
 * baseline (8 writes for 4 monitors). Beside the kernel, whose driver may select another monitor at
 * any moment, every access sequence selects again (12). */
static void test_mon_sel_written_once_for_program_and_baseline(void **state)
{
	(void)state;
	assert_int_equal(rotating_tick_sel_writes(false), 8);
	assert_int_equal(rotating_tick_sel_writes(true), 12);
}

/* Between two ticks another agent selects monitor 1, which counts another PARTID. The driver's one
 * monitor was the last it selected, but a new tick trusts nothing: it selects monitor 0 again and
 * its counts stay exact. */
static void test_mon_sel_not_trusted_across_ticks(void **state)
{
	struct rig rig;

	(void)state;
	rig_setup(&rig, 2, 1, false);
	rig_tick(&rig);
	assert_int_equal(msc_model_write32(rig.r.model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 1)), 0);
	assert_int_equal(msc_model_write32(rig.r.model, MSMON_CFG_MBWU_FLT, 9), 0);
	assert_int_equal(msc_model_write32(rig.r.model, MSMON_CFG_MBWU_CTL,
					   (uint32_t)(MSMON_CFG_CTL_MATCH_PARTID | MSMON_CFG_CTL_EN)),
			 0);
	for (int t = 0; t < 5; t++) {
		msc_model_count(rig.r.model, 0, 1, 0, 1000 + (uint64_t)t, 0);
		msc_model_count(rig.r.model, 0, 9, 0, 777777, 0);
		rig.spy->sel_writes = 0;
		rig_tick(&rig);
		assert_int_equal(rig.spy->sel_writes, 1);
		assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
		assert_int_equal(rig.r.samples[0].bytes, 1000 + (uint64_t)t);
	}
	rig_teardown(&rig);
}

/* A MON_SEL write that took effect but reported an error leaves the selection unknown: monitor 0,
 * programmed later in the same pass for the next partition, is selected again rather than taken
 * as still selected (which would program monitor 1, where the failed write pointed). */
static void test_mon_sel_forgotten_after_a_failed_write(void **state)
{
	struct rig rig;

	(void)state;
	rig_setup(&rig, 2, 3, false); /* PARTIDs 1, 2, 3 on 2 monitors */
	rig_tick(&rig);		      /* monitor 0: PARTID 1, monitor 1: PARTID 2 */
	assert_int_equal(model_flt(&rig, 0), 1);
	assert_int_equal(model_flt(&rig, 1), 2);
	rig.spy->fail_sel = msmon_cfg_mon_sel(0, 1);
	rig.spy->fail_armed = true;
	rig_tick(&rig); /* monitor 1's read fails; monitor 0 measured, passed on to PARTID 3 */
	assert_false(rig.spy->fail_armed);
	assert_int_equal(rig.r.samples[1].state, SAMPLE_INVALID);
	assert_int_equal(model_flt(&rig, 0), 3);
	assert_int_equal(model_flt(&rig, 1), 2); /* still partition 1's, which holds it */
	for (int t = 0; t < 12; t++) {
		for (uint16_t id = 1; id <= 3; id++)
			msc_model_count(rig.r.model, 0, id, 0, 1000ull * id, 0);
		rig_tick(&rig);
		for (int i = 0; i < 3; i++)
			if (rig.r.samples[i].state == SAMPLE_MEASURED)
				assert_int_equal(rig.r.samples[i].bytes, 1000ull * (uint64_t)(i + 1));
	}
	rig_teardown(&rig);
}

/* Another agent selects monitor 1 and rewrites its CTL between the driver's reading of monitor 0's
 * counter and of its CTL (read on monitor 0's staggered check, as the sole user of long counters):
 * the CTL the driver reads is monitor 1's, which it takes for its own monitor changed behind its
 * back. The monitor it programs again must be its own, selected anew, not whatever MON_SEL holds;
 * monitor 1's own change is found at its own check and undone. */
static void test_mon_sel_forgotten_after_a_foreign_write(void **state)
{
	struct rig rig;
	unsigned ticks = 0;

	(void)state;
	rig_setup(&rig, 2, 2, false); /* PARTIDs 1 and 2 on monitors 0 and 1 */
	rig_tick(&rig);
	rig_tick(&rig);
	rig.spy->meddle_armed = true;
	while (rig.spy->meddle_armed && ticks++ < MSC_MONITORS_CHECK_TICKS)
		rig_tick(&rig);
	assert_false(rig.spy->meddle_armed);
	assert_int_equal(rig.r.samples[0].state, SAMPLE_INVALID);
	assert_non_null(strstr(rig.r.samples[0].reason, "changed by another agent"));
	assert_int_equal(model_flt(&rig, 0), 1);
	assert_int_equal(model_flt(&rig, 1), 2); /* not given PARTID 1's filter */
	int measured[2] = { 0, 0 }, monitor1_reprogrammed = 0;
	for (unsigned t = 0; t < 2 * MSC_MONITORS_CHECK_TICKS; t++) {
		msc_model_count(rig.r.model, 0, 1, 0, 1111, 0);
		msc_model_count(rig.r.model, 0, 2, 0, 2222, 0);
		rig_tick(&rig);
		for (int i = 0; i < 2; i++) {
			if (rig.r.samples[i].state != SAMPLE_MEASURED)
				continue;
			assert_int_equal(rig.r.samples[i].bytes, 1111ull * (uint64_t)(i + 1));
			measured[i]++;
		}
		if (rig.r.samples[1].state == SAMPLE_INVALID) {
			assert_non_null(strstr(rig.r.samples[1].reason, "MSMON_CFG_MBWU_CTL) was changed"));
			monitor1_reprogrammed++;
		}
	}
	assert_int_equal(monitor1_reprogrammed, 1);
	assert_false(model_ctl(&rig, 1) & MSMON_CFG_CTL_MATCH_PMG);
	assert_true(measured[0] >= 2 * (int)MSC_MONITORS_CHECK_TICKS - 1);
	assert_true(measured[1] >= 2 * (int)MSC_MONITORS_CHECK_TICKS - 2);
	rig_teardown(&rig);
}

/* Puts monitor 0's long counter `below` units under a 2^32 boundary (high word 5): the driver sees a
 * jump, and the tick after it a good baseline again. */
static void near_a_carry(struct rig *rig, uint64_t below)
{
	assert_int_equal(msc_model_write32(rig->r.model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0)), 0);
	assert_int_equal(msc_model_write64(rig->r.model, MSMON_MBWU_L, (6ull << 32) - below), 0);
	rig_tick(rig);
	rig_tick(rig);
}

/* Traffic carries into the high word between the driver's low-word and high-word reads. Read as a
 * pair, the old low word and the new high word would count 2^32 bytes that never moved. The high
 * word differs from the one expected, so the driver reads again, Linux's way, and every byte is
 * counted once. */
static void test_carry_between_low_and_high_read(void **state)
{
	struct rig rig;

	(void)state;
	rig_setup(&rig, 1, 1, false);
	rig_tick(&rig);
	near_a_carry(&rig, 100);
	msc_model_count(rig.r.model, 0, 1, 0, 40, 0);
	rig.spy->carry_bytes = 5000; /* crosses the boundary mid-read */
	rig.spy->carry_partid = 1;
	rig.spy->high_reads = 0;
	rig_tick(&rig);
	assert_int_equal(rig.spy->high_reads, 2); /* the expected high word did not come: read again */
	assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
	uint64_t first = rig.r.samples[0].bytes;
	assert_true(first == 40 || first == 5040);
	msc_model_count(rig.r.model, 0, 1, 0, 60, 0);
	rig.spy->high_reads = 0;
	rig_tick(&rig);
	assert_int_equal(rig.spy->high_reads, 1); /* expected again: low, high */
	assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(first + rig.r.samples[0].bytes, 40 + 5000 + 60);
	rig_teardown(&rig);
}

/* High-word reads per tick of a settled long counter: one as the sole user, two beside the kernel,
 * which may zero a counter (CPU hotplug) whenever it likes, so nothing is expected there. */
static unsigned high_reads_per_tick(bool beside_kernel)
{
	struct rig rig;

	rig_setup(&rig, 1, 1, beside_kernel);
	rig_tick(&rig);
	rig_tick(&rig);
	rig.spy->high_reads = 0;
	msc_model_count(rig.r.model, 0, 1, 0, 123, 0);
	rig_tick(&rig);
	assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(rig.r.samples[0].bytes, 123);
	unsigned reads = rig.spy->high_reads;
	rig_teardown(&rig);
	return reads;
}

static void test_high_word_expected_only_as_sole_user(void **state)
{
	(void)state;
	assert_int_equal(high_reads_per_tick(false), 1);
	assert_int_equal(high_reads_per_tick(true), 2);
}

/* Register accesses and CTL reads over MSC_MONITORS_CHECK_TICKS ticks of one settled monitor with
 * traffic, every sample measured and exact. */
static void accesses_over_a_check_period(bool beside_kernel, unsigned *accesses, unsigned *ctl_reads)
{
	struct rig rig;

	rig_setup(&rig, 1, 1, beside_kernel);
	rig_tick(&rig);
	rig_tick(&rig);
	rig.spy->accesses = rig.spy->ctl_reads = 0;
	for (unsigned t = 0; t < MSC_MONITORS_CHECK_TICKS; t++) {
		msc_model_count(rig.r.model, 0, 1, 0, 1000 + t, 0);
		rig_tick(&rig);
		assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
		assert_int_equal(rig.r.samples[0].bytes, 1000 + t);
	}
	*accesses = rig.spy->accesses;
	*ctl_reads = rig.spy->ctl_reads;
	rig_teardown(&rig);
}

/* The sole user of a long counter reads it in 3 accesses (select, low word, high word) and reads CTL
 * and the filter back once per check period. Beside the kernel every read is Linux's whole sequence:
 * select, high, low, high, CTL (the filter too, once per period). */
static void test_ctl_read_on_the_staggered_check_only_as_sole_user(void **state)
{
	unsigned accesses, ctl_reads;

	(void)state;
	accesses_over_a_check_period(false, &accesses, &ctl_reads);
	assert_int_equal(ctl_reads, 1);
	assert_int_equal(accesses, 3 * MSC_MONITORS_CHECK_TICKS + 2);
	accesses_over_a_check_period(true, &accesses, &ctl_reads);
	assert_int_equal(ctl_reads, MSC_MONITORS_CHECK_TICKS);
	assert_int_equal(accesses, 5 * MSC_MONITORS_CHECK_TICKS + 1);
}

/* Another agent changes a monitor's CTL in a way that keeps it counting forwards (MATCH_PMG, with
 * the traffic on PMG 0): the sole user, which does not read CTL on every tick, finds it at the
 * monitor's next check, within MSC_MONITORS_CHECK_TICKS ticks, and programs it again. */
static void test_foreign_ctl_change_found_within_a_check_period(void **state)
{
	struct rig rig;
	unsigned found_after = 0;

	(void)state;
	rig_setup(&rig, 1, 1, false);
	rig_tick(&rig);
	rig_tick(&rig);
	foreign_ctl_set(&rig, 0, MSMON_CFG_CTL_MATCH_PMG);
	for (unsigned t = 1; t <= MSC_MONITORS_CHECK_TICKS && !found_after; t++) {
		msc_model_count(rig.r.model, 0, 1, 0, 500, 0);
		rig_tick(&rig);
		if (rig.r.samples[0].state == SAMPLE_INVALID)
			found_after = t;
	}
	assert_true(found_after >= 1);
	assert_non_null(strstr(rig.r.samples[0].reason, "MSMON_CFG_MBWU_CTL) was changed by another agent"));
	assert_false(model_ctl(&rig, 0) & MSMON_CFG_CTL_MATCH_PMG);
	msc_model_count(rig.r.model, 0, 1, 0, 700, 0);
	rig_tick(&rig);
	assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(rig.r.samples[0].bytes, 700);
	rig_teardown(&rig);
}

/* A long counter wraps between two reads: the count is below the last one, so the driver reads CTL
 * (overflow status set), clears the status and counts across the wrap exactly, then goes back to
 * 3 accesses a read. */
static void test_long_counter_wrap_counted_without_ctl_on_every_read(void **state)
{
	struct rig rig;
	uint64_t range = 1ull << 44;

	(void)state;
	rig_setup(&rig, 1, 1, false);
	rig_tick(&rig);
	assert_int_equal(msc_model_write32(rig.r.model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0)), 0);
	assert_int_equal(msc_model_write64(rig.r.model, MSMON_MBWU_L, range - 100), 0);
	rig_tick(&rig); /* a jump: restarted */
	rig_tick(&rig); /* baseline again */
	msc_model_count(rig.r.model, 0, 1, 0, 40, 0);
	rig_tick(&rig);
	assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(rig.r.samples[0].bytes, 40);
	msc_model_count(rig.r.model, 0, 1, 0, 5000, 0); /* past 2^44 */
	rig.spy->ctl_reads = 0;
	rig_tick(&rig);
	assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(rig.r.samples[0].bytes, 5000);
	assert_true(rig.spy->ctl_reads >= 1);
	assert_false(model_ctl(&rig, 0) & (MSMON_CFG_CTL_OFLOW_STATUS | MSMON_CFG_CTL_OFLOW_STATUS_L));
	for (int t = 0; t < 3; t++) {
		msc_model_count(rig.r.model, 0, 1, 0, 60, 0);
		rig_tick(&rig);
		assert_int_equal(rig.r.samples[0].state, SAMPLE_MEASURED);
		assert_int_equal(rig.r.samples[0].bytes, 60);
	}
	rig_teardown(&rig);
}

/* An overflow status that is older than the interval (here set by hand, as one a failed read can
 * leave) sits beside a count that went forwards. Where CTL is read on every tick a status means a
 * wrap since the last read; here it cannot, and counting it would add 2^44 bytes: it is cleared at
 * the check and every sample stays exact. */
static void test_stale_overflow_status_is_not_a_wrap(void **state)
{
	struct rig rig;
	int measured = 0;

	(void)state;
	rig_setup(&rig, 1, 1, false);
	rig_tick(&rig);
	rig_tick(&rig);
	foreign_ctl_set(&rig, 0, MSMON_CFG_CTL_OFLOW_STATUS_L);
	for (unsigned t = 0; t <= MSC_MONITORS_CHECK_TICKS; t++) {
		msc_model_count(rig.r.model, 0, 1, 0, 1000, 0);
		rig_tick(&rig);
		if (rig.r.samples[0].state != SAMPLE_MEASURED)
			continue;
		assert_int_equal(rig.r.samples[0].bytes, 1000);
		measured++;
	}
	assert_int_equal(measured, MSC_MONITORS_CHECK_TICKS + 1);
	assert_false(model_ctl(&rig, 0) & MSMON_CFG_CTL_OFLOW_STATUS_L);
	rig_teardown(&rig);
}

TEST_MAIN({
	cmocka_unit_test(test_mon_sel_written_once_for_program_and_baseline),
	cmocka_unit_test(test_mon_sel_not_trusted_across_ticks),
	cmocka_unit_test(test_mon_sel_forgotten_after_a_failed_write),
	cmocka_unit_test(test_mon_sel_forgotten_after_a_foreign_write),
	cmocka_unit_test(test_carry_between_low_and_high_read),
	cmocka_unit_test(test_high_word_expected_only_as_sole_user),
	cmocka_unit_test(test_ctl_read_on_the_staggered_check_only_as_sole_user),
	cmocka_unit_test(test_foreign_ctl_change_found_within_a_check_period),
	cmocka_unit_test(test_long_counter_wrap_counted_without_ctl_on_every_read),
	cmocka_unit_test(test_stale_overflow_status_is_not_a_wrap),
})
