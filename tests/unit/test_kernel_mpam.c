/* Finding the kernel's MPAM driver (resctrl as the control, or devices bound to mpam_msc in sysfs) and
 * refusing MMIO beside it unless the configuration accepts the risk. The sysfs trees are fixtures
 * built in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/mmio/kernel_mpam.h"
#include "core/base/log.h"
#include "core/config/model.h"
#include "tests/util/log_capture.h"

struct tree {
	char root[64];
	char driver[128];
};

static void run(const char *fmt, const char *arg1, const char *arg2)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), fmt, arg1, arg2);
	assert_int_equal(system(cmd), 0);
}

/* A sysfs root; with `registered` the mpam_msc driver directory, holding what a driver directory
 * holds besides devices (uevent, and a module link for a modular driver). */
static void tree_new(struct tree *t, bool registered)
{
	snprintf(t->root, sizeof(t->root), "/tmp/mpamd-sysfs-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(t->driver, sizeof(t->driver), "%s%s", t->root, KERNEL_MPAM_DRIVER_DIR);
	if (!registered)
		return;
	run("mkdir -p '%s' '%s/../../../../module/mpam'", t->driver, t->driver);
	run("touch '%s/uevent' && ln -s ../../../../module/mpam '%s/module'", t->driver, t->driver);
}

/* A device bound to the driver: a link to its directory under devices/. */
static void tree_bind(struct tree *t, const char *name)
{
	char target[256];

	snprintf(target, sizeof(target), "%s/devices/platform/%s", t->root, name);
	run("mkdir -p '%s'%s", target, "");
	char link[256];
	snprintf(link, sizeof(link), "%s/%s", t->driver, name);
	assert_int_equal(symlink(target, link), 0);
}

static void tree_free(struct tree *t)
{
	run("rm -rf '%s'%s", t->root, "");
}

static struct config config_with(bool beside)
{
	struct config c;

	memset(&c, 0, sizeof(c));
	global_config_defaults(&c.global);
	c.global.mmio_beside_kernel = beside;
	return c;
}

static void test_no_driver_directory(void **state)
{
	struct tree t;
	struct kernel_mpam k;
	struct config c = config_with(false);
	struct err err = { "" };
	bool beside = true;

	(void)state;
	tree_new(&t, false);
	kernel_mpam_detect(t.root, false, &k);
	assert_false(kernel_mpam_present(&k));
	assert_int_equal(kernel_mpam_allow(&c, &k, KERNEL_MPAM_CONTROLS, &beside, &err), 0);
	assert_false(beside);
	tree_free(&t);
}

static void test_registered_but_nothing_bound(void **state)
{
	struct tree t;
	struct kernel_mpam k;

	(void)state;
	tree_new(&t, true);
	kernel_mpam_detect(t.root, false, &k);
	assert_int_equal(k.bound, 0); /* neither uevent nor the module link is a device */
	assert_false(kernel_mpam_present(&k));
	tree_free(&t);
}

static void test_bound_driver_refuses_both_uses(void **state)
{
	struct tree t;
	struct kernel_mpam k;
	struct config c = config_with(false);
	struct err err = { "" };
	bool beside = true;

	(void)state;
	tree_new(&t, true);
	tree_bind(&t, "ARMHAA5C:01");
	tree_bind(&t, "ARMHAA5C:00");
	kernel_mpam_detect(t.root, false, &k);
	assert_int_equal(k.bound, 2);
	assert_string_equal(k.example, "ARMHAA5C:00");
	assert_true(kernel_mpam_present(&k));

	assert_int_equal(kernel_mpam_allow(&c, &k, KERNEL_MPAM_MONITORS, &beside, &err), -EBUSY);
	assert_false(beside);
	printf("%s\n", err.text);
	assert_non_null(strstr(err.text, "MMIO monitoring refused: the kernel's MPAM driver (mpam_msc) is bound to 2 "
					 "MSCs (ARMHAA5C:00, ...)"));
	assert_non_null(strstr(err.text, "MSMON_CFG_MON_SEL under its own lock"));
	assert_non_null(strstr(err.text, "disables MPAM until reboot"));
	assert_non_null(strstr(err.text, "monitor = resctrl on Linux 7.3+"));
	/* Whole: the advice at the end is not cut off. */
	assert_non_null(strstr(err.text, "set mmio_beside_kernel = yes in [global] to accept the risk"));

	assert_int_equal(kernel_mpam_allow(&c, &k, KERNEL_MPAM_CONTROLS, &beside, &err), -EBUSY);
	printf("%s\n", err.text);
	assert_non_null(strstr(err.text, "MMIO control refused"));
	assert_non_null(strstr(err.text, "MPAMCFG_PART_SEL"));
	assert_non_null(strstr(err.text, "Use backend = resctrl"));
	assert_non_null(strstr(err.text, "to accept the risk"));
	tree_free(&t);
}

static void test_resctrl_control_is_the_kernel(void **state)
{
	struct tree t;
	struct kernel_mpam k;
	struct config c = config_with(false);
	struct err err = { "" };
	bool beside;

	(void)state;
	tree_new(&t, false); /* even where sysfs shows no driver: resctrl on MPAM is the kernel's driver */
	kernel_mpam_detect(t.root, true, &k);
	assert_true(kernel_mpam_present(&k));
	assert_int_equal(kernel_mpam_allow(&c, &k, KERNEL_MPAM_MONITORS, &beside, &err), -EBUSY);
	assert_non_null(strstr(err.text, "resctrl is the control"));
	kernel_mpam_why_not(&k, KERNEL_MPAM_MONITORS, &err);
	assert_non_null(strstr(err.text, "MSMON_CFG_MON_SEL"));
	assert_non_null(strstr(err.text, "mmio_beside_kernel = yes"));
	tree_free(&t);
}

/* A driver directory that cannot be read may hide a bound driver: refused like one. */
static void test_unreadable_directory_counts_as_bound(void **state)
{
	struct tree t;
	struct kernel_mpam k;
	struct config c = config_with(false);
	struct err err = { "" };
	bool beside;

	(void)state;
	tree_new(&t, false);
	run("mkdir -p '%s/bus/platform/drivers' && touch '%s'", t.root, t.driver); /* a file: ENOTDIR */
	kernel_mpam_detect(t.root, false, &k);
	assert_true(kernel_mpam_present(&k));
	assert_int_equal(kernel_mpam_allow(&c, &k, KERNEL_MPAM_CONTROLS, &beside, &err), -EBUSY);
	assert_non_null(strstr(err.text, "cannot tell whether the kernel's MPAM driver is bound"));
	assert_non_null(strstr(err.text, "Not a directory"));
	tree_free(&t);
}

static void test_opt_in_allows_and_marks_the_access(void **state)
{
	struct tree t;
	struct config c = config_with(true);
	struct msc_probe_opts access = { .monitor_only = true };
	struct err err = { "" };

	(void)state;
	tree_new(&t, true);
	tree_bind(&t, "ARMHAA5C:00");
	unsigned long warnings = log_count(LOG_LEVEL_WARNING);
	assert_int_equal(kernel_mpam_check(&c, false, t.root, KERNEL_MPAM_MONITORS, &access, &err), 0);
	assert_true(access.beside_kernel);
	assert_true(access.monitor_only);
	assert_int_equal(log_count(LOG_LEVEL_WARNING), warnings + 1); /* the risk is said, once */
	/* Without a kernel driver, the opt-in changes nothing. */
	tree_free(&t);
	tree_new(&t, false);
	access = (struct msc_probe_opts){ 0 };
	assert_int_equal(kernel_mpam_check(&c, false, t.root, KERNEL_MPAM_CONTROLS, &access, &err), 0);
	assert_false(access.beside_kernel);
	/* And without the opt-in a bound driver is refused. */
	tree_free(&t);
	tree_new(&t, true);
	tree_bind(&t, "msc@10000000");
	c.global.mmio_beside_kernel = false;
	assert_int_equal(kernel_mpam_check(&c, false, t.root, KERNEL_MPAM_CONTROLS, &access, &err), -EBUSY);
	assert_non_null(strstr(err.text, "bound to 1 MSC (msc@10000000)"));
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_driver_directory),
		cmocka_unit_test(test_registered_but_nothing_bound),
		cmocka_unit_test(test_bound_driver_refuses_both_uses),
		cmocka_unit_test(test_resctrl_control_is_the_kernel),
		cmocka_unit_test(test_unreadable_directory_counts_as_bound),
		cmocka_unit_test(test_opt_in_allows_and_marks_the_access),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
