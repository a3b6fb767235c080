/* The MMIO driver (backends/mmio) against the register model (backends/sim): probe, controls,
 * monitors with NRDY, overflow, long and scaled counters, rotation. Every test ends by checking the
 * model's error status: the driver must never provoke an MSC error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/mmio/mmio_control.h"
#include "backends/mmio/monitors.h"
#include "backends/mmio/msc.h"
#include "backends/mmio/quirks.h"
#include "backends/sim/msc_model.h"
#include "backends/mpam/mpam_regs.h"
#include "tests/util/bus_tap.h"
#include "tests/util/mbwu_rig.h"
#include "tests/util/test_main.h"

#define MS 1000000ull

static void rig_setup(struct mbwu_rig *rig, const struct msc_model_params *params, size_t partitions)
{
	mbwu_rig_setup(rig, params, partitions, &(struct msc_probe_opts){ 0 });
}

/* The simulator's default MSC with NVIDIA T241's IIDR, so that the probe applies the T241 errata. */
static struct msc_model_params t241_params(void)
{
	struct msc_model_params p;

	msc_model_params_default(&p);
	p.iidr = MPAM_IIDR_NVIDIA_T241;
	return p;
}

/* A host whose SoC is known not to be a T241 (the simulator's): T241-MPAM-1 does not apply. */
static const struct msc_probe_opts not_a_t241_soc = { .soc = { .known = true, .id = 0 } };

static void test_probe_reads_the_id_registers(void **state)
{
	struct msc_model_params p;
	struct mbwu_rig rig;

	(void)state;
	msc_model_params_default(&p);
	p.partid_max = 200;
	p.pmg_max = 3;
	p.bwa_wd = 12;
	p.cpbm_wd = 20;
	p.num_mon = 7;
	p.scale = 5;
	p.has_long = true;
	p.lwd = true;
	rig_setup(&rig, &p, 0);
	const struct msc_caps *c = &rig.msc.caps;
	assert_int_equal(c->partid_max, 200);
	assert_int_equal(c->pmg_max, 3);
	assert_int_equal(c->ris_count, 1);
	assert_int_equal(c->mon_ris, 0);
	assert_int_equal(c->mbw_ris, 0);
	assert_int_equal(c->ris[0].bwa_wd, 12);
	assert_true(c->ris[0].has_min && c->ris[0].has_max);
	assert_int_equal(c->ris[0].cpbm_wd, 20);
	assert_int_equal(c->ris[0].num_mon, 7);
	assert_int_equal(c->ris[0].counter_bits, 63);
	assert_int_equal(c->ris[0].scale, 5);
	assert_int_equal(c->nrdy, MSC_NRDY_HARDWARE);
	assert_true(c->has_esr);
	mbwu_rig_teardown(&rig);
}

static void test_probe_software_managed_nrdy(void **state)
{
	struct msc_model_params p;
	struct mbwu_rig rig;

	(void)state;
	msc_model_params_default(&p);
	p.nrdy_hw = false;
	rig_setup(&rig, &p, 0);
	assert_int_equal(rig.msc.caps.nrdy, MSC_NRDY_SOFTWARE);
	mbwu_rig_teardown(&rig);
}

/* Beside the kernel's MPAM driver (mmio_beside_kernel): the probe leaves the monitors and the error
 * status to the kernel, and monitors are taken from the highest index down. */
