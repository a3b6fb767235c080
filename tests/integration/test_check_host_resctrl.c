/* mpamctl check-config --host against the resctrl emulator (intel, amd, mpam73) and a CDP tree: what
 * it refuses, how it rounds, the writes it lists, and that it makes none of them (the tree is the
 * same afterwards and the emulator's armed write and mkdir faults are never hit). The plan is then
 * held against what the resctrl control really does on the same host. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/base/clock.h"
#include "core/base/ladder.h"
#include "core/config/config.h"
#include "core/engine/registry.h"
#include "tests/util/emu_runner.h"
#include "tests/util/testutil.h"
#include "tests/util/log_capture.h"

#define HELPER_THREADS 2

/* ---- the host, before and after ---- */

static void append(char **buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void append(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	*buf = realloc(*buf, *len + (size_t)n + 1);
	assert_non_null(*buf);
	va_start(ap, fmt);
	vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

/* Every directory and file under `dir` with its contents, except what changes by itself: counters
 * (mon_data) and the default group's tasks (every thread of the host). */
static void snapshot_dir(const char *root, const char *rel, char **buf, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	DIR *dir = opendir(path);
	struct dirent *e;
	char *names[256];
	size_t count = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)) && count < 256)
		if (e->d_name[0] != '.' && strcmp(e->d_name, "mon_data") && (rel[0] || strcmp(e->d_name, "tasks")))
			names[count++] = strdup(e->d_name);
	closedir(dir);
	/* readdir's order is the file system's: sort, so two snapshots compare. */
	for (size_t i = 1; i < count; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < count; i++) {
		char child[1024];
		struct stat st;
		snprintf(child, sizeof(child), "%s/%s", rel, names[i]);
		snprintf(path, sizeof(path), "%s%s", root, child);
		assert_int_equal(stat(path, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			append(buf, len, "%s/\n", child);
			snapshot_dir(root, child, buf, len);
		} else {
			char *text = read_text_file(path);
			append(buf, len, "%s: %s\n", child, text ? text : "(unreadable)");
			free(text);
		}
		free(names[i]);
	}
}

static char *snapshot(const char *root)
{
	char *buf = NULL;
	size_t len = 0;

	append(&buf, &len, "%s", "");
	snapshot_dir(root, "", &buf, &len);
	return buf;
}

/* ---- a host to plan on ---- */

struct host {
	struct emu *emu;
	const char *root;
	char config_path[64];
	char *before;
};

static void write_file(const char *root, const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void make_dir(const char *root, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void write_config(struct host *h, const char *body)
{
	snprintf(h->config_path, sizeof(h->config_path), "/tmp/mpamd-check-host-XXXXXX");
	int fd = mkstemp(h->config_path);
	assert_true(fd >= 0);
	dprintf(fd, "[global]\nbackend = resctrl\nresctrl_root = %s\n%s", h->root, body);
	close(fd);
}

/* The emulator with `profile`, a group of another tool ("other") and, with `old_schemata`, an mpamd
 * group from an earlier run (mpamd-old); then the faults that any write or mkdir would hit. */
static void host_start_with(struct host *h, const char *profile, const char *const *emu_args, const char *old_schemata)
{
	memset(h, 0, sizeof(*h));
	assert_int_equal(emu_start(profile, NULL, emu_args, &h->emu), 0);
	h->root = emu_root(h->emu);
	make_dir(h->root, "other");
	write_file(h->root, "other/schemata", "MB:0=50\n");
	if (old_schemata) {
		make_dir(h->root, "mpamd-old");
		write_file(h->root, "mpamd-old/schemata", old_schemata);
	}
}

static void host_start(struct host *h, const char *profile, const char *old_schemata)
{
	host_start_with(h, profile, NULL, old_schemata);
}

static void arm_faults(struct host *h)
{
	h->before = snapshot(h->root);
	assert_int_equal(emu_ctl(h->emu, "fail_next_write EIO"), 0);
	assert_int_equal(emu_ctl(h->emu, "fail_mkdir ENOSPC"), 0);
}

/* Nothing was written: the faults are still armed and the tree is as it was. */
static void assert_untouched(struct host *h)
{
	char *ctl = read_file_below(h->root, ".emu_ctl");
	if (!strstr(ctl, "fail_write EIO * 1") || !strstr(ctl, "fail_mkdir ENOSPC * 1"))
		fail_msg("a fault was hit, so something was written:\n%s", ctl);
	free(ctl);
	char *after = snapshot(h->root);
	assert_string_equal(after, h->before);
	free(after);
}

static void host_stop(struct host *h)
{
	if (h->config_path[0])
		unlink(h->config_path);
	free(h->before);
	assert_int_equal(emu_stop(h->emu), 0);
}

static unsigned read_uint(const char *root, const char *rel)
{
	char *text = read_file_below(root, rel);
	unsigned v = (unsigned)strtoul(text, NULL, 0);
	free(text);
	return v;
}

/* The setting a ceiling of pct is held at. */
static double step_nearest_to(const struct ladder *l, double pct)
{
	return ladder_pct(l, ladder_snap(l, pct, LADDER_NEAREST));
}

/* ---- running mpamctl ---- */

static struct run_result check(const char *config_path, bool json)
{
	char *path = (char *)config_path;
	/* No ACPI HMAT (the host's would give capacities these tests do not expect). */
	char *argv[] = { MPAMCTL,	 "check-config",	 "--host",	     "--sysfs-root",
			 "/nonexistent", json ? "--json" : path, json ? path : NULL, NULL };
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	return r;
}

static json_t *check_json(const char *config_path, int want_exit)
{
	struct run_result r = check(config_path, true);
	json_error_t error;

	if (r.exit_code != want_exit)
		fail_msg("exit %d, expected %d:\n%s\n%s", r.exit_code, want_exit, r.out, r.err);
	json_t *root = json_loads(r.out, 0, &error);
	if (!root)
		fail_msg("not JSON (%s):\n%s", error.text, r.out);
	run_result_fini(&r);
	json_t *host = json_incref(json_object_get(root, "host"));
	json_decref(root);
	assert_non_null(host);
	return host;
}

/* The config of `body`, the faults armed, and check-config --host --json on it, which exits
 * `want_exit`: its "host" object. */
static json_t *host_check(struct host *h, const char *body, int want_exit)
{
	write_config(h, body);
	arm_faults(h);
	return check_json(h->config_path, want_exit);
}

/* A host of `profile` with no earlier group, checked as host_check does. */
static json_t *host_start_check(struct host *h, const char *profile, const char *body, int want_exit)
{
	host_start(h, profile, NULL);
	return host_check(h, body, want_exit);
}

/* The end of a test that checked the host: the check wrote nothing, and the emulator stops. */
static void host_stop_untouched(struct host *h, json_t *host)
{
	json_decref(host);
	assert_untouched(h);
	host_stop(h);
}

static json_t *partition(json_t *host, const char *name)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(host, "partitions"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "name")), name))
			return p;
	fail_msg("no partition %s in the report", name);
	return NULL;
}

