/* The escalation actuator on this machine's cgroups (v1 cpu controller, or v2 cpu.max). */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/cgroup/cpu_quota.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

struct hierarchy {
	const char *root;  /* where the cpu controller's cgroups are */
	const char *quota; /* the file that holds the quota */
};

static bool find_hierarchy(struct hierarchy *h)
{
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
		*h = (struct hierarchy){ "/sys/fs/cgroup", "cpu.max" };
		return true;
	}
	if (access("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", F_OK) == 0) {
		*h = (struct hierarchy){ "/sys/fs/cgroup/cpu", "cpu.cfs_quota_us" };
		return true;
	}
	return false;
}

static void test_quota_set_and_removed(void **state)
{
	struct hierarchy h = { NULL, NULL };
	char name[64], dir[256], file[320];
	struct err err = { "" };

	(void)state;
	if (getuid() != 0 || !find_hierarchy(&h))
		skip();
	snprintf(name, sizeof(name), "mpamd-test-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", h.root, name);
	snprintf(file, sizeof(file), "%s/%s", dir, h.quota);
	if (mkdir(dir, 0755) < 0)
		skip(); /* a read-only or delegated hierarchy: nothing to test here */
	int r = cgroup_cpu_set_quota(name, 50, &err);
	if (r < 0)
		fail_msg("%s", err.text);
	char *text = read_text_file(file);
	/* Half a CPU: 50 ms in every 100 ms period. */
	assert_non_null(strstr(text, "50000"));
	free(text);
	assert_int_equal(cgroup_cpu_set_quota(name, 0, &err), 0);
	text = read_text_file(file);
	assert_true(strstr(text, "-1") || strstr(text, "max"));
	free(text);
	rmdir(dir);
}

static void test_missing_cgroup_is_an_error(void **state)
{
	struct hierarchy h = { NULL, NULL };
	struct err err = { "" };

	(void)state;
	if (getuid() != 0 || !find_hierarchy(&h))
		skip();
	assert_true(cgroup_cpu_set_quota("mpamd-no-such-group/for-sure", 25, &err) < 0);
	assert_non_null(strstr(err.text, "mpamd-no-such-group/for-sure"));
}

TEST_MAIN({
	cmocka_unit_test(test_quota_set_and_removed),
	cmocka_unit_test(test_missing_cgroup_is_an_error),
})