static void test_probe_beside_the_kernel(void **state)
{
	struct msc_model_params p = { 0 };
	struct msc_model *model;
	struct msc msc = { .access = { .beside_kernel = true } };
	struct msc_monitors *mons;
	struct sample s[2];
	struct err err = { "" };
	uint32_t v = 0;

	(void)state;
	msc_model_params_default(&p);
	p.nrdy_hw = false; /* the probe would find out; it must not try */
	assert_int_equal(msc_model_new(&p, &model), 0);
	assert_int_equal(bus_sim_new(model, 0x1000000, &msc.bus), 0);
	/* The kernel left monitor 0 counting, with NRDY set by software, and an error pending. */
	assert_int_equal(msc_model_write32(model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0)), 0);
	assert_int_equal(msc_model_write32(model, MSMON_MBWU, 12345 | (uint32_t)MSMON_MBWU_NRDY), 0);
	assert_int_equal(msc_model_write32(model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 99)), 0);
	assert_int_equal(msc_model_read32(model, MSMON_CFG_MBWU_CTL, &v), 0); /* error 5 */
	uint64_t esr = msc_model_esr(model);
	assert_true(esr != 0);
	assert_int_equal(msc_probe(msc.bus, &msc.access, &msc.caps, &err), 0);
	assert_int_equal(msc.caps.nrdy, MSC_NRDY_NOT_PROBED);
	assert_true(msc.caps.stale_esr == esr);
	assert_true(msc_model_esr(model) == esr); /* not cleared: it is the kernel's to see */
	assert_int_equal(msc_model_write32(model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0)), 0);
	assert_int_equal(msc_model_read32(model, MSMON_MBWU, &v), 0);
	assert_int_equal(v, 12345 | (uint32_t)MSMON_MBWU_NRDY); /* monitor 0 untouched */
	/* Two partitions on 16 monitors: the pool's first two are the MSC's 15 and 14. */
	assert_int_equal(msc_monitors_new(&msc, 2, &mons, &err), 0);
	assert_int_equal(msc_monitors_add(mons, 0, 1, &err), 0);
	assert_int_equal(msc_monitors_add(mons, 1, 2, &err), 0);
	msc_monitors_read(mons, 1000 * MS, s, 1);
	for (uint16_t mon = 0; mon < 16; mon++) {
		assert_int_equal(msc_model_write32(model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, mon)), 0);
		assert_int_equal(msc_model_read32(model, MSMON_CFG_MBWU_CTL, &v), 0);
		assert_int_equal((v & MSMON_CFG_CTL_EN) != 0, mon >= 14);
	}
	msc_model_count(model, 0, 2, 0, 777, 0);
	msc_monitors_read(mons, 1100 * MS, s, 1);
	assert_int_equal(s[1].state, SAMPLE_MEASURED);
	assert_int_equal(s[1].bytes, 777);
	msc_monitors_free(mons);
	bus_free(msc.bus);
	msc_model_free(model);
}

/* The probe's answer for an MSC whose MPAMF_AIDR reads `aidr`. */
static int probe_with_aidr(uint8_t aidr, struct err *err)
{
	struct msc_model_params p;
	struct msc_model *model;
	struct msc_caps caps;
	struct msc_bus *bus = NULL;

	msc_model_params_default(&p);
	p.aidr = aidr;
	assert_int_equal(msc_model_new(&p, &model), 0);
	assert_int_equal(bus_sim_new(model, 0x2000, &bus), 0);
	int r = msc_probe(bus, &(struct msc_probe_opts){ 0 }, &caps, err);
	bus_free(bus);
	msc_model_free(model);
	return r;
}

/* Like Linux since 7.2: MPAM v1.x and v0.1 (the CPU extension's early revision, backward compatible);
 * not v0.0 (no MSC, or the wrong address) and not v2 or later. */
static void test_probe_architecture_revisions(void **state)
{
	struct err err = { "" };

	(void)state;
	assert_int_equal(probe_with_aidr(0x10, &err), 0);
	assert_int_equal(probe_with_aidr(0x11, &err), 0);
	assert_int_equal(probe_with_aidr(0x01, &err), 0);
	assert_int_equal(probe_with_aidr(0x00, &err), -ENODEV);
	assert_non_null(strstr(err.text, "MPAMF_AIDR is 0x00: not an MPAM v0.1 or v1.x MSC"));
	assert_int_equal(probe_with_aidr(0x20, &err), -ENODEV);
	assert_non_null(strstr(err.text, "MPAMF_AIDR is 0x20"));
}

static void test_probe_every_ris(void **state)
{
	struct msc_model_params p;
	struct mbwu_rig rig;

	(void)state;
	msc_model_params_default(&p);
	p.has_ris = true;
	p.ris_max = 2;
	rig_setup(&rig, &p, 0);
	assert_true(rig.msc.caps.has_ris);
	assert_int_equal(rig.msc.caps.ris_count, 3);
	for (unsigned r = 0; r < 3; r++)
		assert_int_equal(rig.msc.caps.ris[r].num_mon, p.num_mon);
	/* Controls land on every RIS. */
	double max, min;
	struct err err;
	assert_int_equal(msc_set_bandwidth(&rig.msc, 5, 50, 10, &max, &min, &err), 0);
	for (unsigned r = 0; r < 3; r++)
		assert_int_equal(msc_model_mbw_max(rig.model, r, 5), mpam_mbw_max_from_percent(50, p.bwa_wd));
	mbwu_rig_teardown(&rig);
}

