/* mpamd as a service: SIGHUP reloads (and an invalid file, or a drop-in that is no file, keeps the
 * running configuration), SIGTERM stops cleanly, the pid file (and what may be planted in its place),
 * and --reset-on-exit. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/engine_util.h"
#include "tests/util/emu_runner.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define WAIT_MS 5000

struct files {
	char dir[64];
	char config[96], record[96], log[96], pid[96];
};

static void make_files(struct files *f)
{
	make_test_dir(f->dir, sizeof(f->dir), "daemon");
	snprintf(f->config, sizeof(f->config), "%s/mpamd.ini", f->dir);
	snprintf(f->record, sizeof(f->record), "%s/run.csv", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/mpamd.log", f->dir);
	snprintf(f->pid, sizeof(f->pid), "%s/mpamd.pid", f->dir);
}

static void remove_files(struct files *f)
{
	char socket[160];
	snprintf(socket, sizeof(socket), "%s/mpamd.sock", f->dir);
	unlink(socket);
	unlink(f->config);
	unlink(f->record);
	unlink(f->log);
	unlink(f->pid);
	rmdir(f->dir);
}

static const char *sim_config(unsigned mb_max)
{
	static char text[256];

	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = 20\n[sim]\ncapacity_mbps = 10000\n"
		 "[partition \"batch\"]\nclass = best-effort\nmb_max = %u\nsim_demand = 20000\n",
		 mb_max);
	return text;
}

static int start_mpamd(struct files *f, const char *extra)
{
	char *argv[] = { MPAMD,	    "-c",	  f->config, "-f",	    "--no-socket", "--record",
			 f->record, "--pid-file", f->pid,    (char *)extra, NULL };

	return spawn_background(argv, f->log);
}

static void test_reload_and_stop(void **state)
{
	struct files f;

	(void)state;
	make_files(&f);
	write_file(f.config, "%s", sim_config(50));
	int pid = start_mpamd(&f, NULL);
	assert_true(pid > 0);
	assert_true(wait_for_text(f.record, ",batch,", WAIT_MS));
	assert_true(wait_for_text(f.record, ",50,0,", WAIT_MS));
	char pidtext[32];
	snprintf(pidtext, sizeof(pidtext), "%d\n", pid);
	assert_true(wait_for_text(f.pid, pidtext, WAIT_MS));

	/* A valid change is picked up on SIGHUP: 30% held as the nearest MBW_MAX band, 77/256 (BWA_WD 8). */
	write_file(f.config, "%s", sim_config(30));
	kill(pid, SIGHUP);
	assert_true(wait_for_text(f.log, "reloaded", WAIT_MS));
	assert_true(wait_for_text(f.record, ",30.078125,0,", WAIT_MS));

	/* An invalid file is reported with its line and the running configuration stays. */
	write_file(f.config, "[global]\nbackend = sim\ninterval_ms = 5\n[partition \"batch\"]\n");
	kill(pid, SIGHUP);
	assert_true(wait_for_text(f.log, "mpamd.ini:3: interval_ms = 5: out of range 10..60000", WAIT_MS));
	assert_true(wait_for_text(f.log, "the running configuration stays", WAIT_MS));
	char *before = read_text_file(f.record);
	usleep(200000);
	char *after = read_text_file(f.record);
	assert_true(strlen(after) > strlen(before)); /* still ticking */
	free(before);
	free(after);

	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid, WAIT_MS), 0);
	assert_true(wait_for_text(f.log, "stopping", 0));
	assert_int_equal(access(f.pid, F_OK), -1); /* removed on the way out */
	remove_files(&f);
}

/* The daemon a test started, killed by the teardown when an assertion failed. */
static int daemon_pid;

static int stop_daemon(void **state)
{
	(void)state;
	kill_daemon(&daemon_pid);
	return 0;
}

