/* mpamctl plot FILE.csv -o OUT.svg|OUT.png: draw a record file. */
#include <getopt.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/mpamctl.h"
#include "cli/plot.h"
#include "core/report/record_read.h"
#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/base/rfc3339.h"

static void plot_usage(FILE *out)
{
	fprintf(out, "Usage: mpamctl plot FILE.csv -o OUT.svg|OUT.png [--partition P]... [--from T] [--to T]\n"
		     "\n"
		     "Draw a record file (mpamd --record FILE): per partition over time, the measured\n"
		     "bandwidth in MB/s with its guarantee_mbps (dashed) and target_mbps (dash-dot)\n"
		     "where the file has them, the mb_max and mb_min limits in %% of capacity (and each\n"
		     "domain's where the domains hold different limits), and the events labelled with\n"
		     "their partition. The time axis is the wall clock in UTC (seconds for a file\n"
		     "without a time column).\n"
		     "\n"
		     "Options:\n"
		     "  -o, --output FILE     the picture to write; .svg or .png chooses the format\n"
		     "  -p, --partition P     only partition P (repeat for more; default all)\n"
		     "      --from T          start at T: seconds (from t_ms = 0 of the file's first run),\n"
		     "                        or an RFC 3339 time (2026-12-03T10:15:42Z) when the file\n"
		     "                        has a time column\n"
		     "      --to T            end at T, the same way\n"
		     "  -h, --help            show this help\n"
		     "\n"
		     "Exit status: 0 drawn, 1 the file cannot be read or drawn, 2 usage error.\n");
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("mpamctl plot: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'mpamctl plot --help'.\n", stderr);
	return EXIT_USAGE;
}

/* --from or --to: seconds on the file's time line, or a wall-clock time to place on it once the
 * file is read. */
struct time_arg {
	const char *text;
	bool wall;
	int64_t wall_ms;
	double seconds;
};

/* The argument `s` of `option` (--from, --to); false (and said) when it is no time. */
static bool parse_time_arg(const char *option, const char *s, struct time_arg *ret)
{
	*ret = (struct time_arg){ .text = s };
	if (parse_real(s, 0, DBL_MAX, &ret->seconds, NULL) == 0)
		return true;
	ret->wall = true;
	if (rfc3339_parse_ms(s, &ret->wall_ms, NULL) == 0)
		return true;
	usage_error("%s must be a number of seconds or an RFC 3339 time, not '%s'", option, s);
	return false;
}

/* Seconds on the file's time line; false (and said) for a wall-clock time and a file without a time
 * column. */
static bool resolve_time_arg(const char *option, const struct time_arg *arg, const struct record_file *file,
			     double *ret)
{
	if (arg->wall && !(file->columns & RECORD_HAS_TIME)) {
		usage_error("%s %s: %s has no time column; give seconds", option, arg->text, file->name);
		return false;
	}
	*ret = arg->wall ? (double)(arg->wall_ms - file->time_origin_ms) / 1000.0 : arg->seconds;
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcasecmp(s + n - m, suffix);
}

int cmd_plot(int argc, char **argv, const struct ctl_options *ctl)
{
	enum {
		OPT_FROM = 256,
		OPT_TO
	};
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "partition", required_argument, NULL, 'p' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plot_options opts = { 0 };
	struct time_arg from, to;
	const char **names = calloc((size_t)argc + 1, sizeof(*names));
	size_t name_count = 0;
	struct record_file *file = NULL;
	bool *selected = NULL;
	struct err err = { "" };
	int c, rc = EXIT_USAGE;

	(void)ctl;
	opterr = 0; /* messages of our own, with our prefix */
	if (!names) {
		fprintf(stderr, "mpamctl plot: out of memory\n");
		return EXIT_FAILED;
	}
	while ((c = getopt_long(argc, argv, ":o:p:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			opts.output = optarg;
			break;
		case 'p':
			names[name_count++] = optarg;
			break;
		case OPT_FROM:
			opts.has_from = true;
			if (!parse_time_arg("--from", optarg, &from))
				goto out; /* rc is still EXIT_USAGE */
			break;
		case OPT_TO:
			opts.has_to = true;
			if (!parse_time_arg("--to", optarg, &to))
				goto out;
			break;
		case 'h':
			plot_usage(stdout);
			rc = EXIT_OK;
			goto out;
		case ':':
			rc = usage_error("option '%s' needs an argument", argv[optind - 1]);
			goto out;
		default:
			if (optopt && optopt < 256)
				rc = usage_error("unknown option '-%c'", optopt);
			else
				rc = usage_error("unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind >= argc) {
		rc = usage_error("missing the record file (FILE.csv)");
		goto out;
	}
	if (optind + 1 < argc) {
		rc = usage_error("one record file only; unexpected '%s'", argv[optind + 1]);
		goto out;
	}
	if (!opts.output) {
		rc = usage_error("missing -o OUT.svg or -o OUT.png");
		goto out;
	}
	if (ends_with(opts.output, ".svg")) {
		opts.format = PLOT_SVG;
	} else if (ends_with(opts.output, ".png")) {
		opts.format = PLOT_PNG;
	} else {
		rc = usage_error("-o %s: the name must end in .svg or .png", opts.output);
		goto out;
	}
	/* seconds against seconds before the file is read; wall-clock times once it is */
	if (opts.has_from && opts.has_to && !from.wall && !to.wall && !(from.seconds < to.seconds)) {
		rc = usage_error("--from %s must be less than --to %s", from.text, to.text);
		goto out;
	}

	rc = EXIT_FAILED;
	const char *path = argv[optind];
	if (record_file_new(path, &file, &err) < 0) {
		fprintf(stderr, "mpamctl plot: %s\n", err.text);
		goto out;
	}
	if ((opts.has_from && !resolve_time_arg("--from", &from, file, &opts.from_s)) ||
	    (opts.has_to && !resolve_time_arg("--to", &to, file, &opts.to_s))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (opts.has_from && opts.has_to && !(opts.from_s < opts.to_s)) {
		rc = usage_error("--from %s must be less than --to %s", from.text, to.text);
		goto out;
	}
	if (file->cut_rows)
		fprintf(stderr,
			"mpamctl plot: %s:%lu: skipped %zu row(s) cut short (fewer fields than the header: "
			"mpamd stopped while writing)\n",
			path, file->first_cut_line, file->cut_rows);
	if (name_count) {
		selected = calloc(file->partition_count + 1, sizeof(*selected));
		if (!selected) {
			fprintf(stderr, "mpamctl plot: out of memory\n");
			goto out;
		}
		for (size_t i = 0; i < name_count; i++) {
			long index = record_file_find_partition(file, names[i]);
			if (index >= 0) {
				selected[index] = true;
				continue;
			}
			fprintf(stderr, "mpamctl plot: no partition '%s' in %s; it has:", names[i], path);
			for (size_t k = 0; k < file->partition_count; k++)
				fprintf(stderr, "%s %s", k ? "," : "", file->partitions[k]);
			fprintf(stderr, "%s\n", file->partition_count ? "" : " none");
			goto out;
		}
		opts.selected = selected;
	}
	opts.title = path;
	if (plot_render(file, &opts, &err) < 0) {
		fprintf(stderr, "mpamctl plot: %s\n", err.text);
		goto out;
	}
	rc = EXIT_OK;
out:
	record_file_free(file);
	free(selected);
	free(names);
	return rc;
}
