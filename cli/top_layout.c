/* Which of mpamctl top's columns fit a terminal, and how wide; see top_layout.h. */
#include <string.h>

#include "cli/top_layout.h"

#define GAP 1 /* blank between two columns */

static const char *const headings[TOP_COL_COUNT] = { "NAME", "CLASS", "BANDWIDTH", "MB/s", "MAX/MIN", "STATE", "EVENT" };

const char *top_column_heading(enum top_column c, int width)
{
	if (c == TOP_COL_BAR && width < (int)strlen(headings[c]))
		return "BW";
	return (unsigned)c < TOP_COL_COUNT ? headings[c] : "";
}

bool top_column_right(enum top_column c)
{
	return c == TOP_COL_MBPS || c == TOP_COL_LIMITS;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static int text_width(const char *s)
{
	return (int)strlen(s ? s : "-");
}

/* What each column's widest text needs, headings included. */
static void natural_widths(const struct top_model *m, bool show_domains, int *width)
{
	char buf[64];

	for (int c = 0; c < TOP_COL_COUNT; c++)
		width[c] = c == TOP_COL_BAR ? 0 : (int)strlen(headings[c]);
	for (size_t i = 0; i < m->count; i++) {
		const struct top_row *row = &m->rows[i];
		width[TOP_COL_NAME] = max_int(width[TOP_COL_NAME], text_width(row->name));
		width[TOP_COL_CLASS] = max_int(width[TOP_COL_CLASS], text_width(row->class_name));
		top_format_mbps(row->mbps, row->state == TOP_STATE_ESTIMATED, buf, sizeof(buf));
		width[TOP_COL_MBPS] = max_int(width[TOP_COL_MBPS], text_width(buf));
		top_format_limits(row->mb_max, row->mb_min, buf, sizeof(buf));
		width[TOP_COL_LIMITS] = max_int(width[TOP_COL_LIMITS], text_width(buf));
		width[TOP_COL_STATE] = max_int(width[TOP_COL_STATE], text_width(top_state_name(row->state)));
		for (size_t d = 0; show_domains && d < row->domain_count; d++) {
			const struct top_domain *dom = &row->domains[d];
			width[TOP_COL_NAME] = max_int(width[TOP_COL_NAME], 2 + text_width(dom->id));
			top_format_mbps(dom->mbps, false, buf, sizeof(buf));
			width[TOP_COL_MBPS] = max_int(width[TOP_COL_MBPS], text_width(buf));
			top_format_limits(dom->mb_max, dom->mb_min, buf, sizeof(buf));
			width[TOP_COL_LIMITS] = max_int(width[TOP_COL_LIMITS], text_width(buf));
		}
	}
	if (width[TOP_COL_NAME] > TOP_NAME_MAX)
		width[TOP_COL_NAME] = TOP_NAME_MAX;
}

/* One way of filling the width, from the fullest to the barest. */
struct step {
	bool event, limits, state, class_col;
	int bar_min;
	bool cut_names;
};

static const struct step steps[] = {
	{ true, true, true, true, TOP_BAR_BESIDE_EVENT, false }, { false, true, true, true, TOP_BAR_MIN, false },
	{ false, false, true, true, TOP_BAR_MIN, false },	 { false, false, false, true, TOP_BAR_MIN, false },
	{ false, false, false, false, TOP_BAR_MIN, false },	 { false, false, false, false, TOP_BAR_TINY, true },
};

/* Width left for the bar (and the event column) once the step's fixed columns and gaps are in. */
static int width_left(const int *shown, int cols)
{
	int used = 0, count = 0;

	for (int c = 0; c < TOP_COL_COUNT; c++) {
		if (c == TOP_COL_BAR || c == TOP_COL_EVENT || !shown[c])
			continue;
		used += shown[c];
		count++;
	}
	/* The bar is always there: one gap per other column, one more before the event. */
	return cols - used - count * GAP;
}

/* Tries one step; fills `width` and returns true when it fits. */
static bool try_step(const struct step *s, const int *natural, int cols, int *width)
{
	memcpy(width, natural, sizeof(int) * TOP_COL_COUNT);
	width[TOP_COL_EVENT] = 0;
	if (!s->limits)
		width[TOP_COL_LIMITS] = 0;
	if (!s->state)
		width[TOP_COL_STATE] = 0;
	if (!s->class_col)
		width[TOP_COL_CLASS] = 0;
	int rest = width_left(width, cols);
	if (s->cut_names && rest < s->bar_min) {
		int cut = natural[TOP_COL_NAME] - (s->bar_min - rest);
		width[TOP_COL_NAME] = cut < TOP_NAME_MIN ? TOP_NAME_MIN : cut;
		rest = width_left(width, cols);
	}
	if (!s->event) {
		width[TOP_COL_BAR] = rest > TOP_BAR_MAX ? TOP_BAR_MAX : rest;
		return rest >= s->bar_min;
	}
	if (rest < s->bar_min + GAP + TOP_EVENT_MIN)
		return false;
	/* The bar and the event share what is left; the event takes what the bar cannot use. */
	int bar = (rest - GAP) / 2;
	bar = bar < s->bar_min ? s->bar_min : bar > TOP_BAR_MAX ? TOP_BAR_MAX : bar;
	width[TOP_COL_BAR] = bar;
	width[TOP_COL_EVENT] = rest - GAP - bar;
	return true;
}

static void place_columns(struct top_layout *l)
{
	static const enum top_column order[] = { TOP_COL_NAME,	 TOP_COL_CLASS, TOP_COL_BAR,  TOP_COL_MBPS,
						 TOP_COL_LIMITS, TOP_COL_STATE, TOP_COL_EVENT };
	int x = 0;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum top_column c = order[i];
		l->x[c] = x;
		if (l->width[c])
			x += l->width[c] + GAP;
	}
}

void top_layout_compute(const struct top_model *m, bool show_domains, bool footer, int cols, int lines,
			struct top_layout *ret)
{
	int natural[TOP_COL_COUNT];
	struct top_layout l = { .body_lines = -1 };

	natural_widths(m, show_domains, natural);
	l.too_small = true;
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]) && l.too_small; s++)
		l.too_small = !try_step(&steps[s], natural, cols, l.width);
	if (lines > 0) {
		l.body_lines = lines - TOP_LINES_ABOVE - (footer ? 1 : 0);
		if (l.body_lines < 1)
			l.too_small = true;
	}
	if (l.too_small)
		memset(l.width, 0, sizeof(l.width));
	place_columns(&l);
	*ret = l;
}
