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
#include "tests/util/testutil.h"

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

/* An empty sysfs root. */
static void tree_new(struct tree *t)
{
	make_test_dir(t->root, sizeof(t->root), "sysfs");
	snprintf(t->driver, sizeof(t->driver), "%s%s", t->root, KERNEL_MPAM_DRIVER_DIR);
}

/* The mpam_msc driver directory, holding what a driver directory holds besides devices (uevent, and a
 * module link for a modular driver). */
static void tree_register(struct tree *t)
{
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

/* Every test's sysfs root (empty until the test fills it), a configuration without the opt-in, and
 * what the checks return. */
struct fixture {
	struct tree t;
	struct kernel_mpam k;
	struct config c;
	struct err err;
	bool beside;
};

static int setup(void **state)
{
	static struct fixture f;

	f = (struct fixture){ .c = config_with(false), .err = { "" }, .beside = true };
	tree_new(&f.t);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tree_free(&f->t);
	return 0;
}

static void test_no_driver_directory(void **state)
{
	struct fixture *f = *state;

	kernel_mpam_detect(f->t.root, false, &f->k);
	assert_false(kernel_mpam_present(&f->k));
	assert_int_equal(kernel_mpam_allow(&f->c, &f->k, KERNEL_MPAM_CONTROLS, &f->beside, &f->err), 0);
	assert_false(f->beside);
}

static void test_registered_but_nothing_bound(void **state)
{
	struct fixture *f = *state;

	tree_register(&f->t);
	kernel_mpam_detect(f->t.root, false, &f->k);
	assert_int_equal(f->k.bound, 0); /* neither uevent nor the module link is a device */
	assert_false(kernel_mpam_present(&f->k));
}

static void test_bound_driver_refuses_both_uses(void **state)
{
	struct fixture *f = *state;

	tree_register(&f->t);
	tree_bind(&f->t, "ARMHAA5C:01");
	tree_bind(&f->t, "ARMHAA5C:00");
	kernel_mpam_detect(f->t.root, false, &f->k);
	assert_int_equal(f->k.bound, 2);
	assert_string_equal(f->k.example, "ARMHAA5C:00");
	assert_true(kernel_mpam_present(&f->k));

	assert_int_equal(kernel_mpam_allow(&f->c, &f->k, KERNEL_MPAM_MONITORS, &f->beside, &f->err), -EBUSY);
	assert_false(f->beside);
	printf("%s\n", f->err.text);
	assert_non_null(strstr(f->err.text,
			       "MMIO monitoring refused: the kernel's MPAM driver (mpam_msc) is bound to 2 "
			       "MSCs (ARMHAA5C:00, ...)"));
	assert_non_null(strstr(f->err.text, "MSMON_CFG_MON_SEL under its own lock"));
	assert_non_null(strstr(f->err.text, "disables MPAM until reboot"));
	assert_non_null(strstr(f->err.text, "monitor = resctrl on Linux 7.3+"));
	/* Whole: the advice at the end is not cut off. */
	assert_non_null(strstr(f->err.text, "set mmio_beside_kernel = yes in [global] to accept the risk"));

	assert_int_equal(kernel_mpam_allow(&f->c, &f->k, KERNEL_MPAM_CONTROLS, &f->beside, &f->err), -EBUSY);
	printf("%s\n", f->err.text);
	assert_non_null(strstr(f->err.text, "MMIO control refused"));
	assert_non_null(strstr(f->err.text, "MPAMCFG_PART_SEL"));
	assert_non_null(strstr(f->err.text, "Use backend = resctrl"));
	assert_non_null(strstr(f->err.text, "to accept the risk"));
}

static void test_resctrl_control_is_the_kernel(void **state)
{
	struct fixture *f = *state;

	/* Even where sysfs shows no driver (the empty root): resctrl on MPAM is the kernel's driver. */
	kernel_mpam_detect(f->t.root, true, &f->k);
	assert_true(kernel_mpam_present(&f->k));
	assert_int_equal(kernel_mpam_allow(&f->c, &f->k, KERNEL_MPAM_MONITORS, &f->beside, &f->err), -EBUSY);
	assert_non_null(strstr(f->err.text, "resctrl is the control"));
	kernel_mpam_why_not(&f->k, KERNEL_MPAM_MONITORS, &f->err);
	assert_non_null(strstr(f->err.text, "MSMON_CFG_MON_SEL"));
	assert_non_null(strstr(f->err.text, "mmio_beside_kernel = yes"));
}

/* A driver directory that cannot be read may hide a bound driver: refused like one. */
static void test_unreadable_directory_counts_as_bound(void **state)
{
	struct fixture *f = *state;

	run("mkdir -p '%s/bus/platform/drivers' && touch '%s'", f->t.root, f->t.driver); /* a file: ENOTDIR */
	kernel_mpam_detect(f->t.root, false, &f->k);
	assert_true(kernel_mpam_present(&f->k));
	assert_int_equal(kernel_mpam_allow(&f->c, &f->k, KERNEL_MPAM_CONTROLS, &f->beside, &f->err), -EBUSY);
	assert_non_null(strstr(f->err.text, "cannot tell whether the kernel's MPAM driver is bound"));
	assert_non_null(strstr(f->err.text, "Not a directory"));
}

static void test_opt_in_allows_and_marks_the_access(void **state)
{
	struct fixture *f = *state;
	struct msc_probe_opts access = { .monitor_only = true };

	f->c.global.mmio_beside_kernel = true;
	tree_register(&f->t);
	tree_bind(&f->t, "ARMHAA5C:00");
	unsigned long warnings = log_count(LOG_LEVEL_WARNING);
	assert_int_equal(kernel_mpam_check(&f->c, false, f->t.root, KERNEL_MPAM_MONITORS, &access, &f->err), 0);
	assert_true(access.beside_kernel);
	assert_true(access.monitor_only);
	assert_int_equal(log_count(LOG_LEVEL_WARNING), warnings + 1); /* the risk is said, once */
	/* Without a kernel driver, the opt-in changes nothing. */
	tree_free(&f->t);
	tree_new(&f->t);
	access = (struct msc_probe_opts){ 0 };
	assert_int_equal(kernel_mpam_check(&f->c, false, f->t.root, KERNEL_MPAM_CONTROLS, &access, &f->err), 0);
	assert_false(access.beside_kernel);
	/* And without the opt-in a bound driver is refused. */
	tree_free(&f->t);
	tree_new(&f->t);
	tree_register(&f->t);
	tree_bind(&f->t, "msc@10000000");
	f->c.global.mmio_beside_kernel = false;
	assert_int_equal(kernel_mpam_check(&f->c, false, f->t.root, KERNEL_MPAM_CONTROLS, &access, &f->err), -EBUSY);
	assert_non_null(strstr(f->err.text, "bound to 1 MSC (msc@10000000)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_no_driver_directory),
		fixture_test(test_registered_but_nothing_bound),
		fixture_test(test_bound_driver_refuses_both_uses),
		fixture_test(test_resctrl_control_is_the_kernel),
		fixture_test(test_unreadable_directory_counts_as_bound),
		fixture_test(test_opt_in_allows_and_marks_the_access),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