static void test_bandwidth_controls(void **state)
{
	struct msc_model_params p;
	struct mbwu_rig rig;
	struct err err = { "" };
	double max, min;

	(void)state;
	msc_model_params_default(&p);
	p.bwa_wd = 3; /* coarse: steps of 12.5% */
	rig_setup(&rig, &p, 0);
	assert_int_equal(msc_set_bandwidth(&rig.msc, 9, 60, 30, &max, &min, &err), 0);
	/* 60% with w=3: the nearest band top is 62.5% (band 4), not 50%: a ceiling is the nearest rung. */
	assert_int_equal(msc_model_mbw_max(rig.model, 0, 9), 4u << 13);
	assert_true(max == 62.5);
	/* 30% minimum: the band starting at 37.5% (3), never short. */
	assert_int_equal(msc_model_mbw_min(rig.model, 0, 9), 3u << 13);
	assert_true(min == 37.5);
	/* Soft unless asked for hard limits, as Linux's resctrl leaves it (HARDLIM tests: test_mmio_takeover). */
	assert_false(msc_model_mbw_hardlim(rig.model, 0, 9));
	/* Other PARTIDs keep their reset values. */
	assert_int_equal(msc_model_mbw_max(rig.model, 0, 8), 7u << 13);
	assert_int_equal(msc_model_mbw_min(rig.model, 0, 8), 0);
	/* No minimum clears it. */
	assert_int_equal(msc_set_bandwidth(&rig.msc, 9, 100, 0, &max, &min, &err), 0);
	assert_int_equal(msc_model_mbw_min(rig.model, 0, 9), 0);
	assert_int_equal(max, 100);
	mbwu_rig_teardown(&rig);
}

/* T241-MPAM-4: whatever mpamd asks, MBW_MIN is Linux's value derived from MBW_MAX (MAX - 0xCCB, in
 * the implemented bits), never below one step, and not reported as a minimum in force. */
static void test_t241_mbw_min_follows_max(void **state)
{
	struct msc_model_params p = t241_params();
	struct mbwu_rig rig;
	struct err err = { "" };
	double max, min;

	(void)state;
	p.bwa_wd = 7; /* MPAMF_MBW_IDR 0xC07 */
	mbwu_rig_setup(&rig, &p, 0, &not_a_t241_soc);
	assert_int_equal(rig.msc.caps.quirks, MSC_QUIRK_T241_MBW_MIN_FLOOR | MSC_QUIRK_T241_MBWU_X64);
	uint32_t step = 1u << (16 - 7);
	for (unsigned pct = 1; pct <= 100; pct++) {
		assert_int_equal(msc_set_bandwidth(&rig.msc, 4, pct, pct % 3 ? 0 : 20, &max, &min, &err), 0);
		uint32_t mbw_max = msc_model_mbw_max(rig.model, 0, 4), mbw_min = msc_model_mbw_min(rig.model, 0, 4);
		uint32_t expect = mbw_max > 0xCCB ? (mbw_max - 0xCCB) & ~(step - 1) : 0;
		if (expect < step)
			expect = step;
		if (mbw_min != expect)
			fail_msg("%u%%: MBW_MAX 0x%04x, MBW_MIN 0x%04x, Linux's rule gives 0x%04x", pct, mbw_max,
				 mbw_min, expect);
		assert_true(mbw_min >= step);
		assert_int_equal(min, 0);
	}
	mbwu_rig_teardown(&rig);
}

/* T241-MPAM-1 where the SoC may be a T241: no control is written, and the refusal says why. */
static void test_t241_controls_refused_on_a_t241_soc(void **state)
{
	struct msc_model_params p = t241_params();
	struct mbwu_rig rig;
	struct err err = { "" };
	double max, min;

	(void)state;
	rig_setup(&rig, &p, 0); /* no SoC id known */
	assert_true(rig.msc.caps.quirks & MSC_QUIRK_T241_SHADOW_SCRUB);
	assert_int_equal(msc_set_bandwidth(&rig.msc, 4, 50, 0, &max, &min, &err), -EPERM);
	assert_non_null(strstr(err.text, "T241-MPAM-1"));
	assert_non_null(strstr(err.text, "backend = resctrl"));
	assert_int_equal(msc_set_cpbm(&rig.msc, 4, 0xf, &err), -EPERM);
	assert_int_equal(msc_model_mbw_max(rig.model, 0, 4), 0xFF00); /* untouched */
	mbwu_rig_teardown(&rig);
}

/* The MMIO control over one T241 MSC on a host whose SoC is `soc`, with partition 0 open as PARTID 4,
 * and what it offers. */
struct t241_control {
	struct msc_model *model;
	struct msc_set *set;
	struct mmio_limits *limits;
	struct partition_config p;
	struct control_caps caps;
};

static void t241_control_open(struct t241_control *c, const struct soc_id *soc)
{
	struct msc_model_params params = t241_params();
	struct msc_bus *bus;
	struct partition_ref ref;
	struct err err = { "" };
	const char *name = "grace";

	assert_int_equal(msc_model_new(&params, &c->model), 0);
	assert_int_equal(bus_sim_new(c->model, 0x1000000, &bus), 0);
	assert_int_equal(msc_set_new(&bus, &name, 1, &(struct msc_probe_opts){ .soc = *soc }, &c->set, &err), 0);
	assert_int_equal(mmio_limits_new(c->set, 1, &c->limits, &err), 0);
	partition_config_defaults(&c->p);
	c->p.partid = 4;
	c->p.has_partid = true;
	assert_int_equal(mmio_limits_partition_open(c->limits, 0, &c->p, &ref, &err), 0);
	mmio_limits_probe(c->limits, &c->caps);
}

