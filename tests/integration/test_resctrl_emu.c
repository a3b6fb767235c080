/* The resctrl emulator (tests/resctrl-emu) checked from outside, through plain system calls on its
 * mount: layout and info files per profile, the write rules with their errno and last_cmd_status
 * text, tasks, CPUs, counters driven by the traffic model, counter assignment, fault injection. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/emu_runner.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

/* ---- fixture and file helpers ---- */

#define MAX_KIDS 4

struct fx {
	struct emu *emu;
	char config[64];      /* the sim config written for this test, "" if none */
	pid_t kids[MAX_KIDS]; /* sleeping children, killed by teardown even after a failure */
};

static const char sim_config[] = "[global]\n"
				 "interval_ms = 100\n"
				 "[sim]\n"
				 "capacity_mbps = 20000\n"
				 "seed = 7\n"
				 "noise_pct = 0\n"
				 "[partition \"web\"]\n"
				 "sim_demand = 6000\n"
				 "[partition \"batch\"]\n"
				 "sim_demand = 16000\n"
				 "[partition \"hog\"]\n"
				 "sim_demand = 40000\n";

/* The plant of the configuration: a concave MB curve, a partition pinned to domain 1 and one that
 * bursts (half of every second). */
static const char plant_config[] = "[global]\n"
				   "interval_ms = 100\n"
				   "[sim]\n"
				   "capacity_mbps = 20000\n"
				   "mb_curve = 10:0.35 30:0.75 50:0.9\n"
				   "[partition \"pinned\"]\n"
				   "sim_domains = 1\n"
				   "sim_demand = 30000\n"
				   "[partition \"bursty\"]\n"
				   "sim_burst = 1000:0.5\n"
				   "sim_demand = 4000\n";

/* A plant as real as the hardware's: a limit acts three ticks after it is written, and "hog" (20000 MB/s
 * a domain, the whole domain) is held to what its MB lets through. */
static const char delay_config[] = "[global]\n"
				   "interval_ms = 100\n"
				   "[sim]\n"
				   "capacity_mbps = 20000\n"
				   "delay_ticks = 3\n"
				   "[partition \"hog\"]\n"
				   "sim_demand = 40000\n";

/* Counters with 10% of noise on every sample. */
static const char noisy_config[] = "[global]\n"
				   "interval_ms = 100\n"
				   "[sim]\n"
				   "capacity_mbps = 20000\n"
				   "seed = 7\n"
				   "measure_noise_pct = 10\n"
				   "[partition \"hog\"]\n"
				   "sim_demand = 40000\n";

/* An AMD plant: the curve over the share of the domain an absolute MB value names. */
static const char amd_curve_config[] = "[global]\n"
				       "interval_ms = 100\n"
				       "[sim]\n"
				       "capacity_mbps = 20000\n"
				       "mb_curve = 30:0.75\n"
				       "[partition \"hog\"]\n"
				       "sim_demand = 40000\n";

/* `config`: the text of the simulator's configuration the emulator reads, NULL: none. */
static int start(void **state, const char *profile, const char *config, const char *const *extra)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	*state = f;
	if (config) {
		snprintf(f->config, sizeof(f->config), "/tmp/resctrl-emu-test-XXXXXX");
		int fd = mkstemp(f->config);
		if (fd < 0 || write(fd, config, strlen(config)) != (ssize_t)strlen(config))
			return -1;
		close(fd);
	}
	return emu_start(profile, config ? f->config : NULL, extra, &f->emu);
}

static int setup_intel_mba_mbps(void **state)
{
	static const char *const extra[] = { "--mba-mbps", NULL };

	return start(state, "intel", sim_config, extra);
}

static int setup_intel(void **state)
{
	return start(state, "intel", NULL, NULL);
}

static int setup_intel_8_possible_cpus(void **state)
{
	static const char *const extra[] = { "--possible-cpus", "8", NULL };

	return start(state, "intel", NULL, extra);
}

static int setup_intel_debug(void **state)
{
	static const char *const extra[] = { "--debug", NULL };

	return start(state, "intel", NULL, extra);
}

static int setup_intel_73(void **state)
{
	static const char *const extra[] = { "--kernel", "7.3", NULL };

	return start(state, "intel", NULL, extra);
}

static int setup_intel_sim_3_rmids(void **state)
{
	static const char *const extra[] = { "--rmids", "3", NULL };

	return start(state, "intel", sim_config, extra);
}

static int setup_intel_sim(void **state)
{
	return start(state, "intel", sim_config, NULL);
}

static int setup_intel_plant(void **state)
{
	return start(state, "intel", plant_config, NULL);
}

static int setup_intel_delay(void **state)
{
	return start(state, "intel", delay_config, NULL);
}

static int setup_intel_noisy(void **state)
{
	return start(state, "intel", noisy_config, NULL);
}

static int setup_amd_curve(void **state)
{
	return start(state, "amd", amd_curve_config, NULL);
}

static int setup_intel_min2(void **state)
{
	static const char *const extra[] = { "--min-cbm-bits", "2", NULL };

	return start(state, "intel", NULL, extra);
}

static int setup_amd(void **state)
{
	return start(state, "amd", NULL, NULL);
}

static int setup_amd_sim(void **state)
{
	return start(state, "amd", sim_config, NULL);
}

static int setup_mpam(void **state)
{
	return start(state, "mpam", NULL, NULL);
}

static int setup_mpam_debug(void **state)
{
	static const char *const extra[] = { "--debug", NULL };

	return start(state, "mpam", NULL, extra);
}

static int teardown(void **state)
{
	struct fx *f = *state;
	int r = 0;

	if (f) {
		for (int i = 0; i < MAX_KIDS; i++)
			if (f->kids[i] > 0) {
				kill(f->kids[i], SIGKILL);
				waitpid(f->kids[i], NULL, 0);
			}
		r = emu_stop(f->emu);
		if (f->config[0])
			unlink(f->config);
		free(f);
	}
	return r;
}

/* A path in the mount; a few can be live at once. */
static const char *P(const struct fx *f, const char *rel)
{
	static char ring[8][512];
	static unsigned next;
	char *buf = ring[next++ % 8];

	snprintf(buf, sizeof(ring[0]), "%s/%s", emu_root(f->emu), rel);
	return buf;
}

/* The whole file through open/read, or NULL with errno set. */
static char *slurp(const struct fx *f, const char *rel)
{
	char *buf = calloc(1, 65536);
	size_t len = 0;
	int fd = open(P(f, rel), O_RDONLY);

	if (fd < 0 || !buf) {
		int err = errno;
		free(buf);
		errno = err;
		return NULL;
	}
	for (ssize_t n; (n = read(fd, buf + len, 65535 - len)) != 0; len += (size_t)n) {
		if (n < 0) {
			int err = errno;
			close(fd);
			free(buf);
			errno = err;
			return NULL;
		}
	}
	close(fd);
	return buf;
}

/* One write() of text: 0 or -errno. */
static int put(const struct fx *f, const char *rel, const char *text)
{
	int fd = open(P(f, rel), O_WRONLY);

	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int err = n < 0 ? errno : 0;
	close(fd);
	if (!err && (size_t)n != strlen(text))
		return -EIO;
	return -err;
}

static int mk(const struct fx *f, const char *rel)
{
	return mkdir(P(f, rel), 0755) < 0 ? -errno : 0;
}

static int rm(const struct fx *f, const char *rel)
{
	return rmdir(P(f, rel)) < 0 ? -errno : 0;
}

static void check_file(const struct fx *f, const char *rel, const char *expected)
{
	char *text = slurp(f, rel);

	if (!text)
		fail_msg("%s: %s", rel, strerror(errno));
	if (strcmp(text, expected) != 0)
		fail_msg("%s reads\n\"%s\"\nexpected\n\"%s\"", rel, text, expected);
	free(text);
}

static void check_status(const struct fx *f, const char *expected)
{
	check_file(f, "info/last_cmd_status", expected);
}

/* A write that must fail with err and leave msg as the status ("ok\n" for none). */
static void check_reject(const struct fx *f, const char *rel, const char *text, int err, const char *msg)
{
	int r = put(f, rel, text);

	if (r != -err)
		fail_msg("writing \"%s\" to %s gave %d (%s), expected -%d", text, rel, r, strerror(-r), err);
	check_status(f, msg);
}

static void check_absent(const struct fx *f, const char *rel)
{
	struct stat st;

	if (stat(P(f, rel), &st) == 0)
		fail_msg("%s exists", rel);
	assert_int_equal(errno, ENOENT);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's entries, sorted and joined with ',' (without . and ..). */
static void check_listing(const struct fx *f, const char *rel, const char *expected)
{
	char *names[128], joined[4096] = "";
	size_t count = 0;
	DIR *d = opendir(P(f, rel));

	if (!d)
		fail_msg("opendir %s: %s", rel, strerror(errno));
	for (struct dirent *e; (e = readdir(d)) && count < 128;) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* d_type must agree with stat, as on kernfs. */
		struct stat st;
		assert_int_equal(fstatat(dirfd(d), e->d_name, &st, 0), 0);
		assert_int_equal(e->d_type, S_ISDIR(st.st_mode) ? DT_DIR : DT_REG);
		names[count++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, count, sizeof(names[0]), compare_names);
	for (size_t i = 0; i < count; i++) {
		snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s", i ? "," : "", names[i]);
		free(names[i]);
	}
	if (strcmp(joined, expected) != 0)
		fail_msg("%s lists\n%s\nexpected\n%s", rel, joined, expected);
}

static uint64_t counter(const struct fx *f, const char *group, unsigned domain, const char *event)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s%smon_data/mon_L3_%02u/%s", group, group[0] ? "/" : "", domain, event);
	char *text = slurp(f, rel);
	if (!text)
		fail_msg("%s: %s", rel, strerror(errno));
	char *end;
	unsigned long long v = strtoull(text, &end, 10);
	if (end == text || strcmp(end, "\n") != 0)
		fail_msg("%s reads \"%s\", not a number", rel, text);
	free(text);
	return v;
}

static void check_near(double got, double want, double tolerance, const char *what)
{
	if (fabs(got - want) > tolerance * want)
		fail_msg("%s: got %.0f, expected %.0f within %.1f%%", what, got, want, tolerance * 100);
}

static void ctl(const struct fx *f, const char *command)
{
	int r = emu_ctl(f->emu, command);

	if (r)
		fail_msg("control command \"%s\" failed: %s", command, strerror(-r));
}

/* A child that sleeps until teardown kills it: a live task other than the test itself. */
static pid_t sleeper(struct fx *f)
{
	int slot = 0;

	while (slot < MAX_KIDS && f->kids[slot] > 0)
		slot++;
	assert_true(slot < MAX_KIDS);
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	f->kids[slot] = pid;
	return pid;
}

/* A pid that just exited and was reaped: no such task. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static bool lists_pid(const struct fx *f, const char *rel, pid_t pid);

/* ---- command line ---- */

