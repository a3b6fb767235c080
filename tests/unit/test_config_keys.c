/* The key tables are the single record of each key: these tests hold the other places to them.
 * - a key is CONFIG_KEY_RUNTIME exactly when its field lives in struct partition_goals (what `set`
 *   changes and the engine copies whole into policy state), and every goal has such a key;
 * - the man pages list the run-time keys the table marks, and document every key of every table;
 * - each key's parser works alone, on a bare object, as the loader and `set` use it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/sim/sim_config.h"
#include "core/config/config.h"
#include "core/config/schema.h"
#include "core/engine/registry.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define GOALS_BEGIN offsetof(struct partition_config, goals)
#define GOALS_END   (GOALS_BEGIN + sizeof(struct partition_goals))

static bool inside_goals(const struct config_key *k)
{
	return k->size && k->offset >= GOALS_BEGIN && k->offset + k->size <= GOALS_END;
}

/* Where a per-domain key keeps its per-domain values in a partition (0: not such a key). */
static size_t domain_offset(const struct config_key *k)
{
	static struct partition_config p;
	char *at = (char *)config_key_domain_values(k, &p);

	return at ? (size_t)(at - (char *)&p) : 0;
}

static void test_runtime_keys_are_the_goals(void **state)
{
	const struct config_section_def *def = &config_partition_section;
	/* Every field of struct partition_goals, so that a new goal without a key fails here. */
	static const size_t goal_fields[] = {
		offsetof(struct partition_goals, class),       offsetof(struct partition_goals, mb_min),
		offsetof(struct partition_goals, mb_max),      offsetof(struct partition_goals, guarantee_mbps),
		offsetof(struct partition_goals, target_mbps), offsetof(struct partition_goals, weight),
		offsetof(struct partition_goals, l3_cbm),      offsetof(struct partition_goals, ipc_guard),
		offsetof(struct partition_goals, mb_min_at),   offsetof(struct partition_goals, mb_max_at),
	};

	(void)state;
	for (size_t i = 0; i < def->key_count; i++) {
		const struct config_key *k = &def->keys[i];
		if (inside_goals(k) != !!(k->flags & CONFIG_KEY_RUNTIME))
			fail_msg("%s: run-time flag %s but its field is %s partition_goals", k->name,
				 k->flags & CONFIG_KEY_RUNTIME ? "set" : "not set", inside_goals(k) ? "in" : "outside");
	}
	for (size_t f = 0; f < sizeof(goal_fields) / sizeof(goal_fields[0]); f++) {
		bool keyed = false;
		for (size_t i = 0; i < def->key_count; i++)
			keyed |= def->keys[i].size && (def->keys[i].offset == GOALS_BEGIN + goal_fields[f] ||
						       domain_offset(&def->keys[i]) == GOALS_BEGIN + goal_fields[f]);
		if (!keyed)
			fail_msg("field %zu of partition_goals has no key", f);
	}
	/* Extensions' partition keys are never run-time: they live outside the goals. */
	for (size_t i = 0; i < sim_config_ext.partition_key_count; i++)
		assert_false(sim_config_ext.partition_keys[i].flags & CONFIG_KEY_RUNTIME);
}

/* The source tree's file `rel`, whole (the caller frees it), and in *at where `marker` begins in it;
 * fails the test where it has none. */
static char *read_marked(const char *rel, const char *marker, const char **at)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", MPAMD_SOURCE_DIR, rel);
	char *text = read_text_file(path);
	assert_non_null(text);
	*at = strstr(text, marker);
	if (!*at)
		fail_msg("%s has no run-time keys marker", path);
	return text;
}

/* The run-time partition keys of the table, `sep` between them. */
static void runtime_keys(const char *sep, char *ret, size_t len)
{
	const struct config_section_def *def = &config_partition_section;

	ret[0] = '\0';
	for (size_t i = 0; i < def->key_count; i++)
		if (def->keys[i].flags & CONFIG_KEY_RUNTIME)
			snprintf(ret + strlen(ret), len - strlen(ret), "%s%s", ret[0] ? sep : "", def->keys[i].name);
}