static void t241_control_close(struct t241_control *c)
{
	assert_int_equal(msc_model_error_count(c->model), 0);
	mmio_limits_free(c->limits);
	msc_set_free(c->set);
	msc_model_free(c->model);
}

/* T241-MPAM-4 hides MBW_MIN from what the control offers, as Linux hides it from resctrl. */
static void test_t241_control_offers_no_minimum(void **state)
{
	struct t241_control c;
	struct partition_limits eff;
	struct err err = { "" };

	(void)state;
	t241_control_open(&c, &(struct soc_id){ .known = true, .id = 0 });
	assert_false(c.caps.has_mb_min);
	assert_true(ladder_exists(&c.caps.max_ladder));
	assert_false(ladder_exists(&c.caps.min_ladder)); /* T241's MBW_MIN is the erratum's */
	assert_int_equal(mmio_limits_validate(c.limits, &(struct partition_limits){ .mb_max = 60, .mb_min = 20 }, &err),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err.text, "T241-MPAM-4"));
	assert_int_equal(mmio_limits_apply(c.limits, 0, &(struct partition_limits){ .mb_max = 60 }, &eff, &err), 0);
	assert_int_equal(eff.mb_max, 60);
	assert_int_equal(eff.mb_min, 0);
	assert_true(msc_model_mbw_min(c.model, 0, 4) >= 0x100); /* the erratum's floor, not 0 */
	t241_control_close(&c);
}

/* T241-MPAM-1 where the SoC may be a T241: the control offers no limit and writes nothing; a partition
 * without limits is fine (and can be measured), one with limits is refused with the reason. */
static void test_t241_control_programs_nothing_on_a_t241_soc(void **state)
{
	struct t241_control c;
	struct partition_limits eff;
	struct err err = { "" };

	(void)state;
	t241_control_open(&c, &(struct soc_id){ .known = true, .id = SOC_ID_NVIDIA_T241 });
	assert_false(ladder_exists(&c.caps.max_ladder));
	assert_false(c.caps.has_mb_min);
	assert_int_equal(c.caps.cbm_bits, 0);
	assert_int_equal(mmio_limits_validate(c.limits, &(struct partition_limits){ .mb_max = 100 }, &err), 0);
	assert_int_equal(mmio_limits_validate(c.limits, &(struct partition_limits){ .mb_max = 50 }, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.text, "msc \"grace\": "));
	assert_non_null(strstr(err.text, "T241-MPAM-1"));
	assert_int_equal(mmio_limits_apply(c.limits, 0, &(struct partition_limits){ .mb_max = 100 }, &eff, &err), 0);
	assert_int_equal(mmio_limits_apply(c.limits, 0, &(struct partition_limits){ .mb_max = 50 }, &eff, &err),
			 -EPERM);
	assert_int_equal(msc_model_mbw_max(c.model, 0, 4), 0xFF00);
	assert_int_equal(msc_model_mbw_min(c.model, 0, 4), 0);
	t241_control_close(&c);
}

static void test_out_of_range_partid_never_reaches_the_msc(void **state)
{
	struct msc_model_params p;
	struct mbwu_rig rig;
	struct err err = { "" };
	double max, min;

	(void)state;
	msc_model_params_default(&p);
	p.partid_max = 15;
	rig_setup(&rig, &p, 4);
	assert_int_equal(msc_set_bandwidth(&rig.msc, 16, 50, 0, &max, &min, &err), -ERANGE);
	assert_non_null(strstr(err.text, "PARTID 16 is above the MSC's PARTID_MAX 15"));
	assert_int_equal(msc_set_cpbm(&rig.msc, 16, 0xf, &err), -ERANGE);
	assert_int_equal(msc_monitors_add(rig.mons, 0, 16, &err), -ERANGE);
	assert_int_equal(msc_monitors_add(rig.mons, 9, 1, &err), 0); /* a slot beyond the start: the table grows */
	mbwu_rig_teardown(&rig);
}

static void test_cache_portion(void **state)
{
	struct msc_model_params p;
	struct mbwu_rig rig;
	struct err err = { "" };
	uint32_t word;

	(void)state;
	msc_model_params_default(&p);
	p.cpbm_wd = 40;
	rig_setup(&rig, &p, 0);
	assert_int_equal(msc_set_cpbm(&rig.msc, 3, 0xff000000f0ull, &err), 0);
	assert_int_equal(msc_model_write32(rig.model, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 3)), 0);
	assert_int_equal(msc_model_read32(rig.model, MPAMCFG_CPBM(0), &word), 0);
	assert_int_equal(word, 0xf0);
	assert_int_equal(msc_model_read32(rig.model, MPAMCFG_CPBM(1), &word), 0);
	assert_int_equal(word, 0xff);
	assert_int_equal(msc_set_cpbm(&rig.msc, 3, 1ull << 40, &err), -ERANGE);
	assert_non_null(strstr(err.text, "wider than the MSC's 40-bit CPBM"));
	mbwu_rig_teardown(&rig);
}