static void check_run(const char *const *args, int exit_code, const char *in_out, const char *in_err)
{
	char *argv[8] = { (char *)RESCTRL_EMU };
	size_t n = 1;
	struct run_result res;

	for (; args[n - 1] && n < 7; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	assert_int_equal(run_command(argv, &res), 0);
	if (res.exit_code != exit_code || !strstr(res.out, in_out) || !strstr(res.err, in_err))
		fail_msg("%s ...: exit %d, stdout \"%s\", stderr \"%s\"", args[0] ? args[0] : "", res.exit_code,
			 res.out, res.err);
	if (exit_code == 2 && strchr(res.err, '\n') != res.err + strlen(res.err) - 1)
		fail_msg("usage error is not one line: \"%s\"", res.err);
	run_result_fini(&res);
}

static void test_usage(void **state)
{
	(void)state;
	check_run((const char *const[]){ "--help", NULL }, 0, "Usage: resctrl-emu MOUNTPOINT", "");
	check_run((const char *const[]){ NULL }, 2, "", "missing MOUNTPOINT");
	check_run((const char *const[]){ "/tmp", NULL }, 2, "", "missing --profile");
	check_run((const char *const[]){ "/tmp", "--profile", "sparc", NULL }, 2, "", "unknown profile");
	check_run((const char *const[]){ "/tmp", "--profile", "intel", "--bogus", NULL }, 2, "", "--bogus");
	check_run((const char *const[]){ "/tmp", "--profile", "intel", "--cpus", "0", NULL }, 2, "", "bad --cpus");
	check_run((const char *const[]){ "/tmp", "/var", "--profile", "intel", NULL }, 2, "", "one MOUNTPOINT");
	check_run((const char *const[]){ "/tmp", "--profile", "intel", "--kernel", "7", NULL }, 2, "", "bad --kernel");
	check_run((const char *const[]){ "/tmp", "--profile", "mpam", "--rmids", "8", NULL }, 2, "", "--rmids");
	check_run((const char *const[]){ "/tmp", "--profile", "intel", "--domains", "65", NULL }, 2, "",
		  "bad --domains");
	/* AMD's maximum is a power of two (BIT(CPUID's width)), and only AMD's MB is absolute */
	check_run((const char *const[]){ "/tmp", "--profile", "amd", "--mb-max", "3000", NULL }, 2, "", "bad --mb-max");
	check_run((const char *const[]){ "/tmp", "--profile", "intel", "--mb-max", "2048", NULL }, 2, "",
		  "--mb-max: only AMD's MB is absolute");
	check_run((const char *const[]){ "/tmp", "--profile", "amd", "--root-mb", "0", NULL }, 2, "", "bad --root-mb");
	check_run((const char *const[]){ "/tmp", "--profile", "amd", "--root-mb", "4096", NULL }, 2, "",
		  "--root-mb: outside the MB range");
	/* -o mba_MBps is refused where fs/resctrl supports_mba_mbps() says no: MB not linear (amd), no MBM
	 * (mpam), assignable counters (mpam73), MBM not at the L3 (another monitoring resource). */
	static const char *const refused[][5] = {
		{ "/tmp", "--profile", "amd", "--mba-mbps", NULL },
		{ "/tmp", "--profile", "mpam", "--mba-mbps", NULL },
		{ "/tmp", "--profile", "mpam73", "--mba-mbps", NULL },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		check_run(refused[i], 2, "",
			  "mba_MBps requires MBM (mbm_event mode not supported) and linear scale MBA at L3 scope");
	check_run((const char *const[]){ "/tmp", "--profile", "intel", "--mon-resource", "MB", "--mba-mbps", NULL }, 2,
		  "", "mba_MBps requires MBM");
}

/* ---- layout and info files ---- */

static void test_intel_layout(void **state)
{
	struct fx *f = *state;
	struct stat st;

	check_listing(f, "", ".emu_ctl,cpus,cpus_list,info,mode,mon_data,mon_groups,schemata,size,tasks");
	assert_int_equal(stat(P(f, ".emu_ctl"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	check_listing(f, "info", "L3,L3_MON,MB,last_cmd_status");
	check_listing(f, "info/L3", "bit_usage,cbm_mask,min_cbm_bits,num_closids,shareable_bits,sparse_masks");
	check_listing(f, "info/MB", "bandwidth_gran,delay_linear,min_bandwidth,num_closids,thread_throttle_mode");
	check_listing(f, "info/L3_MON", "max_threshold_occupancy,mbm_assign_mode,mon_features,num_rmids");
	check_listing(f, "mon_data", "mon_L3_00,mon_L3_01");
	check_listing(f, "mon_data/mon_L3_01", "llc_occupancy,mbm_local_bytes,mbm_total_bytes");
	check_status(f, "ok\n");
	check_file(f, "info/L3/cbm_mask", "7ff\n");
	check_file(f, "info/L3/min_cbm_bits", "1\n");
	check_file(f, "info/L3/num_closids", "16\n");
	check_file(f, "info/L3/shareable_bits", "0\n");
	check_file(f, "info/L3/sparse_masks", "0\n");
	check_file(f, "info/L3/bit_usage", "0=SSSSSSSSSSS;1=SSSSSSSSSSS\n");
	check_file(f, "info/MB/bandwidth_gran", "10\n");
	check_file(f, "info/MB/min_bandwidth", "10\n");
	check_file(f, "info/MB/delay_linear", "1\n");
	check_file(f, "info/MB/num_closids", "16\n");
	check_file(f, "info/MB/thread_throttle_mode", "max\n");
	check_file(f, "info/L3_MON/num_rmids", "32\n");
	check_file(f, "info/L3_MON/mon_features", "llc_occupancy\nmbm_total_bytes\nmbm_local_bytes\n");
	check_file(f, "info/L3_MON/mbm_assign_mode", "[default]\n");
	check_file(f, "info/L3_MON/max_threshold_occupancy", "720896\n");
	check_file(f, "schemata", "MB:0=100;1=100\nL3:0=7ff;1=7ff\n");
	check_file(f, "size", "MB:0=100;1=100\nL3:0=23068672;1=23068672\n");
	check_file(f, "mode", "shareable\n");
	check_file(f, "cpus", "f\n");
	check_file(f, "cpus_list", "0-3\n");
	assert_true(lists_pid(f, "tasks", getpid())); /* the default group holds every thread */
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "0\n");
}

static void test_amd_layout(void **state)
{
	struct fx *f = *state;

	check_listing(f, "",
		      ".emu_ctl,cpus,cpus_list,info,mbm_L3_assignments,mode,mon_data,mon_groups,schemata,size,tasks");
	check_listing(f, "info/MB", "bandwidth_gran,delay_linear,min_bandwidth,num_closids");
	check_listing(f, "info/L3_MON",
		      "available_mbm_cntrs,event_configs,max_threshold_occupancy,mbm_assign_mode,"
		      "mbm_assign_on_mkdir,mon_features,num_mbm_cntrs,num_rmids");
	check_listing(f, "info/L3_MON/event_configs", "mbm_local_bytes,mbm_total_bytes");
	check_file(f, "info/L3_MON/event_configs/mbm_total_bytes/event_filter",
		   "local_reads,remote_reads,local_non_temporal_writes,remote_non_temporal_writes,"
		   "local_reads_slow_memory,remote_reads_slow_memory,dirty_victim_writes_all\n");
	check_file(f, "info/L3_MON/event_configs/mbm_local_bytes/event_filter",
		   "local_reads,local_non_temporal_writes,local_reads_slow_memory\n");
	/* resctrl_rmid_realloc_limit is x86_cache_size, the L2's on AMD (512 KiB), over 64 RMIDs; 7.2
	 * refuses more than the limit without a message. */
	check_file(f, "info/L3_MON/max_threshold_occupancy", "8192\n");
	check_reject(f, "info/L3_MON/max_threshold_occupancy", "524289\n", EINVAL, "ok\n");
	assert_int_equal(put(f, "info/L3_MON/max_threshold_occupancy", "524288\n"), 0);
	check_file(f, "info/L3/cbm_mask", "ffff\n");
	check_file(f, "info/L3/min_cbm_bits", "0\n");
	check_file(f, "info/L3/sparse_masks", "1\n");
	check_file(f, "info/MB/bandwidth_gran", "1\n");
	check_file(f, "info/MB/min_bandwidth", "0\n");
	check_file(f, "info/MB/delay_linear", "0\n");
	check_file(f, "info/L3_MON/num_rmids", "64\n");
	check_file(f, "info/L3_MON/mbm_assign_mode", "[mbm_event]\ndefault\n");
	check_file(f, "info/L3_MON/num_mbm_cntrs", "0=4;1=4\n");
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=2;1=2\n");
	check_file(f, "info/L3_MON/mbm_assign_on_mkdir", "1\n");
	check_file(f, "schemata", "MB:0=2048;1=2048\nL3:0=ffff;1=ffff\n");
	check_file(f, "mbm_L3_assignments", "mbm_total_bytes:0=e;1=e\nmbm_local_bytes:0=e;1=e\n");
}

static void test_mpam_layout(void **state)
{
	struct fx *f = *state;

	/* ctrl_hw_id and mon_hw_id are debug files (RFTYPE_DEBUG): absent without -o debug. */
	check_listing(f, "", ".emu_ctl,cpus,cpus_list,info,mode,mon_data,mon_groups,schemata,size,tasks");
	check_listing(f, "info/MB", "bandwidth_gran,delay_linear,min_bandwidth,num_closids");
	check_listing(f, "mon_data", "mon_L3_00");
	check_listing(f, "mon_data/mon_L3_00", "llc_occupancy");
	check_file(f, "schemata", "MB:0=100\nL3:0=ffff\n");
	check_file(f, "info/L3/shareable_bits", "ffff\n");
	check_file(f, "info/L3/sparse_masks", "1\n");
	check_file(f, "info/L3/min_cbm_bits", "1\n");
	check_file(f, "info/L3/num_closids", "32\n");
	check_file(f, "info/L3/bit_usage", "0=XXXXXXXXXXXXXXXX\n");
	check_file(f, "info/MB/bandwidth_gran", "4\n");
	check_file(f, "info/MB/min_bandwidth", "3\n");
	check_file(f, "info/MB/delay_linear", "1\n");
	check_file(f, "info/MB/num_closids", "32\n");
	check_file(f, "info/L3_MON/num_rmids", "64\n");
	check_file(f, "info/L3_MON/mon_features", "llc_occupancy\n");
	check_file(f, "info/L3_MON/max_threshold_occupancy", "524288\n");
	/* No pseudo-locking on arm64 (no CONFIG_RESCTRL_FS_PSEUDO_LOCK). */
	assert_int_equal(mk(f, "p"), 0);
	check_reject(f, "p/mode", "pseudo-locksetup\n", EINVAL, "Unknown or unsupported mode\n");
	check_absent(f, "ctrl_hw_id");
	check_absent(f, "mon_hw_id");
	assert_int_equal(mk(f, "g"), 0);
	check_listing(f, "g", "cpus,cpus_list,mode,mon_data,mon_groups,schemata,size,tasks");
	check_absent(f, "g/ctrl_hw_id");
}

/* Mounted with -o debug, MPAM groups tell their PARTID (ctrl_hw_id) and PMG (mon_hw_id). */
static void test_mpam_debug_ids(void **state)
{
	struct fx *f = *state;

	check_listing(f, "",
		      ".emu_ctl,cpus,cpus_list,ctrl_hw_id,info,mode,mon_data,mon_groups,mon_hw_id,schemata,size,tasks");
	check_file(f, "ctrl_hw_id", "0\n");
	check_file(f, "mon_hw_id", "0\n");
	assert_int_equal(mk(f, "g"), 0);
	check_file(f, "g/ctrl_hw_id", "1\n");
	check_file(f, "g/mon_hw_id", "0\n");
}

/* Files are kernfs-like: fixed set, no create/unlink/rename, access by the file's handlers. */
static void test_file_rules(void **state)
{
	struct fx *f = *state;

	assert_int_equal(open(P(f, "new"), O_WRONLY | O_CREAT, 0644), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(unlink(P(f, "tasks")), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(rename(P(f, "g"), P(f, "h")), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(open(P(f, "info/L3/cbm_mask"), O_WRONLY), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(open(P(f, "size"), O_RDWR), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(rm(f, "info"), -EPERM);
	assert_int_equal(rm(f, "mon_data"), -EPERM);
	assert_int_equal(rm(f, "g/mon_groups"), -EPERM);
	assert_int_equal(mk(f, "info/x"), -ENODEV); /* mkdir_rdt_prepare() finds no group for info/ */
	assert_int_equal(mk(f, "g/x"), -EPERM);
	assert_int_equal(mk(f, "mon_data/x"), -EPERM);
	assert_int_equal(mk(f, "g/mon_groups/mon_groups"), -EPERM);
	/* Such a mkdir clears last_cmd_status before its refusal (mkdir_rdt_prepare()), except in info/,
	 * which has no group to lock. */
	check_reject(f, "g/schemata", "L3:0=x\n", EINVAL, "Non-hex character in the mask x\n");
	assert_int_equal(mk(f, "info/L3/x"), -ENODEV);
	check_status(f, "Non-hex character in the mask x\n");
	assert_int_equal(mk(f, "g/x"), -EPERM);
	check_status(f, "ok\n");
	/* A group's files go away with it: open ones answer ENODEV, as removed kernfs files do, even
	 * once a new group has the old name. */
	int fd = open(P(f, "g/schemata"), O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(rm(f, "g"), 0);
	check_absent(f, "g");
	assert_int_equal(mk(f, "g"), 0);
	char buf[64];
	assert_int_equal(read(fd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(write(fd, "MB:0=50\n", 8), -1);
	assert_int_equal(errno, ENODEV);
	close(fd);
	check_file(f, "g/schemata", "MB:0=100;1=100\nL3:0=7ff;1=7ff\n");
	/* Writes are at most a page. */
	char big[5000];
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(put(f, "g/tasks", big), -E2BIG);
	/* max_threshold_occupancy: writable up to the cache size. */
	assert_int_equal(put(f, "info/L3_MON/max_threshold_occupancy", "65536\n"), 0);
	check_file(f, "info/L3_MON/max_threshold_occupancy", "65536\n");
	assert_int_equal(put(f, "info/L3_MON/max_threshold_occupancy", "999999999\n"), -EINVAL);
}

/* ---- CDP and io_alloc ---- */

static int setup_intel_cdp_io_alloc(void **state)
{
	static const char *const extra[] = { "--cdp", "--io-alloc", NULL };

	return start(state, "intel", NULL, extra);
}

static int setup_intel_cdp_io_alloc_debug(void **state)
{
	static const char *const extra[] = { "--cdp", "--io-alloc", "--debug", NULL };

	return start(state, "intel", NULL, extra);
}

static int setup_mpam73_cdp(void **state)
{
	static const char *const extra[] = { "--cdp", "--debug", NULL };

	return start(state, "mpam73", NULL, extra);
}

/* -o cdp on x86 (rdtgroup.c schemata_list_create): L3CODE and L3DATA, each with half the CLOSIDs, MB
 * with all of them; closids_supported() is the smallest. The two types have their own CBMs, and an
 * exclusive group's bits are refused in either. */
static void test_cdp(void **state)
{
	struct fx *f = *state;
	char name[16];

	check_listing(f, "info", "L3CODE,L3DATA,L3_MON,MB,last_cmd_status");
	check_file(f, "schemata", "    MB:0=100;1=100\nL3DATA:0=7ff;1=7ff\nL3CODE:0=7ff;1=7ff\n");
	check_file(f, "info/L3CODE/num_closids", "8\n");
	check_file(f, "info/L3DATA/num_closids", "8\n");
	check_file(f, "info/MB/num_closids", "16\n");
	for (int i = 1; i < 8; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_int_equal(mk(f, name), 0);
	}
	assert_int_equal(mk(f, "g8"), -ENOSPC);
	check_status(f, "Out of CLOSIDs\n");
	check_reject(f, "g1/schemata", "L3:0=f\n", EINVAL, "Unknown or unsupported resource name 'L3'\n");
	assert_int_equal(put(f, "schemata", "L3CODE:0=7c0;1=7c0\nL3DATA:0=7c0;1=7c0\n"), 0);
	for (int i = 2; i < 8; i++) {
		snprintf(name, sizeof(name), "g%d/schemata", i);
		assert_int_equal(put(f, name, "L3CODE:0=7c0;1=7c0\nL3DATA:0=7c0;1=7c0\n"), 0);
	}
	assert_int_equal(put(f, "g1/schemata", "L3CODE:0=00f;1=00f\nL3DATA:0=030;1=030\n"), 0);
	assert_int_equal(put(f, "g1/mode", "exclusive\n"), 0);
	/* g2's code mask may not take g1's data bits either (rdtgroup_cbm_overlaps checks the peer type). */
	check_reject(f, "g2/schemata", "L3CODE:0=020\n", EINVAL, "Overlaps with exclusive group\n");
	assert_int_equal(put(f, "g2/schemata", "L3CODE:0=100;1=100\n"), 0);
	check_file(f, "g2/schemata", "    MB:0=100;1=100\nL3DATA:0=7c0;1=7c0\nL3CODE:0=100;1=100\n");
	check_file(f, "info/L3CODE/bit_usage", "0=SSSSS00EEEE;1=SSSSS00EEEE\n");
	check_file(f, "info/L3DATA/bit_usage", "0=SSSSSEE0000;1=SSSSSEE0000\n");
	check_reject(f, "g2/mode", "pseudo-locksetup\n", EINVAL, "CDP enabled\n");
}

/* io_alloc (ctrlmondata.c resctrl_io_alloc_write): enabled, it holds the highest CLOSID, 7 under CDP;
 * refused while a group holds it; its CBM counts as the hardware's in bit_usage. */
static void test_io_alloc(void **state)
{
	struct fx *f = *state;
	char name[16];

	check_listing(f, "info/L3DATA",
		      "bit_usage,cbm_mask,io_alloc,io_alloc_cbm,min_cbm_bits,num_closids,shareable_bits,sparse_masks");
	check_file(f, "info/L3CODE/io_alloc", "disabled\n");
	char *text = slurp(f, "info/L3CODE/io_alloc_cbm");
	assert_null(text);
	assert_int_equal(errno, EINVAL);
	check_status(f, "io_alloc is not enabled on L3CODE\n");
	for (int i = 1; i < 8; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_int_equal(mk(f, name), 0);
	}
	check_file(f, "g7/ctrl_hw_id", "7\n");
	check_reject(f, "info/L3CODE/io_alloc", "1\n", ENOSPC,
		     "CLOSID (ctrl_hw_id) 7 for io_alloc is used by g7 group\n");
	assert_int_equal(rm(f, "g7"), 0);
	assert_int_equal(put(f, "info/L3CODE/io_alloc", "1\n"), 0);
	check_file(f, "info/L3DATA/io_alloc", "enabled\n");
	assert_int_equal(mk(f, "g7"), -ENOSPC);
	check_status(f, "Out of CLOSIDs\n");
	check_file(f, "info/L3DATA/io_alloc_cbm", "0=7ff;1=7ff\n");
	assert_int_equal(put(f, "info/L3DATA/io_alloc_cbm", "*=600\n"), 0);
	check_file(f, "info/L3CODE/io_alloc_cbm", "0=600;1=600\n");
	for (int i = 1; i < 7; i++) {
		snprintf(name, sizeof(name), "g%d/schemata", i);
		assert_int_equal(put(f, name, "L3CODE:0=ff;1=ff\nL3DATA:0=ff;1=ff\n"), 0);
	}
	assert_int_equal(put(f, "schemata", "L3CODE:0=ff;1=ff\nL3DATA:0=ff;1=ff\n"), 0);
	check_file(f, "info/L3CODE/bit_usage", "0=HH0SSSSSSSS;1=HH0SSSSSSSS\n");
	check_reject(f, "info/L3CODE/io_alloc_cbm", "*=1;0=1\n", EINVAL, "Configurations after global '*'\n");
	check_reject(f, "info/L3CODE/io_alloc_cbm", "5=1\n", EINVAL, "Invalid domain 5\n");
	check_reject(f, "info/L3CODE/io_alloc_cbm", "0=1", EINVAL, "io_alloc_cbm: Invalid input\n");
	check_reject(f, "info/L3CODE/io_alloc", "maybe\n", EINVAL, "io_alloc: Invalid input\n");
	assert_int_equal(put(f, "info/L3CODE/io_alloc", "0\n"), 0);
	assert_int_equal(mk(f, "g7"), 0);
}

/* -o cdp on MPAM (mpam_resctrl.c resctrl_arch_set_cdp_enabled, a CONFIG_EXPERT kernel): half the
 * CLOSIDs, RMIDs and counters, and no MB: MBW_MAX is per PARTID and a CLOSID now has two. */
static void test_mpam73_cdp(void **state)
{
	struct fx *f = *state;

	check_listing(f, "info", "L3CODE,L3DATA,L3_MON,last_cmd_status");
	check_file(f, "schemata", "L3DATA:0=ffff\nL3CODE:0=ffff\n");
	check_file(f, "info/L3CODE/num_closids", "16\n");
	check_file(f, "info/L3_MON/num_rmids", "32\n");
	check_file(f, "info/L3_MON/num_mbm_cntrs", "0=4\n");
	check_reject(f, "schemata", "MB:0=50\n", EINVAL, "Unknown or unsupported resource name 'MB'\n");
	assert_int_equal(mk(f, "g"), 0);
	check_file(f, "g/ctrl_hw_id", "1\n"); /* the CLOSID; its traffic carries PARTIDs 2 and 3 */
}

/* ---- a counter's not-ready time (MPAM NRDY) ---- */

static int setup_mpam73_nrdy(void **state)
{
	static const char *const extra[] = { "--nrdy-ms", "40", "--counters", "2", NULL };

	return start(state, "mpam73", NULL, extra);
}

static unsigned long nrdy_waits(const struct fx *f)
{
	char *text = slurp(f, ".emu_ctl");
	const char *at = text ? strstr(text, "\nnrdy_waits ") : NULL;
	unsigned long n = at ? strtoul(at + strlen("\nnrdy_waits "), NULL, 10) : ULONG_MAX;

	free(text);
	return n;
}

/* A counter's first read within --nrdy-ms of its assignment (at mkdir, or written to mbm_L3_assignments)
 * waits for the monitor, as mpam_msmon_read() sleeps the MSC's not-ready time after an EBUSY; a
 * monitor still not ready after it reads as the sum the kernel has, 0. Later reads do not wait. */
static void test_mpam73_first_read_waits(void **state)
{
	struct fx *f = *state;
	const char *file = "g/mon_data/mon_L3_00/mbm_total_bytes";

	ctl(f, "clock manual");
	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(nrdy_waits(f), 0);
	check_file(f, file, "0\n");
	assert_int_equal(nrdy_waits(f), 1);
	check_file(f, file, "0\n"); /* still not ready: the emulator's clock stands still */
	assert_int_equal(nrdy_waits(f), 2);
	ctl(f, "advance 40");
	check_file(f, file, "0\n");
	assert_int_equal(nrdy_waits(f), 2);
	/* Assigned again: not ready again. */
	assert_int_equal(put(f, "g/mbm_L3_assignments", "mbm_total_bytes:0=_\n"), 0);
	check_file(f, file, "Unassigned\n");
	assert_int_equal(put(f, "g/mbm_L3_assignments", "mbm_total_bytes:0=e\n"), 0);
	ctl(f, "advance 39");
	check_file(f, file, "0\n");
	assert_int_equal(nrdy_waits(f), 3);
	ctl(f, "advance 1");
	check_file(f, file, "0\n");
	assert_int_equal(nrdy_waits(f), 3);
}

/* ---- many domains ---- */

static int setup_amd_24(void **state)
{
	static const char *const extra[] = { "--domains", "24", NULL };

	return start(state, "amd", NULL, extra);
}

/* "PREFIX0=V;1=V;...;N-1=V" and a newline. */
static void domains_line(char *buf, size_t len, const char *prefix, unsigned domains, const char *value)
{
	size_t used = (size_t)snprintf(buf, len, "%s", prefix);

	for (unsigned d = 0; d < domains; d++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u=%s", d ? ";" : "", d, value);
	snprintf(buf + used, len - used, "\n");
}

/* AMD hosts have an L3 domain per CCX, often more than 8: every file lists them all. */
static void test_many_domains(void **state)
{
	struct fx *f = *state;
	char want[2048], line[1024], name[32];

	check_file(f, "info/L3_MON/num_rmids", "64\n");
	for (unsigned d = 0; d < 24; d++) {
		snprintf(name, sizeof(name), "mon_data/mon_L3_%02u", d);
		check_listing(f, name, "llc_occupancy,mbm_local_bytes,mbm_total_bytes");
	}
	check_absent(f, "mon_data/mon_L3_24");
	domains_line(want, sizeof(want), "MB:", 24, "2048");
	domains_line(line, sizeof(line), "L3:", 24, "ffff");
	strcat(want, line);
	check_file(f, "schemata", want);
	domains_line(want, sizeof(want), "", 24, "4");
	check_file(f, "info/L3_MON/num_mbm_cntrs", want);
	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(put(f, "g/schemata", "MB:23=100;17=64\n"), 0);
	char *text = slurp(f, "g/schemata");
	assert_non_null(strstr(text, ";17=64;"));
	assert_non_null(strstr(text, ";23=100\n"));
	free(text);
	assert_int_equal(put(f, "g/mbm_L3_assignments", "mbm_local_bytes:*=_\n"), 0);
	domains_line(want, sizeof(want), "mbm_total_bytes:", 24, "e");
	domains_line(line, sizeof(line), "mbm_local_bytes:", 24, "_");
	strcat(want, line);
	check_file(f, "g/mbm_L3_assignments", want);
}

/* ---- last_cmd_status across kernel versions ---- */

/* What reading or removing a group does to the message of a refused write: Linux 7.2 keeps it until the
 * next command (fs/resctrl: each write handler clears it itself, rdtgroup_kn_lock_live does not), 7.3
 * clears it on every access to a group's file, reads included (rdtgroup_kn_lock_live calls
 * rdt_last_cmd_clear). Files under info/ never clear it. */
static void check_status_lifetime(struct fx *f, bool cleared_by_access)
{
	static const char *const group_reads[] = {
		"g/tasks", "g/schemata", "g/mode", "g/cpus_list", "g/size", "g/mon_data/mon_L3_00/mbm_total_bytes",
	};
	const char *refused = "MB value 5 out of range [10,100]\n";

	assert_int_equal(mk(f, "g"), 0);
	for (size_t i = 0; i < sizeof(group_reads) / sizeof(group_reads[0]); i++) {
		check_reject(f, "g/schemata", "MB:0=5\n", EINVAL, refused);
		free(slurp(f, group_reads[i]));
		char *status = slurp(f, "info/last_cmd_status");
		if (strcmp(status, cleared_by_access ? "ok\n" : refused))
			fail_msg("after reading %s last_cmd_status reads \"%s\"", group_reads[i], status);
		free(status);
	}
	check_reject(f, "g/schemata", "MB:0=5\n", EINVAL, refused);
	free(slurp(f, "info/L3/cbm_mask"));
	free(slurp(f, "info/L3_MON/num_rmids"));
	check_status(f, refused);
	/* Removing another group. */
	assert_int_equal(mk(f, "h"), 0);
	check_reject(f, "g/schemata", "MB:0=5\n", EINVAL, refused);
	assert_int_equal(rm(f, "h"), 0);
	check_status(f, cleared_by_access ? "ok\n" : refused);
	/* A write without its newline: 7.2 refuses it before touching the status, 7.3 says why. */
	check_reject(f, "g/schemata", "MB:0=5\n", EINVAL, refused);
	check_reject(f, "g/schemata", "MB:0=50", EINVAL, cleared_by_access ? "schemata: Invalid input\n" : refused);
	check_reject(f, "g/mode", "exclusive", EINVAL, cleared_by_access ? "mode: Invalid input\n" : refused);
	/* cpus writes clear it on both (7.2's rdtgroup_cpus_write calls rdt_last_cmd_clear itself). */
	check_reject(f, "g/schemata", "MB:0=5\n", EINVAL, refused);
	assert_int_equal(put(f, "g/cpus_list", "1\n"), 0);
	check_status(f, "ok\n");
	/* max_threshold_occupancy: 7.3 explains a refusal, 7.2 leaves the status alone. */
	check_reject(f, "g/schemata", "MB:0=5\n", EINVAL, refused);
	check_reject(f, "info/L3_MON/max_threshold_occupancy", "999999999\n", EINVAL,
		     cleared_by_access
			     ? "max_threshold_occupancy: Exceeds limit (before adjustment) of 23068672 bytes\n"
			     : refused);
}

static void test_status_kept_on_72(void **state)
{
	check_status_lifetime(*state, false);
}

static void test_status_cleared_on_73(void **state)
{
	check_status_lifetime(*state, true);
}

/* ---- groups ---- */

static void test_mkdir_populates(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "g"), 0);
	check_status(f, "ok\n");
	check_listing(f, "g", "cpus,cpus_list,mode,mon_data,mon_groups,schemata,size,tasks");
	check_listing(f, "", ".emu_ctl,cpus,cpus_list,g,info,mode,mon_data,mon_groups,schemata,size,tasks");
	check_file(f, "g/schemata", "MB:0=100;1=100\nL3:0=7ff;1=7ff\n");
	check_file(f, "g/tasks", "");
	check_file(f, "g/cpus", "0\n");
	check_file(f, "g/cpus_list", "\n");
	check_file(f, "g/mode", "shareable\n");
	check_listing(f, "g/mon_data", "mon_L3_00,mon_L3_01");
	check_listing(f, "g/mon_data/mon_L3_00", "llc_occupancy,mbm_local_bytes,mbm_total_bytes");
	check_listing(f, "g/mon_groups", "");
	assert_int_equal(mk(f, "g"), -EEXIST);
	assert_int_equal(mk(f, "info"), -EEXIST);
	assert_int_equal(mk(f, "g/mon_groups/m"), 0);
	check_listing(f, "g/mon_groups", "m");
	check_listing(f, "g/mon_groups/m", "cpus,cpus_list,mon_data,tasks");
	check_listing(f, "g/mon_groups/m/mon_data", "mon_L3_00,mon_L3_01");
	assert_int_equal(mk(f, "g/mon_groups/m"), -EEXIST);
	assert_int_equal(mk(f, "mon_groups/m"), 0); /* MON groups of the default group */
	/* rmdir of a CTRL_MON group takes its MON groups along. */
	assert_int_equal(rm(f, "g"), 0);
	check_absent(f, "g");
	assert_int_equal(mk(f, "g"), 0);
	check_listing(f, "g/mon_groups", "");
	assert_int_equal(rm(f, "mon_groups/m"), 0);
	check_listing(f, "mon_groups", "");
	assert_int_equal(rm(f, "nosuch"), -ENOENT);
}

static void test_debug_ids(void **state)
{
	struct fx *f = *state;

	check_file(f, "ctrl_hw_id", "0\n");
	check_file(f, "mon_hw_id", "0\n");
	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(mk(f, "g/mon_groups/m"), 0);
	check_file(f, "g/ctrl_hw_id", "1\n");
	check_file(f, "g/mon_hw_id", "1\n");
	check_listing(f, "g/mon_groups/m", "cpus,cpus_list,mon_data,mon_hw_id,tasks");
	check_file(f, "g/mon_groups/m/mon_hw_id", "2\n");
}

static void test_closids_run_out(void **state)
{
	struct fx *f = *state;
	char name[32];

	ctl(f, "clock manual");
	for (int i = 1; i < 16; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		assert_int_equal(mk(f, name), 0);
	}
	assert_int_equal(mk(f, "one_too_many"), -ENOSPC);
	check_status(f, "Out of CLOSIDs\n");
	check_absent(f, "one_too_many");
	/* x86 RMIDs do not depend on the CLOSID: the freed CLOSID is taken again at once. */
	assert_int_equal(rm(f, "g7"), 0);
	assert_int_equal(mk(f, "again"), 0);
	check_status(f, "ok\n");
	/* 32 RMIDs: the default group and 15 CTRL_MON groups hold 16, g7's waits in limbo (llc_occupancy
	 * is monitored) until the limbo worker, 1 s after the rmdir, finds it clean: 15 for MON groups. */
	for (int i = 0; i < 15; i++) {
		snprintf(name, sizeof(name), "g1/mon_groups/m%d", i);
		assert_int_equal(mk(f, name), 0);
	}
	/* Only RMIDs in limbo are left: EBUSY. */
	assert_int_equal(mk(f, "g1/mon_groups/m15"), -EBUSY);
	check_status(f, "Out of RMIDs\n");
	ctl(f, "advance 999");
	assert_int_equal(mk(f, "g1/mon_groups/m15"), -EBUSY);
	ctl(f, "advance 1");
	assert_int_equal(mk(f, "g1/mon_groups/m15"), 0);
	/* None at all: ENOSPC. */
	assert_int_equal(mk(f, "g2/mon_groups/last"), -ENOSPC);
	check_status(f, "Out of RMIDs\n");
	assert_int_equal(rm(f, "g3"), 0);
	assert_int_equal(mk(f, "g2/mon_groups/last"), -EBUSY);
	ctl(f, "advance 1000");
	assert_int_equal(mk(f, "g2/mon_groups/last"), 0);
}

/* MPAM: an RMID is a (PARTID, PMG) pair, so with 2 PMGs each CTRL_MON group has room for one MON
 * group, although num_rmids shows the whole space. */
static void test_mpam_rmids(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(mk(f, "g/mon_groups/a"), 0);
	check_file(f, "g/mon_groups/a/mon_hw_id", "1\n");
	assert_int_equal(mk(f, "g/mon_groups/b"), -ENOSPC);
	check_status(f, "Out of RMIDs\n");
	assert_int_equal(mk(f, "mon_groups/r"), 0);
	assert_int_equal(mk(f, "mon_groups/s"), -ENOSPC);
	/* a's PMG waits in limbo: other CLOSIDs' RMIDs are free, so ENOSPC rather than EBUSY. */
	ctl(f, "clock manual");
	assert_int_equal(rm(f, "g/mon_groups/a"), 0);
	assert_int_equal(mk(f, "g/mon_groups/b"), -ENOSPC);
	ctl(f, "advance 1000");
	assert_int_equal(mk(f, "g/mon_groups/b"), 0);
}

/* A removed group's RMID stays in limbo while its cache occupancy is at max_threshold_occupancy or more,
 * rechecked each second; its lines fade with a half-life of 1 s (--llc-half-life-ms). mpamd-web used
 * the whole L3 of each domain (22 MiB); 3 RMIDs make the threshold 22 MiB / 3. */
static void test_limbo_follows_occupancy(void **state)
{
	struct fx *f = *state;

	ctl(f, "clock manual");
	assert_int_equal(mk(f, "mpamd-web"), 0);
	assert_int_equal(mk(f, "other"), 0);
	assert_int_equal(mk(f, "third"), -ENOSPC); /* 3 RMIDs: the default group's and these two */
	check_status(f, "Out of RMIDs\n");
	ctl(f, "advance 500");
	check_near((double)counter(f, "mpamd-web", 0, "llc_occupancy"), 22.0 * 1024 * 1024, 0.01, "occupancy");
	check_file(f, "info/L3_MON/max_threshold_occupancy", "7689557\n");
	assert_int_equal(rm(f, "mpamd-web"), 0);
	char *ctl_text = slurp(f, ".emu_ctl");
	assert_non_null(strstr(ctl_text, "limbo 1\n"));
	free(ctl_text);
	assert_int_equal(mk(f, "third"), -EBUSY);
	ctl(f, "advance 1000"); /* 11 MiB left: still dirty */
	assert_int_equal(mk(f, "third"), -EBUSY);
	ctl(f, "advance 1000"); /* 5.5 MiB: clean at this check */
	assert_int_equal(mk(f, "third"), 0);
	/* With the threshold at the cache size, the first check frees it. */
	assert_int_equal(put(f, "info/L3_MON/max_threshold_occupancy", "23068672\n"), 0);
	assert_int_equal(rm(f, "other"), 0);
	assert_int_equal(mk(f, "fourth"), -EBUSY);
	ctl(f, "advance 1000");
	assert_int_equal(mk(f, "fourth"), 0);
}

/* MPAM (RMIDs depend on the CLOSID, llc_occupancy monitored): a new CTRL_MON group gets the free CLOSID
 * with the fewest RMIDs in limbo (resctrl_find_cleanest_closid), not the lowest. */
static void test_mpam_cleanest_closid(void **state)
{
	struct fx *f = *state;

	ctl(f, "clock manual");
	assert_int_equal(mk(f, "a"), 0);
	assert_int_equal(mk(f, "b"), 0);
	check_file(f, "a/ctrl_hw_id", "1\n");
	assert_int_equal(rm(f, "a"), 0); /* CLOSID 1 is free, its RMID in limbo */
	assert_int_equal(mk(f, "c"), 0);
	check_file(f, "c/ctrl_hw_id", "3\n");
	ctl(f, "advance 1000");
	assert_int_equal(mk(f, "d"), 0);
	check_file(f, "d/ctrl_hw_id", "1\n");
}

/* ---- schemata ---- */

static void test_schemata_round_trip(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(put(f, "g/schemata", "L3:0=f;1=3f0\nMB:0=50;1=70\n"), 0);
	check_status(f, "ok\n");
	check_file(f, "g/schemata", "MB:0=50;1=70\nL3:0=f;1=3f0\n");
	check_file(f, "g/size", "MB:0=50;1=70\nL3:0=8388608;1=12582912\n");
	/* Only the lines and domains given change; white space around names and values is fine. */
	assert_int_equal(put(f, "g/schemata", "  MB:1= 20 \n"), 0);
	check_file(f, "g/schemata", "MB:0=50;1=20\nL3:0=f;1=3f0\n");
	assert_int_equal(put(f, "g/schemata", "L3:1=0x7\n"), 0);
	check_file(f, "g/schemata", "MB:0=50;1=20\nL3:0=f;1=7\n");
	/* The default group is untouched. */
	check_file(f, "schemata", "MB:0=100;1=100\nL3:0=7ff;1=7ff\n");
}

static void test_schemata_rejections(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *text;
		const char *status;
	} cases[] = {
		{ "L3\n", "Missing ':'\n" },
		{ "L3:0=3\n\nMB:0=50\n", "Missing ':'\n" },
		{ "L3:\n", "Missing 'L3' value\n" },
		{ "XX:0=1\n", "Unknown or unsupported resource name 'XX'\n" },
		{ "L3:a=1\n", "Missing '=' or non-numeric domain\n" },
		{ "L3:0\n", "Missing '=' or non-numeric domain\n" },
		{ "L3:0=1;0=3\n", "Duplicate domain 0\n" },
		{ "MB:1=50\nMB:1=60\n", "Duplicate domain 1\n" },
		{ "L3:0=xyz\n", "Non-hex character in the mask xyz\n" },
		{ "L3:0=0\n", "Mask out of range\n" },
		{ "L3:0=fff\n", "Mask out of range\n" },
		{ "L3:0=505\n", "The mask 505 has non-consecutive 1-bits\n" },
		{ "MB:0=abc\n", "Invalid MB value abc\n" },
		{ "MB:0=200\n", "MB value 200 out of range [10,100]\n" },
		{ "MB:0=5\n", "MB value 5 out of range [10,100]\n" },
		/* All or nothing: the good L3 line is not applied either. */
		{ "L3:0=3\nMB:0=x\n", "Invalid MB value x\n" },
		/* A domain that does not exist: EINVAL and no message in this kernel version. */
		{ "L3:0=3;9=1\n", "ok\n" },
	};

	assert_int_equal(mk(f, "g"), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_reject(f, "g/schemata", cases[i].text, EINVAL, cases[i].status);
	/* Without the trailing newline: EINVAL before the status is touched. */
	check_reject(f, "g/schemata", "XX:0=1\n", EINVAL, "Unknown or unsupported resource name 'XX'\n");
	check_reject(f, "g/schemata", "L3:0=3", EINVAL, "Unknown or unsupported resource name 'XX'\n");
	check_file(f, "g/schemata", "MB:0=100;1=100\nL3:0=7ff;1=7ff\n");
}

static void test_min_cbm_bits(void **state)
{
	struct fx *f = *state;

	check_file(f, "info/L3/min_cbm_bits", "2\n");
	assert_int_equal(mk(f, "g"), 0);
	check_reject(f, "g/schemata", "L3:0=1\n", EINVAL, "Need at least 2 bits in the mask\n");
	assert_int_equal(put(f, "g/schemata", "L3:0=3\n"), 0);
}

/* bw_validate(): range check, then round up to bandwidth_gran, then the profile's conversion. */
static void test_mb_rounding_intel(void **state)
{
	struct fx *f = *state;

	assert_int_equal(put(f, "schemata", "MB:0=15;1=91\n"), 0);
	check_file(f, "schemata", "MB:0=20;1=100\nL3:0=7ff;1=7ff\n");
	assert_int_equal(put(f, "schemata", "MB:0=10\n"), 0);
	check_file(f, "schemata", "MB:0=10;1=100\nL3:0=7ff;1=7ff\n");
}

static void test_mb_rounding_amd(void **state)
{
	struct fx *f = *state;

	assert_int_equal(put(f, "schemata", "MB:0=1000;1=0\n"), 0);
	check_file(f, "schemata", "MB:0=1000;1=0\nL3:0=ffff;1=ffff\n");
	check_reject(f, "schemata", "MB:0=3000\n", EINVAL, "MB value 3000 out of range [0,2048]\n");
	/* Sparse masks and min_cbm_bits 0: any mask within cbm_mask, even 0. */
	assert_int_equal(put(f, "schemata", "L3:0=f0f;1=0\n"), 0);
	check_file(f, "schemata", "MB:0=1000;1=0\nL3:0=f0f;1=0\n");
}

/* Linux 7.1 MPAM: 50 rounds up to 52, which is stored as MBW_MAX band 16 of 32 (round to
 * nearest) and read back as the band's upper bound, 17/32 = 53%. */
static void test_mb_rounding_mpam(void **state)
{
	struct fx *f = *state;

	assert_int_equal(put(f, "schemata", "MB:0=50\n"), 0);
	check_file(f, "schemata", "MB:0=53\nL3:0=ffff\n");
	assert_int_equal(put(f, "schemata", "MB:0=35\n"), 0);
	check_file(f, "schemata", "MB:0=38\nL3:0=ffff\n");
	assert_int_equal(put(f, "schemata", "MB:0=3\n"), 0);
	check_file(f, "schemata", "MB:0=3\nL3:0=ffff\n");
	assert_int_equal(put(f, "schemata", "MB:0=99\n"), 0);
	check_file(f, "schemata", "MB:0=100\nL3:0=ffff\n");
	check_reject(f, "schemata", "MB:0=2\n", EINVAL, "MB value 2 out of range [3,100]\n");
	/* Sparse masks are allowed. */
	assert_int_equal(put(f, "schemata", "L3:0=f00f\n"), 0);
	check_file(f, "schemata", "MB:0=100\nL3:0=f00f\n");
}

static void test_exclusive_mode(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(put(f, "g/schemata", "L3:0=3;1=3\n"), 0);
	check_reject(f, "g/mode", "exclusive\n", EINVAL, "Schemata overlaps\n");
	assert_int_equal(put(f, "schemata", "L3:0=7fc;1=7fc\n"), 0);
	assert_int_equal(put(f, "g/mode", "exclusive\n"), 0);
	check_file(f, "g/mode", "exclusive\n");
	check_file(f, "info/L3/bit_usage", "0=SSSSSSSSSEE;1=SSSSSSSSSEE\n");
	/* A new group gets every bit but the exclusive group's. */
	assert_int_equal(mk(f, "h"), 0);
	check_file(f, "h/schemata", "MB:0=100;1=100\nL3:0=7fc;1=7fc\n");
	check_reject(f, "h/schemata", "L3:0=6\n", EINVAL, "Overlaps with exclusive group\n");
	check_reject(f, "g/mode", "locked\n", EINVAL, "Unknown or unsupported mode\n");
	/* x86 kernels have pseudo-locking (rdtgroup_locksetup_enter), which this CPU cannot do. */
	check_reject(f, "h/mode", "pseudo-locksetup\n", EINVAL, "Pseudo-locking not supported\n");
	check_reject(f, "mode", "pseudo-locksetup\n", EINVAL, "Cannot pseudo-lock default group\n");
	check_reject(f, "h/mode", "pseudo-locked\n", EINVAL, "Unknown or unsupported mode\n");
	check_file(f, "h/mode", "shareable\n");
}

/* ---- tasks ---- */

/* Whether a tasks file has pid as one of its lines. */
static bool lists_pid(const struct fx *f, const char *rel, pid_t pid)
{
	char first[32], inner[34];
	char *text = slurp(f, rel);

	assert_non_null(text);
	snprintf(first, sizeof(first), "%d\n", (int)pid);
	snprintf(inner, sizeof(inner), "\n%d\n", (int)pid);
	bool found = strncmp(text, first, strlen(first)) == 0 || strstr(text, inner) != NULL;
	free(text);
	return found;
}

static void end_kid(struct fx *f, pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (int i = 0; i < MAX_KIDS; i++)
		if (f->kids[i] == pid)
			f->kids[i] = 0;
}

static void test_tasks(void **state)
{
	struct fx *f = *state;
	char text[128], msg[160];
	pid_t self = getpid(), a = sleeper(f), b = sleeper(f), gone = dead_pid();

	assert_int_equal(mk(f, "g"), 0);
	snprintf(text, sizeof(text), "%d\n", (int)self);
	assert_int_equal(put(f, "g/tasks", text), 0);
	check_status(f, "ok\n");
	check_file(f, "g/tasks", text);
	assert_false(lists_pid(f, "tasks", self));
	/* 0 is the writer itself. */
	assert_int_equal(put(f, "tasks", "0\n"), 0);
	assert_true(lists_pid(f, "tasks", self));
	check_file(f, "g/tasks", "");
	/* No such task: ESRCH, and the list stops there; earlier pids stay moved. */
	snprintf(text, sizeof(text), "%d,%d,%d\n", (int)a, (int)gone, (int)b);
	snprintf(msg, sizeof(msg), "No task %d\nError while processing task %d\n", (int)gone, (int)gone);
	check_reject(f, "g/tasks", text, ESRCH, msg);
	assert_true(lists_pid(f, "g/tasks", a));
	assert_false(lists_pid(f, "g/tasks", b));
	check_reject(f, "g/tasks", "abc\n", EINVAL, "Task list parsing error pid abc\n");
	check_reject(f, "g/tasks", "-5\n", EINVAL, "Invalid pid -5\n");
	snprintf(text, sizeof(text), " %d ,\n", (int)b);
	assert_int_equal(put(f, "g/tasks", text), 0);
	assert_true(lists_pid(f, "g/tasks", b));
	/* A CTRL_MON group lists its MON groups' tasks too. */
	assert_int_equal(mk(f, "g/mon_groups/m"), 0);
	snprintf(text, sizeof(text), "%d\n", (int)a);
	assert_int_equal(put(f, "g/mon_groups/m/tasks", text), 0);
	check_file(f, "g/mon_groups/m/tasks", text);
	assert_true(lists_pid(f, "g/tasks", a));
	/* Only tasks of the parent may join a MON group. */
	assert_int_equal(mk(f, "h"), 0);
	assert_int_equal(mk(f, "h/mon_groups/x"), 0);
	snprintf(msg, sizeof(msg), "Can't move task to different control group\nError while processing task %d\n",
		 (int)a);
	check_reject(f, "h/mon_groups/x/tasks", text, EINVAL, msg);
	/* Moving into another CTRL_MON group leaves the old MON group. */
	assert_int_equal(put(f, "h/tasks", text), 0);
	check_file(f, "g/mon_groups/m/tasks", "");
	assert_false(lists_pid(f, "g/tasks", a));
	assert_int_equal(put(f, "h/mon_groups/x/tasks", text), 0);
	/* rmdir hands the tasks back: a MON group's to its parent, a CTRL_MON group's to the root. */
	assert_int_equal(rm(f, "h/mon_groups/x"), 0);
	check_file(f, "h/tasks", text);
	assert_int_equal(rm(f, "g"), 0);
	assert_true(lists_pid(f, "tasks", b));
	/* A task that exits disappears from the lists. */
	end_kid(f, b);
	assert_false(lists_pid(f, "tasks", b));
}

/* ---- cpus ---- */

/* ---- tasks are threads ---- */

#define WORKERS 3

static int quit_pipe[2] = { -1, -1 };

/* A worker waits for one byte on the pipe, then exits. */
static void *worker(void *arg)
{
	char c;

	(void)arg;
	while (read(quit_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* The thread ids of a process from /proc/PID/task, sorted; their number. */
static size_t threads_of(pid_t pid, pid_t *tids, size_t max)
{
	char path[64];
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d)) && n < max;)
		if (e->d_name[0] != '.')
			tids[n++] = (pid_t)atoi(e->d_name);
	closedir(d);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && tids[j - 1] > tids[j]; j--) {
			pid_t t = tids[j];
			tids[j] = tids[j - 1];
			tids[j - 1] = t;
		}
	return n;
}

/* A child with WORKERS threads besides its main one (killed by teardown); waits until all run. */
static pid_t threaded_child(struct fx *f, pid_t *tids)
{
	int slot = 0;

	while (slot < MAX_KIDS && f->kids[slot] > 0)
		slot++;
	assert_true(slot < MAX_KIDS);
	assert_int_equal(pipe(quit_pipe), 0);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t t[WORKERS];
		for (int i = 0; i < WORKERS; i++)
			if (pthread_create(&t[i], NULL, worker, NULL))
				_exit(1);
		for (int i = 0; i < WORKERS; i++)
			pthread_join(t[i], NULL);
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	f->kids[slot] = pid;
	close(quit_pipe[0]);
	for (int waited = 0; threads_of(pid, tids, WORKERS + 2) != WORKERS + 1; waited++) {
		assert_true(waited < 2000);
		struct timespec ms = { 0, 1000000L };
		nanosleep(&ms, NULL);
	}
	return pid;
}

/* The file's lines as sorted ids; their number. */
static size_t listed_ids(const struct fx *f, const char *rel, pid_t *ids, size_t max)
{
	char *text = slurp(f, rel), *save = NULL;
	size_t n = 0;

	assert_non_null(text);
	for (char *line = strtok_r(text, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save))
		ids[n++] = (pid_t)atoi(line);
	free(text);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			pid_t t = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	return n;
}

static void put_id(const struct fx *f, const char *rel, pid_t id)
{
	char text[32];

	snprintf(text, sizeof(text), "%d\n", (int)id);
	int r = put(f, rel, text);
	if (r)
		fail_msg("writing %d to %s: %s", (int)id, rel, strerror(-r));
}

static void test_tasks_threads(void **state)
{
	struct fx *f = *state;
	pid_t tids[WORKERS + 2], got[64], gone;
	char text[64], msg[160];

	pid_t pid = threaded_child(f, tids);
	assert_int_equal(tids[0], pid); /* the main thread's id is the process id */
	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(mk(f, "g/mon_groups/m"), 0);
	/* The default group lists every thread of the host. */
	for (int i = 0; i <= WORKERS; i++)
		assert_true(lists_pid(f, "tasks", tids[i]));
	/* A process id moves the main thread only. */
	put_id(f, "g/tasks", pid);
	check_status(f, "ok\n");
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	check_file(f, "g/tasks", text);
	assert_false(lists_pid(f, "tasks", pid));
	for (int i = 1; i <= WORKERS; i++)
		assert_true(lists_pid(f, "tasks", tids[i]));
	/* Each thread id moves that thread. */
	for (int i = 1; i <= WORKERS; i++)
		put_id(f, "g/tasks", tids[i]);
	assert_int_equal(listed_ids(f, "g/tasks", got, 64), WORKERS + 1);
	assert_memory_equal(got, tids, (WORKERS + 1) * sizeof(pid_t));
	for (int i = 0; i <= WORKERS; i++)
		assert_false(lists_pid(f, "tasks", tids[i]));
	/* One thread into a MON group: its parent still lists it, the group lists only it. */
	put_id(f, "g/mon_groups/m/tasks", tids[2]);
	snprintf(text, sizeof(text), "%d\n", (int)tids[2]);
	check_file(f, "g/mon_groups/m/tasks", text);
	assert_int_equal(listed_ids(f, "g/tasks", got, 64), WORKERS + 1);
	/* Moving the process id back moves only the main thread back. */
	put_id(f, "tasks", pid);
	assert_true(lists_pid(f, "tasks", pid));
	assert_int_equal(listed_ids(f, "g/tasks", got, 64), WORKERS);
	/* A thread that exits leaves the lists; its id then names no task. */
	assert_int_equal(write(quit_pipe[1], "x", 1), 1);
	for (int waited = 0; threads_of(pid, got, WORKERS + 2) != WORKERS; waited++) {
		assert_true(waited < 2000);
		struct timespec ms = { 0, 1000000L };
		nanosleep(&ms, NULL);
	}
	gone = 0;
	for (int i = 1; i <= WORKERS && !gone; i++) {
		bool alive = false;
		for (int j = 0; j < WORKERS; j++)
			alive |= got[j] == tids[i];
		if (!alive)
			gone = tids[i];
	}
	assert_true(gone > 0);
	assert_false(lists_pid(f, "g/tasks", gone));
	assert_false(lists_pid(f, "tasks", gone));
	assert_int_equal(listed_ids(f, "g/tasks", got, 64), WORKERS - 1);
	snprintf(text, sizeof(text), "%d\n", (int)gone);
	snprintf(msg, sizeof(msg), "No task %d\nError while processing task %d\n", (int)gone, (int)gone);
	check_reject(f, "g/tasks", text, ESRCH, msg);
	/* rmdir hands the threads back to the default group. */
	assert_int_equal(rm(f, "g"), 0);
	for (int i = 0; i <= WORKERS; i++)
		if (tids[i] != gone)
			assert_true(lists_pid(f, "tasks", tids[i]));
	close(quit_pipe[1]);
}

/* ---- tasks against a fake proc tree (--proc-root) ---- */

static char fake_proc[64];

static void fake_mkdir(const char *rel)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", fake_proc, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void fake_rmdir(const char *rel)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", fake_proc, rel);
	rmdir(path);
}

/* Process 100 with threads 100 and 101, process 200 with thread 200; stat files are optional. */
static int setup_fake_proc(void **state)
{
	static const char *const dirs[] = { "100", "100/task", "100/task/100", "100/task/101",
					    "101", "200",      "200/task",     "200/task/200" };
	static const char *extra[] = { "--proc-root", fake_proc, NULL };

	snprintf(fake_proc, sizeof(fake_proc), "/tmp/resctrl-emu-proc-XXXXXX");
	if (!mkdtemp(fake_proc))
		return -1;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char path[160];
		snprintf(path, sizeof(path), "%s/%s", fake_proc, dirs[i]);
		if (mkdir(path, 0755))
			return -1;
	}
	return start(state, "intel", NULL, extra);
}

static int teardown_fake_proc(void **state)
{
	static const char *const dirs[] = { "100/task/100", "100/task/101", "100/task/102", "100/task", "100",
					    "101",	    "102",	    "200/task/200", "200/task", "200" };
	int r = teardown(state);

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		fake_rmdir(dirs[i]);
	rmdir(fake_proc);
	return r;
}

/* A tasks file holds exactly these ids (space separated, ascending), in any order. */
static void check_ids(const struct fx *f, const char *rel, const char *expected)
{
	pid_t ids[64];
	char joined[512] = "";
	size_t n = listed_ids(f, rel, ids, 64);

	for (size_t i = 0; i < n; i++)
		snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%d", i ? " " : "", (int)ids[i]);
	if (strcmp(joined, expected) != 0)
		fail_msg("%s lists \"%s\", expected \"%s\"", rel, joined, expected);
}

static void test_tasks_proc_root(void **state)
{
	struct fx *f = *state;

	check_ids(f, "tasks", "100 101 200");
	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(put(f, "g/tasks", "101\n"), 0);
	check_ids(f, "g/tasks", "101");
	check_ids(f, "tasks", "100 200");
	check_reject(f, "g/tasks", "102\n", ESRCH, "No task 102\nError while processing task 102\n");
	check_reject(f, "g/tasks", "0x\n", EINVAL, "Task list parsing error pid 0x\n");
	assert_int_equal(put(f, "g/tasks", "0x64,200\n"), 0); /* kstrtoint base 0 */
	check_ids(f, "g/tasks", "100 101 200");
	check_ids(f, "tasks", "");
	/* A new thread starts in its creator's group (its process's main thread's, here g); one that exits
	 * leaves every list. */
	assert_int_equal(put(f, "tasks", "101\n"), 0);
	fake_mkdir("100/task/102");
	fake_mkdir("102");
	check_ids(f, "tasks", "101");
	check_ids(f, "g/tasks", "100 102 200");
	fake_rmdir("100/task/101");
	fake_rmdir("101");
	check_ids(f, "tasks", "");
	/* The same id again, once its exit was seen, is a new thread, in its creator's group again. */
	fake_mkdir("101");
	fake_mkdir("100/task/101");
	check_ids(f, "g/tasks", "100 101 102 200");
	check_ids(f, "tasks", "");
}

/* A process that makes threads and children on command: 't' makes a thread, which sends its id; 'f'
 * forks a child (which dies with it), whose id it sends. */
struct spawner {
	pid_t pid;
	int cmd, reply;
};

static int spawner_reply = -1;

static void *send_tid_and_park(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	(void)arg;
	if (write(spawner_reply, &tid, sizeof(tid)) != (ssize_t)sizeof(tid))
		_exit(1);
	for (;;)
		pause();
	return NULL;
}

static void spawner_loop(int cmd)
{
	char c;

	while (read(cmd, &c, 1) == 1) {
		pthread_t t;
		if (c == 't' && pthread_create(&t, NULL, send_tid_and_park, NULL))
			_exit(1);
		if (c != 'f')
			continue;
		pid_t kid = fork();
		if (kid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
		if (write(spawner_reply, &kid, sizeof(kid)) != (ssize_t)sizeof(kid))
			_exit(1);
	}
	_exit(0);
}

static void spawner_start(struct fx *f, struct spawner *s)
{
	int cmd[2], reply[2];
	int slot = 0;

	assert_int_equal(pipe(cmd), 0);
	assert_int_equal(pipe(reply), 0);
	while (slot < MAX_KIDS && f->kids[slot] > 0)
		slot++;
	assert_true(slot < MAX_KIDS);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		close(cmd[1]);
		close(reply[0]);
		spawner_reply = reply[1];
		spawner_loop(cmd[0]);
	}
	f->kids[slot] = s->pid;
	close(cmd[0]);
	close(reply[1]);
	s->cmd = cmd[1];
	s->reply = reply[0];
}

static pid_t spawner_ask(struct spawner *s, char what)
{
	pid_t id = 0;

	assert_int_equal(write(s->cmd, &what, 1), 1);
	assert_int_equal(read(s->reply, &id, sizeof(id)), (ssize_t)sizeof(id));
	return id;
}

static void spawner_stop(struct fx *f, struct spawner *s)
{
	close(s->cmd);
	close(s->reply);
	end_kid(f, s->pid);
}

/* The kernel copies a task's CLOSID and RMID to the threads and children it creates (dup_task_struct):
 * they start in its group, MON group included; what it created before a move stays where it was. */
static void test_tasks_inherited(void **state)
{
	struct fx *f = *state;
	struct spawner s;
	char line[32];

	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(mk(f, "g/mon_groups/m"), 0);
	spawner_start(f, &s);
	pid_t early = spawner_ask(&s, 't');
	snprintf(line, sizeof(line), "%d\n", (int)s.pid);
	assert_int_equal(put(f, "g/tasks", line), 0);
	assert_int_equal(put(f, "g/mon_groups/m/tasks", line), 0);
	pid_t thread = spawner_ask(&s, 't');
	pid_t child = spawner_ask(&s, 'f');
	assert_true(lists_pid(f, "g/mon_groups/m/tasks", thread));
	assert_true(lists_pid(f, "g/mon_groups/m/tasks", child));
	assert_true(lists_pid(f, "g/tasks", child));
	assert_false(lists_pid(f, "tasks", thread));
	assert_false(lists_pid(f, "tasks", child));
	/* Made before the move: still in the default group. */
	assert_true(lists_pid(f, "tasks", early));
	assert_false(lists_pid(f, "g/tasks", early));
	/* Back in the default group, it makes threads there; the ones made in m stay in m. */
	assert_int_equal(put(f, "tasks", line), 0);
	pid_t later = spawner_ask(&s, 't');
	assert_true(lists_pid(f, "tasks", later));
	assert_false(lists_pid(f, "g/tasks", later));
	assert_true(lists_pid(f, "g/mon_groups/m/tasks", thread));
	/* rmdir hands what it inherited back to the default group. */
	assert_int_equal(rm(f, "g"), 0);
	assert_true(lists_pid(f, "tasks", thread));
	assert_true(lists_pid(f, "tasks", child));
	spawner_stop(f, &s);
}

static void test_cpus(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(mk(f, "h"), 0);
	assert_int_equal(put(f, "g/cpus_list", "1-2\n"), 0);
	check_file(f, "g/cpus_list", "1-2\n");
	check_file(f, "g/cpus", "6\n");
	check_file(f, "cpus_list", "0,3\n");
	check_file(f, "cpus", "9\n");
	assert_int_equal(put(f, "h/cpus", "8\n"), 0); /* the mask form */
	check_file(f, "h/cpus_list", "3\n");
	check_file(f, "cpus_list", "0\n");
	/* Taking a CPU from another group. */
	assert_int_equal(put(f, "h/cpus_list", "2-3\n"), 0);
	check_file(f, "g/cpus_list", "1\n");
	/* Errors, each clearing last_cmd_status first. A CPU past the possible ones (the kernel parses
	 * nr_cpu_ids bits) is a parse error: ERANGE in a list, EOVERFLOW in a mask. */
	check_reject(f, "g/cpus_list", "0-7\n", ERANGE, "Bad CPU list/mask\n");
	check_reject(f, "g/cpus", "10\n", EOVERFLOW, "Bad CPU list/mask\n");
	assert_true(put(f, "g/cpus_list", "abc\n") < 0);
	check_status(f, "Bad CPU list/mask\n");
	assert_true(put(f, "g/cpus", "xyz\n") < 0);
	check_status(f, "Bad CPU list/mask\n");
	assert_int_equal(put(f, "cpus_list", "\n"), -EINVAL);
	check_status(f, "Can't drop CPUs from default group\n");
	check_file(f, "g/cpus_list", "1\n");
	/* MON groups take CPUs of their parent only. */
	assert_int_equal(mk(f, "h/mon_groups/m"), 0);
	assert_int_equal(put(f, "h/mon_groups/m/cpus_list", "1\n"), -EINVAL);
	check_status(f, "Can only add CPUs to mongroup that belong to parent\n");
	assert_int_equal(put(f, "h/mon_groups/m/cpus_list", "3\n"), 0);
	check_file(f, "h/mon_groups/m/cpus_list", "3\n");
	check_file(f, "h/cpus_list", "2-3\n");
	/* rmdir gives a CTRL_MON group's CPUs back to the default group. */
	assert_int_equal(rm(f, "h"), 0);
	check_file(f, "cpus_list", "0,2-3\n");
}

/* A possible CPU that is offline parses, and is refused as offline; every mask is as wide as the
 * possible CPUs. */
static void test_cpus_offline(void **state)
{
	struct fx *f = *state;

	check_file(f, "cpus", "0f\n");
	check_file(f, "cpus_list", "0-3\n");
	assert_int_equal(mk(f, "g"), 0);
	check_reject(f, "g/cpus_list", "2-5\n", EINVAL, "Can only assign online CPUs\n");
	check_reject(f, "g/cpus", "30\n", EINVAL, "Can only assign online CPUs\n");
	check_reject(f, "g/cpus_list", "8\n", ERANGE, "Bad CPU list/mask\n");
	check_reject(f, "g/cpus", "100\n", EOVERFLOW, "Bad CPU list/mask\n");
	assert_int_equal(put(f, "g/cpus", "0c\n"), 0);
	check_file(f, "g/cpus_list", "2-3\n");
}

/* ---- counters from the traffic model ---- */

#define MB 1e6 /* bytes per MB, as the traffic model counts */

/* Bytes a group's event gained in each domain while the frozen clock moves by ms. */
static void measure(const struct fx *f, const char *group, const char *event, unsigned ms, double delta[2])
{
	uint64_t before[2], after[2];
	char cmd[32];

	for (unsigned d = 0; d < 2; d++)
		before[d] = counter(f, group, d, event);
	snprintf(cmd, sizeof(cmd), "advance %u", ms);
	ctl(f, cmd);
	for (unsigned d = 0; d < 2; d++) {
		after[d] = counter(f, group, d, event);
		delta[d] = (double)(after[d] - before[d]);
	}
}

static void test_counters_follow_demand(void **state)
{
	struct fx *f = *state;
	double web[2], batch[2], other[2], local[2];

	assert_int_equal(mk(f, "mpamd-web"), 0);
	assert_int_equal(mk(f, "mpamd-batch"), 0);
	assert_int_equal(mk(f, "other"), 0);
	ctl(f, "clock manual");
	/* Demand fits: web 6000 MB/s and batch 16000 MB/s, half in each 20000 MB/s domain. */
	measure(f, "mpamd-web", "mbm_total_bytes", 1000, web);
	check_near(web[0], 3000 * MB, 0.01, "web, domain 0");
	check_near(web[1], 3000 * MB, 0.01, "web, domain 1");
	measure(f, "mpamd-batch", "mbm_total_bytes", 1000, batch);
	check_near(batch[0] + batch[1], 16000 * MB, 0.01, "batch");
	measure(f, "mpamd-web", "mbm_local_bytes", 1000, local);
	check_near(local[0], 0.8 * 3000 * MB, 0.01, "web local");
	measure(f, "other", "mbm_total_bytes", 1000, other);
	assert_true(other[0] == 0 && other[1] == 0);
	assert_true(counter(f, "mpamd-web", 0, "llc_occupancy") > 0);
	assert_int_equal(counter(f, "other", 0, "llc_occupancy"), 0);
	assert_int_equal(counter(f, "", 0, "mbm_total_bytes"), 0);
	/* A lower MB limit caps batch at 10% of each domain. */
	assert_int_equal(put(f, "mpamd-batch/schemata", "MB:0=10;1=10\n"), 0);
	measure(f, "mpamd-batch", "mbm_total_bytes", 1000, batch);
	check_near(batch[0], 2000 * MB, 0.01, "capped batch, domain 0");
	check_near(batch[1], 2000 * MB, 0.01, "capped batch, domain 1");
	measure(f, "mpamd-web", "mbm_total_bytes", 500, web);
	check_near(web[0], 1500 * MB, 0.01, "web beside capped batch");
	/* A CTRL_MON group's value includes its MON groups; MON groups have no demand of their own. */
	assert_int_equal(mk(f, "mpamd-web/mon_groups/m"), 0);
	measure(f, "mpamd-web", "mbm_total_bytes", 1000, web);
	check_near(web[0], 3000 * MB, 0.01, "web with a MON group");
}

/* Mounted with mba_MBps (is_mba_sc): MB values are MB/s taken as written (no range, no rounding),
 * groups start at MBA_MAX_MBPS, each control group has mba_MBps_event, and the controller holds a
 * group at its MB/s (idealised: exactly, at once). */
static void test_mba_mbps(void **state)
{
	struct fx *f = *state;
	double batch[2];

	check_file(f, "schemata", "MB:0=4294967295;1=4294967295\nL3:0=7ff;1=7ff\n");
	check_file(f, "mba_MBps_event", "mbm_local_bytes\n");
	assert_int_equal(mk(f, "mpamd-batch"), 0);
	check_file(f, "mpamd-batch/schemata", "MB:0=4294967295;1=4294967295\nL3:0=7ff;1=7ff\n");
	assert_int_equal(put(f, "mpamd-batch/schemata", "MB:0=1234;1=5\n"), 0);
	check_file(f, "mpamd-batch/schemata", "MB:0=1234;1=5\nL3:0=7ff;1=7ff\n");
	check_reject(f, "mpamd-batch/schemata", "MB:0=-1\n", EINVAL, "Invalid MB value -1\n");
	assert_int_equal(put(f, "mpamd-batch/mba_MBps_event", "mbm_total_bytes\n"), 0);
	check_file(f, "mpamd-batch/mba_MBps_event", "mbm_total_bytes\n");
	check_reject(f, "mpamd-batch/mba_MBps_event", "llc_occupancy\n", EINVAL, "mba_MBps_event: Invalid input\n");
	ctl(f, "clock manual");
	assert_int_equal(put(f, "mpamd-batch/schemata", "MB:0=2500;1=1000\n"), 0);
	measure(f, "mpamd-batch", "mbm_total_bytes", 1000, batch);
	check_near(batch[0], 2500 * MB, 0.01, "batch held at 2500 MB/s, domain 0");
	check_near(batch[1], 1000 * MB, 0.01, "batch held at 1000 MB/s, domain 1");
}

static void test_counters_share_capacity(void **state)
{
	struct fx *f = *state;
	double web[2], hog[2];

	assert_int_equal(mk(f, "mpamd-web"), 0);
	assert_int_equal(mk(f, "mpamd-hog"), 0);
	ctl(f, "clock manual");
	/* 3000 + 20000 MB/s asked of each 20000 MB/s domain: shared in proportion to demand. */
	ctl(f, "advance 100");
	uint64_t w0 = counter(f, "mpamd-web", 0, "mbm_total_bytes"), h0 = counter(f, "mpamd-hog", 0, "mbm_total_bytes");
	ctl(f, "advance 1000");
	web[0] = (double)(counter(f, "mpamd-web", 0, "mbm_total_bytes") - w0);
	hog[0] = (double)(counter(f, "mpamd-hog", 0, "mbm_total_bytes") - h0);
	check_near(web[0] + hog[0], 20000 * MB, 0.01, "a saturated domain");
	check_near(web[0], 20000 * MB * 3000 / 23000, 0.01, "web's share");
	/* Capping the hog at 50% leaves web its whole demand. */
	assert_int_equal(put(f, "mpamd-hog/schemata", "MB:0=50;1=50\n"), 0);
	measure(f, "mpamd-hog", "mbm_total_bytes", 1000, hog);
	check_near(hog[0], 10000 * MB, 0.01, "capped hog");
}

/* The plant of the configuration, with the simulator's own curve and burst code: a partition pinned
 * to domain 1 has no traffic on domain 0; an MB setting lets through what [sim] mb_curve says (30%:
 * 75% of the domain), not its percentage; a bursting partition counts only while its burst is on. */
static void test_counters_follow_the_plant(void **state)
{
	struct fx *f = *state;
	double pinned[2], bursty[2];

	assert_int_equal(mk(f, "mpamd-pinned"), 0);
	assert_int_equal(mk(f, "mpamd-bursty"), 0);
	ctl(f, "clock manual");
	measure(f, "mpamd-pinned", "mbm_total_bytes", 1000, pinned);
	assert_true(pinned[0] == 0);
	/* bursty shares domain 1 in its first half second (30000 of 32000 asked), not in the second */
	check_near(pinned[1], 20000 * MB * (0.5 * 30000 / 32000 + 0.5), 0.01, "pinned beside bursty");
	assert_int_equal(put(f, "mpamd-pinned/schemata", "MB:0=100;1=30\n"), 0);
	measure(f, "mpamd-pinned", "mbm_total_bytes", 1000, pinned);
	check_near(pinned[1], 0.75 * 20000 * MB, 0.01, "pinned at MB 30% on a concave curve");
	/* On for 500 ms of every second (where the second begins is the emulator's clock, which froze
	 * at some point of it): any whole second holds half of its demand, and 100 ms windows are off,
	 * on at 2000 MB/s per domain, or across an edge. */
	measure(f, "mpamd-bursty", "mbm_total_bytes", 2000, bursty);
	check_near(bursty[0] + bursty[1], 4000 * MB * 1.0, 0.01, "bursty over two periods: half of its demand");
	unsigned off = 0, on = 0;
	for (int w = 0; w < 10; w++) {
		measure(f, "mpamd-bursty", "mbm_total_bytes", 100, bursty);
		off += bursty[0] == 0;
		on += fabs(bursty[0] - 200 * MB) < 0.01 * 200 * MB;
	}
	assert_true(off >= 4 && on >= 4);
}

/* The emulator's tick (interval_ms 100) at its clock's time, which must be on a tick boundary. */
static uint64_t emu_tick(const struct fx *f)
{
	char *text = slurp(f, ".emu_ctl");
	const char *at = text ? strstr(text, "time_ms ") : NULL;
	double ms;

	assert_non_null(at);
	assert_int_equal(sscanf(at, "time_ms %lf", &ms), 1);
	free(text);
	assert_true(fmod(ms, 100) < 1e-3);
	return (uint64_t)(ms / 100 + 0.5);
}

/* [sim] delay_ticks: an MB value written at the start of a tick governs the traffic three ticks later,
 * to the tick, while schemata shows it at once. Raising it back takes as long. */
static void test_mb_acts_delay_ticks_later(void **state)
{
	struct fx *f = *state;
	double hog[2];

	assert_int_equal(mk(f, "mpamd-hog"), 0);
	ctl(f, "clock manual");
	ctl(f, "advance tick");
	ctl(f, "advance 300");
	assert_int_equal(put(f, "mpamd-hog/schemata", "MB:0=50;1=50\n"), 0);
	check_file(f, "mpamd-hog/schemata", "MB:0=50;1=50\nL3:0=7ff;1=7ff\n");
	for (int t = 0; t < 3; t++) {
		measure(f, "mpamd-hog", "mbm_total_bytes", 100, hog);
		check_near(hog[0], 2000 * MB, 1e-6, "hog before its limit acts, domain 0");
		check_near(hog[1], 2000 * MB, 1e-6, "hog before its limit acts, domain 1");
	}
	measure(f, "mpamd-hog", "mbm_total_bytes", 100, hog);
	check_near(hog[0], 1000 * MB, 1e-6, "hog once its limit acts");
	assert_int_equal(put(f, "mpamd-hog/schemata", "MB:0=100\n"), 0);
	check_file(f, "mpamd-hog/schemata", "MB:0=100;1=50\nL3:0=7ff;1=7ff\n");
	for (int t = 0; t < 3; t++) {
		measure(f, "mpamd-hog", "mbm_total_bytes", 100, hog);
		check_near(hog[0], 1000 * MB, 1e-6, "hog before its raised limit acts");
	}
	measure(f, "mpamd-hog", "mbm_total_bytes", 100, hog);
	check_near(hog[0], 2000 * MB, 1e-6, "hog once its raised limit acts");
	check_near(hog[1], 1000 * MB, 1e-6, "hog on the domain still limited");
}

#define NOISY_SAMPLES 40

/* Samples, one a tick, of "hog" held to half of domain 0 by MB 50; returns the tick of the first. */
static uint64_t capped_samples(const struct fx *f, double *samples)
{
	double hog[2];

	ctl(f, "clock manual");
	ctl(f, "advance tick");
	assert_int_equal(put(f, "mpamd-hog/schemata", "MB:0=50;1=50\n"), 0);
	uint64_t first = emu_tick(f);
	for (int i = 0; i < NOISY_SAMPLES; i++) {
		measure(f, "mpamd-hog", "mbm_total_bytes", 100, hog);
		samples[i] = hog[0];
	}
	return first;
}

/* [sim] measure_noise_pct: a group held at its MB ceiling no longer counts exactly the ceiling (it does
 * with no noise: test_counters_share_capacity); its mean is the ceiling. Same seed, same sample at the
 * same tick. */
static void test_counters_measure_noise(void **state)
{
	struct fx *f = *state;
	struct fx other = { 0 };
	double samples[NOISY_SAMPLES], again[NOISY_SAMPLES], mean = 0, var = 0;

	assert_int_equal(mk(f, "mpamd-hog"), 0);
	uint64_t first = capped_samples(f, samples);
	for (int i = 0; i < NOISY_SAMPLES; i++)
		mean += samples[i] / NOISY_SAMPLES;
	for (int i = 0; i < NOISY_SAMPLES; i++)
		var += (samples[i] - mean) * (samples[i] - mean) / (NOISY_SAMPLES - 1);
	printf("capped hog, measure_noise_pct 10: mean %.1f MB, stddev %.1f MB a tick\n", mean / MB, sqrt(var) / MB);
	check_near(mean, 1000 * MB, 0.03, "mean of noisy samples at the ceiling");
	assert_true(sqrt(var) > 0.02 * 1000 * MB);
	for (int i = 0; i < NOISY_SAMPLES; i++)
		assert_true(fabs(samples[i] - 1000 * MB) <= 0.1 * 1000 * MB + 1);

	/* A second emulator on the same file: its clock started later, so compare the ticks both saw. */
	assert_int_equal(emu_start("intel", f->config, NULL, &other.emu), 0);
	assert_int_equal(mkdir(P(&other, "mpamd-hog"), 0755), 0);
	uint64_t other_first = capped_samples(&other, again);
	size_t compared = 0;
	for (int i = 0; i < NOISY_SAMPLES; i++) {
		uint64_t tick = other_first + (uint64_t)i;
		if (tick < first || tick >= first + NOISY_SAMPLES)
			continue;
		assert_true(fabs(again[i] - samples[tick - first]) <= 1); /* whole bytes shown */
		compared++;
	}
	assert_int_equal(emu_stop(other.emu), 0);
	assert_true(compared >= NOISY_SAMPLES / 2);
}

/* AMD's absolute MB values go through the plant's curve as the share of the domain they name: 48
 * units, 6000 MB/s, are 30% of a 20000 MB/s domain, which the curve lets through as 75%. */
static void test_amd_mb_through_the_curve(void **state)
{
	struct fx *f = *state;
	double hog[2];

	assert_int_equal(mk(f, "mpamd-hog"), 0);
	ctl(f, "clock manual");
	assert_int_equal(put(f, "mpamd-hog/schemata", "MB:0=48;1=2048\n"), 0);
	measure(f, "mpamd-hog", "mbm_total_bytes", 1000, hog);
	check_near(hog[0], 0.75 * 20000 * MB, 0.01, "48 units on a curve through 30:0.75");
	check_near(hog[1], 20000 * MB, 0.01, "the MB maximum: the whole domain");
}

/* The clock follows real time unless frozen. */
static void test_counters_real_time(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "mpamd-web"), 0);
	uint64_t before = counter(f, "mpamd-web", 0, "mbm_total_bytes");
	struct timespec pause_for = { 0, 50 * 1000000L };
	nanosleep(&pause_for, NULL);
	uint64_t after = counter(f, "mpamd-web", 0, "mbm_total_bytes");
	/* At least 50 ms at 3000 MB/s. */
	assert_true(after - before >= (uint64_t)(0.05 * 3000 * MB));
	assert_int_equal(emu_ctl(f->emu, "advance 10"), -EINVAL);
}

/* ---- fault injection ---- */

static void test_fail_next_write(void **state)
{
	struct fx *f = *state;

	ctl(f, "fail_next_write EIO");
	assert_int_equal(put(f, "schemata", "MB:0=50\n"), -EIO);
	check_file(f, "schemata", "MB:0=100;1=100\nL3:0=7ff;1=7ff\n");
	assert_int_equal(put(f, "schemata", "MB:0=50\n"), 0);
	/* With a path suffix only a matching write fails. */
	ctl(f, "fail_next_write ENOSPC tasks\n");
	assert_int_equal(put(f, "schemata", "MB:0=60\n"), 0);
	assert_int_equal(put(f, "tasks", "0\n"), -ENOSPC);
	assert_int_equal(put(f, "tasks", "0\n"), 0);
	ctl(f, "fail_next_write 16");
	assert_int_equal(put(f, "schemata", "MB:0=70\n"), -EBUSY);
	check_file(f, "schemata", "MB:0=60;1=100\nL3:0=7ff;1=7ff\n");
	ctl(f, "fail_mkdir ENOSPC");
	assert_int_equal(mk(f, "g"), -ENOSPC);
	check_absent(f, "g");
	assert_int_equal(mk(f, "g"), 0);
	/* Bad commands. */
	assert_int_equal(emu_ctl(f->emu, "bogus"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "fail_next_write EWHAT"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "fail_mkdir"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "counter nosuch 0 mbm_total_bytes ok"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "counter . 9 mbm_total_bytes ok"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "counter . 0 mbm_total_bytes broken"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "clock later"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "vanish\nvanish"), -EINVAL);
}

/* Faults that last: a count or "always" (until clear), the kernel's message in last_cmd_status (or
 * "ok" when the kernel would leave none), mkdir and rmdir too; reading .emu_ctl shows what is armed. */
static void test_fault_counts_and_status(void **state)
{
	struct fx *f = *state;

	unsigned long changes = 0, after = 0;
	assert_int_equal(emu_changes(f->emu, &changes), 0);
	ctl(f, "fail_write EINVAL schemata 2 MB value 5 out of range [10,100]");
	for (int i = 0; i < 2; i++) {
		assert_int_equal(put(f, "schemata", "MB:0=5\n"), -EINVAL);
		check_file(f, "info/last_cmd_status", "MB value 5 out of range [10,100]\n");
	}
	assert_int_equal(emu_changes(f->emu, &after), 0);
	assert_int_equal(after, changes); /* a refused write is no change */
	assert_int_equal(put(f, "schemata", "MB:0=50\n"), 0);
	check_file(f, "info/last_cmd_status", "ok\n");
	assert_int_equal(emu_changes(f->emu, &after), 0);
	assert_int_equal(after, changes + 1);
	ctl(f, "fail_write EIO * always");
	for (int i = 0; i < 3; i++)
		assert_int_equal(put(f, i % 2 ? "tasks" : "schemata", "0\n"), -EIO);
	check_file(f, "info/last_cmd_status", "ok\n"); /* no message: the kernel's status is cleared */
	char *text = slurp(f, ".emu_ctl");
	assert_non_null(strstr(text, "fail_write EIO * always\n"));
	free(text);
	ctl(f, "fail_mkdir ENOSPC * 2 Out of CLOSIDs");
	assert_int_equal(mk(f, "g"), -ENOSPC);
	check_file(f, "info/last_cmd_status", "Out of CLOSIDs\n");
	text = slurp(f, ".emu_ctl");
	assert_non_null(strstr(text, "fail_mkdir ENOSPC * 1 Out of CLOSIDs\n"));
	free(text);
	ctl(f, "counter . 0 mbm_total_bytes error");
	ctl(f, "clear");
	assert_int_equal(put(f, "schemata", "MB:0=60\n"), 0);
	assert_int_equal(mk(f, "g"), 0);
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "0\n");
	ctl(f, "fail_rmdir EBUSY /g");
	assert_int_equal(mk(f, "h"), 0);
	assert_int_equal(rm(f, "h"), 0); /* not the path the fault is for */
	assert_int_equal(rm(f, "g"), -EBUSY);
	assert_int_equal(rm(f, "g"), 0);
	check_absent(f, "g");
	text = slurp(f, ".emu_ctl");
	assert_null(strstr(text, "\nfail_"));
	free(text);
	/* Malformed. */
	assert_int_equal(emu_ctl(f->emu, "fail_write EIO schemata 0"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "fail_write EIO schemata sometimes"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "fail_next_write EIO schemata 2"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "fail_rmdir EBUSY * 1 why"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "clear now"), -EINVAL);
}

static void test_counter_states(void **state)
{
	struct fx *f = *state;

	ctl(f, "counter . 0 mbm_total_bytes unavailable");
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "Unavailable\n");
	check_file(f, "mon_data/mon_L3_01/mbm_total_bytes", "0\n");
	ctl(f, "counter . 0 mbm_total_bytes error");
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "Error\n");
	ctl(f, "counter . 0 mbm_total_bytes unassigned");
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "Unassigned\n");
	ctl(f, "counter . 0 mbm_total_bytes ok");
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "0\n");
	/* A CTRL_MON group reads a number while any of it or its MON groups can be read, else the
	 * last failure. */
	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(mk(f, "g/mon_groups/m"), 0);
	ctl(f, "counter g 1 llc_occupancy unavailable");
	check_file(f, "g/mon_data/mon_L3_01/llc_occupancy", "0\n");
	ctl(f, "counter g/mon_groups/m 1 llc_occupancy error");
	check_file(f, "g/mon_data/mon_L3_01/llc_occupancy", "Error\n");
	check_file(f, "g/mon_groups/m/mon_data/mon_L3_01/llc_occupancy", "Error\n");
	char *text = slurp(f, ".emu_ctl");
	assert_non_null(text);
	assert_non_null(strstr(text, "counter g/mon_groups/m 1 llc_occupancy error\n"));
	free(text);
}

