/* The instance lock takes what the composed contracts claim, and knows no backend by name.
 *
 * - A control and a monitor written here, known to no lock code, claim resources of their own: the
 *   lock takes each one, a second taker is refused naming the holder and the resource, and after a
 *   release it gets them.
 * - A control that claims nothing takes no lock even when it is called "resctrl"; one called "sim"
 *   that is not simulated is locked; a simulated control's composition claims nothing, whatever it
 *   and its monitor would name.
 * - A resource the control and the monitor both claim is locked once; monitor = auto asks every
 *   monitor, as a candidate.
 * - The real backends through the default registry: the resctrl root by its real path and each [msc]
 *   window, in the files and messages mpamd has always used.
 * - Lock files do not pile up: a release removes its own, a take removes those nobody holds and
 *   nothing else; a file removed and made again between a taker's open and its flock (fanotify holds
 *   the open while the test does it) is not trusted, so two holders never run at once; a link in a
 *   lock file's place is not followed. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/instance_lock.h"
#include "core/config/config.h"
#include "core/engine/registry.h"
#include "tests/util/engine_util.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static char dir[64];
static char lock_dir[96];

static int setup(void **state)
{
	(void)state;
	make_test_dir(dir, sizeof(dir), "lock");
	snprintf(lock_dir, sizeof(lock_dir), "%s/run", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(dir);
	return 0;
}

static bool lock_file_exists(const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s.lock", lock_dir, name);
	return stat(path, &st) == 0;
}

static void lock_path_of(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", lock_dir, name);
}

/* A file under the lock directory, made there now; locked (its fd returned) or not (-1). */
static int plant(const char *name, bool locked)
{
	char path[512];

	mkdir(lock_dir, 0755);
	lock_path_of(name, path, sizeof(path));
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	if (!locked) {
		close(fd);
		return -1;
	}
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	return fd;
}

static bool exists(const char *name)
{
	char path[512];
	struct stat st;

	lock_path_of(name, path, sizeof(path));
	return lstat(path, &st) == 0;
}

static long lock_file_pid(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.lock", lock_dir, name);
	char *text = read_text_file(path);
	assert_non_null(text);
	long pid = strtol(text, NULL, 10);
	free(text);
	return pid;
}

/* ---- controls and monitors that claim what a test tells them ---- */

static struct {
	unsigned monitor_asked, monitor_asked_automatic;
} seen;

static int claim_device(const struct config *config, const struct claim_sink *sink, struct err *err)
{
	(void)config;
	return claim(sink, "widget/7", "the widget at slot 7", err);
}

static int claim_counter(const struct config *config, bool automatic, const struct claim_sink *sink, struct err *err)
{
	(void)config;
	seen.monitor_asked++;
	seen.monitor_asked_automatic += automatic;
	return claim(sink, "widget-counter", "the widget's counter", err);
}

/* The same resource as the control's, as a monitor reading the control's device would name it. */
static int claim_same_device(const struct config *config, bool automatic, const struct claim_sink *sink,
			     struct err *err)
{
	(void)automatic;
	seen.monitor_asked++;
	return claim_device(config, sink, err);
}

static const struct control_ops widget_control = { .name = "widget", .claims = claim_device };
static const struct control_ops quiet_resctrl = { .name = "resctrl" }; /* claims nothing */
static const struct control_ops real_sim = { .name = "sim", .claims = claim_device };
static const struct control_ops simulated_widget = { .name = "simwidget", .simulated = true, .claims = claim_device };
static const struct monitor_ops widget_counter = { .name = "counter", .claims = claim_counter };
static const struct monitor_ops widget_reader = { .name = "reader", .claims = claim_same_device };
static const struct monitor_ops silent_monitor = { .name = "silent" };

static const struct control_ops *const controls[] = { &widget_control, &quiet_resctrl, &real_sim, &simulated_widget };
static const struct monitor_ops *const monitors[] = { &widget_counter, &widget_reader, &silent_monitor };

static const struct engine_registry registry = {
	.controls = controls,
	.control_count = sizeof(controls) / sizeof(controls[0]),
	.monitors = monitors,
	.monitor_count = sizeof(monitors) / sizeof(monitors[0]),
};

static struct config *widget_config(const char *backend, const char *monitor)
{
	char text[256];

	snprintf(text, sizeof(text), "[global]\nbackend = %s\nmonitor = %s\n[partition \"a\"]\n", backend, monitor);
	memset(&seen, 0, sizeof(seen));
	struct config *config = load_config_for(&registry, text);
	assert_non_null(config);
	return config;
}

