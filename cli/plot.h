/* Drawing a record file with cairo: per partition over time, the measured bandwidth and its goals
 * (guarantee, target) in MB/s in an upper panel, the mb_max and mb_min limits in percent of
 * capacity as stepped lines in a lower panel (and each domain's where a partition's domains hold
 * different limits), events as markers with staggered labels naming their partition, the time on
 * the wall clock when the file has it, a legend and a title. No argument parsing here
 * (cli/cmd_plot.c). */
#ifndef MPAMD_CLI_PLOT_H
#define MPAMD_CLI_PLOT_H

#include <stdbool.h>

#include "core/base/error.h"
#include "core/report/record_read.h"

enum plot_format {
	PLOT_SVG,
	PLOT_PNG,
};

struct plot_options {
	const char *output; /* file to write */
	enum plot_format format;
	const char *title;
	/* selected[i] for file->partitions[i]; NULL draws every partition */
	const bool *selected;
	bool has_from, has_to; /* time range in seconds on the file's time line (record_file_seconds) */
	double from_s, to_s;
	unsigned width, height; /* pixels; 0 for the defaults */
};

#define PLOT_DEFAULT_WIDTH  1000
#define PLOT_DEFAULT_HEIGHT 660

/* Draws the samples of the selected partitions in the time range: their totals (no domain column,
 * or domain "" or "*"), and their domains' limits where those differ. Returns 0, or a negative
 * errno with the reason in err (nothing to draw, cannot write the output...). */
int plot_render(const struct record_file *file, const struct plot_options *opts, struct err *err);

#endif