/* The mount goes away (for a moment it may answer ENOTCONN), leaving the empty mount point. */
static void test_vanish(void **state)
{
	struct fx *f = *state;
	struct stat st;
	int waited = 0;

	assert_int_equal(emu_ctl(f->emu, "vanish"), 0);
	while ((stat(P(f, "info/last_cmd_status"), &st) == 0 || errno != ENOENT) && waited < 2000) {
		struct timespec ms = { 0, 1000000L };
		nanosleep(&ms, NULL);
		waited++;
	}
	if (waited >= 2000)
		fail_msg("the mount is still there after vanish");
	check_listing(f, "", "");
}

/* ---- counter assignment (mbm_event) ---- */

static void test_amd_assignment(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "g1"), 0);
	check_status(f, "ok\n");
	check_file(f, "g1/mbm_L3_assignments", "mbm_total_bytes:0=e;1=e\nmbm_local_bytes:0=e;1=e\n");
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=0;1=0\n");
	/* No counters left: the group is made but stays unassigned, each event tried on every domain. */
	assert_int_equal(mk(f, "g2"), 0);
	check_status(f, "Failed to allocate counter for mbm_total_bytes in domain 0\n"
			"Failed to allocate counter for mbm_total_bytes in domain 1\n"
			"Failed to allocate counter for mbm_local_bytes in domain 0\n"
			"Failed to allocate counter for mbm_local_bytes in domain 1\n");
	check_file(f, "g2/mbm_L3_assignments", "mbm_total_bytes:0=_;1=_\nmbm_local_bytes:0=_;1=_\n");
	check_file(f, "g2/mon_data/mon_L3_00/mbm_total_bytes", "Unassigned\n");
	check_file(f, "g2/mon_data/mon_L3_00/llc_occupancy", "0\n");
	check_reject(f, "g2/mbm_L3_assignments", "mbm_total_bytes:0=e\n", ENOSPC,
		     "Failed to allocate counter for mbm_total_bytes in domain 0\n"
		     "Assign operation 'mbm_total_bytes:0=e' failed\n");
	/* Free two, then take them. */
	assert_int_equal(put(f, "g1/mbm_L3_assignments", "mbm_total_bytes:0=_;1=_\n"), 0);
	check_file(f, "g1/mbm_L3_assignments", "mbm_total_bytes:0=_;1=_\nmbm_local_bytes:0=e;1=e\n");
	check_file(f, "g1/mon_data/mon_L3_01/mbm_total_bytes", "Unassigned\n");
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=1;1=1\n");
	assert_int_equal(put(f, "g2/mbm_L3_assignments", "mbm_total_bytes:*=e\n"), 0);
	check_file(f, "g2/mbm_L3_assignments", "mbm_total_bytes:0=e;1=e\nmbm_local_bytes:0=_;1=_\n");
	check_file(f, "g2/mon_data/mon_L3_00/mbm_total_bytes", "0\n");
	/* Errors. */
	check_reject(f, "g2/mbm_L3_assignments", "foo:0=e\n", ENOENT, "Invalid event foo\n");
	check_reject(f, "g2/mbm_L3_assignments", "llc_occupancy:0=e\n", ENOENT, "Invalid event llc_occupancy\n");
	check_reject(f, "g2/mbm_L3_assignments", "mbm_total_bytes:x=e\n", EINVAL, "Missing domain id\n");
	check_reject(f, "g2/mbm_L3_assignments", "mbm_total_bytes:5=e\n", EINVAL, "Invalid domain id 5\n");
	check_reject(f, "g2/mbm_L3_assignments", "mbm_total_bytes:0=q\n", EINVAL,
		     "Assign operation 'mbm_total_bytes:0=q' failed\n");
	/* mbm_L3_assignments_write wants the trailing newline. */
	check_reject(f, "g2/mbm_L3_assignments", "mbm_total_bytes:0=e", EINVAL, "mbm_L3_assignments: Invalid input\n");
	/* rmdir returns a group's counters. */
	assert_int_equal(rm(f, "g2"), 0);
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=1;1=1\n");
	assert_int_equal(rm(f, "g1"), 0);
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=2;1=2\n");
}

