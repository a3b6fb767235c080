/* `mpamctl pmu encode` against perf itself on this machine's real sysfs: for the same event strings,
 * the perf_event_attr type, config words and exclude bits that `perf stat -vv` prints must be ours.
 * Exits 77 (skip) when perf cannot run here. */
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char perf_bin[256];

struct attr {
	bool ok;
	unsigned long long type, config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
};

/* Runs the shell command printf(fmt, ...), returns its output (malloc'ed) and exit status. */
__attribute__((format(printf, 2, 3))) static char *run(int *status, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	FILE *p = popen(cmd, "r");
	size_t cap = 65536, n = 0;
	char *out = malloc(cap);

	assert_non_null(p);
	assert_non_null(out);
	for (;;) {
		size_t got = fread(out + n, 1, cap - n - 1, p);
		n += got;
		if (got == 0)
			break;
		if (n + 1 == cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
	}
	out[n] = '\0';
	*status = pclose(p);
	return out;
}

/* Whether `path` is a perf that can count here; it becomes perf_bin when it is. */
static bool perf_works(const char *path)
{
	int status;

	if (access(path, X_OK) != 0)
		return false;
	free(run(&status, "%s stat -e task-clock true >/dev/null 2>&1", path));
	if (status != 0)
		return false;
	snprintf(perf_bin, sizeof(perf_bin), "%s", path);
	return true;
}

/* /usr/bin/perf, or a versioned /usr/bin/perf_* (Debian's linux-perf without its wrapper). */
static bool find_perf(void)
{
	glob_t g;
	bool found = perf_works("/usr/bin/perf");

	if (!found && glob("/usr/bin/perf_*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && !found; i++)
			found = perf_works(g.gl_pathv[i]);
		globfree(&g);
	}
	return found;
}

/* The first perf_event_attr block perf printed; perf leaves out fields that are zero. */
static struct attr perf_attr(const char *event)
{
	struct attr a = { 0 };
	int status;
	char *out = run(&status, "%s stat -vv -e '%s' true 2>&1", perf_bin, event);

	char *block = strstr(out, "perf_event_attr:\n");
	if (!block) {
		free(out);
		return a;
	}
	a.ok = true;
	char *end = strstr(block, "\n----");
	if (end)
		*end = '\0';
	for (char *line = strtok(block, "\n"); line; line = strtok(NULL, "\n")) {
		char *key = line + strspn(line, " ");
		char *last = strrchr(line, ' ');
		if (!last)
			continue;
		unsigned long long v = strtoull(last + 1, NULL, 0);
		if (!strncmp(key, "type ", 5))
			a.type = v;
		else if (!strncmp(key, "config ", 7))
			a.config = v;
		else if (strstr(key, "config1 }"))
			a.config1 = v;
		else if (strstr(key, "config2 }"))
			a.config2 = v;
		else if (!strncmp(key, "exclude_user ", 13))
			a.exclude_user = v;
		else if (!strncmp(key, "exclude_kernel ", 15))
			a.exclude_kernel = v;
		else if (!strncmp(key, "exclude_hv ", 11))
			a.exclude_hv = v;
	}
	free(out);
	return a;
}

static unsigned long long hex_field(json_t *o, const char *key)
{
	return strtoull(json_string_value(json_object_get(o, key)), NULL, 16);
}

static struct attr our_attr(const char *event)
{
	struct attr a = { 0 };
	int status;
	char *out = run(&status, "%s pmu encode --json '%s' 2>/dev/null", MPAMCTL, event);

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		json_t *o = json_loads(out, 0, NULL);
		assert_non_null(o);
		a.ok = true;
		a.type = (unsigned long long)json_integer_value(json_object_get(o, "type"));
		a.config = hex_field(o, "config");
		a.config1 = hex_field(o, "config1");
		a.config2 = hex_field(o, "config2");
		a.exclude_user = json_is_true(json_object_get(o, "exclude_user"));
		a.exclude_kernel = json_is_true(json_object_get(o, "exclude_kernel"));
		a.exclude_hv = json_is_true(json_object_get(o, "exclude_hv"));
		json_decref(o);
	}
	free(out);
	return a;
}

static void test_encode_matches_perf(void **state)
{
	static const char *const events[] = {
		"msr/tsc/",
		"msr/smi/",
		"msr/event=0x1/",
		"msr/event=0xffffffffffffffff/",
		"msr/config1=0x5/",
		"msr/tsc/u",
		"msr/tsc/k",
		"tsc",
		"uprobe/retprobe,ref_ctr_offset=0x5/",
		"uprobe/ref_ctr_offset=0xffffffff/",
		"uprobe/retprobe=1,config1=0x10,config2=0x20/",
		"uprobe/config=0x7,retprobe=0/",
		"uprobe/retprobe=0,config=0x7/",
		"task-clock",
		"cpu-clock",
		"context-switches",
		"cs",
		"cpu-migrations",
		"page-faults",
		"major-faults",
		"minor-faults",
		"task-clock:u",
		"cycles",
		"instructions",
		"cache-references",
		"cache-misses",
		"branches",
		"branch-misses",
		"cycles:u",
		"instructions:k",
		"r11",
		"r1b",
		/* errors in both */
		"uprobe/ref_ctr_offset=0x100000000/",
		"uprobe/retprobe=2/",
		"uprobe/nosuchterm=1/",
		"cpu/event=0x11/",
		"msr/event=0x1ffffffffffffffff/",
	};
	int mismatches = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		struct attr p = perf_attr(events[i]), o = our_attr(events[i]);
		printf("%-46s perf: %s type %llu config 0x%llx config1 0x%llx config2 0x%llx excl u%d k%d h%d\n",
		       events[i], p.ok ? "ok   " : "error", p.type, p.config, p.config1, p.config2, p.exclude_user,
		       p.exclude_kernel, p.exclude_hv);
		printf("%-46s ours: %s type %llu config 0x%llx config1 0x%llx config2 0x%llx excl u%d k%d h%d\n", "",
		       o.ok ? "ok   " : "error", o.type, o.config, o.config1, o.config2, o.exclude_user,
		       o.exclude_kernel, o.exclude_hv);
		if (p.ok != o.ok || p.type != o.type || p.config != o.config || p.config1 != o.config1 ||
		    p.config2 != o.config2 || p.exclude_user != o.exclude_user ||
		    p.exclude_kernel != o.exclude_kernel || p.exclude_hv != o.exclude_hv) {
			printf("  MISMATCH\n");
			mismatches++;
		}
	}
	assert_int_equal(mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_matches_perf),
	};
	if (access("/sys/bus/event_source/devices", R_OK) != 0 || !find_perf()) {
		printf("perf cannot run here (install linux-perf); skipping\n");
		return 77;
	}
	printf("oracle: %s\n", perf_bin);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
