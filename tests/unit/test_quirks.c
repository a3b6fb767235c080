/* The quirk table (matched on all four MPAMF_IIDR fields, as Linux matches), the SoC id that one of
 * the quirks depends on, and the T241-MPAM-4 floor. */
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/mmio/quirks.h"
#include "backends/mmio/soc_id.h"
#include "backends/mpam/mpam_regs.h"
#include "tests/util/test_main.h"

static const struct soc_id unknown = { 0 };
static const struct soc_id t241 = { .known = true, .id = SOC_ID_NVIDIA_T241 };
static const struct soc_id none = { .known = true, .id = 0 };
static const struct soc_id other = { .known = true, .id = 0x043b0001 };

static uint32_t iidr(unsigned product, unsigned variant, unsigned revision, unsigned implementer)
{
	return (uint32_t)(mpam_field_prep(MPAMF_IIDR_PRODUCT_ID, product) |
			  mpam_field_prep(MPAMF_IIDR_VARIANT, variant) |
			  mpam_field_prep(MPAMF_IIDR_REVISION, revision) |
			  mpam_field_prep(MPAMF_IIDR_IMPLEMENTER, implementer));
}

static void test_t241_matches_on_all_four_fields(void **state)
{
	unsigned all = MSC_QUIRK_T241_SHADOW_SCRUB | MSC_QUIRK_T241_MBW_MIN_FLOOR | MSC_QUIRK_T241_MBWU_X64;

	(void)state;
	assert_int_equal(iidr(0x241, 0, 0, 0x36b), MPAM_IIDR_NVIDIA_T241);
	assert_int_equal(msc_quirks_of(MPAM_IIDR_NVIDIA_T241, &t241), all);
	/* Any other product, variant, revision or implementer is another part. */
	assert_int_equal(msc_quirks_of(iidr(0x242, 0, 0, 0x36b), &t241), 0);
	assert_int_equal(msc_quirks_of(iidr(0x241, 1, 0, 0x36b), &t241), 0);
	assert_int_equal(msc_quirks_of(iidr(0x241, 0, 1, 0x36b), &t241), 0);
	assert_int_equal(msc_quirks_of(iidr(0x241, 0, 0, 0x43b), &t241), 0);
}

/* T241-MPAM-1 is Linux's only on the T241 SoC; without a SoC id in sysfs mpamd cannot rule it out. */
static void test_shadow_scrub_depends_on_the_soc(void **state)
{
	(void)state;
	assert_true(msc_quirks_of(MPAM_IIDR_NVIDIA_T241, &t241) & MSC_QUIRK_T241_SHADOW_SCRUB);
	assert_true(msc_quirks_of(MPAM_IIDR_NVIDIA_T241, &unknown) & MSC_QUIRK_T241_SHADOW_SCRUB);
	assert_false(msc_quirks_of(MPAM_IIDR_NVIDIA_T241, &none) & MSC_QUIRK_T241_SHADOW_SCRUB);
	assert_false(msc_quirks_of(MPAM_IIDR_NVIDIA_T241, &other) & MSC_QUIRK_T241_SHADOW_SCRUB);
	/* The others do not depend on it. */
	assert_int_equal(msc_quirks_of(MPAM_IIDR_NVIDIA_T241, &none),
			 MSC_QUIRK_T241_MBW_MIN_FLOOR | MSC_QUIRK_T241_MBWU_X64);
	assert_non_null(msc_quirks_controls_refused(msc_quirks_of(MPAM_IIDR_NVIDIA_T241, &unknown)));
	assert_null(msc_quirks_controls_refused(msc_quirks_of(MPAM_IIDR_NVIDIA_T241, &none)));
}

/* CMN-650's erratum is about CSU monitors: recognised, described, never applied. */
static void test_cmn650_is_recognised_not_applied(void **state)
{
	(void)state;
	assert_int_equal(msc_quirks_of(MPAM_IIDR_ARM_CMN_650, &unknown), 0);
	json_t *list = msc_quirks_describe(MPAM_IIDR_ARM_CMN_650, &unknown);
	assert_int_equal(json_array_size(list), 1);
	json_t *q = json_array_get(list, 0);
	assert_string_equal(json_string_value(json_object_get(q, "name")), "CMN-650 erratum 3642720");
	assert_true(json_is_false(json_object_get(q, "applied")));
	assert_non_null(strstr(json_string_value(json_object_get(q, "action")), "CSU"));
	json_decref(list);
	list = msc_quirks_describe(iidr(1, 0, 0, 0x43b), &unknown); /* another Arm part */
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
}