static const char *verdict(json_t *p)
{
	return json_string_value(json_object_get(p, "verdict"));
}

static const char *reason(json_t *p)
{
	const char *r = json_string_value(json_object_get(p, "reason"));

	return r ? r : "";
}

/* The value of the write of `what` to `rel` under `root`, NULL when there is none. */
static const char *write_value(json_t *p, const char *what, const char *root, const char *rel)
{
	char path[512];
	size_t i;
	json_t *w;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	json_array_foreach(json_object_get(p, "writes"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "what")), what) &&
		    !strcmp(json_string_value(json_object_get(w, "path")), path))
			return json_string_value(json_object_get(w, "value")) ?: "";
	return NULL;
}

static size_t count_writes(json_t *p, const char *what)
{
	size_t i, n = 0;
	json_t *w;

	json_array_foreach(json_object_get(p, "writes"), i, w)
		n += !strcmp(json_string_value(json_object_get(w, "what")), what);
	return n;
}

static bool has_note(json_t *p, const char *text)
{
	size_t i;
	json_t *n;

	json_array_foreach(json_object_get(p, "notes"), i, n)
		if (strstr(json_string_value(n), text))
			return true;
	return false;
}

/* The one rounding entry of `limit`, as "FROM -> TO (WHY)"; "" when the limit is not rounded. */
static const char *rounding(json_t *p, const char *limit, char *buf, size_t len)
{
	size_t i;
	json_t *r;

	buf[0] = '\0';
	json_array_foreach(json_object_get(p, "rounding"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "limit")), limit))
			snprintf(buf, len, "%g -> %g (%s)", json_number_value(json_object_get(r, "from")),
				 json_number_value(json_object_get(r, "to")),
				 json_string_value(json_object_get(r, "why")));
	return buf;
}

/* "MB:0=V;1=V" for the domains of the emulator's root schemata line `resource`. */
static void schemata_line(const char *root, const char *resource, const char *value, char *buf, size_t len)
{
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "%s:", resource);
	char *text = read_file_below(root, "schemata");
	char *line = strstr(text, prefix);
	assert_non_null(line);
	line[strcspn(line, "\n")] = '\0';
	size_t used = (size_t)snprintf(buf, len, "%s", prefix);
	char *save = NULL;
	for (char *d = strtok_r(line + strlen(prefix), ";", &save); d; d = strtok_r(NULL, ";", &save))
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s=%s", used > strlen(prefix) ? ";" : "",
					 (int)strcspn(d, "="), d, value);
	free(text);
}

/* ---- threads to move: the test's own, a few of them ---- */

struct helpers {
	pthread_t threads[HELPER_THREADS];
	int pipe[2];
};

static void *wait_for_end(void *arg)
{
	char c;

	return (void *)(intptr_t)read(*(int *)arg, &c, 1);
}

