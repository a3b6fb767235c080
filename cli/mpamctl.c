/* mpamctl: the operator's command line for mpamd. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/mpamctl.h"
#include "core/base/suggest.h"
#include "core/config/config.h"

struct ctl_command {
	const char *name;
	int (*run)(int argc, char **argv, const struct ctl_options *opts);
	const char *summary;
};

static const struct ctl_command commands[] = {
	{ "check-config", cmd_check_config, "check a configuration file and print what it means" },
	{ "discover", cmd_discover, "probe the hardware a configuration names and print its capabilities" },
	{ "plot", cmd_plot, "draw a record file's bandwidth, limits and events as SVG or PNG" },
	{ "status", cmd_status, "show the running daemon's state and recent events" },
	{ "list", cmd_list, "list partitions with their limits and rates" },
	{ "show", cmd_show, "show everything about one partition" },
	{ "set", cmd_set, "change a partition's settings while mpamd runs" },
	{ "reload", cmd_reload, "make mpamd re-read its configuration file" },
	{ "top", cmd_top, "a live view of every partition's bandwidth, limits and state" },
	{ "metrics", cmd_metrics, "print metrics in the Prometheus text format" },
	{ "pmu", cmd_pmu, "list PMUs, encode perf events, count them (perf_event_open)" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: mpamctl [--socket PATH] [--json] COMMAND [ARGS...]\n"
		     "\n"
		     "Inspect and control mpamd, the memory-bandwidth and cache QoS manager.\n"
		     "\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n"
		     "Options:\n"
		     "  -s, --socket PATH  mpamd's control socket (default " DEFAULT_SOCKET_PATH ")\n"
		     "  -j, --json         print JSON instead of text\n"
		     "  -h, --help         show this help; 'mpamctl COMMAND --help' shows a command's\n"
		     "  -V, --version      show the version\n"
		     "\n"
		     "Options may also follow the command ('mpamctl show web --json').\n"
		     "\n"
		     "Exit status: 0 success, 1 the command failed, 2 usage error, 3 mpamd unreachable.\n");
}

/* "stauts": did you mean "status"? */
static int unknown_command(const char *word, bool json)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		names[i] = commands[i].name;
	const char *near = suggest_nearest(word, names, sizeof(names) / sizeof(names[0]));
	if (near)
		return cli_error(json, NULL, EXIT_USAGE,
				 "unknown command '%s'; did you mean '%s'? Try 'mpamctl --help'.", word, near);
	return cli_error(json, NULL, EXIT_USAGE, "unknown command '%s'. Try 'mpamctl --help'.", word);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl_options opts = { .socket_path = DEFAULT_SOCKET_PATH };
	int c;

	/* '+': stop at the command name, whose own options follow it. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:s:jhV", options, NULL)) != -1) {
		switch (c) {
		case 's':
			opts.socket_path = optarg;
			break;
		case 'j':
			opts.json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("mpamctl %s\n", MPAMD_VERSION);
			return EXIT_OK;
		default:
			return cli_error(opts.json, NULL, EXIT_USAGE, "%s '%s'. Try 'mpamctl --help'.",
					 c == ':' ? "missing value for" : "unknown option", argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return opts.json ? cli_error(true, NULL, EXIT_USAGE, "no command given") : EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[optind], commands[i].name)) {
			char **sub_argv = argv + optind;
			int sub_argc = argc - optind;
			optind = 0; /* a fresh getopt scan for the subcommand */
			return commands[i].run(sub_argc, sub_argv, &opts);
		}
	}
	return unknown_command(argv[optind], opts.json);
}