/* The locks a configuration of control `backend` and monitor `monitor` takes, in *lock; fails the
 * test when it is refused. */
static void take_for(const char *backend, const char *monitor, struct instance_lock *lock)
{
	struct config *config = widget_config(backend, monitor);
	struct err err = { "" };

	if (instance_lock_take(&registry, config, lock_dir, lock, &err) < 0)
		fail_msg("backend %s, monitor %s: %s", backend, monitor, err.text);
	config_free(config);
}

static void test_claims_are_locked(void **state)
{
	struct config *config = widget_config("widget", "counter");
	struct instance_lock first, second;
	struct err err = { "" };

	(void)state;
	assert_int_equal(instance_lock_take(&registry, config, lock_dir, &first, &err), 0);
	assert_int_equal(first.count, 2);
	assert_true(lock_file_exists("widget-7"));
	assert_true(lock_file_exists("widget-counter"));
	assert_int_equal(lock_file_pid("widget-7"), (long)getpid());
	assert_int_equal(seen.monitor_asked, 1);
	assert_int_equal(seen.monitor_asked_automatic, 0);

	/* flock(2) locks belong to open files: a second taker in this process is refused like another
	 * process, and given nothing. */
	assert_int_equal(instance_lock_take(&registry, config, lock_dir, &second, &err), -EBUSY);
	assert_int_equal(second.count, 0);
	char expected[128];
	snprintf(expected, sizeof(expected), "another mpamd (pid %ld) already manages the widget at slot 7",
		 (long)getpid());
	assert_non_null(strstr(err.text, expected));
	assert_non_null(strstr(err.text, "this one exits having changed nothing"));

	instance_lock_release(&first);
	assert_int_equal(instance_lock_take(&registry, config, lock_dir, &second, &err), 0);
	assert_int_equal(second.count, 2);
	instance_lock_release(&second);
	config_free(config);
}

/* Only the monitor's claim is held elsewhere: the control's lock taken first is let go again. */
static void test_refused_claim_keeps_nothing(void **state)
{
	struct config *mine = widget_config("widget", "counter");
	struct instance_lock held, taken;
	struct err err = { "" };

	(void)state;
	assert_int_equal(instance_lock_take(&registry, mine, lock_dir, &held, &err), 0);
	instance_lock_release(&held);
	/* The counter alone, held by "another" taker: a config whose control claims nothing real. */
	take_for("resctrl", "counter", &held);
	assert_int_equal(held.count, 1);
	assert_int_equal(instance_lock_take(&registry, mine, lock_dir, &taken, &err), -EBUSY);
	assert_non_null(strstr(err.text, "already manages the widget's counter"));
	assert_int_equal(taken.count, 0);
	/* The widget's lock was released with the refusal: anyone may take it now. */
	take_for("widget", "silent", &taken);
	instance_lock_release(&taken);
	instance_lock_release(&held);
	config_free(mine);
}

static void test_names_decide_nothing(void **state)
{
	struct instance_lock lock;

	(void)state;
	/* Called resctrl, claiming nothing: nothing is locked, not even the lock directory made. */
	take_for("resctrl", "silent", &lock);
	assert_int_equal(lock.count, 0);
	assert_int_equal(access(lock_dir, F_OK), -1);

	/* Called sim, but driving hardware: its claim is locked. */
	take_for("sim", "silent", &lock);
	assert_int_equal(lock.count, 1);
	assert_true(lock_file_exists("widget-7"));
	instance_lock_release(&lock);

	/* Simulated: neither the control nor its monitor is asked. */
	take_for("simwidget", "counter", &lock);
	assert_int_equal(lock.count, 0);
	assert_int_equal(seen.monitor_asked, 0);
}

static void test_shared_claim_locked_once(void **state)
{
	struct instance_lock lock;

	(void)state;
	take_for("widget", "reader", &lock);
	assert_int_equal(lock.count, 1);
	assert_int_equal(seen.monitor_asked, 1);
	instance_lock_release(&lock);

	/* auto: each monitor is a candidate, asked as one. */
	take_for("widget", "auto", &lock);
	assert_int_equal(lock.count, 2);
	assert_int_equal(seen.monitor_asked, 2);
	assert_int_equal(seen.monitor_asked_automatic, 1);
	instance_lock_release(&lock);
}

/* ---- the real backends ---- */

static struct config *load_default(const char *text)
{
	struct config *config = load_config_text(text);

	assert_non_null(config);
	return config;
}

