/* mpamctl discover: probe the hardware (or the simulated host) a config names and print what it offers. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "backends/resctrl/resctrl_ops.h"
#include "cli/capacity_hint.h"
#include "cli/mpamctl.h"
#include "core/base/clock.h"
#include "core/base/log.h"
#include "core/config/config.h"
#include "core/engine/compose.h"
#include "core/engine/registry.h"

static void discover_usage(FILE *out)
{
	fprintf(out, "Usage: mpamctl discover [--backend NAME] -c FILE [--record FILE.csv] [--json]\n"
		     "       mpamctl discover --resctrl-root DIR [--json]\n"
		     "\n"
		     "Probe the hardware the configuration describes, without changing any limit, and print\n"
		     "its capabilities: PARTIDs, PMGs, each MSC with its RIS, PARTID narrowing, bandwidth\n"
		     "controls and their granularity, whether MBW_MAX limits are soft or hard (MAX_LIM and\n"
		     "mb_max_mode), cache portion bits, monitors and counter width, and the errata workarounds\n"
		     "(quirks, matched on MPAMF_IIDR) it applies; for resctrl the resources,\n"
		     "CLOSIDs, masks, MB units and steps, RMIDs, monitoring events and counter assignment.\n"
		     "Then each domain's capacity, as far as the hardware tells it or a record file shows it,\n"
		     "and the capacity_mbps setting that says it.\n"
		     "\n"
		     "Options:\n"
		     "  -c, --config FILE        configuration naming the backend and its hardware\n"
		     "  -b, --backend NAME       resctrl | mmio | sim, replacing the file's backend key\n"
		     "  -r, --resctrl-root DIR   probe a resctrl tree directly, without a configuration\n"
		     "                           (a mount, or a directory copied from a real host)\n"
		     "  -R, --record FILE.csv    an mpamd record file of this host: the most each domain\n"
		     "                           carried in it is the capacity suggested where the hardware\n"
		     "                           does not tell (a lower bound: record a loaded host)\n"
		     "  -j, --json               print JSON\n"
		     "  -h, --help               show this help\n");
}

static const char *yes_no(json_t *v)
{
	return json_is_true(v) ? "yes" : "no";
}

static long long num(json_t *obj, const char *key)
{
	return (long long)json_integer_value(json_object_get(obj, key));
}

static void print_ris(json_t *ris)
{
	json_t *bw = json_object_get(ris, "bandwidth");
	json_t *ctr = json_object_get(ris, "counter");

	printf("  RIS %lld:", num(ris, "index"));
	if (json_integer_value(json_object_get(ris, "intpartids")))
		printf(" PARTID narrowing to %lld intPARTIDs;", num(ris, "intpartids"));
	if (bw) {
		printf(" bandwidth BWA_WD %lld (granularity %lld%%, minimum %lld%%, MIN %s, MAX %s", num(bw, "bwa_wd"),
		       num(bw, "granularity_pct"), num(bw, "min_bandwidth_pct"), yes_no(json_object_get(bw, "has_min")),
		       yes_no(json_object_get(bw, "has_max")));
		/* MAX_LIM, and what mpamd's mb_max is there (mb_max_mode where the MSC lets it choose). */
		if (json_object_get(bw, "mb_max_limit"))
			printf(", MAX_LIM %s: mb_max is %s", json_string_value(json_object_get(bw, "max_lim_means")),
			       json_string_value(json_object_get(bw, "mb_max_limit")));
		printf(", PROP %s, PBM %lld portions);", yes_no(json_object_get(bw, "has_prop")), num(bw, "pbm_wd"));
	} else {
		printf(" no bandwidth controls;");
	}
	printf(" CPBM %lld bits; %lld MBWU monitors", num(ris, "cpbm_wd"), num(ris, "monitors"));
	if (ctr)
		printf(", %lld-bit counters (scale %lld)", num(ctr, "bits"), num(ctr, "scale"));
	putchar('\n');
}

/* "  quirk T241-MPAM-6 (MBWU counters count 64-byte units): values and overflows are multiplied by 64" */
static void print_quirk(json_t *q)
{
	printf("  quirk %s (%s): %s%s\n", json_string_value(json_object_get(q, "name")),
	       json_string_value(json_object_get(q, "erratum")),
	       json_is_true(json_object_get(q, "applied")) ? "" : "not applied, ",
	       json_string_value(json_object_get(q, "action")));
}

