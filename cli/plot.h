/* Drawing a record file with cairo: per partition over time, the measured bandwidth (and the
 * guarantee and target when the file has them) in MB/s in an upper panel, the mb_max and mb_min
 * limits in percent of capacity as stepped lines in a lower panel, events as markers with short
 * labels, a legend and a title. No argument parsing here (cli/cmd_plot.c). */
#ifndef MPAMD_CLI_PLOT_H
#define MPAMD_CLI_PLOT_H

#include <stdbool.h>

#include "core/base/error.h"
#include "cli/record_read.h"

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

/* Draws the samples that are totals (no domain column, or domain "" or "*"), of the selected
 * partitions, in the time range. Returns 0, or a negative errno with the reason in err (nothing
 * to draw, cannot write the output...). */
int plot_render(const struct record_file *file, const struct plot_options *opts, struct err *err);

#endif
