/* mpamd: the daemon. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/engine.h"
#include "core/log.h"
#include "core/parse.h"

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,
	EXIT_USAGE = 2
};

struct daemon_args {
	const char *config_path;
	struct config_overrides overrides;
	struct engine_options engine;
	bool foreground;
	enum log_level log_level;
};

static volatile sig_atomic_t stop_requested;

static void usage(FILE *out)
{
	fprintf(out, "Usage: mpamd -c FILE [OPTIONS]\n"
		     "\n"
		     "Memory-bandwidth and cache QoS manager: programs each partition's limits, measures what\n"
		     "it uses every interval_ms, and records it.\n"
		     "\n"
		     "Options:\n"
		     "  -c, --config FILE      configuration file (see mpamd.ini(5)); required\n"
		     "  -b, --backend NAME     resctrl | mmio | sim, replacing the file's backend key\n"
		     "  -f, --foreground       log to stderr (default: syslog)\n"
		     "  -n, --ticks N          stop after N ticks (default: run until SIGINT or SIGTERM)\n"
		     "  -r, --record FILE      write the per-tick CSV record to FILE (replaces the record key)\n"
		     "      --sim-clock        with backend sim: run ticks back to back on simulated time\n"
		     "  -p, --print-every N    print a table of every partition each N ticks to stdout\n"
		     "  -l, --log-level LEVEL  error | warning | info | debug (default info)\n"
		     "  -h, --help             show this help\n"
		     "  -V, --version          show the version\n"
		     "\n"
		     "Exit status: 0 after a clean stop, 1 on a runtime failure, 2 on a usage or config error.\n");
}

static int parse_count(const char *opt, const char *value, uint64_t max, uint64_t *ret)
{
	struct parse_err err;

	if (parse_uint(value, 1, max, ret, &err) == 0)
		return 0;
	fprintf(stderr, "mpamd: %s %s: %s\n", opt, value, err.text);
	return -EINVAL;
}

static int parse_option(int c, struct daemon_args *a)
{
	struct parse_err err;
	unsigned index;
	uint64_t n;

	switch (c) {
	case 'c':
		a->config_path = optarg;
		return 0;
	case 'b':
		if (parse_enum(optarg, backend_kind_names, &index, &err) < 0) {
			fprintf(stderr, "mpamd: --backend %s: %s\n", optarg, err.text);
			return -EINVAL;
		}
		a->overrides.has_backend = true;
		a->overrides.backend = (enum backend_kind)index;
		return 0;
	case 'f':
		a->foreground = true;
		return 0;
	case 'n':
		return parse_count("--ticks", optarg, UINT64_MAX / 2, &a->engine.ticks);
	case 'r':
		a->engine.record_path = optarg;
		return 0;
	case 'S':
		a->engine.sim_clock = true;
		return 0;
	case 'p':
		if (parse_count("--print-every", optarg, 1000000, &n) < 0)
			return -EINVAL;
		a->engine.print_every = (unsigned)n;
		return 0;
	case 'l':
		if (parse_enum(optarg, log_level_names, &index, &err) < 0) {
			fprintf(stderr, "mpamd: --log-level %s: %s\n", optarg, err.text);
			return -EINVAL;
		}
		a->log_level = (enum log_level)index;
		return 0;
	}
	return -EINVAL;
}

/* Returns -1 to continue, or an exit code. */
static int parse_args(int argc, char **argv, struct daemon_args *a)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "backend", required_argument, NULL, 'b' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "ticks", required_argument, NULL, 'n' },
		{ "record", required_argument, NULL, 'r' },
		{ "sim-clock", no_argument, NULL, 'S' },
		{ "print-every", required_argument, NULL, 'p' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:b:fn:r:p:l:hV", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		if (c == 'V') {
			printf("mpamd %s\n", MPAMD_VERSION);
			return EXIT_OK;
		}
		if (c == '?' || parse_option(c, a) < 0) {
			fprintf(stderr, "Try 'mpamd --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "mpamd: unexpected argument '%s'. Try 'mpamd --help'.\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!a->config_path) {
		fprintf(stderr, "mpamd: a configuration file is required (-c FILE). Try 'mpamd --help'.\n");
		return EXIT_USAGE;
	}
	return -1;
}

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void install_signal_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int run(const struct daemon_args *a, const struct config *config)
{
	struct engine *engine = NULL;
	struct err err = { "" };
	struct engine_options opts = a->engine;

	opts.stop = &stop_requested;
	int r = engine_new(config, &opts, &engine, &err);
	if (r < 0) {
		log_error("%s", err.text);
		return r == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
	}
	log_info("running %zu partition(s) on backend %s, every %u ms", engine_partition_count(engine),
		 backend_kind_names[config->global.backend], config->global.interval_ms);
	r = engine_run(engine, &err);
	if (r < 0)
		log_error("%s", err.text);
	log_info("stopped after %llu tick(s)", (unsigned long long)engine_ticks_done(engine));
	engine_free(engine);
	return r < 0 ? EXIT_FAILED : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct daemon_args args = { .log_level = LOG_LEVEL_INFO };
	int code = parse_args(argc, argv, &args);

	if (code >= 0)
		return code;
	log_setup("mpamd", args.log_level, !args.foreground);

	struct diag_list diags;
	struct config *config = NULL;
	diag_list_init(&diags, args.config_path);
	int r = config_load_path(args.config_path, &args.overrides, &config, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	if (r < 0)
		return EXIT_USAGE;
	install_signal_handlers();
	code = run(&args, config);
	config_free(config);
	return code;
}