static void test_default_backends_claim(void **state)
{
	char text[512], root[160], link[160], name[256];
	struct instance_lock lock, again;
	struct err err = { "" };

	(void)state;
	/* The root through a symbolic link: the lock is the real path's. */
	snprintf(root, sizeof(root), "%s/resctrl", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(symlink(root, link), 0);
	snprintf(text, sizeof(text),
		 "[global]\nbackend = resctrl\nresctrl_root = %s\nmonitor = auto\n"
		 "[msc \"mem0\"]\nbase = 0x7f000000\nsize = 0x4000\n[partition \"a\"]\n",
		 link);
	struct config *config = load_default(text);
	assert_int_equal(instance_lock_take(&engine_registry_default, config, lock_dir, &lock, &err), 0);
	assert_int_equal(lock.count, 2);
	snprintf(name, sizeof(name), "resctrl%s", root);
	for (char *c = name; *c; c++)
		*c = (*c == '/' || *c == '-') ? '-' : *c;
	assert_true(lock_file_exists(name));
	assert_true(lock_file_exists("msc-0x7f000000"));
	assert_int_equal(instance_lock_take(&engine_registry_default, config, lock_dir, &again, &err), -EBUSY);
	assert_non_null(strstr(err.text, root));
	instance_lock_release(&lock);
	config_free(config);

	/* The MMIO control and the MBWU monitor both map the window: one lock, its message. */
	config = load_default("[global]\nbackend = mmio\nmonitor = mmio\n"
			      "[msc \"mem0\"]\nbase = 0x7f000000\nsize = 0x4000\n[partition \"a\"]\npartid = 1\n");
	assert_int_equal(instance_lock_take(&engine_registry_default, config, lock_dir, &lock, &err), 0);
	assert_int_equal(lock.count, 1);
	assert_int_equal(instance_lock_take(&engine_registry_default, config, lock_dir, &again, &err), -EBUSY);
	assert_non_null(strstr(err.text, "the MSC window at 0x7f000000 ([msc \"mem0\"])"));
	instance_lock_release(&lock);
	config_free(config);

	/* The simulator: nothing. */
	config = load_default("[global]\nbackend = sim\n[partition \"a\"]\nsim_demand = 100\n");
	assert_int_equal(instance_lock_take(&engine_registry_default, config, lock_dir, &lock, &err), 0);
	assert_int_equal(lock.count, 0);
	config_free(config);
}

/* ---- lock files that pile up ---- */

/* Left by a kill -9 or an mpamd of other hardware, no process holds them: the first take removes them.
 * One a live process holds, and whatever is not a lock file (a link to another file, a directory, a
 * socket's name), stays; a release removes the files it took. Before, every lock file stayed for ever. */
static void test_stale_lock_files_removed(void **state)
{
	struct config *config = widget_config("widget", "silent");
	struct instance_lock lock;
	struct err err = { "" };
	char target[160], link[512], sub[512];

	(void)state;
	plant("resctrl-tmp-gone.lock", false);
	plant("msc-0x10000000.lock", false);
	int live = plant("resctrl-sys-fs-resctrl.lock", true); /* a running mpamd's, of other hardware */
	plant("mpamd.sock", false);
	snprintf(target, sizeof(target), "%s/precious", dir);
	write_file(target, "precious\n");
	lock_path_of("link.lock", link, sizeof(link));
	assert_int_equal(symlink(target, link), 0);
	lock_path_of("dir.lock", sub, sizeof(sub));
	assert_int_equal(mkdir(sub, 0755), 0);

	assert_int_equal(instance_lock_take(&registry, config, lock_dir, &lock, &err), 0);
	assert_false(exists("resctrl-tmp-gone.lock"));
	assert_false(exists("msc-0x10000000.lock"));
	assert_true(exists("resctrl-sys-fs-resctrl.lock"));
	assert_true(exists("mpamd.sock"));
	assert_true(exists("link.lock"));
	assert_true(exists("dir.lock"));
	assert_int_equal(access(target, F_OK), 0);
	assert_true(lock_file_exists("widget-7"));

	instance_lock_release(&lock);
	assert_false(lock_file_exists("widget-7"));
	assert_true(exists("resctrl-sys-fs-resctrl.lock"));
	close(live);
	config_free(config);
}

/* A symbolic link where a lock file goes is neither followed nor removed: the take is refused naming
 * it, and the file it points to is left as it was. A lock file made is 0644 whatever the umask. */
static void test_link_in_place_of_a_lock(void **state)
{
	struct config *config = widget_config("widget", "silent");
	struct instance_lock lock;
	struct err err = { "" };
	char target[160], link[512];
	struct stat st;

	(void)state;
	plant("placeholder.lock", false);
	snprintf(target, sizeof(target), "%s/precious", dir);
	write_file(target, "precious\n");
	lock_path_of("widget-7.lock", link, sizeof(link));
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(instance_lock_take(&registry, config, lock_dir, &lock, &err), -ELOOP);
	assert_non_null(strstr(err.text, link));
	assert_non_null(strstr(err.text, "symbolic link"));
	assert_true(exists("widget-7.lock"));
	char *text = read_text_file(target);
	assert_string_equal(text, "precious\n");
	free(text);

	unlink(link);
	mode_t old = umask(077);
	assert_int_equal(instance_lock_take(&registry, config, lock_dir, &lock, &err), 0);
	umask(old);
	assert_int_equal(stat(link, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	instance_lock_release(&lock);
	config_free(config);
}

/* The lock file the test holds (a running mpamd's) is replaced whenever the taker opens it: the holder
 * leaves (removes it, lets go) and another takes the path at once (a new file, locked), at most
 * `swaps` times. */
struct churn {
	char path[512];
	int fan, held, swaps;
};

static void churn_answer(struct churn *c)
{
	struct fanotify_event_metadata ev;

	if (read(c->fan, &ev, sizeof(ev)) != (ssize_t)sizeof(ev))
		return;
	if (c->swaps > 0) {
		c->swaps--;
		assert_int_equal(unlink(c->path), 0);
		close(c->held);
		c->held = open(c->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		assert_true(c->held >= 0);
		assert_int_equal(flock(c->held, LOCK_EX | LOCK_NB), 0);
		assert_int_equal(fanotify_mark(c->fan, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, c->path), 0);
	}
	struct fanotify_response allow = { .fd = ev.fd, .response = FAN_ALLOW };
	assert_int_equal(write(c->fan, &allow, sizeof(allow)), (ssize_t)sizeof(allow));
	close(ev.fd);
}

/* A taker in a child: its exit code says what instance_lock_take gave (0 took, 1 refused -EBUSY, 2
 * -EAGAIN, 3 otherwise), while this process holds up its opens of the lock file. */
static int take_under_churn(struct churn *c, const struct config *config)
{
	pid_t child = fork();
	int status;

	assert_true(child >= 0);
	if (child == 0) {
		struct instance_lock lock;
		struct err err = { "" };
		close(c->held); /* the holder's lock is its own, not shared with the taker */
		int r = instance_lock_take(&registry, config, lock_dir, &lock, &err);
		fprintf(stderr, "taker: %d %s\n", r, err.text);
		_exit(r == 0 ? 0 : r == -EBUSY ? 1 : r == -EAGAIN ? 2 : 3);
	}
	while (waitpid(child, &status, WNOHANG) == 0) {
		struct pollfd p = { .fd = c->fan, .events = POLLIN };
		if (poll(&p, 1, 50) > 0)
			churn_answer(c);
	}
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* A taker whose open of the lock file met a file about to be removed must not trust a lock on it once
 * it is gone: an mpamd that came in between holds the path's new file, and the taker is refused. The
 * stale sweep, which met it too, removes nothing a live process holds. Before, the taker locked the
 * removed file and ran beside the other. */
static void test_removed_between_open_and_flock(void **state)
{
	struct config *config = widget_config("widget", "silent");
	struct churn c = { .swaps = 2 };

	(void)state;
	c.fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (c.fan < 0) {
		config_free(config);
		skip(); /* not root, or a kernel without fanotify permission events */
	}
	c.held = plant("widget-7.lock", true);
	lock_path_of("widget-7.lock", c.path, sizeof(c.path));
	assert_int_equal(fanotify_mark(c.fan, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, c.path), 0);

	assert_int_equal(take_under_churn(&c, config), 1);
	assert_int_equal(c.swaps, 0); /* each of the taker's opens met a removal */
	struct stat held, at_path;
	assert_int_equal(fstat(c.held, &held), 0);
	assert_int_equal(stat(c.path, &at_path), 0);
	assert_true(held.st_ino == at_path.st_ino); /* the live holder's file is still there */
	close(c.held);
	close(c.fan);
	config_free(config);
}

TEST_MAIN({
	fixture_test(test_claims_are_locked),
	fixture_test(test_refused_claim_keeps_nothing),
	fixture_test(test_names_decide_nothing),
	fixture_test(test_shared_claim_locked_once),
	fixture_test(test_default_backends_claim),
	fixture_test(test_stale_lock_files_removed),
	fixture_test(test_link_in_place_of_a_lock),
	fixture_test(test_removed_between_open_and_flock),
})
