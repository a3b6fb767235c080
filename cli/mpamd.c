/* mpamd: the daemon. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grp.h>
#include <signal.h>
#include <unistd.h>

#include "cli/instance_lock.h"
#include "cli/pidfile.h"
#include "cli/service_notify.h"
#include "cli/tick_table.h"
#include "core/base/log.h"
#include "core/base/parse.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/registry.h"

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,
	EXIT_USAGE = 2
};

/* The group whose members may change things through the control socket, when it exists. */
#define SOCKET_GROUP "mpamd"

struct daemon_args {
	const char *config_path;
	struct config_overrides overrides;
	struct engine_options engine;
	struct tick_table table;
	struct service_notify notify;
	const char *socket_path;
	const char *pid_file;
	bool no_socket;
	bool foreground;
	enum log_level log_level;
};

static void usage(FILE *out)
{
	char simulated[96];

	engine_registry_simulated_names(&engine_registry_default, simulated, sizeof(simulated));
	fprintf(out,
		"Usage: mpamd [-c FILE] [OPTIONS]\n"
		"\n"
		"Memory-bandwidth and cache QoS manager: programs each partition's limits, measures what\n"
		"it uses every interval_ms, adjusts the limits with its policies, and records it.\n"
		"SIGHUP reloads the configuration (an invalid file keeps the running one) and reopens\n"
		"the record file; SIGTERM and SIGINT stop, leaving what the on_stop key (or --on-stop)\n"
		"says in force: keep (every limit, the policies' cuts too; the default), configured\n"
		"(the configured limits, cuts and CPU quotas released) or reset (no limits).\n"
		"\n"
		"Options:\n"
		"  -c, --config FILE      configuration file (see mpamd.ini(5)); default " DEFAULT_CONFIG_PATH "\n"
		"  -b, --backend NAME     one of the backends below, replacing the file's backend key\n"
		"  -f, --foreground       log to stderr (default: syslog)\n"
		"  -n, --ticks N          stop after N ticks (default: run until SIGINT or SIGTERM)\n"
		"  -r, --record FILE      append the per-tick CSV record to FILE (replaces the record key)\n"
		"      --sim-clock        with backend %s: run ticks back to back on simulated time\n"
		"  -p, --print-every N    print a table of every partition each N ticks to stdout\n"
		"  -s, --socket PATH      control socket (default: the socket key, /run/mpamd/mpamd.sock)\n"
		"      --no-socket        run without a control socket\n"
		"      --pid-file PATH    write the process id to PATH (refused while a live mpamd owns it)\n"
		"      --on-stop MODE     keep | configured | reset: what stays in force after a stop,\n"
		"                         replacing the on_stop key\n"
		"      --reset-on-exit    the same as --on-stop reset\n"
		"  -l, --log-level LEVEL  error | warning | info | debug (default info)\n"
		"  -h, --help             show this help\n"
		"  -V, --version          show the version\n"
		"\n"
		"Backends (the backend key; the first is the default):\n",
		simulated);
	engine_registry_print_controls(&engine_registry_default, out, "  ");
	fprintf(out, "\nMonitors (the monitor key; auto takes the first that can measure beside the backend):\n");
	engine_registry_print_monitors(&engine_registry_default, out, "  ");
	fprintf(out, "\nExit status: 0 after a clean stop, 1 on a runtime failure, 2 on a usage or config error.\n");
}

static int parse_count(const char *opt, const char *value, uint64_t max, uint64_t *ret)
{
	struct err err;

	if (parse_uint(value, 1, max, ret, &err) == 0)
		return 0;
	fprintf(stderr, "mpamd: %s %s: %s\n", opt, value, err.text);
	return -EINVAL;
}

