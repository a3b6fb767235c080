/* [vm-template]: which template a VM falls under (the first whose pattern matches), and the desired
 * set of partitions the file and the running VMs make together (config_instantiate), table-tested. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/config/config.h"
#include "core/engine/registry.h"
#include "tests/util/engine_util.h"
#include "tests/util/test_main.h"

static const char file_text[] = "[global]\n"			/* 1 */
				"backend = resctrl\n"		/* 2 */
				"[partition \"web\"]\n"		/* 3 */
				"vm = web-01\n"			/* 4 */
				"class = latency-critical\n"	/* 5 */
				"[partition \"batch\"]\n"	/* 6 */
				"cgroup = batch.slice\n"	/* 7 */
				"[vm-template \"tenants\"]\n"	/* 8 */
				"match = tenant-*\n"		/* 9 */
				"class = best-effort\n"		/* 10 */
				"mb_max = 50\n"			/* 11 */
				"threads = vcpu\n"		/* 12 */
				"[vm-template \"databases\"]\n" /* 13 */
				"match = db-[0-9]\n"		/* 14 */
				"target_mbps = 3000\n"		/* 15 */
				"[vm-template \"others\"]\n"	/* 16 */
				"match = *\n"			/* 17 */
				"weight = 50\n";		/* 18 */

static void test_first_matching_template_wins(void **state)
{
	static const struct {
		const char *vm;
		const char *template_name; /* NULL: none */
	} cases[] = {
		{ "tenant-1", "tenants" }, { "tenant-", "tenants" }, { "db-7", "databases" },
		{ "db-77", "others" },	   { "tenant", "others" },   { "web-01", "others" },
		{ "Tenant-1", "others" },  { "db-x", "others" },     { "tenant-a-b", "tenants" },
	};
	struct config *c = config_from_text(file_text);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct vm_template *t = config_template_for(c, cases[i].vm);
		if (!t || strcmp(t->name, cases[i].template_name))
			fail_msg("VM %s: template %s, expected %s", cases[i].vm, t ? t->name : "(none)",
				 cases[i].template_name);
	}
	config_free(c);

	/* Without a catch-all, a VM no pattern takes has no template. */
	c = config_from_text("[vm-template \"t\"]\nmatch = tenant-?\n");
	assert_non_null(config_template_for(c, "tenant-1"));
	assert_null(config_template_for(c, "tenant-10"));
	assert_null(config_template_for(c, "web"));
	config_free(c);
}

struct skips {
	char text[8][160];
	size_t count;
};

static void note_skip(void *ctx, const char *vm, const char *template_name, const char *why)
{
	struct skips *s = ctx;

	if (s->count < 8)
		snprintf(s->text[s->count++], sizeof(s->text[0]), "%s/%s: %s", vm, template_name, why);
}

static const struct partition_config *find(const struct config *c, const char *name, size_t *ret_index)
{
	for (size_t i = 0; i < c->partition_count; i++) {
		if (!strcmp(c->partitions[i].name, name)) {
			*ret_index = i;
			return &c->partitions[i];
		}
	}
	return NULL;
}

/* The desired set: the file's partitions first, unchanged, then one partition per VM a template
 * takes, named after it, with the template's keys and vm = its name; VMs a file partition holds
 * already, and names that are not partition names, are skipped with the reason. */
