/* mpamctl discover: probe the hardware (or the simulated host) a config names and print what it offers. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		     "       mpamctl discover [--backend NAME] --resctrl-root DIR [--json]\n"
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
		     "  -b, --backend NAME       one of the backends below, replacing the file's backend key\n"
		     "  -r, --resctrl-root DIR   probe a resctrl tree directly, without a configuration\n"
		     "                           (a mount, or a directory copied from a real host): the\n"
		     "                           backend (the default, or --backend's) alone on DIR\n"
		     "  -R, --record FILE.csv    an mpamd record file of this host: the most each domain\n"
		     "                           carried in it is the capacity suggested where the hardware\n"
		     "                           does not tell (a lower bound: record a loaded host)\n"
		     "  -j, --json               print JSON\n"
		     "  -h, --help               show this help\n"
		     "\n"
		     "Backends (the first is the default):\n");
	engine_registry_print_controls(&engine_registry_default, out, "  ");
}

/* The description as the control prints it for people, or as JSON. */
static void print_description(const struct control_ops *ops, json_t *d, bool json)
{
	if (json || !ops->describe_print)
		json_dumpf(d, stdout, JSON_INDENT(2) | JSON_SORT_KEYS), putchar('\n');
	else
		ops->describe_print(d, stdout);
}

/* The control alone, opened on a configuration of defaults whose resctrl_root is `root`, described. */
static int discover_root(const char *root, const struct config_overrides *overrides, bool json)
{
	struct diag_list diags;
	struct config *config = NULL;
	struct err err = { "" };
	diag_list_init(&diags, "--resctrl-root");
	int r = config_load_string("", engine_default_schema(), overrides, &config, &diags);
	if (r < 0) /* its warning that nothing would be managed is no news here */
		diag_print(&diags, stderr);
	diag_list_fini(&diags);
	if (r < 0)
		return EXIT_FAILED;
	char *copy = strdup(root);
	const struct control_ops *ops = engine_registry_control(&engine_registry_default, config->global.backend);
	struct control *control = NULL;
	struct clock clock;
	clock_init_monotonic(&clock);
	if (!copy)
		r = err_set(&err, -ENOMEM, "out of memory");
	else {
		free(config->global.resctrl_root);
		config->global.resctrl_root = copy;
		r = ops->open(config, &clock, &control, &err);
	}
	if (r < 0) {
		fprintf(stderr, "mpamctl discover: %s\n", err.text);
	} else {
		json_t *d = ops->describe(control);
		json_object_set_new(d, "backend", json_string(ops->name));
		print_description(ops, d, json);
		json_decref(d);
		ops->free(control);
	}
	config_free(config);
	return r < 0 ? EXIT_FAILED : EXIT_OK;
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
		if (!json)
			print_description(hw.control_ops, d, false);
		r = add_capacity(&hw, record, json, d);
		if (r == 0 && json)
			print_description(hw.control_ops, d, true);
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
	return root ? discover_root(root, &overrides, json) : discover(path, &overrides, record, json);
}