/* Still ticking: the record grows. */
static void assert_ticking(const struct files *f)
{
	char *before = read_text_file(f->record);
	usleep(200000);
	char *after = read_text_file(f->record);
	assert_true(strlen(after) > strlen(before));
	free(before);
	free(after);
}

/* A drop-in that is a FIFO, or /dev/zero behind a link, or the file itself a FIFO: the reload is
 * refused at once naming it, the running configuration stays and the loop ticks on (before, the FIFO held the reload for ever and
 * /dev/zero grew mpamd's memory until it was killed). */
static void test_reload_refuses_drop_ins_that_are_not_files(void **state)
{
	struct files f;
	char text[512], fifo[128], zero[128];

	(void)state;
	make_files(&f);
	snprintf(text, sizeof(text), "[global]\ninclude = %s/*.inc\n%s", f.dir, sim_config(50) + strlen("[global]\n"));
	write_file(f.config, "%s", text);
	daemon_pid = start_mpamd(&f, NULL);
	int pid = daemon_pid;
	assert_true(pid > 0);
	assert_true(wait_for_text(f.record, ",batch,", WAIT_MS));

	snprintf(fifo, sizeof(fifo), "%s/10-fifo.inc", f.dir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	kill(pid, SIGHUP);
	snprintf(text, sizeof(text), "mpamd.ini:2: include: %s: a FIFO, not a regular file", fifo);
	assert_true(wait_for_text(f.log, text, WAIT_MS));
	assert_true(wait_for_text(f.log, "the running configuration stays", WAIT_MS));
	assert_ticking(&f);
	unlink(fifo);

	snprintf(zero, sizeof(zero), "%s/20-zero.inc", f.dir);
	assert_int_equal(symlink("/dev/zero", zero), 0);
	kill(pid, SIGHUP);
	snprintf(text, sizeof(text), "include: %s: a character device, not a regular file", zero);
	assert_true(wait_for_text(f.log, text, WAIT_MS));
	assert_ticking(&f);
	unlink(zero);

	/* The main file itself: said without a line number. */
	unlink(f.config);
	assert_int_equal(mkfifo(f.config, 0644), 0);
	kill(pid, SIGHUP);
	snprintf(text, sizeof(text), "error: %s: a FIFO, not a regular file", f.config);
	assert_true(wait_for_text(f.log, text, WAIT_MS));
	assert_ticking(&f);

	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid, WAIT_MS), 0);
	daemon_pid = 0;
	assert_int_equal(remove_tree(f.dir), 0);
}

/* A process that puts `path` in mpamd's way: as `uid`, named `comm`, the file holding its own pid and
 * locked (flock) by it, until it is killed. */
static pid_t plant_pid_file(const char *path, uid_t uid, const char *comm)
{
	int ready[2];
	char c;

	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (uid && (setgid(uid) < 0 || setuid(uid) < 0))
			_exit(10);
		prctl(PR_SET_NAME, comm);
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0 || flock(fd, LOCK_EX) < 0)
			_exit(11);
		if (write(ready[1], "x", 1) != 1)
			_exit(12);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

/* mpamd --ticks 1 with --pid-file `path` starts, replacing what was there and saying why. */
static void assert_replaced(const struct files *f, const char *path, const char *why)
{
	char *argv[] = { MPAMD,	    "-c", (char *)f->config, "-f",	   "--no-socket",
			 "--ticks", "1",  "--pid-file",	     (char *)path, NULL };
	struct run_result r;
	char expect[256];

	assert_int_equal(run_command(argv, &r), 0);
	snprintf(expect, sizeof(expect), "pid file %s: %s: replaced", path, why);
	if (r.exit_code != 0 || !strstr(r.err, expect))
		fail_msg("expected '%s', got exit %d:\n%s", expect, r.exit_code, r.err);
	run_result_fini(&r);
	assert_int_equal(access(path, F_OK), -1); /* and removed on the way out */
}