/* The comma-separated list on the line after the run-time marker comment of a man page. */
static void runtime_list_of(const char *man, char *ret, size_t len)
{
	char rel[64];
	const char *marker;
	snprintf(rel, sizeof(rel), "docs/%s", man);
	char *text = read_marked(rel, ".\\\" run-time keys:", &marker);
	const char *line = strchr(marker, '\n') + 1;
	if (!strncmp(line, ".RS\n", 4))
		line += 4;
	size_t n = strcspn(line, "\n");
	snprintf(ret, len, "%.*s", (int)n, line);
	if (n && ret[n - 1] == '.')
		ret[n - 1] = '\0';
	free(text);
}

static void test_man_pages_list_the_runtime_keys(void **state)
{
	const char *pages[] = { "mpamd.ini.5", "mpamctl.8" };
	char expected[512];

	(void)state;
	runtime_keys(", ", expected, sizeof(expected));
	for (size_t p = 0; p < 2; p++) {
		char listed[512];
		runtime_list_of(pages[p], listed, sizeof(listed));
		if (strcmp(listed, expected))
			fail_msg("%s lists run-time keys '%s', the table has '%s'", pages[p], listed, expected);
	}
}

/* The bash completion offers the same keys to `mpamctl set`, blank-separated. */
static void test_completion_lists_the_runtime_keys(void **state)
{
	char expected[512];
	const char *marker;

	(void)state;
	runtime_keys(" ", expected, sizeof(expected));
	char *text = read_marked("etc/bash-completion/mpamctl", "# run-time keys:\n_mpamctl_set_keys=\"", &marker);
	const char *list = strchr(marker, '"') + 1;
	size_t n = strcspn(list, "\"");
	if (strlen(expected) != n || strncmp(list, expected, n))
		fail_msg("the completion lists '%.*s', the table has '%s'", (int)n, list, expected);
	free(text);
}

/* Each key is documented as a tagged paragraph ".BI key " = "..." or ".BR key " = "...". */
static void check_documented(const char *man, const struct config_section_def *def)
{
	char needle[128];
	for (size_t i = 0; i < def->key_count; i++) {
		snprintf(needle, sizeof(needle), " %s \" = \"", def->keys[i].name);
		if (!strstr(man, needle))
			fail_msg("mpamd.ini(5) does not document [%s] key %s", def->kind, def->keys[i].name);
	}
}

static void test_man_page_documents_every_key(void **state)
{
	const struct config_schema *schema = engine_default_schema();
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/docs/mpamd.ini.5", MPAMD_SOURCE_DIR);
	char *man = read_text_file(path);
	assert_non_null(man);
	check_documented(man, &config_global_section);
	check_documented(man, &config_msc_section);
	check_documented(man, &config_partition_section);
	check_documented(man, &config_template_section);
	for (size_t e = 0; e < schema->ext_count; e++) {
		const struct config_ext *ext = schema->exts[e];
		if (ext->section)
			check_documented(man, ext->section);
		struct config_section_def keys = { "partition", true, ext->partition_keys, ext->partition_key_count };
		check_documented(man, &keys);
	}
	free(man);
}

/* The key `name` of `section`; fails the test when it has none. */
static const struct config_key *section_key(const struct config_section_def *section, const char *name)
{
	for (size_t i = 0; i < section->key_count; i++)
		if (!strcmp(section->keys[i].name, name))
			return &section->keys[i];
	fail_msg("no %s key %s", section->kind, name);
	return NULL;
}

static const struct config_key *partition_key(const char *name)
{
	return section_key(&config_partition_section, name);
}

/* k's value in `object` as it is written back: `want`, or nothing written where want is NULL. */
static void expect_written(const void *object, const struct config_key *k, const char *want)
{
	char text[128];
	bool written = k->type->format(object, k, text, sizeof(text));

	if (!want) {
		assert_false(written);
		return;
	}
	assert_true(written);
	assert_string_equal(text, want);
}

