/* mpamd: the daemon. This first version validates its configuration; the control loop follows. */
#include <getopt.h>
#include <stdio.h>

#include "core/config.h"

static void usage(FILE *out)
{
	fprintf(out, "Usage: mpamd -c FILE\n"
		     "\n"
		     "Memory-bandwidth and cache QoS manager.\n"
		     "\n"
		     "Options:\n"
		     "  -c, --config FILE  configuration file (see mpamd.ini(5))\n"
		     "  -h, --help         show this help\n"
		     "  -V, --version      show the version\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "c:hV", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("mpamd %s\n", MPAMD_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'mpamd --help'.\n");
			return 2;
		}
	}
	if (!path || optind != argc) {
		usage(stderr);
		return 2;
	}
	struct diag_list diags;
	struct config *config = NULL;
	diag_list_init(&diags, path);
	int r = config_load_path(path, NULL, &config, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	config_free(config);
	if (r < 0)
		return 1;
	fprintf(stderr, "mpamd: %s is valid; this build has no control loop yet\n", path);
	return 1;
}