/* A pid file is trusted only when a live mpamd, mpamd's own user, holds its lock: a second mpamd
 * then refuses. Anything else in the way is replaced, saying why: a file naming a live mpamd that
 * does not hold it, one locked by a live process that is not mpamd, one another user planted (named
 * mpamd, locked), a FIFO, a symbolic link, one left by a process that is gone. Before, a file naming
 * any live process blocked the start, and a FIFO hung it. */
static void test_pid_file_trusted_only_when_held_by_mpamd(void **state)
{
	struct files f;
	char other[128], victim[128], pidtext[32], why[96];

	(void)state;
	make_files(&f);
	snprintf(other, sizeof(other), "%s/other.pid", f.dir);
	snprintf(victim, sizeof(victim), "%s/victim", f.dir);
	write_file(f.config, "%s", sim_config(50));
	daemon_pid = start_mpamd(&f, NULL);
	int first = daemon_pid;
	assert_true(wait_for_text(f.record, ",batch,", WAIT_MS));
	struct stat st;
	assert_int_equal(stat(f.pid, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	struct run_result r;
	char *argv[] = { MPAMD, "-c", f.config, "-f", "--no-socket", "--ticks", "1", "--pid-file", f.pid, NULL };
	assert_int_equal(run_command(argv, &r), 0);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(strstr(r.err, "an mpamd which is running and holds the file: is mpamd running?"));
	run_result_fini(&r);

	snprintf(pidtext, sizeof(pidtext), "%d\n", first);
	write_file(other, "%s", pidtext);
	snprintf(why, sizeof(why), "process %d does not hold its lock", first);
	assert_replaced(&f, other, why);

	pid_t planter = plant_pid_file(other, 0, "sleepy");
	snprintf(why, sizeof(why), "process %d, which holds its lock, is not mpamd", (int)planter);
	assert_replaced(&f, other, why);
	kill(planter, SIGKILL);
	waitpid(planter, NULL, 0);

	assert_int_equal(chmod(f.dir, 01777), 0);
	planter = plant_pid_file(other, 65534, "mpamd");
	assert_replaced(&f, other, "it belongs to uid 65534, not to mpamd's");
	kill(planter, SIGKILL);
	waitpid(planter, NULL, 0);

	assert_int_equal(mkfifo(other, 0644), 0);
	assert_replaced(&f, other, "it is a FIFO");
	write_file(victim, "precious\n");
	assert_int_equal(symlink(victim, other), 0);
	assert_replaced(&f, other, "it is a symbolic link");
	char *text = read_text_file(victim);
	assert_string_equal(text, "precious\n");
	free(text);

	kill(first, SIGINT);
	assert_int_equal(wait_exit(first, WAIT_MS), 0);
	daemon_pid = 0;
	/* A pid file left by a process that is gone is taken over. */
	write_file(f.pid, "999999\n");
	assert_replaced(&f, f.pid, "process 999999 does not hold its lock");
	assert_int_equal(remove_tree(f.dir), 0);
}

static void test_reset_on_exit(void **state)
{
	struct files f;
	struct emu *emu;
	char text[512], schemata[256];

	(void)state;
	make_files(&f);
	assert_int_equal(emu_start("intel", NULL, NULL, &emu), 0);
	snprintf(text, sizeof(text),
		 "[global]\nbackend = resctrl\ninterval_ms = 50\nresctrl_root = %s\n"
		 "[partition \"batch\"]\nclass = best-effort\nmb_max = 40\n",
		 emu_root(emu));
	write_file(f.config, "%s", text);
	snprintf(schemata, sizeof(schemata), "%s/mpamd-batch/schemata", emu_root(emu));
	int pid = start_mpamd(&f, "--reset-on-exit");
	assert_true(wait_for_text(schemata, "MB:0=40;1=40", WAIT_MS));
	/* Limits are applied before the daemon handles signals; "ready" says it does. */
	assert_true(wait_for_text(f.log, "ready:", WAIT_MS));
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid, WAIT_MS), 0);
	assert_true(wait_for_text(schemata, "MB:0=100;1=100", 0));
	assert_int_equal(emu_stop(emu), 0);
	remove_files(&f);
}

