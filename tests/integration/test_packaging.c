/* What an install puts on a host: the unit file passes systemd-analyze verify (with the binaries and
 * man pages it names in place), the sysusers.d entry creates group mpamd, and a reinstall keeps the
 * operator's /etc/mpamd/mpamd.ini. Everything goes to a DESTDIR staging tree under /tmp. The unit lets
 * mpamd write node_exporter's textfile directories, and the directories check-config --host holds a
 * record or textfile to are exactly those the unit lets mpamd write. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/check_outputs.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static char stage[64];

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	if (rc != 0)
		fail_msg("'%s' exited %d", cmd, rc);
}

static int setup(void **state)
{
	(void)state;
	make_test_dir(stage, sizeof(stage), "install");
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "DESTDIR=%s '%s' --install '%s' --prefix /usr >%s/install.log 2>&1", stage,
		 CMAKE_COMMAND, BUILD_DIR, stage);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(stage);
}

static void test_unit_file_verifies(void **state)
{
	(void)state;
	/* The staged copy differs only in where the binaries are: verify checks they are executable. */
	sh("sed 's|/usr/sbin/mpamd|%s/usr/sbin/mpamd|' %s/usr/lib/systemd/system/mpamd.service >%s/mpamd.service",
	   stage, stage, stage);
	sh("cmp -s %s/usr/lib/systemd/system/mpamd.service %s/etc/mpamd.service", stage, MPAMD_SOURCE_DIR);
	sh("cd %s && MANPATH=%s/usr/share/man systemd-analyze verify ./mpamd.service >verify.log 2>&1", stage, stage);
	char path[128];
	snprintf(path, sizeof(path), "%s/verify.log", stage);
	char *log = read_text_file(path);
	assert_non_null(log);
	if (log[0])
		fail_msg("systemd-analyze verify said:\n%s", log);
	free(log);
	/* What the unit promises the daemon: it starts with the installed default and tells systemd. */
	snprintf(path, sizeof(path), "%s/mpamd.service", stage);
	char *unit = read_text_file(path);
	assert_non_null(strstr(unit, "Type=notify\n"));
	assert_non_null(strstr(unit, "RuntimeDirectory=mpamd\n"));
	assert_non_null(strstr(unit, "ProtectSystem=strict\n"));
	assert_non_null(strstr(unit, "ReadWritePaths=-/sys/fs/resctrl"));
	assert_non_null(strstr(unit, "DeviceAllow=/dev/mem rw\n"));
	assert_non_null(strstr(unit, "CapabilityBoundingSet="));
	assert_non_null(strstr(unit, "-c /etc/mpamd/mpamd.ini"));
	assert_non_null(strstr(unit, "--on-stop configured")); /* no cut outlives mpamd */
	free(unit);
}

static void test_sysusers_creates_the_group(void **state)
{
	char path[128];

	(void)state;
	sh("mkdir -p %s/etc && systemd-sysusers --root=%s %s/usr/lib/sysusers.d/mpamd.conf >/dev/null 2>&1", stage,
	   stage, stage);
	snprintf(path, sizeof(path), "%s/etc/group", stage);
	char *group = read_text_file(path);
	assert_non_null(group);
	if (strncmp(group, "mpamd:x:", 8) != 0 && !strstr(group, "\nmpamd:x:"))
		fail_msg("no group mpamd in %s:\n%s", path, group);
	free(group);
}

static void test_reinstall_keeps_the_operators_config(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/etc/mpamd/mpamd.ini", stage);
	sh("cmp -s %s %s/etc/mpamd.ini", path, MPAMD_SOURCE_DIR);
	sh("echo '; edited by the operator' >>%s", path);
	sh("DESTDIR=%s '%s' --install '%s' --prefix /usr >/dev/null 2>&1", stage, CMAKE_COMMAND, BUILD_DIR);
	char *conf = read_text_file(path);
	assert_non_null(strstr(conf, "; edited by the operator"));
	free(conf);
	/* The installed default is a valid file, and the one mpamd reads without -c. */
	sh("'%s' check-config %s >/dev/null 2>&1", MPAMCTL, path);
}

static bool in_list(const char *const *dirs, size_t count, const char *dir)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(dirs[i], dir))
			return true;
	return false;
}

/* The unit's StateDirectory=, RuntimeDirectory= and ReadWritePaths= (without "-", and without /sys,
 * where mpamd writes no file of its own) as paths. */
static size_t unit_dirs(const char *unit, char dirs[][128], size_t max)
{
	size_t count = 0;

	for (const char *line = unit; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");
		char value[512];
		if (!strncmp(line, "StateDirectory=", 15) && count < max)
			snprintf(dirs[count++], 128, "/var/lib/%.*s", (int)(len - 15), line + 15);
		else if (!strncmp(line, "RuntimeDirectory=", 17) && count < max)
			snprintf(dirs[count++], 128, "/run/%.*s", (int)(len - 17), line + 17);
		if (strncmp(line, "ReadWritePaths=", 15))
			continue;
		snprintf(value, sizeof(value), "%.*s", (int)(len - 15), line + 15);
		for (char *save, *word = strtok_r(value, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
			word += *word == '-';
			if (strncmp(word, "/sys/", 5) && count < max)
				snprintf(dirs[count++], 128, "%s", word);
		}
	}
	return count;
}

static void test_unit_writable_directories(void **state)
{
	char dirs[16][128];
	const char *names[16];

	(void)state;
	char *unit = read_text_file(MPAMD_SOURCE_DIR "/etc/mpamd.service");
	assert_non_null(unit);
	size_t count = unit_dirs(unit, dirs, 16);
	for (size_t i = 0; i < count; i++)
		names[i] = dirs[i];
	assert_true(in_list(names, count, "/var/lib/prometheus/node-exporter"));
	assert_true(in_list(names, count, "/var/lib/node_exporter/textfile_collector"));
	assert_non_null(strstr(unit, "-/var/lib/prometheus/node-exporter")); /* missing is fine */
	size_t known = 0;
	for (; unit_writable_dirs[known]; known++)
		if (!in_list(names, count, unit_writable_dirs[known]))
			fail_msg("check-config names %s, which the unit does not let mpamd write",
				 unit_writable_dirs[known]);
	for (size_t i = 0; i < count; i++)
		if (!in_list(unit_writable_dirs, known, dirs[i]))
			fail_msg("the unit lets mpamd write %s, which check-config does not know", dirs[i]);
	assert_string_equal(unit_writable_dirs[0], "/var/lib/mpamd"); /* the ones the unit makes come first */
	assert_string_equal(unit_writable_dirs[1], "/run/mpamd");
	free(unit);
}

TEST_MAIN({
	fixture_test(test_unit_file_verifies),
	fixture_test(test_unit_writable_directories),
	fixture_test(test_sysusers_creates_the_group),
	fixture_test(test_reinstall_keeps_the_operators_config),
})