/* One parser at a time, on a bare partition object: no loader, no file. */
static void test_each_parser_alone(void **state)
{
	struct partition_config p;
	struct err err = { "" };

	(void)state;
	partition_config_defaults(&p);
	assert_int_equal(config_key_parse(partition_key("mb_max"), &p, "40%", &err), 0);
	assert_int_equal(p.goals.mb_max, 40);
	assert_int_equal(config_key_parse(partition_key("mb_max"), &p, "0", &err), -ERANGE);
	assert_int_equal(p.goals.mb_max, 40); /* a refused value leaves the object as it was */
	assert_non_null(strstr(err.text, "stop all traffic"));
	assert_int_equal(config_key_parse(partition_key("mb_max"), &p, "101", &err), -ERANGE);
	assert_non_null(strstr(err.text, "at most 100"));
	assert_int_equal(config_key_parse(partition_key("class"), &p, "best-effort", &err), 0);
	assert_int_equal(p.goals.class, CLASS_BEST_EFFORT);
	assert_int_equal(config_key_parse(partition_key("class"), &p, "gold", &err), -EINVAL);
	assert_int_equal(config_key_parse(partition_key("l3_cbm"), &p, "ff0", &err), 0);
	assert_true(p.goals.l3_cbm == 0xff0);
	assert_int_equal(config_key_parse(partition_key("l3_cbm"), &p, "0", &err), -EINVAL);
	assert_int_equal(config_key_parse(partition_key("weight"), &p, "10001", &err), -ERANGE);
	assert_int_equal(config_key_parse(partition_key("partid"), &p, "7", &err), 0);
	assert_true(p.has_partid && p.partid == 7 && !p.partid_auto);

	const struct config_key *mb_min = partition_key("mb_min");
	p.goals.mb_min = 0;
	expect_written(&p, mb_min, NULL); /* 0: none */
	assert_int_equal(config_key_parse(mb_min, &p, "15", &err), 0);
	expect_written(&p, mb_min, "15");
	partition_config_fini(NULL, &p);
}

/* Per-domain values are the holder's own: a copy keeps its values when the original is parsed again
 * or cleared, and each is freed once (ASan finds a double free or a leak). */
static void test_per_domain_values_are_their_own(void **state)
{
	struct partition_config p;
	struct partition_goals copy;
	struct err err = { "" };

	(void)state;
	partition_config_defaults(&p);
	assert_int_equal(config_key_parse(partition_key("mb_max"), &p, "50,0=30,4=100", &err), 0);
	assert_int_equal(config_key_parse(partition_key("mb_min"), &p, "3=10", &err), 0);
	assert_int_equal(partition_goals_copy(&copy, &p.goals), 0);
	assert_ptr_not_equal(copy.mb_max_at.at, p.goals.mb_max_at.at);
	assert_int_equal(config_key_parse(partition_key("mb_max"), &p, "60", &err), 0);
	assert_int_equal(config_key_parse(partition_key("mb_min"), &p, "none", &err), 0);
	assert_int_equal(p.goals.mb_max_at.count, 0);
	assert_null(p.goals.mb_max_at.at);
	assert_int_equal(p.goals.mb_min_at.count, 0);
	assert_int_equal(copy.mb_max_at.count, 2);
	assert_int_equal(domain_values_get(&copy.mb_max_at, 4, copy.mb_max), 100);
	assert_int_equal(domain_values_get(&copy.mb_min_at, 3, copy.mb_min), 10);
	/* a refused value leaves the values as they were */
	assert_int_equal(config_key_parse(partition_key("mb_max"), &p, "0=30,0=40", &err), -EINVAL);
	assert_int_equal(p.goals.mb_max_at.count, 0);
	partition_goals_fini(&copy);
	assert_int_equal(copy.mb_max_at.count, 0);
	partition_config_fini(NULL, &p);
}

/* ipc_guard: a decimal fraction, 0 or none for off, only for latency-critical partitions. */
static void test_ipc_guard(void **state)
{
	const struct config_key *k = partition_key("ipc_guard");
	struct partition_config p;
	struct err err = { "" };

	(void)state;
	partition_config_defaults(&p);
	snprintf(p.name, sizeof(p.name), "web");
	expect_written(&p, k, NULL); /* off by default */
	assert_int_equal(config_key_parse(k, &p, "0.25", &err), 0);
	assert_true(p.goals.ipc_guard == 0.25);
	expect_written(&p, k, "0.25");
	static const char *const refused[] = { "1", "0.995", "-0.2", "20%", "x", "0.2.1" };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (config_key_parse(k, &p, refused[i], &err) == 0)
			fail_msg("ipc_guard = %s accepted", refused[i]);
		assert_true(p.goals.ipc_guard == 0.25);
	}
	/* A guard for a partition the guard protects: not for best-effort or default ones. */
	p.goals.class = CLASS_BEST_EFFORT;
	assert_int_equal(config_partition_check(&p, &err), -EINVAL);
	assert_non_null(strstr(err.text, "ipc_guard is only for class = latency-critical"));
	p.goals.class = CLASS_LATENCY_CRITICAL;
	assert_int_equal(config_partition_check(&p, &err), 0);
	assert_int_equal(config_key_parse(k, &p, "none", &err), 0);
	assert_true(p.goals.ipc_guard == 0);
	p.goals.class = CLASS_BEST_EFFORT;
	assert_int_equal(config_partition_check(&p, &err), 0); /* off is fine anywhere */
	partition_config_fini(NULL, &p);
}