/* The sd_notify datagrams mpamd sends, in order, until `want` arrives or the deadline passes. */
static bool notify_wait_for(int fd, const char *want, char *seen, size_t seen_len)
{
	for (int waited = 0; waited < WAIT_MS; waited += 50) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[256];
		if (poll(&p, 1, 50) <= 0)
			continue;
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		size_t used = strlen(seen);
		snprintf(seen + used, seen_len - used, "%s|", buf);
		if (strstr(buf, want))
			return true;
	}
	return false;
}

/* Type=notify: READY=1 once the control socket listens, WATCHDOG=1 at half of WatchdogSec while it
 * ticks, STOPPING=1 on SIGTERM. */
static void test_service_manager_notifications(void **state)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char seen[4096] = "", socket_path[160];
	struct files f;

	(void)state;
	make_files(&f);
	write_file(f.config, "%s", sim_config(50));
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/notify", f.dir);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	snprintf(socket_path, sizeof(socket_path), "%s/mpamd.sock", f.dir);
	setenv("NOTIFY_SOCKET", addr.sun_path, 1);
	setenv("WATCHDOG_USEC", "200000", 1);
	char *argv[] = { MPAMD, "-c", f.config, "-f", "--socket", socket_path, NULL };
	int pid = spawn_background(argv, f.log);
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	assert_true(pid > 0);

	if (!notify_wait_for(fd, "READY=1", seen, sizeof(seen)))
		fail_msg("no READY=1; got: %s", seen);
	assert_int_equal(access(socket_path, F_OK), 0); /* ready means reachable */
	assert_non_null(strstr(seen, "STATUS=managing 1 partition(s)"));
	if (!notify_wait_for(fd, "WATCHDOG=1", seen, sizeof(seen)))
		fail_msg("no WATCHDOG=1; got: %s", seen);
	kill(pid, SIGTERM);
	if (!notify_wait_for(fd, "STOPPING=1", seen, sizeof(seen)))
		fail_msg("no STOPPING=1; got: %s", seen);
	assert_int_equal(wait_exit(pid, WAIT_MS), 0);
	close(fd);
	unlink(addr.sun_path);
	remove_files(&f);
}

/* mpamctl against the running daemon: every command, a change that reaches the hardware, and the
 * errors a bad request gets while the daemon keeps going. */