static void helpers_start(struct helpers *h)
{
	assert_int_equal(pipe(h->pipe), 0);
	for (int i = 0; i < HELPER_THREADS; i++)
		assert_int_equal(pthread_create(&h->threads[i], NULL, wait_for_end, &h->pipe[0]), 0);
}

static void helpers_stop(struct helpers *h)
{
	close(h->pipe[1]);
	for (int i = 0; i < HELPER_THREADS; i++)
		pthread_join(h->threads[i], NULL);
	close(h->pipe[0]);
}

static size_t own_threads(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	size_t n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)))
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* ---- intel: refusals, rounding, adoption, writes, none made ---- */

static void test_intel_refusals_rounding_writes(void **state)
{
	struct host h;
	struct helpers threads;
	char body[1024], path[512], want[256], buf[256];

	(void)state;
	host_start(&h, "intel", "MB:0=30;1=30\n");
	helpers_start(&threads);
	snprintf(body, sizeof(body),
		 "[partition \"web\"]\nmb_max = 25\npids = %d\ncpus = 1\n"
		 "[partition \"old\"]\nmb_max = 30\nl3_cbm = 0x0f0\nclass = latency-critical\nguarantee_mbps = 1000\n"
		 "[partition \"gappy\"]\nl3_cbm = 0x505\n"
		 "[partition \"wide\"]\nl3_cbm = 0x1000\n"
		 "[partition \"floor\"]\nmb_min = 10\n"
		 "[partition \"low\"]\nmb_max = 5\n",
		 (int)getpid());
	json_t *host = host_check(&h, body, 1);
	unsigned gran = read_uint(h.root, "info/MB/bandwidth_gran");
	unsigned floor = read_uint(h.root, "info/MB/min_bandwidth");
	uint64_t mask = read_uint(h.root, "info/L3/cbm_mask");

	json_t *web = partition(host, "web");
	assert_string_equal(verdict(web), "ok");
	struct ladder steps;
	char said[64];
	assert_int_equal(ladder_percent(gran, floor, &steps), 0);
	ladder_describe(&steps, said, sizeof(said));
	/* 25% is a tie between the 20% and 30% steps: a ceiling leans down. */
	snprintf(want, sizeof(want), "25 -> %g (nearest setting of %s)", step_nearest_to(&steps, 25), said);
	assert_string_equal(rounding(web, "mb_max", buf, sizeof(buf)), want);
	assert_non_null(write_value(web, "mkdir", h.root, "mpamd-web"));
	assert_int_equal(count_writes(web, "tasks"), own_threads());
	assert_string_equal(write_value(web, "cpus_list", h.root, "mpamd-web/cpus_list"), "1");
	snprintf(buf, sizeof(buf), "%g", step_nearest_to(&steps, 25));
	schemata_line(h.root, "MB", buf, want, sizeof(want));
	assert_string_equal(write_value(web, "schemata", h.root, "mpamd-web/schemata"), want);

	/* An earlier run's group is adopted; its MB is right already, only L3 changes. */
	json_t *old = partition(host, "old");
	assert_string_equal(verdict(old), "ok");
	assert_true(has_note(old, "adopt existing group"));
	assert_int_equal(count_writes(old, "mkdir"), 0);
	schemata_line(h.root, "L3", "f0", want, sizeof(want));
	assert_string_equal(write_value(old, "schemata", h.root, "mpamd-old/schemata"), want);

	assert_string_equal(verdict(partition(host, "gappy")), "refused");
	assert_non_null(strstr(reason(partition(host, "gappy")), "not contiguous"));
	snprintf(want, sizeof(want), "outside cbm_mask 0x%llx", (unsigned long long)mask);
	assert_string_equal(verdict(partition(host, "wide")), "refused");
	assert_non_null(strstr(reason(partition(host, "wide")), want));
	assert_string_equal(verdict(partition(host, "floor")), "refused");
	assert_non_null(strstr(reason(partition(host, "floor")), "no minimum-bandwidth control"));
	/* A guarantee without capacity_mbps is not enforced from the start, and the plan says so. */
	assert_true(
		has_note(partition(host, "old"), "guarantee not enforced at first: a domain's capacity is not known"));
	assert_false(has_note(partition(host, "web"), "guarantee not enforced"));
	snprintf(want, sizeof(want), "5 -> %u (below the lowest setting, %u%%)", floor, floor); /* a step already */
	assert_string_equal(rounding(partition(host, "low"), "mb_max", buf, sizeof(buf)), want);

	/* The other tool's group is never written. */
	snprintf(path, sizeof(path), "%s/other", h.root);
	char *dump = json_dumps(host, 0);
	assert_null(strstr(dump, path));
	free(dump);
	assert_false(json_is_true(json_object_get(host, "can_hold")));
	host_stop_untouched(&h, host);
	helpers_stop(&threads);
}