static void test_desired_set(void **state)
{
	static const struct {
		const char *vm;
		const char *origin; /* NULL: no partition of its own */
		const char *skip_reason;
	} vms[] = {
		{ "tenant-1", "tenants", NULL },
		{ "db-3", "databases", NULL },
		{ "misc", "others", NULL },
		{ "web-01", NULL, "partition \"web\" (line 3) has it as its vm" },
		{ "batch", NULL, "the file has a partition of that name (line 6)" },
		{ "tenant two", NULL, "not a partition name" },
	};
	const char *names[sizeof(vms) / sizeof(vms[0])];
	struct config *file = config_from_text(file_text);
	struct skips skips = { .count = 0 };
	struct config_instances out = { .skipped = note_skip, .ctx = &skips };
	struct err err = { "" };

	(void)state;
	for (size_t i = 0; i < sizeof(vms) / sizeof(vms[0]); i++)
		names[i] = vms[i].vm;
	assert_int_equal(config_instantiate(file, names, sizeof(vms) / sizeof(vms[0]), &out, &err), 0);
	assert_int_equal(out.config->partition_count, 2 + 3);
	assert_string_equal(out.config->partitions[0].name, "web");
	assert_string_equal(out.config->partitions[1].name, "batch");
	assert_null(out.origins[0]);
	assert_null(out.origins[1]);
	assert_int_equal(out.config->template_count, 3);
	for (size_t i = 0; i < sizeof(vms) / sizeof(vms[0]); i++) {
		size_t index = 0;
		const struct partition_config *p = find(out.config, vms[i].vm, &index);
		if (!vms[i].origin) {
			bool file_partition = p && index < 2;
			assert_true(!p || file_partition);
			bool said = false;
			for (size_t s = 0; s < skips.count; s++)
				said |= strstr(skips.text[s], vms[i].vm) && strstr(skips.text[s], vms[i].skip_reason);
			if (!said)
				fail_msg("VM %s: no skip saying '%s'", vms[i].vm, vms[i].skip_reason);
			continue;
		}
		if (!p)
			fail_msg("VM %s has no partition", vms[i].vm);
		assert_string_equal(out.origins[index], vms[i].origin);
		assert_string_equal(p->vm, vms[i].vm);
		assert_null(p->cgroup);
		assert_int_equal(p->pid_count, 0);
	}
	assert_int_equal(skips.count, 3);

	size_t i;
	const struct partition_config *tenant = find(out.config, "tenant-1", &i);
	assert_int_equal(tenant->goals.class, CLASS_BEST_EFFORT);
	assert_int_equal(tenant->goals.mb_max, 50);
	assert_int_equal(tenant->threads, THREADS_VCPU);
	/* A finding about it points at the template's lines. */
	assert_int_equal(config_partition_key_line(out.config, tenant, "mb_max"), 11);
	assert_int_equal(tenant->origin.line, 8);
	const struct partition_config *db = find(out.config, "db-3", &i);
	assert_int_equal(db->goals.target_mbps, 3000);
	assert_int_equal(db->threads, THREADS_ALL);
	assert_int_equal(find(out.config, "misc", &i)->goals.weight, 50);

	/* The file itself is untouched. */
	assert_int_equal(file->partition_count, 2);
	free(out.origins);
	config_free(out.config);
	config_free(file);
}

/* No VM, or none a template takes: the desired set is the file's. */
static void test_no_vms(void **state)
{
	struct config *file = config_from_text(file_text);
	struct config_instances out = { 0 };
	struct err err = { "" };

	(void)state;
	assert_int_equal(config_instantiate(file, NULL, 0, &out, &err), 0);
	assert_int_equal(out.config->partition_count, 2);
	free(out.origins);
	config_free(out.config);
	config_free(file);

	file = config_from_text("[partition \"a\"]\n[vm-template \"t\"]\nmatch = t-*\n");
	const char *vms[] = { "web", "db" };
	assert_int_equal(config_instantiate(file, vms, 2, &out, &err), 0);
	assert_int_equal(out.config->partition_count, 1);
	free(out.origins);
	config_free(out.config);
	config_free(file);
}

/* A template's keys are checked like a partition's, wherever the template is. */
static void test_template_keys_checked(void **state)
{
	struct diag_list diags;
	struct config *c = NULL;

	(void)state;
	diag_list_init(&diags, "t.ini");
	assert_int_equal(config_load_string("[vm-template \"t\"]\nmatch = x\nmb_max = 120\ncgroup = a\nmb_mx = 3\n",
					    engine_default_schema(), NULL, &c, &diags),
			 -EINVAL);
	assert_int_equal(diag_error_count(&diags), 3);
	assert_int_equal(diags.items[0].line, 3);
	assert_non_null(strstr(diags.items[1].message, "cgroup cannot be set in a [vm-template]"));
	assert_non_null(strstr(diags.items[2].message, "did you mean 'mb_max'"));
	diag_list_fini(&diags);
}

TEST_MAIN({
	cmocka_unit_test(test_first_matching_template_wins),
	cmocka_unit_test(test_desired_set),
	cmocka_unit_test(test_no_vms),
	cmocka_unit_test(test_template_keys_checked),
})
