/* The fleet files under deploy/: the alert rules pass `promtool check rules` and their own
 * `promtool test rules` (tests/deploy/mpamd-alerts-test.yml), the scrape configuration passes
 * `promtool check config`, every dashboard query is valid PromQL, and the DaemonSet's ConfigMap is a
 * configuration mpamd accepts, writing its textfile where the DaemonSet mounts the collector's
 * directory. Which metric names these files may use is test_metrics' business. Without promtool
 * only the DaemonSet is checked and the program exits 77 (skipped). */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/dashboard.h"
#include "tests/util/promtool.h"
#include "tests/util/testutil.h"

#define DEPLOY MPAMD_SOURCE_DIR "/deploy/"

static bool promtool_missing;

/* promtool ARGS... must exit 0. */
static void assert_promtool(const char *a1, const char *a2, const char *path)
{
	char *argv[] = { "/usr/bin/env", "promtool", (char *)a1, (char *)a2, (char *)path, NULL };
	char what[512];

	if (promtool_missing) {
		skip();
		return;
	}
	snprintf(what, sizeof(what), "promtool %s %s %s", a1, a2, path);
	promtool_expect_ok(argv, what);
}

static void test_alert_rules_check_and_test(void **state)
{
	(void)state;
	assert_promtool("check", "rules", DEPLOY "mpamd-alerts.yml");
	assert_promtool("test", "rules", MPAMD_SOURCE_DIR "/tests/deploy/mpamd-alerts-test.yml");
}

static void test_scrape_config_checks(void **state)
{
	(void)state;
	assert_promtool("check", "config", DEPLOY "prometheus.yml");
}

/* ---- the dashboard: every query, with Grafana's variables filled in, as a recording rule ---- */

static void replace_all(char *s, size_t size, const char *from, const char *to)
{
	char *at;

	while ((at = strstr(s, from))) {
		size_t tail = strlen(at + strlen(from));
		assert_true(strlen(s) - strlen(from) + strlen(to) < size);
		memmove(at + strlen(to), at + strlen(from), tail + 1);
		memcpy(at, to, strlen(to));
	}
}

struct expr_rules {
	FILE *out;
	unsigned count;
};

/* Writes the query as a recording rule, Grafana's variables replaced by what promtool can parse. */
static void write_expr_rule(const char *expr, const json_t *panel, void *ctx)
{
	struct expr_rules *rules = ctx;
	char query[2048];

	(void)panel;
	snprintf(query, sizeof(query), "%s", expr);
	replace_all(query, sizeof(query), "$__rate_interval", "5m");
	replace_all(query, sizeof(query), "$instance", "hv1");
	json_t *quoted = json_string(query);
	char *text = json_dumps(quoted, JSON_ENCODE_ANY); /* JSON strings are YAML strings */
	fprintf(rules->out, "      - record: dashboard:query_%u\n        expr: %s\n", rules->count++, text);
	free(text);
	json_decref(quoted);
}

static void test_dashboard_queries_are_promql(void **state)
{
	char dir[] = "/tmp/mpamd-deploy-XXXXXX", path[64];
	json_error_t error;
	struct expr_rules rules = { .out = NULL };

	(void)state;
	json_t *dashboard = json_load_file(DEPLOY "grafana-dashboard.json", 0, &error);
	if (!dashboard)
		fail_msg("grafana-dashboard.json:%d: %s", error.line, error.text);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dashboard-rules.yml", dir);
	rules.out = fopen(path, "w");
	assert_non_null(rules.out);
	fprintf(rules.out, "groups:\n  - name: dashboard\n    rules:\n");
	dashboard_each_expr(dashboard, write_expr_rule, &rules);
	assert_int_equal(fclose(rules.out), 0);
	json_decref(dashboard);
	assert_true(rules.count >= 4);
	if (!promtool_missing)
		assert_promtool("check", "rules", path);
	unlink(path);
	rmdir(dir);
	if (promtool_missing)
		skip();
}

/* ---- the DaemonSet ---- */

/* The block scalar `mpamd.ini: |` of the ConfigMap, without its indentation. */
static char *configmap_ini(const char *yaml)
{
	const char *key = strstr(yaml, "  mpamd.ini: |\n");
	assert_non_null(key);
	const char *line = strchr(key, '\n') + 1;
	size_t indent = strspn(line, " ");
	assert_true(indent > 2);
	char *ini = calloc(1, strlen(line) + 1);
	assert_non_null(ini);
	for (size_t used = 0; *line;) {
		size_t n = strcspn(line, "\n");
		if (n > 0 && strspn(line, " ") < indent)
			break; /* the block ends where the indentation does */
		if (n >= indent) {
			memcpy(ini + used, line + indent, n - indent);
			used += n - indent;
		}
		ini[used++] = '\n';
		line += n + (line[n] == '\n');
	}
	return ini;
}

static void test_daemonset_config_is_accepted(void **state)
{
	char dir[] = "/tmp/mpamd-deploy-XXXXXX", path[64];

	(void)state;
	char *yaml = read_text_file(DEPLOY "mpamd-daemonset.yaml");
	assert_non_null(yaml);
	char *ini = configmap_ini(yaml);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/mpamd.ini", dir);
	FILE *out = fopen(path, "w");
	assert_non_null(out);
	fputs(ini, out);
	assert_int_equal(fclose(out), 0);
	char *argv[] = { MPAMCTL, "check-config", path, NULL };
	struct run_result r;
	assert_int_equal(run_command(argv, &r), 0);
	if (r.exit_code != 0)
		fail_msg("the ConfigMap's mpamd.ini is refused:\n%s%s", r.out, r.err);
	run_result_fini(&r);
	unlink(path);
	rmdir(dir);

	/* Its textfile lies in the directory the DaemonSet mounts from the host at the same path. */
	const char *key = strstr(ini, "metrics_textfile = ");
	assert_non_null(key);
	char textfile[256], mount[300];
	snprintf(textfile, sizeof(textfile), "%.*s", (int)strcspn(key + 19, "\n"), key + 19);
	*strrchr(textfile, '/') = '\0';
	snprintf(mount, sizeof(mount), "mountPath: %s\n", textfile);
	assert_non_null(strstr(yaml, mount));
	snprintf(mount, sizeof(mount), "path: %s\n", textfile);
	assert_non_null(strstr(yaml, mount));
	/* What mpamd needs of the host, and its configuration where mpamd.ini(5) says. */
	const char *needed[] = { "hostPID: true\n",	    "privileged: true\n",      "mountPath: /sys/fs/resctrl\n",
				 "mountPath: /dev/mem\n",   "mountPath: /etc/mpamd\n", "name: mpamd-config\n",
				 "\"/etc/mpamd/mpamd.ini\"" };
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!strstr(yaml, needed[i]))
			fail_msg("mpamd-daemonset.yaml lacks %s", needed[i]);
	free(ini);
	free(yaml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alert_rules_check_and_test),
		cmocka_unit_test(test_scrape_config_checks),
		cmocka_unit_test(test_dashboard_queries_are_promql),
		cmocka_unit_test(test_daemonset_config_is_accepted),
	};
	promtool_missing = !promtool_found();
	return promtool_exit_code(cmocka_run_group_tests(tests, NULL, NULL), promtool_missing);
}