static void test_control_socket(void **state)
{
	struct files f;
	char socket[128], text[1024];

	(void)state;
	make_files(&f);
	snprintf(socket, sizeof(socket), "%s/mpamd.sock", f.dir);
	snprintf(text, sizeof(text), "%s[partition \"web\"]\nclass = latency-critical\nsim_demand = 1000\n",
		 sim_config(50));
	write_file(f.config, "%s", text);
	char *argv[] = { MPAMD, "-c", f.config, "-f", "--socket", socket, "--record", f.record, NULL };
	int pid = spawn_background(argv, f.log);
	assert_true(wait_for_text(f.log, "control socket", WAIT_MS));
	assert_true(wait_for_text(f.record, ",batch,", WAIT_MS));

	expect_run(ARGV(MPAMCTL, "--socket", socket, "list"), 0, "batch", "best-effort");

	expect_run(ARGV(MPAMCTL, "--socket", socket, "status"), 0, "backend: sim");
	/* The simulator knows its capacity: it is not reported as learned. */
	expect_run(ARGV(MPAMCTL, "--socket", socket, "--json", "status"), 0, "\"capacity_mbps\": 10000",
		   "\"capacity_learned\": false");

	expect_run(ARGV(MPAMCTL, "--socket", socket, "--json", "show", "batch"), 0, "\"mb_max\": 50");

	/* It says how long it lasts. */
	expect_run(ARGV(MPAMCTL, "--socket", socket, "set", "batch", "mb_max=20"), 0, "batch: mb_max=20",
		   "lasts until a reload that changes the partition's entry in the configuration",
		   "or until mpamd restarts");
	assert_true(wait_for_text(f.record, ",batch,", WAIT_MS));
	assert_true(wait_for_text(f.record, ",19.921875,0,", WAIT_MS));

	/* Validated like the config: out of range, a rule between keys, a key that needs a reload. */
	expect_run(ARGV(MPAMCTL, "--socket", socket, "set", "batch", "mb_max=150"), 1,
		   "mb_max = 150: out of range: a percent above 0 and at most 100");
	expect_run(ARGV(MPAMCTL, "--socket", socket, "set", "batch", "guarantee_mbps=500"), 1,
		   "only for class = latency-critical");
	expect_run(ARGV(MPAMCTL, "--socket", socket, "set", "batch", "partid=4"), 1, "reload");
	expect_run(ARGV(MPAMCTL, "--socket", socket, "show", "nobody"), 1, "no partition named 'nobody'");

	expect_run(ARGV(MPAMCTL, "--socket", socket, "metrics"), 0,
		   "mpamd_partition_bandwidth_bytes_per_second{partition=\"batch\",domain=\"0\"}");

	expect_run(ARGV(MPAMCTL, "--socket", socket, "reload"), 0, NULL);
	assert_true(wait_for_text(f.log, "reloaded", WAIT_MS));

	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid, WAIT_MS), 0);
	assert_int_equal(access(socket, F_OK), -1); /* the socket file goes with the daemon */
	remove_files(&f);
}

/* A reload refused for a finding that quotes bytes which are not UTF-8: the reply's messages keep it,
 * the bytes written as \\xHH (before, jansson refused the string and the reply said "messages": []),
 * and mpamctl prints it. */
static void test_reload_reply_keeps_bytes_that_are_not_utf8(void **state)
{
	struct files f;
	char socket[128];
	struct run_result r;

	(void)state;
	make_files(&f);
	snprintf(socket, sizeof(socket), "%s/mpamd.sock", f.dir);
	write_file(f.config, "%s", sim_config(50));
	char *argv[] = { MPAMD, "-c", f.config, "-f", "--socket", socket, "--record", f.record, NULL };
	daemon_pid = spawn_background(argv, f.log);
	assert_true(wait_for_text(f.log, "control socket", WAIT_MS));

	write_file(f.config, "%sk\xff\xfe = 1\n", sim_config(50));
	assert_int_equal(run_command(ARGV(MPAMCTL, "--socket", socket, "--json", "reload"), &r), 0);
	assert_int_equal(r.exit_code, 1);
	if (!strstr(r.out, "error: unknown key 'k\\\\xFF\\\\xFE' in [partition]"))
		fail_msg("the finding is not in the reply:\n%s", r.out);
	run_result_fini(&r);
	expect_run(ARGV(MPAMCTL, "--socket", socket, "reload"), 1, "unknown key 'k\\xFF\\xFE'");
	assert_int_equal(kill(daemon_pid, 0), 0);

	kill(daemon_pid, SIGTERM);
	assert_int_equal(wait_exit(daemon_pid, WAIT_MS), 0);
	daemon_pid = 0;
	remove_files(&f);
}

TEST_MAIN({
	cmocka_unit_test(test_reload_and_stop),
	cmocka_unit_test_teardown(test_reload_refuses_drop_ins_that_are_not_files, stop_daemon),
	cmocka_unit_test_teardown(test_pid_file_trusted_only_when_held_by_mpamd, stop_daemon),
	cmocka_unit_test(test_reset_on_exit),
	cmocka_unit_test(test_control_socket),
	cmocka_unit_test_teardown(test_reload_reply_keeps_bytes_that_are_not_utf8, stop_daemon),
	cmocka_unit_test(test_service_manager_notifications),
})