/* ---- monitors ---- */

static struct msc_model_params monitor_params(unsigned monitors, unsigned bits, unsigned scale)
{
	struct msc_model_params p;

	msc_model_params_default(&p);
	p.num_mon = (uint16_t)monitors;
	p.has_long = bits != 31;
	p.lwd = bits == 63;
	p.scale = (uint8_t)scale;
	p.nrdy_ticks = 1;
	return p;
}

static void test_first_samples_are_invalid_then_exact(void **state)
{
	struct msc_model_params p = monitor_params(4, 44, 0);
	struct mbwu_rig rig;
	struct err err;

	(void)state;
	rig_setup(&rig, &p, 1);
	assert_int_equal(msc_monitors_add(rig.mons, 0, 7, &err), 0);
	mbwu_rig_tick(&rig); /* assigns and programs: nothing measured yet */
	assert_int_equal(rig.samples[0].state, SAMPLE_INVALID);
	assert_non_null(rig.samples[0].reason);
	msc_model_count(rig.model, 0, 7, 0, 5000, 0); /* during NRDY: not counted, not reported */
	mbwu_rig_tick(&rig);			      /* ready now: baseline */
	assert_int_equal(rig.samples[0].state, SAMPLE_INVALID);
	msc_model_count(rig.model, 0, 7, 0, 123456, 654321);
	msc_model_count(rig.model, 0, 8, 0, 999, 999); /* another PARTID */
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(rig.samples[0].bytes, 123456 + 654321);
	assert_int_equal(rig.samples[0].elapsed_ns, 100 * MS);
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(rig.samples[0].bytes, 0); /* measured zero is a real zero */
	mbwu_rig_teardown(&rig);
}

/* Brings partition 0 (PARTID 1) to the point where every tick gives a measurement. */
static void settle(struct mbwu_rig *rig)
{
	struct err err;

	assert_int_equal(msc_monitors_add(rig->mons, 0, 1, &err), 0);
	mbwu_rig_tick(rig);
	mbwu_rig_tick(rig);
}

/* A rig of one partition on monitors of `bits` (31, 44 or 63) and `scale`, settled. */
static void settled_rig(struct mbwu_rig *rig, unsigned bits, unsigned scale)
{
	struct msc_model_params p = monitor_params(1, bits, scale);

	rig_setup(rig, &p, 1);
	settle(rig);
}

/* PARTID 1 reads `bytes` this tick: two assertions, the sample measured and `want` bytes. */
static void expect_measured(struct mbwu_rig *rig, uint64_t bytes, uint64_t want)
{
	msc_model_count(rig->model, 0, 1, 0, bytes, 0);
	mbwu_rig_tick(rig);
	assert_int_equal(rig->samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(rig->samples[0].bytes, want);
}

/* PARTID 1 reads `bytes` this tick: two assertions, the sample invalid and saying `reason`. */
static void expect_invalid(struct mbwu_rig *rig, uint64_t bytes, const char *reason)
{
	msc_model_count(rig->model, 0, 1, 0, bytes, 0);
	mbwu_rig_tick(rig);
	assert_int_equal(rig->samples[0].state, SAMPLE_INVALID);
	assert_non_null(strstr(rig->samples[0].reason, reason));
}

static void test_31bit_wraps_at_high_bandwidth(void **state)
{
	struct mbwu_rig rig;

	(void)state;
	settled_rig(&rig, 31, 0);
	/* 2 GB per 100 ms (20 GB/s) wraps a 31-bit byte counter nearly every tick. */
	for (int i = 0; i < 50; i++) {
		uint64_t bytes = 2000000000ull + (uint64_t)i * 1000003;
		msc_model_count(rig.model, 0, 1, 0, bytes / 2, bytes - bytes / 2);
		mbwu_rig_tick(&rig);
		assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
		assert_int_equal(rig.samples[0].bytes, bytes);
	}
	mbwu_rig_teardown(&rig);
}

static void test_31bit_overflow_flag_resolves_a_full_wrap(void **state)
{
	struct mbwu_rig rig;

	(void)state;
	settled_rig(&rig, 31, 0);
	/* More than one full range: only OFLOW_STATUS tells it from a small count. */
	uint64_t bytes = (1ull << 31) + 4096;
	expect_measured(&rig, bytes, bytes);
	/* The status was cleared: the next interval is not inflated. */
	msc_model_count(rig.model, 0, 1, 0, 100, 0);
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].bytes, 100);
	mbwu_rig_teardown(&rig);
}

