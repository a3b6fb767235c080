/* mpamctl top's columns for a terminal size: which are shown, where and how wide. Pure.
 *
 * At full width every column is shown. As the terminal narrows the event column goes first, then
 * the bar narrows to its minimum, then the limits, the state and the class columns go, and last the
 * names are cut; name, bar and MB/s stay down to about 20 columns. Rows that do not fit the height
 * end in a "+N more" line (see top_frame.h). */
#ifndef MPAMD_CLI_TOP_LAYOUT_H
#define MPAMD_CLI_TOP_LAYOUT_H

#include <stdbool.h>

#include "cli/top_model.h"

enum top_column {
	TOP_COL_NAME,
	TOP_COL_CLASS,
	TOP_COL_BAR,
	TOP_COL_MBPS,
	TOP_COL_LIMITS,
	TOP_COL_STATE,
	TOP_COL_EVENT,
	TOP_COL_COUNT,
};

#define TOP_BAR_MAX	     40 /* wider bars only spread the same few numbers out */
#define TOP_BAR_BESIDE_EVENT 12 /* the narrowest bar that keeps the event column */
#define TOP_BAR_MIN	     8	/* the narrowest bar before columns go */
#define TOP_BAR_TINY	     5	/* the narrowest bar at all: "[###]" */
#define TOP_EVENT_MIN	     12
#define TOP_NAME_MAX	     20 /* longer names are cut */
#define TOP_NAME_MIN	     4

/* Lines around the rows: the header line and the column headings above, the keys below. */
#define TOP_LINES_ABOVE 2

struct top_layout {
	int x[TOP_COL_COUNT];
	int width[TOP_COL_COUNT]; /* 0: the column is not shown */
	int body_lines;		  /* lines for the rows and "+N more"; -1 when the height is unlimited */
	bool too_small;		  /* not even name, bar and MB/s fit, or no line for a row */
};

/* Columns for `cols` by `lines` (0 lines: as many as the rows need), with a keys line below when
 * `footer`. Widths follow the model's texts; the domain rows count when `show_domains`. */
void top_layout_compute(const struct top_model *m, bool show_domains, bool footer, int cols, int lines,
			struct top_layout *ret);

/* "NAME", "CLASS", "BANDWIDTH" ("BW" in a narrow bar), "MB/s", "MAX/MIN", "STATE", "EVENT". */
const char *top_column_heading(enum top_column c, int width);
/* Right-aligned columns (the numbers). */
bool top_column_right(enum top_column c);

#endif