/* The text form: one block per partition, the rounding as people read it, the exit status. */
static void test_intel_text(void **state)
{
	struct host h;
	char body[256], line[512];

	(void)state;
	host_start(&h, "intel", "MB:0=100;1=100\n");
	snprintf(body, sizeof(body), "[partition \"web\"]\nmb_max = 25\n[partition \"old\"]\n");
	write_config(&h, body);
	arm_faults(&h);
	struct run_result r = check(h.config_path, false);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(
		strstr(r.out, "partition web: ok\n  mb_max 25% -> 20% (nearest setting of 10% steps from 10%)\n"));
	snprintf(line, sizeof(line), "  mkdir %s/mpamd-web\n", h.root);
	assert_non_null(strstr(r.out, line));
	snprintf(line, sizeof(line), "  write %s/mpamd-web/schemata: MB:0=20;1=20\n", h.root);
	assert_non_null(strstr(r.out, line));
	snprintf(line, sizeof(line), "partition old: ok\n  adopt existing group %s/mpamd-old\n  nothing to write\n",
		 h.root);
	assert_non_null(strstr(r.out, line));
	assert_non_null(strstr(r.out, "result: the host can hold every partition; nothing was written"));
	run_result_fini(&r);
	assert_untouched(&h);
	host_stop(&h);
}

/* Guarantees over the capacity of the emulator's two domains together are a warning naming both; ones
 * that fit are not; without a capacity the check is said not made. */
static void test_overcommit(void **state)
{
	static const char *const bodies[] = {
		"capacity_mbps = 20000\n[partition \"db\"]\nclass = latency-critical\nguarantee_mbps = 25000\n"
		"[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 20000\n",
		"capacity_mbps = 20000\n[partition \"db\"]\nclass = latency-critical\nguarantee_mbps = 25000\n"
		"[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 10000\n",
		"[partition \"db\"]\nclass = latency-critical\nguarantee_mbps = 25000\n"
		"[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 10000\n",
	};
	static const char *const said[] = {
		"warning: guarantee_mbps of db 25000, web 20000 sum to 45000 MB/s on domains 0, 1, over their capacity "
		"of 40000 MB/s (capacity_mbps): not all can be met",
		NULL,
		"warning: guarantee_mbps of db 25000, web 10000 sum to 35000 MB/s on domains 0, 1: not checked, the "
		"capacity of domain 0 is not known (set capacity_mbps)",
	};
	struct host h;

	(void)state;
	host_start(&h, "intel", NULL);
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		write_config(&h, bodies[i]);
		struct run_result r = check(h.config_path, false);
		assert_int_equal(r.exit_code, 0);
		if (said[i] ? !strstr(r.err, said[i]) : strstr(r.err, "warning") != NULL)
			fail_msg("config %zu: stderr is not as expected:\n%s", i, r.err);
		run_result_fini(&r);
		unlink(h.config_path);
	}
	h.config_path[0] = '\0';
	host_stop(&h);
}

/* A mask with fewer bits than the cache needs. */
static void test_too_few_bits(void **state)
{
	static const char *const args[] = { "--min-cbm-bits", "4", NULL };
	struct host h;
	char want[64];

	(void)state;
	host_start_with(&h, "intel", args, NULL);
	json_t *host = host_check(&h, "[partition \"thin\"]\nl3_cbm = 0x7\n[partition \"fat\"]\nl3_cbm = 0xf\n", 1);
	snprintf(want, sizeof(want), "fewer than min_cbm_bits = %u", read_uint(h.root, "info/L3/min_cbm_bits"));
	assert_string_equal(verdict(partition(host, "thin")), "refused");
	assert_non_null(strstr(reason(partition(host, "thin")), want));
	assert_string_equal(verdict(partition(host, "fat")), "ok");
	host_stop_untouched(&h, host);
}

/* ---- the resctrl control itself, on the same host ---- */

struct opened {
	const struct control_ops *ops;
	struct config *config;
	struct control *control;
	struct clock clock;
};

/* The resctrl control opened on the host's config, as mpamd opens it. */
static void control_open_on(const struct host *h, struct opened *o)
{
	struct diag_list diags;
	struct err err = { "" };

	o->ops = engine_registry_control(&engine_registry_default, "resctrl");
	diag_list_init(&diags, h->config_path);
	assert_int_equal(config_load_path(h->config_path, engine_default_schema(), NULL, &o->config, &diags), 0);
	diag_list_fini(&diags);
	clock_init_monotonic(&o->clock);
	if (o->ops->open(o->config, &o->clock, &o->control, &err) < 0)
		fail_msg("open: %s", err.text);
}

static void control_close(struct opened *o)
{
	o->ops->free(o->control);
	config_free(o->config);
}

/* ---- CLOSIDs: the count the hardware has, and which partitions the plan refuses ---- */

