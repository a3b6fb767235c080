/* A partition's per-domain values against a control's domains (core/engine/domain_limits.c): an id the
 * host does not have is refused naming it and the ones there are, each domain gets its own value or the
 * partition's one for every domain, and the summary is the highest of them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/engine/domain_limits.h"
#include "core/engine/slot_limits.h"
#include "tests/util/test_main.h"

/* Two MB domains, ids 0 and 4 (resctrl numbers them by cache id, with gaps). */
static struct control_caps two_domains(void)
{
	struct control_caps caps = { .domain_count = 2 };

	caps.domains[0].id = 0;
	caps.domains[1].id = 4;
	return caps;
}

static void test_an_id_the_host_lacks_is_refused(void **state)
{
	struct control_caps caps = two_domains();
	struct partition_goals g = { .mb_max_at = { .count = 2,
						    .at = (struct domain_value[]){ { 0, 30 }, { 4, 60 } } } };
	struct err err = { "" };

	(void)state;
	assert_int_equal(domain_limits_check(&caps, &g, &err), 0);
	g.mb_min_at = (struct domain_values){ .count = 1, .at = (struct domain_value[]){ { 1, 10 } } };
	assert_int_equal(domain_limits_check(&caps, &g, &err), -EINVAL);
	assert_string_equal(err.text, "mb_min names domain 1, which this host does not have (its domains: 0, 4)");

	struct control_caps none = { .domain_count = 0 };
	assert_int_equal(domain_ids_check(&none, &g.mb_max_at, "mb_max", &err), -EINVAL);
	assert_string_equal(err.text, "mb_max names domain 0, which this host does not have (its domains: none: no "
				      "per-domain bandwidth limits on this host)");
	struct domain_values empty = { .count = 0 };
	assert_int_equal(domain_ids_check(&none, &empty, "mb_max", &err), 0);
}

static void test_each_domain_gets_its_own_value_or_the_partitions(void **state)
{
	struct control_caps caps = two_domains();
	struct partition_goals g = { .mb_max_at = { .count = 1, .at = (struct domain_value[]){ { 4, 70 } } },
				     .mb_min_at = { .count = 1, .at = (struct domain_value[]){ { 0, 15 } } } };
	struct partition_limits l;

	(void)state;
	memset(&l, 0xff, sizeof(l));
	domain_limits_fill(&caps, &g, 40, 5, &l);
	assert_int_equal(l.domain_count, 2);
	assert_int_equal(l.mb_max_at[0], 40); /* not named: the partition's mb_max */
	assert_int_equal(l.mb_max_at[1], 70);
	assert_int_equal(l.mb_min_at[0], 15);
	assert_int_equal(l.mb_min_at[1], 5);
	/* the summary is the highest of each */
	assert_int_equal(l.mb_max, 70);
	assert_int_equal(l.mb_min, 15);
}

static void test_a_control_without_domains_keeps_the_scalars(void **state)
{
	struct control_caps none = { .domain_count = 0 };
	struct partition_goals g = { .mb_max_at = { .count = 1, .at = (struct domain_value[]){ { 4, 70 } } } };
	struct partition_limits l = { .mb_max_at = { 99 } };

	(void)state;
	domain_limits_fill(&none, &g, 40, 5, &l);
	assert_int_equal(l.domain_count, 0);
	assert_int_equal(l.mb_max, 40);
	assert_int_equal(l.mb_min, 5);
}

/* MB/s limits become each domain's percent: by capacity_mbps where the control is in percent (with a
 * domain's own capacity where it has one), by the units themselves on AMD, and refused, naming the key
 * and the domain, where nothing says what a domain carries. */
static void test_mbps_goals_in_percent(void **state)
{
	struct control_caps caps = two_domains();
	struct global_config gc = { .capacity_mbps = 40000,
				    .capacity_mbps_at = { .count = 1, .at = (struct domain_value[]){ { 4, 20000 } } } };
	struct partition_goals g = { .mb_max = 6000, .mb_max_mbps = true, .mb_min = 0 };
	struct partition_goals_buf buf;
	struct err err = { "" };

	(void)state;
	ladder_percent(1, 1, &caps.domains[0].max_ladder);
	ladder_percent(1, 1, &caps.domains[1].max_ladder);
	const struct partition_goals *pct = domain_goals_pct(&caps, &gc, &g, &buf, &err);
	assert_ptr_equal(pct, &buf.goals);
	assert_false(pct->mb_max_mbps);
	assert_true(domain_values_get(&pct->mb_max_at, 0, -1) == 15.0); /* 6000 of 40000 */
	assert_true(domain_values_get(&pct->mb_max_at, 4, -1) == 30.0); /* 6000 of its own 20000 */
	/* more than a domain carries is no throttling there, not an error */
	g.mb_max = 30000;
	pct = domain_goals_pct(&caps, &gc, &g, &buf, &err);
	assert_true(domain_values_get(&pct->mb_max_at, 4, -1) == 100.0);
	/* no capacity known for domain 0 */
	gc.capacity_mbps = 0;
	assert_null(domain_goals_pct(&caps, &gc, &g, &buf, &err));
	assert_non_null(strstr(err.text, "mb_max = 30000MB/s: what domain 0 carries is not known"));
	assert_non_null(strstr(err.text, "capacity_mbps"));
	/* AMD: 2048 units of 125 MB/s need no capacity; 6000 MB/s is 48 units */
	ladder_units(1, 2048, 125, &caps.domains[0].max_ladder);
	ladder_units(1, 2048, 125, &caps.domains[1].max_ladder);
	g.mb_max = 6000;
	pct = domain_goals_pct(&caps, &gc, &g, &buf, &err);
	assert_non_null(pct);
	assert_true(domain_values_get(&pct->mb_max_at, 0, -1) == 48 * 100.0 / 2048);
	/* percents pass through untouched */
	struct partition_goals plain = { .mb_max = 40 };
	assert_ptr_equal(domain_goals_pct(&caps, &gc, &plain, &buf, &err), &plain);
}