static void preload_long_counter(struct mbwu_rig *rig, unsigned mon, uint64_t value)
{
	assert_int_equal(msc_model_write32(rig->model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, (uint16_t)mon)), 0);
	assert_int_equal(msc_model_write64(rig->model, MSMON_MBWU_L, value), 0);
}

static void check_long_wrap(unsigned bits)
{
	struct mbwu_rig rig;

	settled_rig(&rig, bits, 0);
	/* Start just below the top, then make the counter wrap. */
	preload_long_counter(&rig, 0, (1ull << bits) - 1000);
	mbwu_rig_tick(&rig); /* the write is seen as a jump: this sample is discarded by the test */
	expect_measured(&rig, 5000, 5000);
	mbwu_rig_teardown(&rig);
}

static void test_44bit_counter_wraps(void **state)
{
	(void)state;
	check_long_wrap(44);
}

static void test_63bit_counter_wraps(void **state)
{
	(void)state;
	check_long_wrap(63);
}

static void test_scaled_31bit_counter(void **state)
{
	struct mbwu_rig rig;

	(void)state;
	settled_rig(&rig, 31, 6);
	/* Units of 64 bytes: 1 TB/s-class traffic stays within range, to the unit. */
	uint64_t bytes = 100ull << 30;
	expect_measured(&rig, bytes, bytes);
	msc_model_count(rig.model, 0, 1, 0, 1000, 0); /* 15 units + 40 bytes carried by the model */
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].bytes, 960);
	mbwu_rig_teardown(&rig);
}

/* T241-MPAM-6: the counters count 64-byte units, for every width, and wrap 64 times later: values
 * and overflows are both 64 times what they read. */
static void run_t241_counter(unsigned bits)
{
	struct msc_model_params p = monitor_params(1, bits, 0);
	struct mbwu_rig rig;

	p.iidr = MPAM_IIDR_NVIDIA_T241;
	mbwu_rig_setup(&rig, &p, 1, &not_a_t241_soc);
	settle(&rig);
	/* 100 GB per tick: a 31-bit count of 64-byte units (137 GB) wraps every one or two ticks. */
	for (int i = 0; i < 12; i++) {
		uint64_t bytes = 100000000000ull + (uint64_t)i * 64 * 1000003;
		msc_model_count(rig.model, 0, 1, 0, bytes / 2, bytes - bytes / 2);
		mbwu_rig_tick(&rig);
		assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
		assert_int_equal(rig.samples[0].bytes, bytes);
	}
	msc_model_count(rig.model, 0, 1, 0, 6400 + 63, 0); /* a partial unit is counted when it completes */
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].bytes, 6400);
	msc_model_count(rig.model, 0, 1, 0, 1, 0);
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].bytes, 64);
	mbwu_rig_teardown(&rig);
}

static void test_t241_counters_count_64_byte_units(void **state)
{
	(void)state;
	run_t241_counter(31);
	run_t241_counter(44);
	run_t241_counter(63);
}

static void test_nrdy_later_invalidates_not_zero(void **state)
{
	struct msc_model_params p = monitor_params(1, 44, 0);
	struct mbwu_rig rig;
	uint32_t ctl;

	(void)state;
	p.nrdy_ticks = 2;
	rig_setup(&rig, &p, 1);
	settle(&rig);
	mbwu_rig_tick(&rig);
	mbwu_rig_tick(&rig);
	/* Someone flips a filter bit: the monitor goes not-ready and the driver restarts it. */
	assert_int_equal(msc_model_write32(rig.model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0)), 0);
	assert_int_equal(msc_model_read32(rig.model, MSMON_CFG_MBWU_CTL, &ctl), 0);
	assert_int_equal(msc_model_write32(rig.model, MSMON_CFG_MBWU_CTL, ctl | MSMON_CFG_CTL_MATCH_PMG), 0);
	expect_invalid(&rig, 777, "reprogrammed");
	/* It comes back with exact counts. */
	for (int i = 0; i < 4; i++)
		mbwu_rig_tick(&rig);
	expect_measured(&rig, 4242, 4242);
	mbwu_rig_teardown(&rig);
}

/* An MSC that leaves NRDY to software (IHI 0099 §6 allows it for counting monitors): enabling a monitor sets NRDY, and only a write of the
 * counter afterwards clears it. A driver that zeroes first and enables last leaves it not ready for
 * good, and (if it ignores NRDY) reports 0 bytes while traffic flows. */
