/* mpamctl discover's capacity hint (cli/capacity_hint.c): the hardware's figure where the monitors
 * give one, else the most each domain carried in a record file, and the capacity_mbps line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/capacity_hint.h"
#include "tests/util/test_main.h"

/* Two resctrl MB domains, 0 and 1, each measured by the L3 monitoring domain of the same id, which
 * tell no capacity (as resctrl never does). */
static void two_domains(struct composition *c)
{
	memset(c, 0, sizeof(*c));
	c->caps.domain_count = 2;
	for (unsigned d = 0; d < 2; d++) {
		c->caps.domains[d] = (struct control_domain){ .id = d, .id_space = DOMAIN_SPACE_RESCTRL };
		snprintf(c->caps.domains[d].name, sizeof(c->caps.domains[d].name), "MB domain %u", d);
		c->domains[d] = (struct engine_domain){ .name = d ? "L3_01" : "L3_00",
							.id_space = DOMAIN_SPACE_RESCTRL,
							.id = d };
	}
	c->domain_count = 2;
}

static char *write_record(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/mpamd-capacity-hint-%d.csv", (int)getpid());
	FILE *out = fopen(path, "w");
	assert_non_null(out);
	fputs(text, out);
	fclose(out);
	return path;
}

#define HEADER "time,t_ms,partition,domain,mbps,mb_max,mb_min,valid,estimated,event\n"

static void test_nothing_known(void **state)
{
	struct composition c;
	struct err err = { "" };

	(void)state;
	two_domains(&c);
	json_t *hint = capacity_hint(&c, NULL, &err);
	assert_non_null(hint);
	assert_true(json_is_null(json_object_get(hint, "suggestion")));
	assert_true(
		json_is_null(json_object_get(json_array_get(json_object_get(hint, "domains"), 0), "capacity_mbps")));
	json_decref(hint);
}

/* The most each domain carried in one tick, over every tick of the file, rounded down to 100 MB/s;
 * invalid samples carry nothing. */
static void test_from_a_record(void **state)
{
	struct composition c;
	struct err err = { "" };

	(void)state;
	two_domains(&c);
	char *path = write_record(HEADER "2026-01-01T00:00:00.100Z,100,a,*,9000,100,0,1,0,\n"
					 "2026-01-01T00:00:00.100Z,100,a,0,9000,100,0,1,0,\n"
					 "2026-01-01T00:00:00.100Z,100,b,*,5000,100,0,1,0,\n"
					 "2026-01-01T00:00:00.100Z,100,b,0,1234,100,0,1,0,\n"
					 "2026-01-01T00:00:00.100Z,100,b,1,3766,100,0,1,0,\n"
					 "2026-01-01T00:00:00.200Z,200,a,*,,100,0,0,0,\n"
					 "2026-01-01T00:00:00.200Z,200,a,0,,100,0,0,0,\n"
					 "2026-01-01T00:00:00.200Z,200,b,1,7950,100,0,1,0,\n");
	json_t *hint = capacity_hint(&c, path, &err);
	assert_non_null(hint);
	json_t *d0 = json_array_get(json_object_get(hint, "domains"), 0);
	json_t *d1 = json_array_get(json_object_get(hint, "domains"), 1);
	assert_true(json_real_value(json_object_get(d0, "capacity_mbps")) == 10200); /* 9000 + 1234 */
	assert_true(json_real_value(json_object_get(d1, "capacity_mbps")) == 7900);
	assert_string_equal(json_string_value(json_object_get(d1, "source")), "record");
	assert_string_equal(json_string_value(json_object_get(hint, "suggestion")), "capacity_mbps = 0=10200,1=7900");
	json_decref(hint);

	/* The hardware's figure wins where the monitors give one; one figure for every domain is one value. */
	c.domains[0].capacity_mbps = c.domains[1].capacity_mbps = 12000;
	hint = capacity_hint(&c, path, &err);
	assert_string_equal(json_string_value(json_object_get(hint, "suggestion")), "capacity_mbps = 12000");
	json_decref(hint);

	/* A record that cannot be read says so. */
	unlink(path);
	assert_null(capacity_hint(&c, path, &err));
	assert_non_null(strstr(err.text, path));
}

TEST_MAIN({
	cmocka_unit_test(test_nothing_known),
	cmocka_unit_test(test_from_a_record),
})