/* AMD's counters are configurable (mbm_cntr_configurable): event_filter takes a list of
 * transactions, refused names and all. */
static void test_amd_event_filter(void **state)
{
	struct fx *f = *state;
	const char *local = "info/L3_MON/event_configs/mbm_local_bytes/event_filter";
	struct stat st;

	assert_int_equal(stat(P(f, local), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(put(f, local, " remote_reads , local_reads\n"), 0);
	check_file(f, local, "local_reads,remote_reads\n");
	check_status(f, "ok\n");
	check_reject(f, local, "local_reads,reads\n", EINVAL, "Invalid memory transaction type reads\n");
	/* 7.2 refuses a write without its newline before it clears last_cmd_status. */
	check_reject(f, local, "local_reads", EINVAL, "Invalid memory transaction type reads\n");
	check_file(f, local, "local_reads,remote_reads\n");
	check_file(f, "info/L3_MON/event_configs/mbm_total_bytes/event_filter",
		   "local_reads,remote_reads,local_non_temporal_writes,remote_non_temporal_writes,"
		   "local_reads_slow_memory,remote_reads_slow_memory,dirty_victim_writes_all\n");
	assert_int_equal(put(f, "info/L3_MON/mbm_assign_mode", "default\n"), 0);
	check_reject(f, local, "local_reads\n", EINVAL, "mbm_event counter assignment mode is not enabled\n");
}

static void test_amd_assign_mode(void **state)
{
	struct fx *f = *state;

	assert_int_equal(put(f, "info/L3_MON/mbm_assign_mode", "default\n"), 0);
	check_file(f, "info/L3_MON/mbm_assign_mode", "[default]\nmbm_event\n");
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "0\n");
	assert_int_equal(put(f, "mbm_L3_assignments", "mbm_total_bytes:0=e\n"), -EINVAL);
	check_status(f, "mbm_event mode is not enabled\n");
	assert_null(slurp(f, "info/L3_MON/available_mbm_cntrs"));
	assert_int_equal(errno, EINVAL);
	check_reject(f, "info/L3_MON/mbm_assign_mode", "fancy\n", EINVAL, "Unsupported assign mode\n");
	check_reject(f, "info/L3_MON/mbm_assign_mode", "default", EINVAL, "mbm_assign_mode: Invalid input\n");
	/* Back to mbm_event: every counter was freed. */
	assert_int_equal(put(f, "info/L3_MON/mbm_assign_mode", "mbm_event\n"), 0);
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=4;1=4\n");
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "Unassigned\n");
	check_reject(f, "info/L3_MON/mbm_assign_on_mkdir", "maybe\n", EINVAL, "mbm_assign_on_mkdir: Invalid input\n");
	assert_int_equal(put(f, "info/L3_MON/mbm_assign_on_mkdir", "0\n"), 0);
	check_file(f, "info/L3_MON/mbm_assign_on_mkdir", "0\n");
	assert_int_equal(mk(f, "g"), 0);
	check_file(f, "g/mbm_L3_assignments", "mbm_total_bytes:0=_;1=_\nmbm_local_bytes:0=_;1=_\n");
}