static void test_software_managed_nrdy_counts_traffic(void **state)
{
	struct msc_model_params p = monitor_params(2, 44, 0);
	struct mbwu_rig rig;
	struct err err;

	(void)state;
	p.nrdy_hw = false;
	rig_setup(&rig, &p, 1);
	assert_int_equal(msc_monitors_add(rig.mons, 0, 3, &err), 0);
	mbwu_rig_tick(&rig); /* programmed, and ready at once: the baseline */
	for (int i = 0; i < 5; i++) {
		msc_model_count(rig.model, 0, 3, 0, 700000 + (uint64_t)i, 300000);
		mbwu_rig_tick(&rig);
		assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
		assert_int_equal(rig.samples[0].bytes, 1000000 + (uint64_t)i);
	}
	mbwu_rig_teardown(&rig);
}

/* Someone points the monitor's filter at another PARTID and nothing else changes (no settling time,
 * so no NRDY to give it away): the driver reads the filter back every 16 ticks, reports the sample
 * invalid with the reason, and restarts the monitor with exact counts. */
static void test_filter_changed_by_another_agent(void **state)
{
	struct msc_model_params p = monitor_params(1, 44, 0);
	struct mbwu_rig rig;
	int ticks = 0;

	(void)state;
	p.nrdy_ticks = 0;
	rig_setup(&rig, &p, 1);
	settle(&rig);
	assert_int_equal(msc_model_write32(rig.model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0)), 0);
	assert_int_equal(msc_model_write32(rig.model, MSMON_CFG_MBWU_FLT, 9), 0);
	do {
		msc_model_count(rig.model, 0, 9, 0, 5000, 0);
		mbwu_rig_tick(&rig);
		ticks++;
	} while (rig.samples[0].state == SAMPLE_MEASURED && ticks < 20);
	assert_true(ticks <= 16);
	assert_int_equal(rig.samples[0].state, SAMPLE_INVALID);
	assert_non_null(strstr(rig.samples[0].reason, "MSMON_CFG_MBWU_FLT) was changed by another agent"));
	msc_model_count(rig.model, 0, 1, 0, 4321, 0);
	msc_model_count(rig.model, 0, 9, 0, 5000, 0);
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
	assert_int_equal(rig.samples[0].bytes, 4321);
	mbwu_rig_teardown(&rig);
}

/* Someone zeroes the counter and leaves the settings alone (Linux does when the MSC's last CPU goes
 * offline): the count went backwards without an overflow. That sample is invalid, not a wrap; the
 * next one is exact. */
static void test_counter_zeroed_by_another_agent(void **state)
{
	struct mbwu_rig rig;

	(void)state;
	settled_rig(&rig, 31, 0);
	msc_model_count(rig.model, 0, 1, 0, 1000000, 0);
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].bytes, 1000000);
	assert_int_equal(msc_model_write32(rig.model, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0)), 0);
	assert_int_equal(msc_model_write32(rig.model, MSMON_MBWU, 0), 0);
	expect_invalid(&rig, 2000, "went backwards without an overflow");
	expect_measured(&rig, 3000, 3000);
	mbwu_rig_teardown(&rig);
}

static void test_rotation_16_partitions_on_4_monitors(void **state)
{
	struct msc_model_params p = monitor_params(4, 44, 0);
	struct mbwu_rig rig;
	struct err err;
	unsigned measured[16] = { 0 }, estimated[16] = { 0 };

	(void)state;
	p.partid_max = 31;
	rig_setup(&rig, &p, 16);
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(msc_monitors_add(rig.mons, i, (uint16_t)(i + 1), &err), 0);
	assert_true(msc_monitors_rotating(rig.mons));
	for (int t = 0; t < 120; t++) {
		/* Partition i moves (i+1) MB per tick: 10*(i+1) MB/s. */
		for (unsigned i = 0; i < 16; i++)
			msc_model_count(rig.model, 0, (uint16_t)(i + 1), 0, (i + 1) * 1000000ull, 0);
		mbwu_rig_tick(&rig);
		for (unsigned i = 0; i < 16; i++) {
			const struct sample *s = &rig.samples[i];
			if (s->state == SAMPLE_INVALID) {
				assert_true(t < 24); /* only until each has had a first turn */
				continue;
			}
			double rate = (double)s->bytes / (double)s->elapsed_ns;
			double want = (i + 1) * 1e6 / (100.0 * MS);
			assert_true(rate > want * 0.999 && rate < want * 1.001);
			measured[i] += s->state == SAMPLE_MEASURED;
			estimated[i] += s->state == SAMPLE_ESTIMATED;
		}
	}
	for (unsigned i = 0; i < 16; i++) {
		assert_true(measured[i] >= 8); /* every partition is measured regularly */
		assert_true(estimated[i] > measured[i]);
	}
	mbwu_rig_teardown(&rig);
}

/* A bus whose long counter's high word changes on every read, the first included (never what it was
 * at the last tick): the driver must give up cleanly. */