static void test_more_partitions_than_closids(void **state)
{
	struct host h;
	char body[4096];
	size_t used = 0;

	(void)state;
	host_start(&h, "intel", NULL);
	unsigned closids = read_uint(h.root, "info/L3/num_closids");
	unsigned mb_closids = read_uint(h.root, "info/MB/num_closids");
	closids = mb_closids < closids ? mb_closids : closids;
	for (unsigned i = 0; i < closids; i++)
		used += (size_t)snprintf(body + used, sizeof(body) - used, "[partition \"p%02u\"]\n", i);
	json_t *host = host_check(&h, body, 1);

	/* Host-wide: as many partitions as CLOSIDs, but the default group holds one. */
	assert_int_equal(json_array_size(json_object_get(host, "refused")), 1);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(host, "refused"), 0)),
			       "one of them the default group's"));
	/* Per partition: the default group and "other" hold two, so the last two find none. */
	size_t i, refused = 0;
	json_t *p;
	json_array_foreach(json_object_get(host, "partitions"), i, p) {
		bool no_closid = strstr(reason(p), "no CLOSID left") != NULL;
		assert_true(no_closid == (i >= closids - 2));
		refused += no_closid;
	}
	assert_int_equal(refused, 2);
	assert_untouched(&h);

	/* And that is what the resctrl control finds when it really opens them. */
	struct opened o;
	struct err err = { "" };
	assert_int_equal(emu_ctl(h.emu, "fail_next_write EIO nowhere"), 0); /* take the armed faults back */
	char mkdir_probe[512];
	snprintf(mkdir_probe, sizeof(mkdir_probe), "%s/mkdir-fault-taken", h.root);
	assert_int_equal(mkdir(mkdir_probe, 0755), -1);
	control_open_on(&h, &o);
	json_array_foreach(json_object_get(host, "partitions"), i, p) {
		struct partition_ref ref;
		int r = o.ops->partition_open(o.control, i, &o.config->partitions[i], &ref, &err);
		assert_int_equal(r == -ENOSPC, strcmp(verdict(p), "refused") == 0);
	}
	control_close(&o);
	json_decref(host);
	host_stop(&h);
}

/* ---- classes (mpamd.ini(5) CLASSES) ---- */

static json_t *class_of(json_t *classes, const char *name)
{
	size_t i, j;
	json_t *c, *n;

	json_array_foreach(json_object_get(classes, "classes"), i, c)
		json_array_foreach(json_object_get(c, "partitions"), j, n)
			if (!strcmp(json_string_value(n), name))
				return c;
	fail_msg("partition %s is in no class of the plan", name);
	return NULL;
}

static void assert_text_has(const char *config_path, const char *words)
{
	struct run_result r = check(config_path, false);

	if (!strstr(r.out, words))
		fail_msg("check-config --host lacks '%s':\n%s%s", words, r.out, r.err);
	run_result_fini(&r);
}

/* 26 partitions on 16 CLOSIDs (the default group and "other" hold two: 14 left) with 22 distinct
 * ceilings: two latency-critical at 100%, four at 40%, twenty with a ceiling of their own per domain.
 * All open, sharing the 14 classes, quantised; nothing refused for the partition count. */
static void test_classes_shared_plan(void **state)
{
	const char *const args[] = { "--rmids", "256", NULL };
	char body[8192];
	size_t used = 0;
	struct host h;

	(void)state;
	used += (size_t)snprintf(body + used, sizeof(body) - used, "classes = shared\n");
	for (unsigned i = 1; i <= 2; i++)
		used += (size_t)snprintf(body + used, sizeof(body) - used,
					 "[partition \"lc-%u\"]\nclass = latency-critical\nmb_max = 100\n", i);
	for (unsigned i = 1; i <= 4; i++)
		used += (size_t)snprintf(body + used, sizeof(body) - used, "[partition \"same-%u\"]\nmb_max = 40\n", i);
	for (unsigned i = 0; i < 20; i++)
		used += (size_t)snprintf(body + used, sizeof(body) - used,
					 "[partition \"q-%02u\"]\nclass = best-effort\nmb_max = 0=%u,1=%u\n", i,
					 10 + 10 * (i % 10), i < 10 ? 10 : 60);
	host_start_with(&h, "intel", args, NULL);
	json_t *host = host_check(&h, body, 0);
	json_t *plan = json_object_get(host, "classes");

	assert_int_equal(json_array_size(json_object_get(host, "refused")), 0);
	assert_true(json_is_true(json_object_get(plan, "shared")));
	assert_int_equal(json_integer_value(json_object_get(plan, "closids")), 15);
	assert_int_equal(json_integer_value(json_object_get(plan, "classes_left")), 14);
	assert_int_equal(json_integer_value(json_object_get(plan, "partitions")), 26);
	assert_int_equal(json_integer_value(json_object_get(plan, "distinct_limits")), 22);
	assert_int_equal(json_integer_value(json_object_get(plan, "classes_used")), 14);
	assert_true(json_is_true(json_object_get(plan, "sharing")));
	assert_true(json_is_true(json_object_get(plan, "quantised")));
	assert_true(json_number_value(json_object_get(plan, "deviation_pct_points")) > 0);
	assert_true(json_is_null(json_object_get(plan, "advice")));
	json_t *rmids = json_object_get(plan, "rmids");
	assert_int_equal(json_integer_value(json_object_get(rmids, "total")), 256);
	assert_int_equal(json_integer_value(json_object_get(rmids, "needed")), 26 + 14);
	assert_int_equal(json_integer_value(json_object_get(rmids, "left")), 256 - 2);
	/* equal ceilings share; the protected pair keeps its 100% on both domains */
	assert_ptr_equal(class_of(plan, "same-1"), class_of(plan, "same-4"));
	json_t *lc = class_of(plan, "lc-1");
	assert_ptr_equal(lc, class_of(plan, "lc-2"));
	assert_true(json_number_value(json_array_get(json_object_get(lc, "mb_max"), 0)) == 100);
	assert_true(json_number_value(json_array_get(json_object_get(lc, "mb_max"), 1)) == 100);
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(host, "partitions"), i, p) {
		assert_string_equal(verdict(p), "ok");
		assert_true(has_note(p, "classes = shared: a monitoring group"));
	}
	assert_text_has(h.config_path, "classes: shared (classes = shared): 26 partitions, 22 distinct ceilings, 14 of "
				       "15 classes left\n  partitions share 14 classes; quantised: held ");
	assert_text_has(h.config_path, "  RMIDs: 40 needed (26 partitions, 14 class groups), 254 left of 256\n");
	host_stop_untouched(&h, host);
}