/* A (re)assigned counter starts from 0 and then counts the group's traffic. */
static void test_amd_counter_restart(void **state)
{
	struct fx *f = *state;
	double web[2];

	assert_int_equal(mk(f, "mpamd-web"), 0);
	ctl(f, "clock manual");
	measure(f, "mpamd-web", "mbm_total_bytes", 1000, web);
	check_near(web[0], 3000 * MB, 0.01, "web on amd");
	assert_true(counter(f, "mpamd-web", 0, "mbm_total_bytes") > 0);
	assert_int_equal(put(f, "mpamd-web/mbm_L3_assignments", "mbm_total_bytes:0=_\n"), 0);
	ctl(f, "advance 300");
	assert_int_equal(put(f, "mpamd-web/mbm_L3_assignments", "mbm_total_bytes:0=e\n"), 0);
	assert_int_equal(counter(f, "mpamd-web", 0, "mbm_total_bytes"), 0);
	ctl(f, "advance 500");
	check_near((double)counter(f, "mpamd-web", 0, "mbm_total_bytes"), 1500 * MB, 0.01, "restarted counter");
	/* AMD's absolute MB: 8 units of 1/8 GB/s cap web at 1000 MB/s per domain. */
	assert_int_equal(put(f, "mpamd-web/schemata", "MB:0=8;1=8\n"), 0);
	measure(f, "mpamd-web", "mbm_total_bytes", 1000, web);
	check_near(web[0], 1000 * MB, 0.01, "web capped by absolute MB");
}