/* A minimum in MB/s above a ceiling in percent is found once the capacity makes them comparable. */
static void test_mbps_min_above_pct_max(void **state)
{
	struct control_caps caps = two_domains();
	struct global_config gc = { .capacity_mbps = 40000 };
	struct partition_goals g = { .mb_max = 10, .mb_min = 6000, .mb_min_mbps = true };
	struct partition_goals_buf buf;
	struct err err = { "" };

	(void)state;
	for (unsigned d = 0; d < 2; d++) {
		ladder_percent(1, 1, &caps.domains[d].max_ladder);
		ladder_percent(1, 1, &caps.domains[d].min_ladder);
	}
	assert_null(domain_goals_pct(&caps, &gc, &g, &buf, &err));
	assert_string_equal(err.text, "mb_min is above mb_max on domain 0 (15% > 10% of what it carries)");
}

/* A snapped limit snaps to itself on every kind of ladder: the engine keeps a decision equal to what it
 * applied last without snapping it again (core/engine/engine_apply.c, snap_limits). */
static void test_a_snapped_limit_snaps_to_itself(void **state)
{
	struct ladder ladders[8] = { 0 }; /* the last: none (count 0), limits pass through */

	(void)state;
	assert_int_equal(ladder_percent(10, 10, &ladders[0]), 0); /* Intel's 10% steps */
	assert_int_equal(ladder_percent(1, 1, &ladders[1]), 0);
	assert_int_equal(ladder_mpam_max(8, &ladders[2]), 0);
	assert_int_equal(ladder_mpam_max(16, &ladders[3]), 0);
	assert_int_equal(ladder_mpam_min(8, &ladders[4]), 0);
	assert_int_equal(ladder_resctrl_mpam(8, &ladders[5]), 0);
	assert_int_equal(ladder_units(1, 2048, 0.125 * 1000, &ladders[6]), 0); /* AMD's 1/8 GB/s */
	for (size_t k = 0; k < sizeof(ladders) / sizeof(ladders[0]); k++) {
		for (double pct = -1; pct <= 101; pct += 0.0371) {
			double max = control_snap_max(&ladders[k], pct), min = control_snap_min(&ladders[k], pct);
			assert_true(control_snap_max(&ladders[k], max) == max);
			assert_true(control_snap_min(&ladders[k], min) == min);
		}
	}
}

/* A slot keeps its limits in room for the host's domains: what it keeps loads back the same, a new
 * size of room drops what was kept per domain, and more domains than the room holds are cut to it. */
static void test_slot_limits_round_trip(void **state)
{
	struct slot_limits applied = { 0 }, effective = { 0 };
	struct partition_limits l = { .mb_max = 70, .mb_min = 15, .l3_cbm = 0xf0, .mb_mbps = 3, .domain_count = 2 };
	struct partition_limits back;
	double *room = NULL;
	unsigned room_domains = 0;

	(void)state;
	l.mb_max_at[0] = 40;
	l.mb_max_at[1] = 70;
	l.mb_min_at[0] = 15;
	l.mb_min_at[1] = 5;
	assert_int_equal(slot_limits_room(&room, &room_domains, 2, &applied, &effective), 1);
	assert_int_equal(slot_limits_room(&room, &room_domains, 2, &applied, &effective), 0); /* kept */
	slot_limits_keep(&applied, room_domains, &l);
	l.mb_max_at[1] = 60;
	slot_limits_keep(&effective, room_domains, &l);
	assert_ptr_equal(slot_limits_load(&applied, &back), &back);
	assert_int_equal(back.domain_count, 2);
	assert_true(back.mb_max == 70 && back.mb_min == 15 && back.l3_cbm == 0xf0 && back.mb_mbps == 3);
	assert_true(back.mb_max_at[0] == 40 && back.mb_max_at[1] == 70);
	assert_true(back.mb_min_at[0] == 15 && back.mb_min_at[1] == 5);
	assert_true(slot_limits_max_at(&effective, 1) == 60 && slot_limits_max_at(&effective, 2) == 70);
	assert_true(slot_limits_min_at(&effective, 0) == 15 && slot_limits_min_at(&effective, 5) == 15);
	/* another host's domains: made anew, nothing per domain kept */
	assert_int_equal(slot_limits_room(&room, &room_domains, 1, &applied, &effective), 1);
	assert_int_equal(applied.domain_count, 0);
	slot_limits_keep(&applied, room_domains, &l);
	assert_int_equal(applied.domain_count, 1);
	assert_true(slot_limits_max_at(&applied, 1) == 70); /* past the room: the summary */
	assert_int_equal(slot_limits_room(&room, &room_domains, 0, &applied, &effective), 1);
	assert_null(room);
	slot_limits_keep(&applied, room_domains, &l);
	assert_int_equal(slot_limits_load(&applied, &back)->domain_count, 0);
}

TEST_MAIN({
	cmocka_unit_test(test_slot_limits_round_trip),
	cmocka_unit_test(test_a_snapped_limit_snaps_to_itself),
	cmocka_unit_test(test_mbps_goals_in_percent),
	cmocka_unit_test(test_mbps_min_above_pct_max),
	cmocka_unit_test(test_an_id_the_host_lacks_is_refused),
	cmocka_unit_test(test_each_domain_gets_its_own_value_or_the_partitions),
	cmocka_unit_test(test_a_control_without_domains_keeps_the_scalars),
})