static int parse_option(int c, struct daemon_args *a)
{
	struct err err;
	unsigned index;
	uint64_t n;

	switch (c) {
	case 'c':
		a->config_path = optarg;
		return 0;
	case 'b':
		if (!engine_registry_control(&engine_registry_default, optarg)) {
			char names[256];
			config_names_list(engine_default_schema()->backends, names, sizeof(names));
			fprintf(stderr, "mpamd: --backend %s: expected one of %s\n", optarg, names);
			return -EINVAL;
		}
		a->overrides.backend = optarg;
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
		a->table.every = (unsigned)n;
		return 0;
	case 's':
		/* The same rule as the socket key: an absolute path that fits in sockaddr_un. */
		if (optarg[0] != '/' || strlen(optarg) > SOCKET_PATH_MAX) {
			fprintf(stderr, "mpamd: --socket %s: must be an absolute path of at most %d characters\n",
				optarg, SOCKET_PATH_MAX);
			return -EINVAL;
		}
		a->socket_path = optarg;
		return 0;
	case 'N':
		a->no_socket = true;
		return 0;
	case 'P':
		a->pid_file = optarg;
		return 0;
	case 'R':
		a->engine.on_stop_given = true;
		a->engine.on_stop = STOP_RESET;
		return 0;
	case 'O':
		if (parse_enum(optarg, stop_mode_names, &index, &err) < 0) {
			fprintf(stderr, "mpamd: --on-stop %s: %s\n", optarg, err.text);
			return -EINVAL;
		}
		a->engine.on_stop_given = true;
		a->engine.on_stop = index;
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
	/* clang-format off */
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "backend", required_argument, NULL, 'b' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "ticks", required_argument, NULL, 'n' },
		{ "record", required_argument, NULL, 'r' },
		{ "sim-clock", no_argument, NULL, 'S' },
		{ "print-every", required_argument, NULL, 'p' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "socket", required_argument, NULL, 's' },
		{ "no-socket", no_argument, NULL, 'N' },
		{ "pid-file", required_argument, NULL, 'P' },
		{ "reset-on-exit", no_argument, NULL, 'R' },
		{ "on-stop", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	int c;

	while ((c = getopt_long(argc, argv, "c:b:fn:r:p:l:s:hV", options, NULL)) != -1) {
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
		a->config_path = DEFAULT_CONFIG_PATH;
		if (access(a->config_path, F_OK) < 0 && errno == ENOENT) {
			fprintf(stderr,
				"mpamd: no configuration: %s does not exist. Give -c FILE, or copy an example "
				"(mpamd.ini(5) lists them) there. Try 'mpamd --help'.\n",
				a->config_path);
			return EXIT_USAGE;
		}
	}
	return -1;
}

static gid_t socket_group(void)
{
	struct group *g = getgrnam(SOCKET_GROUP);

	return g ? g->gr_gid : (gid_t)-1;
}

static void on_tick(void *ctx, struct engine *engine)
{
	struct daemon_args *a = ctx;

	if (a->table.every)
		tick_table_on_tick(&a->table, engine);
	service_notify_tick(&a->notify);
}

static int run(struct daemon_args *a, struct config *config)
{
	struct engine *engine = NULL;
	struct err err = { "" };
	struct engine_options opts = a->engine;
	char backend[CONFIG_KIND_MAX + 1];
	unsigned interval = config->global.interval_ms;

	snprintf(backend, sizeof(backend), "%s", config->global.backend);
	opts.handle_signals = true;
	service_notify_init(&a->notify);
	opts.on_ready = service_notify_ready;
	opts.on_ready_ctx = &a->notify;
	opts.on_tick = on_tick;
	opts.on_tick_ctx = a;
	opts.config_path = a->config_path;
	opts.sysfs_root = "/sys"; /* ACPI HMAT's bandwidth, as the capacity of resctrl's domains */
	opts.overrides = a->overrides;
	opts.socket_path = a->no_socket ? NULL : (a->socket_path ? a->socket_path : config->global.socket);
	opts.socket_gid = socket_group();
	struct instance_lock lock;
	if (instance_lock_take(&engine_registry_default, config, INSTANCE_LOCK_DIR, &lock, &err) < 0) {
		log_error("%s", err.text);
		config_free(config);
		return EXIT_FAILED;
	}
	struct pidfile pid_file = { .path = NULL, .fd = -1 };
	if (a->pid_file && pidfile_create(a->pid_file, &pid_file, &err) < 0) {
		log_error("%s", err.text);
		instance_lock_release(&lock);
		config_free(config);
		return EXIT_FAILED;
	}
	int r = engine_new(config, &opts, &engine, &err); /* the engine owns the config from here */
	if (r < 0) {
		log_error("%s", err.text);
		pidfile_remove(&pid_file);
		instance_lock_release(&lock);
		return r == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
	}
	log_info("running %zu partition(s) on backend %s, every %u ms", engine_partitions_in_use(engine), backend,
		 interval);
	r = engine_run(engine, &err);
	service_notify_stopping();
	if (r < 0)
		log_error("%s", err.text);
	log_info("stopped after %llu tick(s)", (unsigned long long)engine_ticks_done(engine));
	engine_free(engine);
	pidfile_remove(&pid_file);
	instance_lock_release(&lock);
	return r < 0 ? EXIT_FAILED : EXIT_OK;
}

/* From the first line of main, a SIGTERM, SIGINT or SIGHUP waits: the engine takes it from its
 * signalfd once the loop runs (a stop then resets with --reset-on-exit and exits 0; a reload
 * reloads). Before, it would kill mpamd half-way through opening the hardware. */
static void block_service_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
}

int main(int argc, char **argv)
{
	struct daemon_args args = { .log_level = LOG_LEVEL_INFO };

	block_service_signals();
	/* Its log is stderr under systemd (the journal's stream): a journal that restarts, or a reader of
	 * the log that goes away, must not kill mpamd; the write just fails (EPIPE). */
	signal(SIGPIPE, SIG_IGN);
	int code = parse_args(argc, argv, &args);

	if (code >= 0)
		return code;
	log_setup("mpamd", args.log_level, !args.foreground);

	struct diag_list diags;
	struct config *config = NULL;
	diag_list_init(&diags, args.config_path);
	int r = config_load_path(args.config_path, engine_default_schema(), &args.overrides, &config, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	if (r < 0)
		return EXIT_USAGE;
	return run(&args, config);
}