struct flaky_bus {
	struct bus_tap tap;
	uint32_t flips;
};

static void flaky_read(struct bus_tap *t, uint32_t off, int r, uint64_t *v, unsigned bytes)
{
	struct flaky_bus *f = (struct flaky_bus *)t;

	if (r == 0 && bytes == 4 && off == MSMON_MBWU_L + 4)
		*v = (uint32_t)(*v + ++f->flips);
}

static const struct bus_tap_hooks flaky_hooks = { .after_read = flaky_read };

static void test_unstable_long_counter_is_invalid(void **state)
{
	struct msc_model_params p = monitor_params(1, 44, 0);
	struct mbwu_rig rig;
	struct err err;

	(void)state;
	rig_setup(&rig, &p, 1);
	settle(&rig);
	struct flaky_bus f = { 0 };
	rig.msc.bus = bus_tap_over(&f.tap, rig.msc.bus, &flaky_hooks);
	expect_invalid(&rig, 1000, "kept changing");
	(void)err;
	mbwu_rig_teardown(&rig);
}

/* A bus that lets traffic through at the worst moment: right after the driver read the counter and
 * before it looks at the overflow status. */
struct racy_bus {
	struct bus_tap tap;
	struct msc_model *model;
	uint64_t inject; /* bytes to count after the next MSMON_MBWU read */
};

static void racy_read(struct bus_tap *t, uint32_t off, int r, uint64_t *v, unsigned bytes)
{
	struct racy_bus *rb = (struct racy_bus *)t;

	(void)v;
	if (r == 0 && bytes == 4 && off == MSMON_MBWU && rb->inject) {
		msc_model_count(rb->model, 0, 1, 0, rb->inject, 0);
		rb->inject = 0;
	}
}

static const struct bus_tap_hooks racy_hooks = { .after_read = racy_read };

static void test_wrap_between_value_and_status_read(void **state)
{
	struct mbwu_rig rig;

	(void)state;
	settled_rig(&rig, 31, 0);
	struct racy_bus race = { .model = rig.model };
	struct racy_bus *rb = &race;
	rig.msc.bus = bus_tap_over(&rb->tap, rig.msc.bus, &racy_hooks);
	/* 1.5 GB before the read, then 1 GB that wraps the counter while the driver is mid-read. */
	msc_model_count(rig.model, 0, 1, 0, 1500000000ull, 0);
	rb->inject = 1000000000ull;
	mbwu_rig_tick(&rig);
	assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
	uint64_t first = rig.samples[0].bytes;
	msc_model_count(rig.model, 0, 1, 0, 3000, 0);
	mbwu_rig_tick(&rig);
	/* Every byte is counted once, in one interval or the next, and no phantom wrap is added. */
	assert_int_equal(first + rig.samples[0].bytes, 2500000000ull + 3000);
	assert_true(rig.samples[0].bytes < 1000000000ull);
	mbwu_rig_teardown(&rig);
}

TEST_MAIN({
	cmocka_unit_test(test_probe_reads_the_id_registers),
	cmocka_unit_test(test_probe_software_managed_nrdy),
	cmocka_unit_test(test_probe_beside_the_kernel),
	cmocka_unit_test(test_probe_architecture_revisions),
	cmocka_unit_test(test_probe_every_ris),
	cmocka_unit_test(test_bandwidth_controls),
	cmocka_unit_test(test_t241_mbw_min_follows_max),
	cmocka_unit_test(test_t241_controls_refused_on_a_t241_soc),
	cmocka_unit_test(test_t241_control_offers_no_minimum),
	cmocka_unit_test(test_t241_control_programs_nothing_on_a_t241_soc),
	cmocka_unit_test(test_out_of_range_partid_never_reaches_the_msc),
	cmocka_unit_test(test_cache_portion),
	cmocka_unit_test(test_first_samples_are_invalid_then_exact),
	cmocka_unit_test(test_31bit_wraps_at_high_bandwidth),
	cmocka_unit_test(test_31bit_overflow_flag_resolves_a_full_wrap),
	cmocka_unit_test(test_44bit_counter_wraps),
	cmocka_unit_test(test_63bit_counter_wraps),
	cmocka_unit_test(test_scaled_31bit_counter),
	cmocka_unit_test(test_t241_counters_count_64_byte_units),
	cmocka_unit_test(test_nrdy_later_invalidates_not_zero),
	cmocka_unit_test(test_software_managed_nrdy_counts_traffic),
	cmocka_unit_test(test_filter_changed_by_another_agent),
	cmocka_unit_test(test_counter_zeroed_by_another_agent),
	cmocka_unit_test(test_rotation_16_partitions_on_4_monitors),
	cmocka_unit_test(test_unstable_long_counter_is_invalid),
	cmocka_unit_test(test_wrap_between_value_and_status_read),
})