/* classes = own with more partitions than CLOSIDs: refused, and told that shared classes would open
 * them all; auto opens them in shared classes; too few RMIDs for shared classes is a refusal. */
static void test_classes_own_advice_and_rmids(void **state)
{
	const char *const args[] = { "--rmids", "256", NULL };
	const char *const few[] = { "--rmids", "20", NULL };
	char body[4096], shared_body[4200];
	size_t used = 0;
	struct host h;

	(void)state;
	for (unsigned i = 0; i < 20; i++)
		used += (size_t)snprintf(body + used, sizeof(body) - used, "[partition \"vm-%02u\"]\nmb_max = %u\n", i,
					 i % 2 ? 50 : 30);
	host_start_with(&h, "intel", args, NULL);
	json_t *host = host_check(&h, body, 1);
	json_t *plan = json_object_get(host, "classes");
	assert_true(json_is_false(json_object_get(plan, "shared")));
	assert_int_equal(json_integer_value(json_object_get(plan, "distinct_limits")), 2);
	assert_non_null(
		strstr(json_string_value(json_object_get(plan, "advice")),
		       "classes = own: 20 partitions, 14 CLOSIDs left, so 6 cannot open; classes = shared would "
		       "open them all, in 2 shared classes"));
	assert_text_has(h.config_path, "classes = shared would open them all");
	json_decref(host);
	assert_untouched(&h);
	unlink(h.config_path);
	free(h.before); /* the next check takes its own snapshot */

	snprintf(shared_body, sizeof(shared_body), "classes = auto\n%s", body);
	json_decref(host_check(&h, shared_body, 0));
	host_stop(&h);

	/* 20 monitoring groups and 2 class groups need 22 RMIDs; the default group and "other" hold 2 of 20 */
	snprintf(shared_body, sizeof(shared_body), "classes = shared\n%s", body);
	host_start_with(&h, "intel", few, NULL);
	host = host_check(&h, shared_body, 1);
	assert_int_equal(json_array_size(json_object_get(host, "refused")), 1);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(host, "refused"), 0)),
			       "20 partitions and 2 class groups need 22 RMIDs, the host has 18 left"));
	host_stop_untouched(&h, host);
}

/* The README's worked example (mpamd.ini(5)'s 50 VMs on 16 CLOSIDs) on the amd profile with 256 RMIDs:
 * the plan of classes it shows is what check-config prints. */
static void test_readme_worked_example(void **state)
{
	const char *const args[] = { "--rmids", "256", NULL };
	char body[8192], other[512], path[512];
	size_t used = 0;
	struct host h;

	(void)state;
	used += (size_t)snprintf(body, sizeof(body), "classes = shared\n");
	for (unsigned i = 1; i <= 2; i++)
		used += (size_t)snprintf(body + used, sizeof(body) - used,
					 "[partition \"vm-lc-%u\"]\nclass = latency-critical\n", i);
	for (unsigned i = 1; i <= 48; i++)
		used += (size_t)snprintf(body + used, sizeof(body) - used,
					 "[partition \"vm-%02u\"]\nclass = best-effort\nmb_max = %u\n", i, 19 + i);
	host_start_with(&h, "amd", args, NULL);
	snprintf(other, sizeof(other), "%s/other", h.root); /* the README's host has no other tool's group */
	assert_int_equal(rmdir(other), 0);
	write_config(&h, body);
	struct run_result r = check(h.config_path, false);
	assert_int_equal(r.exit_code, 0);
	char *plan = strstr(r.out, "classes: shared");
	assert_non_null(plan);
	char *end = strstr(plan, "result: ");
	assert_non_null(end);
	*end = '\0';
	snprintf(path, sizeof(path), "%s/README.md", MPAMD_SOURCE_DIR);
	char *readme = read_text_file(path);
	assert_non_null(readme);
	if (!strstr(readme, plan))
		fail_msg("the README's plan of classes is not what check-config prints:\n%s", plan);
	free(readme);
	run_result_fini(&r);
	host_stop(&h);
}