/* ---- Linux 7.3 MPAM (mpam73) ---- */

static int setup_mpam73(void **state)
{
	static const char *const extra[] = { "--domains", "2", "--counters", "2", NULL };

	return start(state, "mpam73", NULL, extra);
}

static int setup_mpam73_sim(void **state)
{
	return start(state, "mpam73", sim_config, NULL);
}

static void test_mpam73_layout(void **state)
{
	struct fx *f = *state;

	check_listing(f, "info", "L3,L3_MON,MB,last_cmd_status");
	check_listing(f, "info/L3_MON",
		      "available_mbm_cntrs,event_configs,max_threshold_occupancy,mbm_assign_mode,"
		      "mbm_assign_on_mkdir,mon_features,num_mbm_cntrs,num_rmids");
	check_file(f, "info/L3_MON/mon_features", "llc_occupancy\nmbm_total_bytes\n");
	check_file(f, "info/L3_MON/mbm_assign_mode", "[mbm_event]\n");
	check_file(f, "info/L3_MON/num_mbm_cntrs", "0=2;1=2\n");
	check_file(f, "info/L3_MON/mbm_assign_on_mkdir", "1\n");
	check_file(f, "info/L3_MON/num_rmids", "64\n");
	check_listing(f, "info/L3_MON/event_configs", "mbm_total_bytes");
	check_listing(f, "info/L3_MON/event_configs/mbm_total_bytes", "event_filter");
	check_file(f, "info/L3_MON/event_configs/mbm_total_bytes/event_filter",
		   "local_reads,remote_reads,local_non_temporal_writes,remote_non_temporal_writes,"
		   "local_reads_slow_memory,remote_reads_slow_memory,dirty_victim_writes_all\n");
	struct stat st;
	assert_int_equal(stat(P(f, "info/L3_MON/event_configs/mbm_total_bytes/event_filter"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0444);
	check_absent(f, "info/L3_MON/event_configs/mbm_local_bytes");
	check_listing(f, "mon_data", "mon_L3_00,mon_L3_01");
	check_listing(f, "mon_data/mon_L3_00", "llc_occupancy,mbm_total_bytes");
	check_listing(f, "",
		      ".emu_ctl,cpus,cpus_list,info,mbm_L3_assignments,mode,mon_data,mon_groups,schemata,size,tasks");
	/* The default group took one counter per domain at mount. */
	check_file(f, "mbm_L3_assignments", "mbm_total_bytes:0=e;1=e\n");
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=1;1=1\n");
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "0\n");
}

static void test_mpam73_rules(void **state)
{
	struct fx *f = *state;

	/* The mode is fixed. */
	check_reject(f, "info/L3_MON/mbm_assign_mode", "default\n", EINVAL,
		     "Counter assignment mode is not configurable\n");
	assert_int_equal(put(f, "info/L3_MON/mbm_assign_mode", "mbm_event\n"), 0);
	check_status(f, "ok\n");
	check_reject(f, "info/L3_MON/mbm_assign_mode", "abmc\n", EINVAL, "Unsupported assign mode\n");
	check_file(f, "info/L3_MON/mbm_assign_mode", "[mbm_event]\n");
	/* The filter is not configurable, even for root. */
	check_reject(f, "info/L3_MON/event_configs/mbm_total_bytes/event_filter", "local_reads\n", EPERM,
		     "event_filter is not configurable\n");
	check_reject(f, "info/L3_MON/event_configs/mbm_total_bytes/event_filter", "local_reads", EINVAL,
		     "event_filter: Invalid input\n");
	/* mbm_local_bytes does not exist here. */
	check_reject(f, "mbm_L3_assignments", "mbm_local_bytes:0=e\n", ENOENT, "Invalid event mbm_local_bytes\n");
	check_absent(f, "mon_data/mon_L3_00/mbm_local_bytes");
	/* g1 takes the last counter of each domain; g2 finds none in either domain (7.3 tries every
	 * domain); the group is still made. */
	assert_int_equal(mk(f, "g1"), 0);
	check_status(f, "ok\n");
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=0;1=0\n");
	assert_int_equal(mk(f, "g2"), 0);
	check_status(f, "Failed to allocate counter for mbm_total_bytes in domain 0\n"
			"Failed to allocate counter for mbm_total_bytes in domain 1\n");
	check_file(f, "g2/mbm_L3_assignments", "mbm_total_bytes:0=_;1=_\n");
	check_file(f, "g2/mon_data/mon_L3_00/mbm_total_bytes", "Unassigned\n");
	check_file(f, "g2/mon_data/mon_L3_01/llc_occupancy", "0\n");
	check_reject(f, "g2/mbm_L3_assignments", "mbm_total_bytes:1=e\n", ENOSPC,
		     "Failed to allocate counter for mbm_total_bytes in domain 1\n"
		     "Assign operation 'mbm_total_bytes:1=e' failed\n");
	/* One counter free in domain 1 only: "*" assigns it and still fails for domain 0. */
	assert_int_equal(put(f, "g1/mbm_L3_assignments", "mbm_total_bytes:1=_\n"), 0);
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=0;1=1\n");
	check_reject(f, "g2/mbm_L3_assignments", "mbm_total_bytes:*=e\n", ENOSPC,
		     "Failed to allocate counter for mbm_total_bytes in domain 0\n"
		     "Assign operation 'mbm_total_bytes:*=e' failed\n");
	check_file(f, "g2/mbm_L3_assignments", "mbm_total_bytes:0=_;1=e\n");
	check_file(f, "g2/mon_data/mon_L3_01/mbm_total_bytes", "0\n");
	check_file(f, "g1/mon_data/mon_L3_01/mbm_total_bytes", "Unassigned\n");
	/* A MON group has its own assignments. */
	assert_int_equal(put(f, "info/L3_MON/mbm_assign_on_mkdir", "0\n"), 0);
	assert_int_equal(mk(f, "g1/mon_groups/m"), 0);
	check_status(f, "ok\n");
	check_file(f, "g1/mon_groups/m/mbm_L3_assignments", "mbm_total_bytes:0=_;1=_\n");
	check_reject(f, "g1/mbm_L3_assignments", "mbm_total_bytes:0=e", EINVAL, "mbm_L3_assignments: Invalid input\n");
	/* rmdir gives the counters back. */
	assert_int_equal(rm(f, "g2"), 0);
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=0;1=1\n");
	assert_int_equal(rm(f, "g1"), 0);
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=1;1=1\n"); /* the default group keeps its own */
}

/* The counter faults: "zero" reads 0 while the count goes on; "reset" restarts it from 0. On 7.3
 * MPAM web's 6000 MB/s all lands in the single domain. */
static void test_mpam73_counter_faults(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "mpamd-web"), 0);
	ctl(f, "clock manual");
	ctl(f, "advance 1000");
	check_near((double)counter(f, "mpamd-web", 0, "mbm_total_bytes"), 6000 * MB, 0.01, "before the fault");
	ctl(f, "counter mpamd-web 0 mbm_total_bytes zero");
	assert_int_equal(counter(f, "mpamd-web", 0, "mbm_total_bytes"), 0);
	ctl(f, "advance 500");
	assert_int_equal(counter(f, "mpamd-web", 0, "mbm_total_bytes"), 0);
	char *text = slurp(f, ".emu_ctl");
	assert_non_null(text);
	assert_non_null(strstr(text, "counter mpamd-web 0 mbm_total_bytes zero\n"));
	free(text);
	/* The count went on underneath. */
	ctl(f, "counter mpamd-web 0 mbm_total_bytes ok");
	check_near((double)counter(f, "mpamd-web", 0, "mbm_total_bytes"), 9000 * MB, 0.01, "after ok");
	ctl(f, "counter mpamd-web 0 mbm_total_bytes reset");
	assert_int_equal(counter(f, "mpamd-web", 0, "mbm_total_bytes"), 0);
	ctl(f, "advance 500");
	check_near((double)counter(f, "mpamd-web", 0, "mbm_total_bytes"), 3000 * MB, 0.01, "after reset");
	/* An unassigned event stays Unassigned under "zero". */
	assert_int_equal(put(f, "mpamd-web/mbm_L3_assignments", "mbm_total_bytes:0=_\n"), 0);
	ctl(f, "counter mpamd-web 0 mbm_total_bytes zero");
	check_file(f, "mpamd-web/mon_data/mon_L3_00/mbm_total_bytes", "Unassigned\n");
	/* Occupancy is no count to reset; events the profile lacks are refused. */
	assert_int_equal(emu_ctl(f->emu, "counter mpamd-web 0 llc_occupancy reset"), -EINVAL);
	assert_int_equal(emu_ctl(f->emu, "counter mpamd-web 0 mbm_local_bytes zero"), -EINVAL);
	ctl(f, "counter mpamd-web 0 llc_occupancy zero");
	check_file(f, "mpamd-web/mon_data/mon_L3_00/llc_occupancy", "0\n");
}

