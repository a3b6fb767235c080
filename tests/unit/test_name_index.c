/* The name index: adds, finds and removes against a plain array kept beside it, with seeded random
 * names from a small alphabet (so that probes collide and removals must shift entries back). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "core/base/name_index.h"
#include "tests/util/test_main.h"

#define NAMES 300

static void test_remove_keeps_the_others_findable(void **state)
{
	static char names[NAMES][8];
	static bool present[NAMES];
	struct name_index idx;
	unsigned seed = (unsigned)time(NULL);

	(void)state;
	printf("seed %u\n", seed);
	srand(seed);
	name_index_init(&idx);
	for (size_t i = 0; i < NAMES; i++) /* distinct: the index number in base 26 */
		snprintf(names[i], sizeof(names[i]), "%c%c", 'a' + (int)(i / 26), 'a' + (int)(i % 26));
	for (int round = 0; round < 20000; round++) {
		size_t i = (size_t)rand() % NAMES;
		if (present[i] && rand() % 2) {
			assert_int_equal(name_index_remove(&idx, names[i], i), 0);
			present[i] = false;
		} else if (!present[i]) {
			assert_int_equal(name_index_add(&idx, names[i], i), 0);
			present[i] = true;
		}
		if (round % 97)
			continue;
		for (size_t k = 0; k < NAMES; k++) {
			size_t value = 0;
			int r = name_index_find(&idx, names[k], &value);
			if (present[k] != (r == 0) || (r == 0 && value != k))
				fail_msg("seed %u, round %d: %s %s", seed, round, names[k],
					 present[k] ? "lost" : "still there");
		}
	}
	name_index_fini(&idx);
}

static void test_remove_only_its_own(void **state)
{
	struct name_index idx;
	size_t value;

	(void)state;
	name_index_init(&idx);
	assert_int_equal(name_index_remove(&idx, "x", 1), -ENOENT);
	assert_int_equal(name_index_add(&idx, "x", 1), 0);
	assert_int_equal(name_index_remove(&idx, "x", 2), -ENOENT); /* another's entry of that name */
	assert_int_equal(name_index_find(&idx, "x", &value), 0);
	assert_int_equal(name_index_remove(&idx, "x", 1), 0);
	assert_int_equal(name_index_find(&idx, "x", &value), -ENOENT);
	assert_int_equal(idx.count, 0);
	name_index_fini(&idx);
}

TEST_MAIN({
	cmocka_unit_test(test_remove_keeps_the_others_findable),
	cmocka_unit_test(test_remove_only_its_own),
})