/* ---- the plan is what apply does ---- */

static void test_plan_is_what_apply_does(void **state)
{
	struct host h;
	struct helpers threads;
	char body[256];
	struct opened o;
	struct err err = { "" };

	(void)state;
	host_start(&h, "intel", NULL);
	helpers_start(&threads);
	snprintf(body, sizeof(body), "[partition \"web\"]\nmb_max = 45\nl3_cbm = 0x3f0\npids = %d\ncpus = 0-1\n",
		 (int)getpid());
	write_config(&h, body);
	control_open_on(&h, &o);

	const struct control_ops *ops = o.ops;
	struct control *control = o.control;
	const struct partition_config *p = &o.config->partitions[0];
	struct partition_limits want = { .mb_max = p->goals.mb_max, .l3_cbm = p->goals.l3_cbm }, planned_eff, eff;
	struct control_plan plan = { 0 };
	assert_int_equal(ops->plan(control, 0, p, &want, &plan, &err), 0);
	planned_eff = plan.effective;
	struct partition_ref ref;
	assert_int_equal(ops->partition_open(control, 0, p, &ref, &err), 0);
	assert_int_equal(ops->apply(control, 0, &want, &eff, &err), 0);

	/* What the plan said would be in force is what apply reports, and every planned value is there. */
	assert_int_equal(planned_eff.mb_max, eff.mb_max);
	assert_int_equal(planned_eff.l3_cbm, eff.l3_cbm);
	size_t i;
	json_t *w;
	char *schemata = read_file_below(h.root, "mpamd-web/schemata");
	char *tasks = read_file_below(h.root, "mpamd-web/tasks");
	char *cpus = read_file_below(h.root, "mpamd-web/cpus_list");
	json_array_foreach(plan.writes, i, w) {
		const char *what = json_string_value(json_object_get(w, "what"));
		const char *value = json_string_value(json_object_get(w, "value"));
		char copy[512];
		if (!strcmp(what, "schemata")) {
			snprintf(copy, sizeof(copy), "%s", value);
			for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				if (!strstr(schemata, line))
					fail_msg("planned '%s', schemata holds:\n%s", line, schemata);
		} else if (!strcmp(what, "tasks") || !strcmp(what, "cpus_list")) {
			snprintf(copy, sizeof(copy), "%s\n", value);
			assert_non_null(strstr(!strcmp(what, "tasks") ? tasks : cpus, copy));
		}
	}
	assert_int_equal(json_array_size(plan.writes), 3 + own_threads()); /* mkdir, schemata, cpus_list */
	control_plan_fini(&plan);

	/* Planned again now that everything is in place: adopt, and nothing to write. */
	assert_int_equal(ops->plan(control, 0, p, &want, &plan, &err), 0);
	assert_int_equal(json_array_size(plan.writes), 0);
	control_plan_fini(&plan);
	free(schemata);
	free(tasks);
	free(cpus);
	control_close(&o);
	helpers_stop(&threads);
	host_stop(&h);
}

/* ---- amd and mpam73: their own units, steps and mask rules ---- */

static void test_amd_absolute_units_sparse_masks(void **state)
{
	struct host h;
	char want[128];

	(void)state;
	json_t *host = host_start_check(
		&h, "amd", "[partition \"web\"]\nmb_max = 25\nl3_cbm = 0x505\n[partition \"floor\"]\nmb_min = 5\n", 1);

	/* MB is in absolute units: 25% of what the default group holds (its unthrottled value). */
	char *root_schemata = read_file_below(h.root, "schemata");
	char *mb = strstr(root_schemata, "MB:");
	assert_non_null(mb);
	unsigned max = (unsigned)strtoul(strchr(mb, '=') + 1, NULL, 10);
	free(root_schemata);
	json_t *web = partition(host, "web");
	assert_string_equal(verdict(web), "ok");
	char value[32];
	snprintf(value, sizeof(value), "%u", max * 25 / 100);
	schemata_line(h.root, "MB", value, want, sizeof(want));
	const char *planned = write_value(web, "schemata", h.root, "mpamd-web/schemata");
	assert_non_null(planned);
	assert_non_null(strstr(planned, want));
	/* Sparse masks are fine here. */
	schemata_line(h.root, "L3", "505", want, sizeof(want));
	assert_non_null(strstr(planned, want));
	assert_string_equal(verdict(partition(host, "floor")), "refused");
	host_stop_untouched(&h, host);
}

