/* mpamd at start-up: a SIGTERM, SIGINT or SIGHUP at any moment is held until the loop runs (then a
 * stop resets with --reset-on-exit and exits 0), and a second mpamd on hardware another one manages
 * exits having changed nothing, while one after a kill -9 starts. And a log nobody reads any more
 * kills nothing. */
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/emu_runner.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define WAIT_MS 10000
#define RUNS	40

static char dir[64], config[96], log_path[96];
static int started[4]; /* the last mpamds of the running test, for the teardown after a failure */
static size_t started_count;

/* spawn_background, remembered so that a failed assertion leaves no mpamd behind. */
static int spawn(char *const argv[], const char *log)
{
	int pid = spawn_background(argv, log);

	started[started_count++ % (sizeof(started) / sizeof(started[0]))] = pid;
	return pid;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(started) / sizeof(started[0]); i++) {
		if (started[i] > 0 && kill(started[i], 0) == 0) {
			kill(started[i], SIGKILL);
			wait_exit(started[i], WAIT_MS);
		}
		started[i] = 0;
	}
	return remove_tree(dir);
}

static void make_dir(void)
{
	make_test_dir(dir, sizeof(dir), "startup");
	snprintf(config, sizeof(config), "%s/mpamd.ini", dir);
	snprintf(log_path, sizeof(log_path), "%s/mpamd.log", dir);
}

static void remove_dir(void)
{
	assert_int_equal(remove_tree(dir), 0);
}