static int setup_mpam73_mb(void **state)
{
	static const char *const extra[] = { "--mon-resource", "MB", "--domains", "2", NULL };

	return start(state, "mpam73", NULL, extra);
}

/* Bandwidth domains named after the resource, as on a platform whose counters sit in MB. */
static void test_mpam73_mon_resource(void **state)
{
	struct fx *f = *state;

	check_listing(f, "info", "L3,MB,MB_MON,last_cmd_status");
	check_file(f, "info/MB_MON/num_mbm_cntrs", "0=8;1=8\n");
	check_listing(f, "mon_data", "mon_MB_00,mon_MB_01");
	check_file(f, "mon_data/mon_MB_01/mbm_total_bytes", "0\n");
	check_file(f, "mbm_MB_assignments", "mbm_total_bytes:0=e;1=e\n");
	check_absent(f, "mbm_L3_assignments");
	check_reject(f, "mbm_MB_assignments", "x", EINVAL, "mbm_MB_assignments: Invalid input\n");
	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(put(f, "g/mbm_MB_assignments", "mbm_total_bytes:1=_\n"), 0);
	check_file(f, "g/mon_data/mon_MB_01/mbm_total_bytes", "Unassigned\n");
	ctl(f, "counter g 0 mbm_total_bytes zero");
	check_file(f, "g/mon_data/mon_MB_00/mbm_total_bytes", "0\n");
}

static void test_mpam73_options(void **state)
{
	(void)state;
	check_run((const char *const[]){ "/tmp/x", "--profile", "mpam", "--counters", "4", NULL }, 2, "",
		  "--counters needs a profile with mbm_event counters");
	check_run((const char *const[]){ "/tmp/x", "--profile", "mpam73", "--counters", "65", NULL }, 2, "",
		  "bad --counters");
	check_run((const char *const[]){ "/tmp/x", "--profile", "mpam73", "--mon-resource", "L3/x", NULL }, 2, "",
		  "bad --mon-resource");
	check_run((const char *const[]){ "--help", NULL }, 0, "mpam73", "");
}

/* With no counters (CDP halves an odd count to 0) every group stays unassigned. */
static void test_mpam73_no_counters(void **state)
{
	struct fx *f = *state;

	check_file(f, "info/L3_MON/num_mbm_cntrs", "0=0\n");
	check_file(f, "info/L3_MON/available_mbm_cntrs", "0=0\n");
	check_file(f, "mbm_L3_assignments", "mbm_total_bytes:0=_\n");
	check_file(f, "mon_data/mon_L3_00/mbm_total_bytes", "Unassigned\n");
	check_file(f, "info/L3_MON/mbm_assign_mode", "[mbm_event]\n");
}

static int setup_mpam73_zero(void **state)
{
	static const char *const extra[] = { "--counters", "0", NULL };

	return start(state, "mpam73", NULL, extra);
}

static void test_intel_assign_mode(void **state)
{
	struct fx *f = *state;

	check_reject(f, "info/L3_MON/mbm_assign_mode", "mbm_event\n", EINVAL, "mbm_event mode is not supported\n");
	assert_int_equal(put(f, "info/L3_MON/mbm_assign_mode", "default\n"), 0);
	check_absent(f, "mbm_L3_assignments");
}

/* ---- rename: moving MON groups (fs/resctrl/rdtgroup.c rdtgroup_rename, mongrp_reparent) ---- */

static int mv(const struct fx *f, const char *from, const char *to)
{
	return rename(P(f, from), P(f, to)) < 0 ? -errno : 0;
}

/* A rename that must fail with err and leave msg as the status. */
static void check_mv_reject(const struct fx *f, const char *from, const char *to, int err, const char *msg)
{
	int r = mv(f, from, to);

	if (r != -err)
		fail_msg("rename %s to %s gave %d (%s), expected -%d", from, to, r, strerror(-r), err);
	check_status(f, msg);
}

/* The value an open file of a group reads now, from offset 0. */
static uint64_t reread(int fd)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	assert_true(n > 0);
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

/* A MON group moved to another CTRL_MON group takes its CLOSID (the new parent's MB limit caps its
 * traffic), keeps its tasks and its RMID: its count goes on without a jump, also through a file
 * opened before the move; each parent's total follows its MON groups of the moment. */