/* Who clears NRDY, as discover says it: mpamd honours the bit either way. */
static const char *nrdy_text(const char *nrdy)
{
	if (!nrdy || !strcmp(nrdy, "not probed"))
		return "not probed";
	return !strcmp(nrdy, "software") ? "software-managed (cleared by zeroing the counter)" : "hardware-managed";
}

static void print_text(const char *backend, json_t *d)
{
	json_t *mscs = json_object_get(d, "mscs");
	size_t i;
	json_t *msc;

	printf("backend %s: %lld PARTIDs, %lld PMGs, %zu MSCs, bandwidth granularity %lld%%, %lld monitors per MSC\n",
	       backend, num(d, "partids"), num(d, "pmgs"), json_array_size(mscs), num(d, "bandwidth_granularity_pct"),
	       num(d, "monitors_per_msc"));
	json_array_foreach(mscs, i, msc) {
		printf("msc %s at %s (%lld bytes): MPAM v%s, PARTID_MAX %lld, PMG_MAX %lld, IIDR %s, ESR %s, NRDY %s\n",
		       json_string_value(json_object_get(msc, "name")), json_string_value(json_object_get(msc, "base")),
		       num(msc, "size"), json_string_value(json_object_get(msc, "architecture")),
		       num(msc, "partid_max"), num(msc, "pmg_max"), json_string_value(json_object_get(msc, "iidr")),
		       yes_no(json_object_get(msc, "esr")), nrdy_text(json_string_value(json_object_get(msc, "nrdy"))));
		size_t j;
		json_t *item;
		json_array_foreach(json_object_get(msc, "quirks"), j, item)
			print_quirk(item);
		json_array_foreach(json_object_get(msc, "ris"), j, item)
			print_ris(item);
	}
}

static void print_resctrl_text(json_t *d)
{
	json_t *mb = json_object_get(d, "MB"), *mon = json_object_get(d, "monitoring");
	const char *caches[] = { "L3", "L2" };

	printf("resctrl at %s%s: %lld CLOSIDs%s\n", json_string_value(json_object_get(d, "root")),
	       json_is_true(json_object_get(d, "resctrl_mount")) ? "" : " (not a resctrl mount)", num(d, "num_closids"),
	       json_is_true(json_object_get(d, "debug")) ? ", debug (ctrl_hw_id)" : "");
	for (size_t i = 0; i < 2; i++) {
		json_t *c = json_object_get(d, caches[i]);
		if (json_is_object(c))
			printf("  %s: %lld-bit CBM (mask %s), min %lld bits, shareable %s, sparse masks %s%s, %lld "
			       "domains\n",
			       json_string_value(json_object_get(c, "name")), num(c, "cbm_bits"),
			       json_string_value(json_object_get(c, "cbm_mask")), num(c, "min_cbm_bits"),
			       json_string_value(json_object_get(c, "shareable_bits")),
			       yes_no(json_object_get(c, "sparse_masks")),
			       json_is_true(json_object_get(c, "cdp")) ? ", CDP" : "", num(c, "domains"));
	}
	if (json_is_object(mb))
		printf("  MB: %s, step %lld, minimum %lld, max %lld, delay %s, throttle %s, %lld domains\n",
		       json_string_value(json_object_get(mb, "units")), num(mb, "bandwidth_gran"),
		       num(mb, "min_bandwidth"), num(mb, "max_value"),
		       json_is_true(json_object_get(mb, "delay_linear")) ? "linear" : "non-linear",
		       json_string_value(json_object_get(mb, "thread_throttle_mode")), num(mb, "domains"));
	if (json_is_object(mon)) {
		const char *mode = json_string_value(json_object_get(mon, "mbm_assign_mode"));
		const char *res = json_string_value(json_object_get(mon, "resource"));
		printf("  %s_MON: %lld RMIDs; mbm_total_bytes %s, mbm_local_bytes %s, llc_occupancy %s; %zu "
		       "domains%s%s\n",
		       res ? res : "?", num(mon, "num_rmids"), yes_no(json_object_get(mon, "mbm_total_bytes")),
		       yes_no(json_object_get(mon, "mbm_local_bytes")), yes_no(json_object_get(mon, "llc_occupancy")),
		       json_array_size(json_object_get(mon, "domains")), mode && *mode ? "; counter assignment " : "",
		       mode ? mode : "");
	}
}