static void test_mpam73_steps(void **state)
{
	struct host h;
	char want[128], buf[128];

	(void)state;
	json_t *host = host_start_check(
		&h, "mpam73", "[partition \"web\"]\nmb_max = 25\nl3_cbm = 0xf0f\n[partition \"low\"]\nmb_max = 1\n", 0);
	/* bandwidth_gran 4 and min_bandwidth 3: MPAM's BWA_WD 5, 32 bands through Linux's glue. */
	assert_int_equal(read_uint(h.root, "info/MB/bandwidth_gran"), 4);
	assert_int_equal(read_uint(h.root, "info/MB/min_bandwidth"), 3);
	struct ladder bands;
	char said[64];
	assert_int_equal(ladder_resctrl_mpam(5, &bands), 0);
	ladder_describe(&bands, said, sizeof(said));
	uint32_t rung = ladder_snap(&bands, 25, LADDER_NEAREST);

	json_t *web = partition(host, "web");
	/* 25% is the top of band 7 (of 0..31) exactly: no rounding, written 24 and shown 25. */
	assert_true(ladder_pct(&bands, rung) == 25);
	assert_string_equal(rounding(web, "mb_max", buf, sizeof(buf)), "");
	snprintf(buf, sizeof(buf), "%u", ladder_value(&bands, rung));
	schemata_line(h.root, "MB", buf, want, sizeof(want));
	assert_non_null(strstr(write_value(web, "schemata", h.root, "mpamd-web/schemata"), want));
	/* 1% is below the lowest band's top, 3.125%. */
	snprintf(want, sizeof(want), "1 -> %g (below the lowest setting, %g%%)", ladder_pct(&bands, 0),
		 ladder_pct(&bands, 0));
	assert_string_equal(rounding(partition(host, "low"), "mb_max", buf, sizeof(buf)), want);
	assert_true(json_is_true(json_object_get(host, "can_hold")));
	host_stop_untouched(&h, host);
}

/* ---- CDP, on a tree of files (a copy of a host's resctrl): L3CODE and L3DATA ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void test_cdp_tree(void **state)
{
	char root[] = "/tmp/mpamd-check-host-cdp-XXXXXX";
	struct host h = { 0 };

	(void)state;
	assert_non_null(mkdtemp(root));
	h.root = root;
	make_dir(root, "info");
	const char *halves[] = { "L3CODE", "L3DATA" };
	for (size_t i = 0; i < 2; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "info/%s", halves[i]);
		make_dir(root, rel);
		const char *files[][2] = { { "cbm_mask", "7ff\n" },
					   { "min_cbm_bits", "1\n" },
					   { "num_closids", "8\n" },
					   { "shareable_bits", "0\n" },
					   { "sparse_masks", "0\n" } };
		for (size_t f = 0; f < 5; f++) {
			snprintf(rel, sizeof(rel), "info/%s/%s", halves[i], files[f][0]);
			write_file(root, rel, files[f][1]);
		}
	}
	write_file(root, "info/last_cmd_status", "ok\n");
	write_file(root, "schemata", "L3CODE:0=7ff;1=7ff\nL3DATA:0=7ff;1=7ff\n");
	write_config(&h, "[partition \"web\"]\nl3_cbm = 0x0f0\n");
	h.before = snapshot(root);

	json_t *host = check_json(h.config_path, 0);
	json_t *web = partition(host, "web");
	assert_string_equal(write_value(web, "schemata", root, "mpamd-web/schemata"),
			    "L3CODE:0=f0;1=f0\nL3DATA:0=f0;1=f0");
	json_decref(host);
	char *after = snapshot(root);
	assert_string_equal(after, h.before);
	free(after);
	free(h.before);
	unlink(h.config_path);
	assert_int_equal(nftw(root, remove_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}

/* ---- a host that cannot be probed ---- */

static void test_no_resctrl_mount(void **state)
{
	struct host h = { .root = "/tmp/mpamd-check-host-no-such-root" };

	(void)state;
	write_config(&h, "[partition \"web\"]\n");
	struct run_result r = check(h.config_path, false);
	assert_int_equal(r.exit_code, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "mpamctl check-config: backend resctrl: cannot open "
				      "/tmp/mpamd-check-host-no-such-root"));
	run_result_fini(&r);
	json_t *host = check_json(h.config_path, 1);
	assert_non_null(strstr(json_string_value(json_object_get(host, "error")), "is resctrl mounted?"));
	assert_false(json_is_true(json_object_get(host, "can_hold")));
	json_decref(host);
	unlink(h.config_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_refusals_rounding_writes),
		cmocka_unit_test(test_intel_text),
		cmocka_unit_test(test_too_few_bits),
		cmocka_unit_test(test_overcommit),
		cmocka_unit_test(test_more_partitions_than_closids),
		cmocka_unit_test(test_classes_shared_plan),
		cmocka_unit_test(test_classes_own_advice_and_rmids),
		cmocka_unit_test(test_readme_worked_example),
		cmocka_unit_test(test_plan_is_what_apply_does),
		cmocka_unit_test(test_amd_absolute_units_sparse_masks),
		cmocka_unit_test(test_mpam73_steps),
		cmocka_unit_test(test_cdp_tree),
		cmocka_unit_test(test_no_resctrl_mount),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