static void test_rename_moves_mon_group(void **state)
{
	struct fx *f = *state;
	char text[32];
	double web[2];
	pid_t kid = sleeper(f);

	ctl(f, "clock manual");
	assert_int_equal(mk(f, "gold"), 0);
	assert_int_equal(mk(f, "bronze"), 0);
	assert_int_equal(put(f, "bronze/schemata", "MB:0=10;1=10\n"), 0);
	assert_int_equal(mk(f, "gold/mon_groups/mpamd-web"), 0);
	snprintf(text, sizeof(text), "%d\n", (int)kid);
	assert_int_equal(put(f, "gold/tasks", text), 0);
	assert_int_equal(put(f, "gold/mon_groups/mpamd-web/tasks", text), 0);
	measure(f, "gold/mon_groups/mpamd-web", "mbm_total_bytes", 1000, web);
	check_near(web[0], 3000 * MB, 0.01, "web under gold");
	int fd = open(P(f, "gold/mon_groups/mpamd-web/mon_data/mon_L3_00/mbm_total_bytes"), O_RDONLY);
	assert_true(fd >= 0);
	uint64_t before = reread(fd);
	assert_int_equal(counter(f, "gold", 0, "mbm_total_bytes"), before);

	ctl(f, "fail_next_write EINVAL nothing"); /* status left by an earlier command: cleared */
	assert_int_equal(put(f, "bronze/schemata", "MB:0=x\n"), -EINVAL);
	assert_int_equal(mv(f, "gold/mon_groups/mpamd-web", "bronze/mon_groups/mpamd-web"), 0);
	check_status(f, "ok\n");
	check_absent(f, "gold/mon_groups/mpamd-web");
	check_listing(f, "bronze/mon_groups", "mpamd-web");
	/* Its tasks went along, into bronze's CLOSID. */
	check_file(f, "bronze/mon_groups/mpamd-web/tasks", text);
	assert_true(lists_pid(f, "bronze/tasks", kid));
	assert_false(lists_pid(f, "gold/tasks", kid));
	/* No jump: the count is the one it had, and the handle opened before reads it. */
	assert_int_equal(counter(f, "bronze/mon_groups/mpamd-web", 0, "mbm_total_bytes"), before);
	assert_int_equal(reread(fd), before);
	assert_int_equal(counter(f, "gold", 0, "mbm_total_bytes"), 0);
	assert_int_equal(counter(f, "bronze", 0, "mbm_total_bytes"), before);
	/* bronze's 10% now caps it. */
	measure(f, "bronze/mon_groups/mpamd-web", "mbm_total_bytes", 1000, web);
	check_near(web[0], 2000 * MB, 0.01, "web under bronze");
	check_near((double)(reread(fd) - before), 2000 * MB, 0.01, "web through the open file");
	close(fd);
	/* A new name in the same parent; the root's mon_groups is a destination too. */
	assert_int_equal(mv(f, "bronze/mon_groups/mpamd-web", "bronze/mon_groups/renamed"), 0);
	check_file(f, "bronze/mon_groups/renamed/tasks", text);
	assert_int_equal(mv(f, "bronze/mon_groups/renamed", "mon_groups/renamed"), 0);
	check_file(f, "mon_groups/renamed/tasks", text);
	assert_false(lists_pid(f, "bronze/tasks", kid));
	/* rmdir gives its tasks to the parent it has now. */
	assert_int_equal(rm(f, "mon_groups/renamed"), 0);
	assert_true(lists_pid(f, "tasks", kid));
}

/* Each refusal with the kernel's errno and last_cmd_status. */
static void test_rename_refusals(void **state)
{
	struct fx *f = *state;

	assert_int_equal(mk(f, "g"), 0);
	assert_int_equal(mk(f, "h"), 0);
	assert_int_equal(mk(f, "g/mon_groups/m"), 0);
	assert_int_equal(mk(f, "h/mon_groups/taken"), 0);
	/* Only MON groups move, only into a mon_groups directory, under another name than mon_groups. */
	static const struct {
		const char *from, *to, *status;
	} refused[] = {
		{ "g", "h/mon_groups/g", "Source must be a MON group\n" },
		{ "g", "renamed", "Source must be a MON group\n" },
		{ "g/mon_groups", "h/mon_groups/x", "Source must be a MON group\n" },
		{ "g/mon_groups/m/mon_data", "h/mon_groups/x", "Source must be a MON group\n" },
		{ "g/tasks", "h/mon_groups/x", "Source and destination must be directories" },
		{ "g/mon_groups/m", "h/m", "Destination must be a mon_groups subdirectory\n" },
		{ "g/mon_groups/m", "m", "Destination must be a mon_groups subdirectory\n" },
		{ "g/mon_groups/m", "h/mon_groups/taken/mon_data/x",
		  "Destination must be a mon_groups subdirectory\n" },
		{ "g/mon_groups/m", "h/mon_groups/mon_groups", "Destination must be a mon_groups subdirectory\n" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		check_mv_reject(f, refused[i].from, refused[i].to, EPERM, refused[i].status);
	/* A name the destination holds: kernfs says EEXIST, after the status was cleared. */
	check_mv_reject(f, "g/mon_groups/m", "h/mon_groups/taken", EEXIST, "ok\n");
	/* info/ has no group: ENOENT before the status is touched. */
	assert_int_equal(put(f, "g/schemata", "MB:0=x\n"), -EINVAL);
	char *status = slurp(f, "info/last_cmd_status");
	assert_non_null(status);
	assert_string_not_equal(status, "ok\n");
	check_mv_reject(f, "info/L3", "h/mon_groups/x", ENOENT, status);
	check_mv_reject(f, "g/mon_groups/m", "info/x", ENOENT, status);
	check_mv_reject(f, "g/mon_groups/m", "info/L3_MON/x", ENOENT, status);
	free(status);
	/* RENAME_* flags: kernfs takes none. */
	assert_int_equal(syscall(SYS_renameat2, AT_FDCWD, P(f, "g/mon_groups/m"), AT_FDCWD, P(f, "h/mon_groups/x"),
				 1 /* RENAME_NOREPLACE */),
			 -1);
	assert_int_equal(errno, EINVAL);
	/* A MON group that monitors CPUs stays with its parent, whatever the other's CPUs; a new name
	 * is fine. */
	assert_int_equal(put(f, "g/cpus_list", "1\n"), 0);
	assert_int_equal(put(f, "g/mon_groups/m/cpus_list", "1\n"), 0);
	check_mv_reject(f, "g/mon_groups/m", "h/mon_groups/m", EPERM, "Cannot move a MON group that monitors CPUs\n");
	check_mv_reject(f, "g/mon_groups/m", "mon_groups/m", EPERM, "Cannot move a MON group that monitors CPUs\n");
	assert_int_equal(mv(f, "g/mon_groups/m", "g/mon_groups/m2"), 0);
	check_file(f, "g/mon_groups/m2/cpus_list", "1\n");
	assert_int_equal(put(f, "g/mon_groups/m2/cpus_list", "\n"), 0);
	/* A rename that took counts as a change, as writes, mkdirs and rmdirs do; a refused one does not. */
	unsigned long before, after;
	assert_int_equal(emu_changes(f->emu, &before), 0);
	assert_int_equal(mv(f, "g/mon_groups/m2", "h/mon_groups/m"), 0);
	check_mv_reject(f, "h/mon_groups/m", "h/mon_groups/taken", EEXIST, "ok\n");
	assert_int_equal(emu_changes(f->emu, &after), 0);
	assert_int_equal(after, before + 1);
	check_listing(f, "h/mon_groups", "m,taken");
	check_listing(f, "g/mon_groups", "");
}

/* AMD's assigned counters belong to the group and count by RMID: they stay assigned through the move. */
static void test_rename_keeps_counters_amd(void **state)
{
	struct fx *f = *state;

	ctl(f, "clock manual");
	/* 4 counters per domain: the default group holds 2, the MON group takes the others. */
	assert_int_equal(put(f, "info/L3_MON/mbm_assign_on_mkdir", "0\n"), 0);
	assert_int_equal(mk(f, "a"), 0);
	assert_int_equal(mk(f, "b"), 0);
	assert_int_equal(put(f, "info/L3_MON/mbm_assign_on_mkdir", "1\n"), 0);
	assert_int_equal(mk(f, "a/mon_groups/mpamd-web"), 0);
	check_file(f, "a/mon_groups/mpamd-web/mbm_L3_assignments",
		   "mbm_total_bytes:0=e;1=e\nmbm_local_bytes:0=e;1=e\n");
	ctl(f, "advance 1000");
	uint64_t before = counter(f, "a/mon_groups/mpamd-web", 1, "mbm_total_bytes");
	assert_true(before > 0);
	assert_int_equal(mv(f, "a/mon_groups/mpamd-web", "b/mon_groups/mpamd-web"), 0);
	check_file(f, "b/mon_groups/mpamd-web/mbm_L3_assignments",
		   "mbm_total_bytes:0=e;1=e\nmbm_local_bytes:0=e;1=e\n");
	assert_int_equal(counter(f, "b/mon_groups/mpamd-web", 1, "mbm_total_bytes"), before);
	ctl(f, "advance 1000");
	check_near((double)(counter(f, "b/mon_groups/mpamd-web", 1, "mbm_total_bytes") - before), (double)before, 0.01,
		   "the count going on");
}

static int setup_mpam73_debug(void **state)
{
	static const char *const extra[] = { "--debug", NULL };

	return start(state, "mpam73", sim_config, extra);
}

/* MPAM: the kernel allows the move, and the group keeps its PMG under the new PARTID: its tasks stay
 * with their old PARTID and PMG (listed by the old parent, by no MON group), its counts come from a
 * monitor index none of them uses, the old index is lost and a later rmdir frees the new one, which
 * the new parent may have handed out again meanwhile. */
static void test_rename_mpam(void **state)
{
	struct fx *f = *state;
	char text[32];
	pid_t kid = sleeper(f);

	ctl(f, "clock manual");
	assert_int_equal(mk(f, "a"), 0);
	assert_int_equal(mk(f, "b"), 0);
	assert_int_equal(mk(f, "a/mon_groups/mpamd-web"), 0);
	snprintf(text, sizeof(text), "%d\n", (int)kid);
	assert_int_equal(put(f, "a/tasks", text), 0);
	assert_int_equal(put(f, "a/mon_groups/mpamd-web/tasks", text), 0);
	ctl(f, "advance 1000");
	assert_true(counter(f, "a/mon_groups/mpamd-web", 0, "mbm_total_bytes") > 0);
	assert_true(counter(f, "a/mon_groups/mpamd-web", 0, "llc_occupancy") > 0);
	check_file(f, "a/mon_groups/mpamd-web/mon_hw_id", "1\n");
	assert_int_equal(mv(f, "a/mon_groups/mpamd-web", "b/mon_groups/mpamd-web"), 0);
	check_status(f, "ok\n");
	check_file(f, "b/mon_groups/mpamd-web/mon_hw_id", "1\n");
	check_file(f, "b/mon_groups/mpamd-web/tasks", "");
	assert_false(lists_pid(f, "b/tasks", kid));
	assert_true(lists_pid(f, "a/tasks", kid));
	check_file(f, "b/mon_groups/mpamd-web/mon_data/mon_L3_00/mbm_total_bytes", "Unassigned\n");
	check_file(f, "b/mon_groups/mpamd-web/mon_data/mon_L3_00/llc_occupancy", "0\n");
	check_file(f, "b/mon_groups/mpamd-web/mbm_L3_assignments", "mbm_total_bytes:0=e\n");
	/* a's only PMG for MON groups is lost; b's is still free, and goes to a second group. */
	assert_int_equal(mk(f, "a/mon_groups/n"), -ENOSPC);
	check_status(f, "Out of RMIDs\n");
	assert_int_equal(mk(f, "b/mon_groups/n"), 0);
	check_file(f, "b/mon_groups/n/mon_hw_id", "1\n");
	/* Both rmdirs free (b's PARTID, PMG 1): it waits in limbo once. */
	assert_int_equal(rm(f, "b/mon_groups/mpamd-web"), 0);
	assert_int_equal(rm(f, "b/mon_groups/n"), 0);
	char *ctl_text = slurp(f, ".emu_ctl");
	assert_non_null(ctl_text);
	assert_non_null(strstr(ctl_text, "limbo 1\n"));
	free(ctl_text);
	ctl(f, "advance 10000"); /* the lines web left fade below the threshold */
	assert_int_equal(mk(f, "b/mon_groups/o"), 0);
	assert_int_equal(mk(f, "b/mon_groups/p"), -ENOSPC);
}

TEST_MAIN({
	cmocka_unit_test(test_usage),
	cmocka_unit_test_setup_teardown(test_intel_layout, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_amd_layout, setup_amd, teardown),
	cmocka_unit_test_setup_teardown(test_mpam_layout, setup_mpam, teardown),
	cmocka_unit_test_setup_teardown(test_file_rules, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_mkdir_populates, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_status_kept_on_72, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_status_cleared_on_73, setup_intel_73, teardown),
	cmocka_unit_test_setup_teardown(test_debug_ids, setup_intel_debug, teardown),
	cmocka_unit_test_setup_teardown(test_closids_run_out, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_mpam_rmids, setup_mpam_debug, teardown),
	cmocka_unit_test_setup_teardown(test_mpam_debug_ids, setup_mpam_debug, teardown),
	cmocka_unit_test_setup_teardown(test_many_domains, setup_amd_24, teardown),
	cmocka_unit_test_setup_teardown(test_cdp, setup_intel_cdp_io_alloc, teardown),
	cmocka_unit_test_setup_teardown(test_io_alloc, setup_intel_cdp_io_alloc_debug, teardown),
	cmocka_unit_test_setup_teardown(test_mpam73_cdp, setup_mpam73_cdp, teardown),
	cmocka_unit_test_setup_teardown(test_mpam73_first_read_waits, setup_mpam73_nrdy, teardown),
	cmocka_unit_test_setup_teardown(test_limbo_follows_occupancy, setup_intel_sim_3_rmids, teardown),
	cmocka_unit_test_setup_teardown(test_mpam_cleanest_closid, setup_mpam_debug, teardown),
	cmocka_unit_test_setup_teardown(test_schemata_round_trip, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_schemata_rejections, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_min_cbm_bits, setup_intel_min2, teardown),
	cmocka_unit_test_setup_teardown(test_mb_rounding_intel, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_mba_mbps, setup_intel_mba_mbps, teardown),
	cmocka_unit_test_setup_teardown(test_mb_rounding_amd, setup_amd, teardown),
	cmocka_unit_test_setup_teardown(test_mb_rounding_mpam, setup_mpam, teardown),
	cmocka_unit_test_setup_teardown(test_exclusive_mode, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_tasks, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_tasks_threads, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_tasks_proc_root, setup_fake_proc, teardown_fake_proc),
	cmocka_unit_test_setup_teardown(test_tasks_inherited, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_cpus, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_cpus_offline, setup_intel_8_possible_cpus, teardown),
	cmocka_unit_test_setup_teardown(test_counters_follow_demand, setup_intel_sim, teardown),
	cmocka_unit_test_setup_teardown(test_counters_share_capacity, setup_intel_sim, teardown),
	cmocka_unit_test_setup_teardown(test_counters_real_time, setup_intel_sim, teardown),
	cmocka_unit_test_setup_teardown(test_counters_follow_the_plant, setup_intel_plant, teardown),
	cmocka_unit_test_setup_teardown(test_mb_acts_delay_ticks_later, setup_intel_delay, teardown),
	cmocka_unit_test_setup_teardown(test_counters_measure_noise, setup_intel_noisy, teardown),
	cmocka_unit_test_setup_teardown(test_fail_next_write, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_fault_counts_and_status, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_counter_states, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_vanish, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_amd_assignment, setup_amd, teardown),
	cmocka_unit_test_setup_teardown(test_amd_assign_mode, setup_amd, teardown),
	cmocka_unit_test_setup_teardown(test_amd_event_filter, setup_amd, teardown),
	cmocka_unit_test_setup_teardown(test_amd_counter_restart, setup_amd_sim, teardown),
	cmocka_unit_test_setup_teardown(test_amd_mb_through_the_curve, setup_amd_curve, teardown),
	cmocka_unit_test_setup_teardown(test_intel_assign_mode, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_mpam73_layout, setup_mpam73, teardown),
	cmocka_unit_test_setup_teardown(test_mpam73_rules, setup_mpam73, teardown),
	cmocka_unit_test(test_mpam73_options),
	cmocka_unit_test_setup_teardown(test_mpam73_mon_resource, setup_mpam73_mb, teardown),
	cmocka_unit_test_setup_teardown(test_mpam73_counter_faults, setup_mpam73_sim, teardown),
	cmocka_unit_test_setup_teardown(test_mpam73_no_counters, setup_mpam73_zero, teardown),
	cmocka_unit_test_setup_teardown(test_rename_moves_mon_group, setup_intel_sim, teardown),
	cmocka_unit_test_setup_teardown(test_rename_refusals, setup_intel, teardown),
	cmocka_unit_test_setup_teardown(test_rename_keeps_counters_amd, setup_amd_sim, teardown),
	cmocka_unit_test_setup_teardown(test_rename_mpam, setup_mpam73_debug, teardown),
})