static const struct config_key *global_key(const char *name)
{
	return section_key(&config_global_section, name);
}

/* mb_max and mb_min with per-domain values: a value for every domain, values of named domains, both;
 * written back as read; refused values leave the partition as it was. */
static void test_per_domain_limits(void **state)
{
	const struct config_key *max = partition_key("mb_max"), *min = partition_key("mb_min");
	struct partition_config p;
	struct err err = { "" };

	(void)state;
	partition_config_defaults(&p);
	assert_int_equal(config_key_parse(max, &p, "0=30, 1=100%", &err), 0);
	assert_int_equal(p.goals.mb_max, 100); /* not named: the default */
	assert_int_equal(p.goals.mb_max_at.count, 2);
	assert_int_equal(domain_values_get(&p.goals.mb_max_at, 0, p.goals.mb_max), 30);
	assert_int_equal(domain_values_get(&p.goals.mb_max_at, 1, p.goals.mb_max), 100);
	assert_int_equal(domain_values_get(&p.goals.mb_max_at, 7, p.goals.mb_max), 100);
	expect_written(&p, max, "0=30,1=100");
	assert_int_equal(config_key_parse(max, &p, "50,3=20", &err), 0);
	expect_written(&p, max, "50,3=20");
	assert_int_equal(domain_values_get(&p.goals.mb_max_at, 0, p.goals.mb_max), 50);
	assert_int_equal(domain_values_get(&p.goals.mb_max_at, 3, p.goals.mb_max), 20);
	json_t *j = max->type->to_json(&p, max);
	assert_int_equal(json_integer_value(json_object_get(j, "all")), 50);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "domains"), "3")), 20);
	json_decref(j);
	/* One value again: no per-domain values left, written as before. */
	assert_int_equal(config_key_parse(max, &p, "60", &err), 0);
	assert_int_equal(p.goals.mb_max_at.count, 0);
	expect_written(&p, max, "60");

	static const char *const refused[] = { "0=30,0=40",  "0=0",   "0=101", "x=30",	    "70000=30", "50,60",
					       "0=30,,1=40", "0=30,", "=30",   "0=30 1=40", "0=",	"" };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (config_key_parse(max, &p, refused[i], &err) == 0)
			fail_msg("mb_max = %s accepted", refused[i]);
		assert_int_equal(p.goals.mb_max, 60);
		assert_int_equal(p.goals.mb_max_at.count, 0);
	}
	char many[1024] = "";
	for (unsigned d = 0; d <= DOMAIN_VALUES_MAX; d++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%u=50", d ? "," : "", d);
	assert_int_equal(config_key_parse(max, &p, many, &err), -EINVAL);
	assert_non_null(strstr(err.text, "at most"));

	/* mb_min: none on one domain (0) beside a minimum elsewhere; none clears every domain. */
	assert_int_equal(config_key_parse(min, &p, "20,1=0", &err), 0);
	assert_int_equal(domain_values_get(&p.goals.mb_min_at, 1, p.goals.mb_min), 0);
	expect_written(&p, min, "20,1=0");
	assert_int_equal(config_key_parse(min, &p, "0=10", &err), 0);
	expect_written(&p, min, "0=10"); /* none elsewhere: left out */
	assert_int_equal(config_key_parse(min, &p, "none", &err), 0);
	assert_int_equal(p.goals.mb_min_at.count, 0);
	expect_written(&p, min, NULL);

	/* The rule between them holds on each domain. */
	assert_int_equal(config_key_parse(max, &p, "100,1=20", &err), 0);
	assert_int_equal(config_key_parse(min, &p, "10", &err), 0);
	assert_int_equal(config_partition_check(&p, &err), 0);
	assert_int_equal(config_key_parse(min, &p, "0=30", &err), 0);
	assert_int_equal(config_partition_check(&p, &err), 0); /* 30 on domain 0, whose ceiling is 100 */
	assert_int_equal(config_key_parse(min, &p, "30", &err), 0);
	assert_int_equal(config_partition_check(&p, &err), -EINVAL);
	assert_non_null(strstr(err.text, "on domain 1"));
	partition_config_fini(NULL, &p);
}