static int discover_root(const char *root, bool json)
{
	struct err err = { "" };
	json_t *d = resctrl_describe_root(root, &err);

	if (!d) {
		fprintf(stderr, "mpamctl discover: %s\n", err.text);
		return EXIT_FAILED;
	}
	json_object_set_new(d, "backend", json_string("resctrl"));
	if (json)
		json_dumpf(d, stdout, JSON_INDENT(2) | JSON_SORT_KEYS), putchar('\n');
	else
		print_resctrl_text(d);
	json_decref(d);
	return EXIT_OK;
}

/* The capacity hint, into the description (JSON) or after it (text). */
static int add_capacity(const struct composition *hw, const char *record, bool json, json_t *d)
{
	struct err err = { "" };
	json_t *hint = capacity_hint(hw, record, &err);

	if (!hint) {
		fprintf(stderr, "mpamctl discover: %s\n", err.text);
		return -1;
	}
	if (json)
		json_object_set_new(d, "capacity", hint);
	else {
		capacity_hint_print(stdout, hint);
		json_decref(hint);
	}
	return 0;
}

static int discover(const char *path, const struct config_overrides *overrides, const char *record, bool json)
{
	struct diag_list diags;
	struct config *config = NULL;
	diag_list_init(&diags, path);
	int r = config_load_path(path, engine_default_schema(), overrides, &config, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	if (r < 0)
		return EXIT_FAILED;

	struct composition hw;
	struct clock clock;
	struct err err = { "" };
	clock_init_monotonic(&clock);
	if ((r = composition_open(&engine_registry_default, config, &clock, &hw, &err)) < 0) {
		fprintf(stderr, "mpamctl discover: %s\n", err.text);
	} else {
		json_t *d = composition_describe(&hw);
		if (!json && json_object_get(d, "root")) /* resctrl describes its mount */
			print_resctrl_text(d);
		else if (!json)
			print_text(hw.control_ops->name, d);
		r = add_capacity(&hw, record, json, d);
		if (r == 0 && json)
			json_dumpf(d, stdout, JSON_INDENT(2) | JSON_SORT_KEYS), putchar('\n');
		json_decref(d);
		composition_close(&hw);
	}
	config_free(config);
	return r == 0 ? EXIT_OK : EXIT_FAILED;
}

int cmd_discover(int argc, char **argv, const struct ctl_options *opts)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "backend", required_argument, NULL, 'b' },
		{ "resctrl-root", required_argument, NULL, 'r' },
		{ "record", required_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct config_overrides overrides = { 0 };
	const char *path = NULL, *root = NULL, *record = NULL;
	bool json = opts->json;
	int c;

	while ((c = getopt_long(argc, argv, "c:b:r:R:jh", options, NULL)) != -1) {
		switch (c) {
		case 'R':
			record = optarg;
			break;
		case 'c':
			path = optarg;
			break;
		case 'r':
			root = optarg;
			break;
		case 'b':
			if (!engine_registry_control(&engine_registry_default, optarg)) {
				char names[256];
				config_names_list(engine_default_schema()->backends, names, sizeof(names));
				fprintf(stderr, "mpamctl discover: --backend %s: expected one of %s\n", optarg, names);
				return EXIT_USAGE;
			}
			overrides.backend = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			discover_usage(stdout);
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'mpamctl discover --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind != argc || (!path == !root) || (record && root)) {
		fprintf(stderr, "mpamctl discover: %s\n",
			optind != argc ? "unexpected argument"
			: record && root
				? "--record needs a configuration (-c FILE): it names the host's domains"
				: "give either a configuration (-c FILE) or a resctrl tree (--resctrl-root DIR)");
		return EXIT_USAGE;
	}
	log_setup("mpamctl", LOG_LEVEL_ERROR, false);
	return root ? discover_root(root, json) : discover(path, &overrides, record, json);
}
