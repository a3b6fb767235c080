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
	struct partition_goals g = { .mb_max_at = { .count = 2, .at = { { 0, 30 }, { 4, 60 } } } };
	struct err err = { "" };

	(void)state;
	assert_int_equal(domain_limits_check(&caps, &g, &err), 0);
	g.mb_min_at = (struct domain_values){ .count = 1, .at = { { 1, 10 } } };
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
	struct partition_goals g = { .mb_max_at = { .count = 1, .at = { { 4, 70 } } },
				     .mb_min_at = { .count = 1, .at = { { 0, 15 } } } };
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
	struct partition_goals g = { .mb_max_at = { .count = 1, .at = { { 4, 70 } } } };
	struct partition_limits l = { .mb_max_at = { 99 } };

	(void)state;
	domain_limits_fill(&none, &g, 40, 5, &l);
	assert_int_equal(l.domain_count, 0);
	assert_int_equal(l.mb_max, 40);
	assert_int_equal(l.mb_min, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_id_the_host_lacks_is_refused),
		cmocka_unit_test(test_each_domain_gets_its_own_value_or_the_partitions),
		cmocka_unit_test(test_a_control_without_domains_keeps_the_scalars),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