/* capacity_mbps: per domain too; its per-domain values may be 0 (unknown there). */
static void test_per_domain_capacity(void **state)
{
	const struct config_key *k = global_key("capacity_mbps");
	struct global_config g = { 0 };
	struct err err = { "" };

	(void)state;
	expect_written(&g, k, NULL);
	assert_int_equal(config_key_parse(k, &g, "0=12000,1=8000", &err), 0);
	assert_int_equal(g.capacity_mbps, 0);
	assert_int_equal(domain_values_get(&g.capacity_mbps_at, 1, g.capacity_mbps), 8000);
	expect_written(&g, k, "0=12000,1=8000");
	json_t *j = k->type->to_json(&g, k);
	assert_true(json_is_null(json_object_get(j, "all")));
	json_decref(j);
	assert_int_equal(config_key_parse(k, &g, "10000", &err), 0);
	assert_int_equal(g.capacity_mbps_at.count, 0);
	assert_int_equal(config_key_parse(k, &g, "0", &err), -ERANGE);
}

/* record_max_bytes: bytes or K/M/G (powers of 1024), 0 or none for no cap, a floor that holds a
 * few ticks, and written back with the largest exact suffix. */
static void test_record_max_bytes(void **state)
{
	const struct config_key *k = global_key("record_max_bytes");
	struct global_config g = { 0 };
	struct err err = { "" };

	(void)state;
	assert_int_equal(config_key_parse(k, &g, "64M", &err), 0);
	assert_true(g.record_max_bytes == 64ull << 20);
	expect_written(&g, k, "64M");
	assert_int_equal(config_key_parse(k, &g, "512k", &err), 0);
	assert_true(g.record_max_bytes == 512ull << 10);
	assert_int_equal(config_key_parse(k, &g, "2g", &err), 0);
	assert_true(g.record_max_bytes == 2ull << 30);
	assert_int_equal(config_key_parse(k, &g, "1000000", &err), 0);
	assert_true(g.record_max_bytes == 1000000);
	expect_written(&g, k, "1000000");
	assert_int_equal(config_key_parse(k, &g, "none", &err), 0);
	assert_true(g.record_max_bytes == 0);
	expect_written(&g, k, NULL); /* no cap: "none" */
	g.record_max_bytes = 1;
	assert_int_equal(config_key_parse(k, &g, "0", &err), 0);
	assert_true(g.record_max_bytes == 0);

	static const char *const refused[] = { "65535", "1K", "63K", "1.5M", "10X", "-1M", "M", "64 M", "99999999999G" };
	g.record_max_bytes = 12345;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (config_key_parse(k, &g, refused[i], &err) == 0)
			fail_msg("record_max_bytes = %s accepted", refused[i]);
		assert_true(g.record_max_bytes == 12345); /* left as it was */
	}
	assert_int_equal(config_key_parse(k, &g, "1K", &err), -ERANGE);
	assert_string_equal(err.text, "at least 64K, so that the file holds a few ticks (or 0 or none: no cap)");
}

TEST_MAIN({
	cmocka_unit_test(test_runtime_keys_are_the_goals),
	cmocka_unit_test(test_man_pages_list_the_runtime_keys),
	cmocka_unit_test(test_completion_lists_the_runtime_keys),
	cmocka_unit_test(test_man_page_documents_every_key),
	cmocka_unit_test(test_each_parser_alone),
	cmocka_unit_test(test_ipc_guard),
	cmocka_unit_test(test_record_max_bytes),
	cmocka_unit_test(test_per_domain_limits),
	cmocka_unit_test(test_per_domain_capacity),
	cmocka_unit_test(test_per_domain_values_are_their_own),
})