static void write_config(const char *text)
{
	FILE *f = fopen(config, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Whether `pid` has SIGTERM blocked yet (SigBlk in /proc/PID/status): from then on a signal must
 * wait for the loop. */
static bool signals_blocked(int pid)
{
	char path[64], line[256];
	bool blocked = false;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigBlk:", 7))
			blocked = (strtoull(line + 7, NULL, 16) >> (SIGTERM - 1)) & 1;
	fclose(f);
	return blocked;
}

static void wait_blocked(int pid)
{
	for (int i = 0; i < WAIT_MS && !signals_blocked(pid); i++)
		usleep(1000);
	assert_true(signals_blocked(pid));
}

static const char *const sim_config = "[global]\nbackend = sim\ninterval_ms = 20\n[sim]\ncapacity_mbps = 10000\n"
				      "[partition \"batch\"]\nmb_max = 40\nsim_demand = 20000\n";

/* A configuration that is a FIFO is refused at once, saying so: exit 2, nothing started. Before,
 * mpamd sat in reading it until someone wrote (a signal sent then waited with it; signals at any
 * moment of start-up are test_signals_during_start_up's). */
static void test_config_fifo_refused_at_once(void **state)
{
	char *argv[] = { MPAMD, "-c", config, "-f", "--no-socket", NULL };
	char expect[160];

	(void)state;
	make_dir();
	assert_int_equal(mkfifo(config, 0600), 0);
	int pid = spawn(argv, log_path);
	assert_true(pid > 0);
	assert_int_equal(wait_exit(pid, WAIT_MS), 2);
	snprintf(expect, sizeof(expect), "%s: error: a FIFO, not a regular file", config);
	assert_true(wait_for_text(log_path, expect, 0));
	remove_dir();
}

static void test_signals_during_start_up(void **state)
{
	static const int signals[] = { SIGTERM, SIGINT };
	unsigned seed = (unsigned)time(NULL);

	(void)state;
	make_dir();
	write_config(sim_config);
	for (int run = 0; run < RUNS; run++) {
		char *argv[] = { MPAMD, "-c", config, "-f", "--no-socket", "--reset-on-exit", NULL };
		unlink(log_path);
		int pid = spawn(argv, log_path);
		assert_true(pid > 0);
		wait_blocked(pid);
		usleep((useconds_t)(rand_r(&seed) % 50000)); /* anywhere in the first 50 ms */
		if (run % 4 == 3) {
			/* A reload asked for during start-up is a reload, not a death. */
			kill(pid, SIGHUP);
			usleep(30000);
			assert_int_equal(kill(pid, 0), 0);
		}
		kill(pid, signals[run % 2]);
		int status = wait_exit(pid, WAIT_MS);
		if (status != 0) {
			char *log = read_text_file(log_path);
			fail_msg("run %d: exit %d after signal %d; log:\n%s", run, status, signals[run % 2], log);
		}
		assert_true(wait_for_text(log_path, "stopping (on_stop = reset): removing every limit", 0));
	}
	remove_dir();
}

static void test_single_instance(void **state)
{
	char sim[96], text[512], root_schemata[256];
	struct emu *emu = NULL;

	(void)state;
	make_dir();
	snprintf(sim, sizeof(sim), "%s/sim.ini", dir);
	FILE *f = fopen(sim, "w");
	fputs("[global]\ninterval_ms = 20\n[partition \"web\"]\nsim_demand = 1000\n", f);
	fclose(f);
	assert_int_equal(emu_start("intel", sim, NULL, &emu), 0);
	snprintf(text, sizeof(text),
		 "[global]\nbackend = resctrl\nresctrl_root = %s\ninterval_ms = 20\n"
		 "[partition \"web\"]\nmb_max = 50\nsim_demand = 1000\n",
		 emu_root(emu));
	write_config(text);
	snprintf(root_schemata, sizeof(root_schemata), "%s/mpamd-web/schemata", emu_root(emu));

	char *argv[] = { MPAMD, "-c", config, "-f", "--no-socket", NULL };
	int first = spawn(argv, log_path);
	assert_true(wait_for_text(log_path, "ready:", WAIT_MS));
	assert_true(wait_for_text(root_schemata, "MB:0=50;1=50", WAIT_MS));

	/* The second one changes nothing: not even with another mb_max, or --reset-on-exit. */
	char second_log[128];
	snprintf(second_log, sizeof(second_log), "%s/second.log", dir);
	snprintf(text + strlen(text) - strlen("mb_max = 50\nsim_demand = 1000\n"), 64,
		 "mb_max = 20\nsim_demand = 1000\n");
	write_config(text);
	char *again[] = { MPAMD, "-c", config, "-f", "--no-socket", "--reset-on-exit", NULL };
	int second = spawn(again, second_log);
	assert_int_equal(wait_exit(second, WAIT_MS), 1);
	char expected[96];
	snprintf(expected, sizeof(expected), "another mpamd (pid %d) already manages", first);
	assert_true(wait_for_text(second_log, expected, 0));
	assert_true(wait_for_text(second_log, "changed nothing", 0));
	usleep(100000);
	assert_true(wait_for_text(root_schemata, "MB:0=50;1=50", 0));

	/* kill -9 leaves no lock behind: the next one starts and applies its own file. */
	kill(first, SIGKILL);
	assert_true(wait_exit(first, WAIT_MS) == 128 + SIGKILL);
	int third = spawn(again, second_log);
	assert_true(wait_for_text(root_schemata, "MB:0=20;1=20", WAIT_MS));
	kill(third, SIGTERM);
	assert_int_equal(wait_exit(third, WAIT_MS), 0);
	assert_int_equal(emu_stop(emu), 0);
	remove_dir();
}

/* mpamd logs to stderr under systemd (--foreground, the journal's stream): a journal that restarts,
 * or any reader of its log that goes away, must not kill it. Writes then fail with EPIPE. */
static void test_log_reader_gone(void **state)
{
	char record[128];
	int out[2];

	(void)state;
	make_dir();
	write_config(sim_config);
	snprintf(record, sizeof(record), "%s/run.csv", dir);
	assert_int_equal(pipe(out), 0);
	char *argv[] = { MPAMD, "-c", config, "-f", "--no-socket", "--record", record, NULL };
	int pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(out[1], 2);
		close(out[0]);
		close(out[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	started[started_count++ % (sizeof(started) / sizeof(started[0]))] = pid;
	close(out[1]);
	/* Read its log until it runs, then go away. */
	char text[4096] = "";
	size_t len = 0;
	while (!strstr(text, "ready:") && len < sizeof(text) - 1) {
		ssize_t n = read(out[0], text + len, sizeof(text) - 1 - len);
		assert_true(n > 0);
		len += (size_t)n;
		text[len] = '\0';
	}
	close(out[0]);
	kill(pid, SIGHUP); /* a reload, which logs */
	struct stat st;
	off_t size = stat(record, &st) == 0 ? st.st_size : 0, grown = size;
	for (int waited = 0; waited < WAIT_MS && grown < size + 2000 && kill(pid, 0) == 0; waited += 10) {
		usleep(10000);
		grown = stat(record, &st) == 0 ? st.st_size : 0;
	}
	if (grown < size + 2000)
		fail_msg("mpamd stopped once nobody read its log (exit %d)", wait_exit(pid, 0));
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid, WAIT_MS), 0);
	remove_dir();
}

TEST_MAIN({
	cmocka_unit_test_teardown(test_config_fifo_refused_at_once, teardown),
	cmocka_unit_test_teardown(test_signals_during_start_up, teardown),
	cmocka_unit_test_teardown(test_single_instance, teardown),
	cmocka_unit_test_teardown(test_log_reader_gone, teardown),
})