static void test_describe_names_every_t241_quirk(void **state)
{
	const char *names[] = { "T241-MPAM-1", "T241-MPAM-4", "T241-MPAM-6" };

	(void)state;
	json_t *list = msc_quirks_describe(MPAM_IIDR_NVIDIA_T241, &none);
	assert_int_equal(json_array_size(list), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *q = json_array_get(list, i);
		assert_string_equal(json_string_value(json_object_get(q, "name")), names[i]);
		assert_non_null(json_string_value(json_object_get(q, "erratum")));
		/* MPAM-1 does not apply on a SoC known not to be T241, and says why. */
		assert_int_equal(json_is_true(json_object_get(q, "applied")), i > 0);
	}
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(list, 0), "action")), "036b:0241"));
	json_decref(list);
}

/* Linux's T241-MPAM-4 value: MAX - (5 * 0xFFFF / 100 - 1) = MAX - 0xCCB, at least one step, in the
 * implemented bits. */
static void test_t241_mbw_min_floor(void **state)
{
	(void)state;
	/* BWA_WD 8 (steps of 0x100): 100% is 0xFF00; 0xFF00 - 0xCCB = 0xF235, implemented 0xF200. */
	assert_int_equal(msc_quirk_t241_mbw_min(8, 0xFF00), 0xF200);
	/* 50% is 0x7F00: 0x7235 -> 0x7200. */
	assert_int_equal(msc_quirk_t241_mbw_min(8, 0x7F00), 0x7200);
	/* Below 5% there is nothing to subtract from: one step, never 0. */
	assert_int_equal(msc_quirk_t241_mbw_min(8, 0x0100), 0x0100);
	assert_int_equal(msc_quirk_t241_mbw_min(8, 0x0CCB), 0x0100);
	/* BWA_WD 7 (steps of 0x200, the T241's MBW_IDR): 0xFE00 - 0xCCB = 0xF135 -> 0xF000. */
	assert_int_equal(msc_quirk_t241_mbw_min(7, 0xFE00), 0xF000);
	assert_int_equal(msc_quirk_t241_mbw_min(7, 0x0000), 0x0200);
	/* Just above 5%: 0x0E00 - 0xCCB = 0x135, below one step of 0x200. */
	assert_int_equal(msc_quirk_t241_mbw_min(7, 0x0E00), 0x0200);
}

static void test_soc_id_parse(void **state)
{
	uint32_t id = 0;

	(void)state;
	assert_true(soc_id_parse("jep106:036b:0241\n", &id));
	assert_int_equal(id, SOC_ID_NVIDIA_T241);
	assert_true(soc_id_parse("jep106:043B:0001", &id));
	assert_int_equal(id, 0x043b0001);
	id = 7;
	assert_false(soc_id_parse("jep106:036b:241", &id));
	assert_false(soc_id_parse("jep106:036b:02411", &id));
	assert_false(soc_id_parse("jep106:36b:0241", &id));
	assert_false(soc_id_parse("jep106:036b-0241", &id));
	assert_false(soc_id_parse("jep106:036g:0241", &id));
	assert_false(soc_id_parse("Raspberry Pi", &id));
	assert_false(soc_id_parse("", &id));
	assert_int_equal(id, 7);
}

/* A sysfs fixture with soc devices: one of another kind, then the SMCCC one. */
static void test_soc_id_read(void **state)
{
	char root[] = "/tmp/mpamd-soc-XXXXXX", cmd[512], text[16];
	struct soc_id soc;

	(void)state;
	assert_non_null(mkdtemp(root));
	soc_id_read(root, &soc);
	assert_false(soc.known); /* no soc bus at all */
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/bus/soc/devices/soc0 %s/bus/soc/devices/soc1 && echo 'i.MX8' > "
		 "%s/bus/soc/devices/soc0/soc_id",
		 root, root, root);
	assert_int_equal(system(cmd), 0);
	soc_id_read(root, &soc);
	assert_false(soc.known); /* a soc device, but no JEP106 id */
	soc_id_format(&soc, text, sizeof(text));
	assert_string_equal(text, "unknown");
	snprintf(cmd, sizeof(cmd), "echo jep106:036b:0241 > %s/bus/soc/devices/soc1/soc_id", root);
	assert_int_equal(system(cmd), 0);
	soc_id_read(root, &soc);
	assert_true(soc.known);
	assert_int_equal(soc.id, SOC_ID_NVIDIA_T241);
	soc_id_format(&soc, text, sizeof(text));
	assert_string_equal(text, "036b:0241");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

TEST_MAIN({
	cmocka_unit_test(test_t241_matches_on_all_four_fields),
	cmocka_unit_test(test_shadow_scrub_depends_on_the_soc),
	cmocka_unit_test(test_cmn650_is_recognised_not_applied),
	cmocka_unit_test(test_describe_names_every_t241_quirk),
	cmocka_unit_test(test_t241_mbw_min_floor),
	cmocka_unit_test(test_soc_id_parse),
	cmocka_unit_test(test_soc_id_read),
})
