#include "cli/plot.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plot_axis.h"
#include "core/base/grow.h"
#include "core/base/rfc3339.h"

#define FONT		   "DejaVu Sans"
#define EVENT_LABEL_MAX	   24  /* characters of an event's kind shown next to its marker */
#define EVENT_ROWS	   3   /* rows of event labels, staggered, before a label is left out */
#define EVENT_ROW_HEIGHT   12  /* a label's box is 11 high: rows never overlap */
#define EVENT_NAME_WIDTH   110 /* pixels of a partition's name in a label, at most */
#define TIME_LABEL_WIDTH   100 /* pixels between time ticks, about: "10:15:42.5" and room */
#define DOMAIN_DIFFERS_MAX 1u  /* bits of plot.domain_differs: the domain's mb_max or */
#define DOMAIN_DIFFERS_MIN 2u  /* its mb_min differ from another domain's somewhere */
#define DOMAIN_LABELS_MAX  64  /* names of domains' lines placed apart; more are not moved */

struct rgb {
	double r, g, b;
};

/* Tableau 10: distinct, readable on white, friendly to colour-blind readers. */
static const struct rgb palette[] = {
	{ 0.122, 0.467, 0.706 }, { 1.000, 0.498, 0.055 }, { 0.173, 0.627, 0.173 }, { 0.839, 0.153, 0.157 },
	{ 0.580, 0.404, 0.741 }, { 0.549, 0.337, 0.294 }, { 0.890, 0.467, 0.761 }, { 0.498, 0.498, 0.498 },
	{ 0.737, 0.741, 0.133 }, { 0.090, 0.745, 0.812 },
};
#define PALETTE_SIZE (sizeof(palette) / sizeof(palette[0]))

struct rect {
	double x, y, w, h;
};

/* An event's marker, and its label where one was placed: the SVG gets each as a box with the whole
 * event as its title (a browser shows it on hover; tests read where the labels are). */
struct event_box {
	size_t sample;
	struct rect marker, label;
	bool labelled;
};

struct plot {
	const struct record_file *file;
	const struct plot_options *opts;
	cairo_t *cr;
	double width, height;
	struct rect bw, lim; /* the two panels' plotting areas */
	struct axis_ticks t, mbps, pct;
	double t_lo, t_hi; /* selected time range in seconds */
	unsigned *colour;  /* per partition: palette index among the drawn ones */
	size_t drawn;	   /* partitions drawn */
	size_t points;	   /* samples drawn */
	bool any_guarantee, any_target, any_event;
	bool any_asked;		  /* some partition asked for another mb_max than its class holds */
	bool wall;		  /* the time axis is the wall clock (the file has a time column) */
	unsigned *goals;	  /* per partition: RECORD_GUARANTEE and RECORD_TARGET where it has them,
				   * RECORD_MB_MAX_ASKED where what it asked differs from what its class holds */
	unsigned *domain_differs; /* per partition and domain (partition * domain_count + domain) */
	bool any_domain_max, any_domain_min;
	struct event_box *events;
	size_t event_count, event_cap;
	size_t labels_left_out;
	double domain_label_y[DOMAIN_LABELS_MAX]; /* where the domains' line names are */
	size_t domain_label_count;
};

static bool partition_drawn(const struct plot *p, unsigned partition)
{
	return !p->opts->selected || p->opts->selected[partition];
}

/* A sample of `domain` (0: the total) this plot shows: of a drawn partition, in the time range. */
static bool sample_shown_on(const struct plot *p, const struct record_sample *s, unsigned domain)
{
	double t = record_file_seconds(p->file, s);

	return s->domain == domain && partition_drawn(p, s->partition) && t >= p->t_lo && t <= p->t_hi;
}

static bool sample_shown(const struct plot *p, const struct record_sample *s)
{
	return sample_shown_on(p, s, 0);
}

static bool has_mbps(const struct record_sample *s)
{
	return (s->flags & (RECORD_MBPS | RECORD_VALID)) == (RECORD_MBPS | RECORD_VALID);
}

static void set_colour(const struct plot *p, unsigned partition)
{
	const struct rgb *c = &palette[p->colour[partition] % PALETTE_SIZE];

	cairo_set_source_rgb(p->cr, c->r, c->g, c->b);
}

static double x_of(const struct plot *p, const struct rect *r, double t_s)
{
	return r->x + (t_s - p->t.lo) / (p->t.hi - p->t.lo) * r->w;
}

static double y_of(const struct rect *r, const struct axis_ticks *a, double v)
{
	return r->y + r->h - (v - a->lo) / (a->hi - a->lo) * r->h;
}

static void font(cairo_t *cr, double size, bool bold)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

/* Text with its reference point at (x, y): align 0 left, 0.5 centre, 1 right; vertically centred. */
static void text_at(cairo_t *cr, double x, double y, double align, const char *s)
{
	cairo_text_extents_t e;
	cairo_font_extents_t f;

	cairo_text_extents(cr, s, &e);
	cairo_font_extents(cr, &f);
	cairo_move_to(cr, x - align * e.x_advance, y + (f.ascent - f.descent) / 2);
	cairo_show_text(cr, s);
}

static double text_width(cairo_t *cr, const char *s)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	return e.x_advance;
}

/* `s`, cut with "..." to fit in `width`. */
static void fit_text(cairo_t *cr, const char *s, double width, char *buf, size_t len)
{
	size_t n = strlen(s);

	snprintf(buf, len, "%s", s);
	if (n >= len)
		n = len - 1;
	while (n > 1 && text_width(cr, buf) > width) {
		n--;
		snprintf(buf, len, "%.*s...", (int)n, s);
	}
}

/* ---- ranges ---- */

/* Whether two domain rows of a tick have other limits. */
static unsigned domain_differs(const struct record_sample *a, const struct record_sample *b)
{
	if ((a->flags ^ b->flags) & RECORD_NO_LIMITS)
		return DOMAIN_DIFFERS_MAX | DOMAIN_DIFFERS_MIN;
	if (a->flags & RECORD_NO_LIMITS)
		return 0;
	return (a->mb_max != b->mb_max ? DOMAIN_DIFFERS_MAX : 0) | (a->mb_min != b->mb_min ? DOMAIN_DIFFERS_MIN : 0);
}

/* Which domains' limits differ from another domain's of the same tick somewhere in the range (a cut
 * the guard made on one domain, a per-domain mb_max): only those get lines of their own, the total
 * showing the highest. Where every domain holds the same, their lines would lie on the total's.
 * A tick's domain rows follow its total row. */
static void find_domain_cuts(struct plot *p)
{
	const struct record_file *f = p->file;
	const struct record_sample *prev = NULL; /* the tick's domain row before this one */

	for (size_t i = 0; i < f->sample_count; i++) {
		const struct record_sample *s = &f->samples[i];
		bool same_tick =
			prev && prev->partition == s->partition && prev->t_ms == s->t_ms && prev->run == s->run;
		if (s->domain == 0 || !sample_shown_on(p, s, s->domain)) {
			prev = NULL;
			continue;
		}
		const struct record_sample *other = same_tick ? prev : NULL;
		unsigned bits = other ? domain_differs(other, s) : 0;
		prev = s;
		if (!bits)
			continue;
		p->domain_differs[s->partition * f->domain_count + s->domain] |= bits;
		p->domain_differs[other->partition * f->domain_count + other->domain] |= bits;
		p->any_domain_max |= (bits & DOMAIN_DIFFERS_MAX) != 0;
		p->any_domain_min |= (bits & DOMAIN_DIFFERS_MIN) != 0;
	}
}

/* The time axis: on the wall clock when the file has one, with about a tick per TIME_LABEL_WIDTH. */
static int time_axis(struct plot *p, double t_min, double t_max)
{
	if (!p->wall)
		return axis_ticks(t_min, t_max, 10, &p->t);
	unsigned target = (unsigned)fmax(2, fmin(AXIS_MAX_TICKS - 1, floor(p->bw.w / TIME_LABEL_WIDTH)));
	return axis_time_ticks(t_min, t_max, p->file->time_origin_ms, target, &p->t);
}

/* A partition's total row where the ceiling it asked for is not the one its class holds (classes
 * shared: the class holds one for all its partitions). */
static bool asks_other_than_held(const struct record_sample *s)
{
	return s->domain == 0 && (s->flags & RECORD_MB_MAX_ASKED) && !(s->flags & RECORD_NO_LIMITS) &&
	       s->mb_max_asked != s->mb_max;
}

static int find_ranges(struct plot *p, struct err *err)
{
	const struct record_file *f = p->file;
	double t_min = INFINITY, t_max = -INFINITY, y_max = 0;

	for (size_t i = 0; i < f->sample_count; i++) {
		const struct record_sample *s = &f->samples[i];
		if (!sample_shown(p, s))
			continue;
		p->goals[s->partition] |= s->flags & (RECORD_GUARANTEE | RECORD_TARGET);
		double t = record_file_seconds(f, s);
		t_min = fmin(t_min, t);
		t_max = fmax(t_max, t);
		if (has_mbps(s))
			y_max = fmax(y_max, s->mbps);
		if (s->flags & RECORD_GUARANTEE) {
			y_max = fmax(y_max, s->guarantee_mbps);
			p->any_guarantee = true;
		}
		if (s->flags & RECORD_TARGET) {
			y_max = fmax(y_max, s->target_mbps);
			p->any_target = true;
		}
		if (s->event)
			p->any_event = true;
		if (asks_other_than_held(s)) {
			p->goals[s->partition] |= RECORD_MB_MAX_ASKED;
			p->any_asked = true;
		}
		p->points++;
	}
	if (p->points == 0) {
		if (p->opts->has_from || p->opts->has_to)
			return err_set(err, -ENODATA, "%s: no samples of the selected partitions in the time range",
				       f->name);
		return err_set(err, -ENODATA, "%s: no samples to plot", f->name);
	}
	if (p->opts->has_from)
		t_min = p->opts->from_s;
	if (p->opts->has_to)
		t_max = p->opts->to_s;
	if (time_axis(p, t_min, t_max) < 0 || axis_ticks(0, y_max * 1.05, 6, &p->mbps) < 0 ||
	    axis_ticks(0, 100, 5, &p->pct) < 0)
		return err_set(err, -ERANGE, "%s: values out of the range that can be drawn", f->name);
	find_domain_cuts(p);
	return 0;
}

/* ---- axes ---- */

/* The wall-clock time of a point on the time axis, in ms since the Unix epoch. */
static int64_t wall_ms(const struct plot *p, double t_s)
{
	return p->file->time_origin_ms + (int64_t)llround(t_s * 1000);
}

/* Tick i's label: seconds, or the time of day (and in date[len] its date) on the wall clock. */
static void time_tick_label(const struct plot *p, unsigned i, char *time, char *date, size_t len)
{
	double v = axis_tick(&p->t, i);

	date[0] = '\0';
	if (p->wall)
		axis_time_format(&p->t, wall_ms(p, v), time, date, len);
	else
		axis_format(&p->t, v, time, len);
}

/* Whether the axis's ticks fall on more than one UTC day: each tick where the date changes then
 * shows it under the time. */
static bool axis_spans_days(const struct plot *p)
{
	char time[32], first[32], last[32];

	if (!p->wall)
		return false;
	time_tick_label(p, 0, time, first, sizeof(first));
	time_tick_label(p, p->t.count - 1, time, last, sizeof(last));
	return strcmp(first, last) != 0;
}

/* The time labels under the lower panel: the time of day, and below it the date at the first tick
 * and where it changes when the axis spans days; a step of whole days shows the date alone. */
static void draw_time_labels(struct plot *p, const struct rect *r)
{
	char time[32], date[32], shown[32] = "";
	bool days = axis_spans_days(p);

	for (unsigned i = 0; i < p->t.count; i++) {
		double xx = x_of(p, r, axis_tick(&p->t, i));
		time_tick_label(p, i, time, date, sizeof(time));
		if (!time[0]) {
			text_at(p->cr, xx, r->y + r->h + 14, 0.5, date);
			continue;
		}
		text_at(p->cr, xx, r->y + r->h + 14, 0.5, time);
		if (days && strcmp(date, shown)) {
			text_at(p->cr, xx, r->y + r->h + 27, 0.5, date);
			snprintf(shown, sizeof(shown), "%s", date);
		}
	}
}

static void draw_panel_frame(struct plot *p, const struct rect *r, const struct axis_ticks *y, const char *unit,
			     bool time_labels)
{
	cairo_t *cr = p->cr;
	char buf[64];

	/* grid */
	cairo_set_line_width(cr, 1);
	cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
	for (unsigned i = 0; i < y->count; i++) {
		double yy = round(y_of(r, y, axis_tick(y, i))) + 0.5;
		cairo_move_to(cr, r->x, yy);
		cairo_line_to(cr, r->x + r->w, yy);
	}
	for (unsigned i = 0; i < p->t.count; i++) {
		double xx = round(x_of(p, r, axis_tick(&p->t, i))) + 0.5;
		cairo_move_to(cr, xx, r->y);
		cairo_line_to(cr, xx, r->y + r->h);
	}
	cairo_stroke(cr);

	/* frame and tick labels */
	cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
	cairo_rectangle(cr, r->x + 0.5, r->y + 0.5, r->w, r->h);
	cairo_stroke(cr);
	font(cr, 11, false);
	for (unsigned i = 0; i < y->count; i++) {
		double v = axis_tick(y, i);
		double yy = y_of(r, y, v);
		axis_format(y, v, buf, sizeof(buf));
		cairo_move_to(cr, r->x - 4, yy);
		cairo_line_to(cr, r->x, yy);
		cairo_stroke(cr);
		text_at(cr, r->x - 7, yy, 1, buf);
	}
	for (unsigned i = 0; i < p->t.count; i++) {
		double xx = x_of(p, r, axis_tick(&p->t, i));
		cairo_move_to(cr, xx, r->y + r->h);
		cairo_line_to(cr, xx, r->y + r->h + 4);
		cairo_stroke(cr);
	}
	if (time_labels)
		draw_time_labels(p, r);

	/* the unit, written up the left side */
	font(cr, 12, false);
	cairo_save(cr);
	cairo_translate(cr, r->x - 62, r->y + r->h / 2);
	cairo_rotate(cr, -M_PI / 2);
	text_at(cr, 0, 0, 0.5, unit);
	cairo_restore(cr);
}

/* ---- series ---- */

enum line_style {
	LINE_SOLID,
	LINE_DASHED,
	LINE_DASH_DOT,
	LINE_DOTTED,
	LINE_LONG_DASHED,
};

/* Each style's dash pattern (on, off, ... in device units; none: solid). */
static const struct {
	double dashes[4];
	int count;
} line_dashes[] = {
	[LINE_SOLID] = { { 0 }, 0 },
	[LINE_DASHED] = { { 7, 4 }, 2 },
	[LINE_DASH_DOT] = { { 8, 3, 2, 3 }, 4 },
	[LINE_DOTTED] = { { 1.5, 3 }, 2 },
	[LINE_LONG_DASHED] = { { 12, 4 }, 2 },
};

static void set_line(cairo_t *cr, enum line_style style, double width)
{
	cairo_set_line_width(cr, width);
	cairo_set_line_cap(cr, style == LINE_DOTTED ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT);
	cairo_set_dash(cr, line_dashes[style].dashes, line_dashes[style].count, 0);
}

/* A line through many points, at most a few vertices per pixel column: within a column only the
 * first, lowest, highest and last points are kept, which looks the same and keeps cairo fast on
 * long records. */
struct polyline {
	cairo_t *cr;
	size_t points; /* in this run */
	long column;
	double x, first, low, high, last;
};

static void polyline_flush(struct polyline *l)
{
	if (l->points == 0)
		return;
	if (l->points == 1) {
		cairo_move_to(l->cr, l->x, l->first);
		return;
	}
	cairo_line_to(l->cr, l->x, l->first);
	if (l->low != l->first && l->low != l->last)
		cairo_line_to(l->cr, l->x, l->low);
	if (l->high != l->first && l->high != l->last)
		cairo_line_to(l->cr, l->x, l->high);
	cairo_line_to(l->cr, l->x, l->last);
}

static void polyline_add(struct polyline *l, double x, double y)
{
	long column = lround(floor(x));

	if (l->points > 0 && column == l->column) {
		l->low = fmin(l->low, y);
		l->high = fmax(l->high, y);
		l->last = y;
		l->points++;
		return;
	}
	if (l->points > 0) {
		polyline_flush(l);
		l->points = 2; /* later columns draw lines */
	} else {
		l->points = 1;
	}
	l->column = column;
	l->x = x;
	l->first = l->low = l->high = l->last = y;
}

/* Ends a run: strokes it, or marks an isolated point with a dot. */
static void polyline_end(struct polyline *l)
{
	if (l->points == 1) {
		cairo_new_path(l->cr);
		cairo_arc(l->cr, l->x, l->first, 2, 0, 2 * M_PI);
		cairo_fill(l->cr);
	} else if (l->points > 1) {
		polyline_flush(l);
		cairo_stroke(l->cr);
	}
	l->points = 0;
}

/* The measured bandwidth of one partition: a line through its valid samples, broken where a
 * sample could not be measured and between runs; an isolated sample is a dot. */
static void draw_mbps(struct plot *p, unsigned partition)
{
	const struct record_file *f = p->file;
	struct polyline line = { .cr = p->cr };
	unsigned run = 0;

	set_colour(p, partition);
	set_line(p->cr, LINE_SOLID, 1.6);
	cairo_set_line_join(p->cr, CAIRO_LINE_JOIN_ROUND);
	for (size_t i = 0; i < f->sample_count; i++) {
		const struct record_sample *s = &f->samples[i];
		if (s->partition != partition || !sample_shown(p, s))
			continue;
		if (s->run != run) /* no line across the time mpamd was not running */
			polyline_end(&line);
		run = s->run;
		if (has_mbps(s))
			polyline_add(&line, x_of(p, &p->bw, record_file_seconds(f, s)),
				     y_of(&p->bw, &p->mbps, s->mbps));
		else
			polyline_end(&line);
	}
	polyline_end(&line);
}

enum stepped_value {
	VALUE_MB_MAX,
	VALUE_MB_MIN,
	VALUE_GUARANTEE,
	VALUE_TARGET,
	VALUE_MB_MAX_ASKED,
};

static bool stepped_get(const struct record_sample *s, enum stepped_value which, double *v)
{
	switch (which) {
	case VALUE_MB_MAX:
		*v = s->mb_max;
		return !(s->flags & RECORD_NO_LIMITS);
	case VALUE_MB_MIN:
		*v = s->mb_min;
		return !(s->flags & RECORD_NO_LIMITS);
	case VALUE_GUARANTEE:
		*v = s->guarantee_mbps;
		return s->flags & RECORD_GUARANTEE;
	case VALUE_TARGET:
		*v = s->target_mbps;
		return s->flags & RECORD_TARGET;
	case VALUE_MB_MAX_ASKED:
		*v = s->mb_max_asked;
		return s->flags & RECORD_MB_MAX_ASKED;
	}
	return false;
}

/* How a stepped line is drawn: its panel, axis and style, and the domain whose rows it follows
 * (0: the totals). */
struct stepped_style {
	const struct rect *r;
	const struct axis_ticks *a;
	enum line_style style;
	double width;
	unsigned domain;
};

/* A value that holds until it changes (a limit, a setting): a stepped line, broken where unset.
 * Returns the y of its last value, or NAN when it has none. */
static double draw_stepped(struct plot *p, unsigned partition, enum stepped_value which, const struct stepped_style *st)
{
	const struct rect *r = st->r;
	const struct axis_ticks *a = st->a;
	double end_y = NAN;
	const struct record_file *f = p->file;
	cairo_t *cr = p->cr;
	bool open = false;
	double start_x = 0, last_x = 0, last_y = 0;
	unsigned run = 0;

	set_colour(p, partition);
	set_line(cr, st->style, st->width);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
	/* vertices only where the value changes: long records stay small */
	for (size_t i = 0; i <= f->sample_count; i++) {
		const struct record_sample *s = i < f->sample_count ? &f->samples[i] : NULL;
		double v = 0;
		if (s && (s->partition != partition || !sample_shown_on(p, s, st->domain)))
			continue;
		double x = s ? x_of(p, r, record_file_seconds(f, s)) : last_x;
		bool new_run = s && s->run != run;
		if (s)
			run = s->run;
		if (new_run && open) {
			/* a run's last value ends with it: no step across the time mpamd was not running */
			cairo_line_to(cr, fmax(last_x, fmin(start_x + 3, r->x + r->w)), last_y);
			cairo_stroke(cr);
			open = false;
		}
		if (!s || !stepped_get(s, which, &v)) {
			if (open) {
				/* the value holds until the next sample; a lone point shows as a short step */
				double end = s ? x : last_x;
				if (end - start_x < 3)
					end = fmin(start_x + 3, r->x + r->w);
				cairo_line_to(cr, end, last_y);
				cairo_stroke(cr);
			}
			open = false;
			continue;
		}
		double y = y_of(r, a, v);
		if (!open) {
			cairo_move_to(cr, x, y);
			start_x = x;
		} else if (y != last_y) {
			cairo_line_to(cr, x, last_y);
			cairo_line_to(cr, x, y);
		}
		open = true;
		last_x = x;
		last_y = end_y = y;
	}
	return end_y;
}

/* Where the name of a domain's line ending at y goes: just above it, or further down past the names
 * placed before it (lines that end together would have their names on top of each other). */
static double domain_label_y(struct plot *p, double y)
{
	double want = fmax(p->lim.y + 6, y - 7);

	for (bool moved = true; moved;) {
		moved = false;
		for (size_t i = 0; i < p->domain_label_count; i++)
			if (fabs(p->domain_label_y[i] - want) < 10) {
				want = p->domain_label_y[i] + 10;
				moved = true;
			}
	}
	if (p->domain_label_count < DOMAIN_LABELS_MAX)
		p->domain_label_y[p->domain_label_count++] = want;
	return want;
}

/* The limits of each domain that differ from another domain's somewhere (a cut the guard made on
 * one domain, a per-domain mb_max): thin lines of their own, each named by its domain at the
 * panel's right edge. */
static void draw_domain_limits(struct plot *p, unsigned partition)
{
	const struct record_file *f = p->file;
	char name[64];

	for (unsigned d = 1; d < f->domain_count; d++) {
		unsigned bits = p->domain_differs[partition * f->domain_count + d];
		double y = NAN;
		if (bits & DOMAIN_DIFFERS_MAX)
			y = draw_stepped(p, partition, VALUE_MB_MAX,
					 &(struct stepped_style){ &p->lim, &p->pct, LINE_DASHED, 1, d });
		if (bits & DOMAIN_DIFFERS_MIN) {
			double y_min = draw_stepped(p, partition, VALUE_MB_MIN,
						    &(struct stepped_style){ &p->lim, &p->pct, LINE_DASH_DOT, 1, d });
			y = isnan(y) ? y_min : y;
		}
		if (isnan(y))
			continue;
		font(p->cr, 9, false);
		snprintf(name, sizeof(name), "domain %s", f->domains[d]);
		text_at(p->cr, p->lim.x + p->lim.w - 3, domain_label_y(p, y), 1, name);
	}
}

/* ---- events ---- */

/* "web: guarantee" for web's "guarantee: mb_min 0% -> 30% ...": the partition it names (cut to
 * EVENT_NAME_WIDTH) and the event's kind (cut with "..." after EVENT_LABEL_MAX characters). */
static void event_label(cairo_t *cr, const char *partition, const char *event, char *buf, size_t len)
{
	char name[96], kind[EVENT_LABEL_MAX + 1];
	size_t n = strcspn(event, ":\n\r");

	if (n == 0)
		n = strlen(event);
	if (n > EVENT_LABEL_MAX)
		snprintf(kind, sizeof(kind), "%.*s...", EVENT_LABEL_MAX - 3, event);
	else
		snprintf(kind, sizeof(kind), "%.*s", (int)n, event);
	fit_text(cr, partition, EVENT_NAME_WIDTH, name, sizeof(name));
	snprintf(buf, len, "%s: %s", name, kind);
}

/* Where a label `w` wide for a marker at x goes: right of the marker in the first row with room
 * there, else left of it; false when no row has room (the label is left out). Rows are taken
 * left to right, so a label never overlaps one before it; the same file places them the same. */
static bool place_label(double row_end[EVENT_ROWS], const struct rect *panel, double x, double w, unsigned *ret_row,
			double *ret_x)
{
	for (unsigned row = 0; row < EVENT_ROWS; row++) {
		double right = x + 2, left = x - 2 - (w + 2);
		if (right >= row_end[row] && right + w + 2 <= panel->x + panel->w)
			*ret_x = right;
		else if (left >= row_end[row] && left >= panel->x)
			*ret_x = left;
		else
			continue;
		*ret_row = row;
		row_end[row] = *ret_x + w + 2 + 4; /* a little air before the next */
		return true;
	}
	return false;
}

/* The box of an event's marker and label, for the SVG; a failed allocation only loses the box. */
static struct event_box *event_box_add(struct plot *p, size_t sample, double x)
{
	if (array_grow((void **)&p->events, &p->event_cap, p->event_count + 1, sizeof(*p->events), NULL) < 0)
		return NULL;
	struct event_box *b = &p->events[p->event_count++];
	*b = (struct event_box){ .sample = sample, .marker = { x - 4, p->bw.y - 7, 8, 7 } };
	return b;
}

static void draw_events(struct plot *p)
{
	const struct record_file *f = p->file;
	cairo_t *cr = p->cr;
	double row_end[EVENT_ROWS];
	char label[EVENT_LABEL_MAX + 112];

	for (size_t i = 0; i < EVENT_ROWS; i++)
		row_end[i] = -INFINITY;
	p->event_count = p->labels_left_out = 0;
	font(cr, 9, false);
	for (size_t i = 0; i < f->sample_count; i++) {
		const struct record_sample *s = &f->samples[i];
		if (!s->event || !sample_shown(p, s))
			continue;
		double x = round(x_of(p, &p->bw, record_file_seconds(f, s))) + 0.5;
		struct event_box *box = event_box_add(p, i, x);

		/* a thin line through the bandwidth panel, a triangle on its top edge */
		set_colour(p, s->partition);
		set_line(cr, LINE_DOTTED, 1);
		cairo_move_to(cr, x, p->bw.y);
		cairo_line_to(cr, x, p->bw.y + p->bw.h);
		cairo_stroke(cr);
		cairo_move_to(cr, x - 4, p->bw.y - 7);
		cairo_line_to(cr, x + 4, p->bw.y - 7);
		cairo_line_to(cr, x, p->bw.y);
		cairo_close_path(cr);
		cairo_fill(cr);

		/* its label in the first row with room; left out (and counted) when every row is taken */
		event_label(cr, f->partitions[s->partition], s->event, label, sizeof(label));
		double w = text_width(cr, label), lx;
		unsigned row;
		if (!place_label(row_end, &p->bw, x, w, &row, &lx)) {
			p->labels_left_out++;
			continue;
		}
		double y = p->bw.y + 9 + row * EVENT_ROW_HEIGHT;
		cairo_set_source_rgba(cr, 1, 1, 1, 0.8);
		cairo_rectangle(cr, lx, y - 5.5, w + 2, 11);
		cairo_fill(cr);
		set_colour(p, s->partition);
		text_at(cr, lx + 1, y, 0, label);
		if (box) {
			box->label = (struct rect){ lx, y - 5.5, w + 2, 11 };
			box->labelled = true;
		}
	}
}

/* ---- legend ---- */

/* A line style's row at y where it is `shown` (drawn in the plot); the y of the row after it. */
static double legend_line(struct plot *p, double x, double y, bool shown, enum line_style style, const char *text)
{
	cairo_t *cr = p->cr;

	if (!shown)
		return y;
	cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
	set_line(cr, style, 2);
	cairo_move_to(cr, x, y);
	cairo_line_to(cr, x + 26, y);
	cairo_stroke(cr);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	text_at(cr, x + 34, y, 0, text);
	return y + 18;
}

static void draw_legend(struct plot *p)
{
	const struct record_file *f = p->file;
	cairo_t *cr = p->cr;
	double x = p->bw.x + p->bw.w + 24, y = p->bw.y + 4;
	double bottom = p->lim.y + p->lim.h;
	size_t shown = 0;
	char more[64], name[96];

	font(cr, 12, true);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	text_at(cr, x, y, 0, "partitions");
	y += 20;
	font(cr, 12, false);
	/* the line styles take up to 10 rows below */
	for (size_t i = 0; i < f->partition_count; i++) {
		if (!partition_drawn(p, (unsigned)i))
			continue;
		if (y > bottom - 12 * 18 && shown + 1 < p->drawn) {
			snprintf(more, sizeof(more), "and %zu more", p->drawn - shown);
			cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
			text_at(cr, x + 34, y, 0, more);
			y += 18;
			break;
		}
		set_colour(p, (unsigned)i);
		cairo_rectangle(cr, x, y - 5, 26, 10);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		fit_text(cr, f->partitions[i], p->width - (x + 34) - 6, name, sizeof(name));
		text_at(cr, x + 34, y, 0, name);
		y += 18;
		shown++;
	}
	y += 10;
	font(cr, 12, true);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	text_at(cr, x, y, 0, "lines");
	y += 20;
	font(cr, 12, false);
	y = legend_line(p, x, y, true, LINE_SOLID, "measured MB/s");
	y = legend_line(p, x, y, p->any_guarantee, LINE_DASHED, "guarantee MB/s");
	y = legend_line(p, x, y, p->any_target, LINE_DASH_DOT, "target MB/s");
	y = legend_line(p, x, y, true, LINE_SOLID, "mb_max % (below)");
	y = legend_line(p, x, y, true, LINE_DOTTED, "mb_min % (below)");
	y = legend_line(p, x, y, p->any_asked, LINE_LONG_DASHED, "asked mb_max %");
	y = legend_line(p, x, y, p->any_domain_max, LINE_DASHED, "a domain's mb_max %");
	y = legend_line(p, x, y, p->any_domain_min, LINE_DASH_DOT, "a domain's mb_min %");
	if (p->any_event) {
		cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
		cairo_move_to(cr, x + 9, y - 4);
		cairo_line_to(cr, x + 17, y - 4);
		cairo_line_to(cr, x + 13, y + 3);
		cairo_close_path(cr);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		text_at(cr, x + 34, y, 0, "event");
		if (p->labels_left_out) {
			snprintf(more, sizeof(more), "(%zu label%s left out)", p->labels_left_out,
				 p->labels_left_out == 1 ? "" : "s");
			text_at(cr, x + 34, y + 16, 0, more);
		}
	}
}

/* ---- the whole picture ---- */

/* "time (s)" without the wall clock; on it "time (UTC, 2026-12-03)", or "time (UTC)" when the
 * ticks show their dates. */
static const char *time_label(const struct plot *p, char *buf, size_t len)
{
	char time[32], date[32];

	if (!p->wall)
		return "time (s)";
	time_tick_label(p, 0, time, date, sizeof(time));
	if (axis_spans_days(p) || !time[0])
		return "time (UTC)";
	snprintf(buf, len, "time (UTC, %s)", date);
	return buf;
}

static void draw(struct plot *p)
{
	cairo_t *cr = p->cr;
	char buf[512];

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	p->domain_label_count = 0;

	font(cr, 16, true);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	snprintf(buf, sizeof(buf), "%s", p->opts->title ? p->opts->title : p->file->name);
	text_at(cr, p->bw.x, 22, 0, buf);

	draw_panel_frame(p, &p->bw, &p->mbps, "bandwidth (MB/s)", false);
	draw_panel_frame(p, &p->lim, &p->pct, "limit (% of capacity)", true);
	font(cr, 12, false);
	text_at(cr, p->lim.x + p->lim.w / 2, p->lim.y + p->lim.h + 44, 0.5, time_label(p, buf, sizeof(buf)));

	cairo_save(cr);
	cairo_rectangle(cr, p->bw.x, p->bw.y, p->bw.w, p->bw.h);
	cairo_clip(cr);
	for (size_t i = 0; i < p->file->partition_count; i++) {
		if (!partition_drawn(p, (unsigned)i))
			continue;
		if (p->goals[i] & RECORD_GUARANTEE)
			draw_stepped(p, (unsigned)i, VALUE_GUARANTEE,
				     &(struct stepped_style){ &p->bw, &p->mbps, LINE_DASHED, 1.4, 0 });
		if (p->goals[i] & RECORD_TARGET)
			draw_stepped(p, (unsigned)i, VALUE_TARGET,
				     &(struct stepped_style){ &p->bw, &p->mbps, LINE_DASH_DOT, 1.4, 0 });
		draw_mbps(p, (unsigned)i);
	}
	cairo_restore(cr);

	cairo_save(cr);
	/* a little room above 100% and below 0% so lines on the frame stay visible */
	cairo_rectangle(cr, p->lim.x, p->lim.y - 3, p->lim.w, p->lim.h + 6);
	cairo_clip(cr);
	for (size_t i = 0; i < p->file->partition_count; i++) {
		if (!partition_drawn(p, (unsigned)i))
			continue;
		draw_stepped(p, (unsigned)i, VALUE_MB_MAX,
			     &(struct stepped_style){ &p->lim, &p->pct, LINE_SOLID, 1.6, 0 });
		draw_stepped(p, (unsigned)i, VALUE_MB_MIN,
			     &(struct stepped_style){ &p->lim, &p->pct, LINE_DOTTED, 2, 0 });
		if (p->goals[i] & RECORD_MB_MAX_ASKED)
			draw_stepped(p, (unsigned)i, VALUE_MB_MAX_ASKED,
				     &(struct stepped_style){ &p->lim, &p->pct, LINE_LONG_DASHED, 1.2, 0 });
		draw_domain_limits(p, (unsigned)i);
	}
	cairo_restore(cr);

	draw_events(p);
	draw_legend(p);
}

/* ---- output ---- */

struct buffer {
	char *data;
	size_t len, cap;
	bool failed;
};

static cairo_status_t buffer_write(void *closure, const unsigned char *data, unsigned int length)
{
	struct buffer *b = closure;

	if (array_grow((void **)&b->data, &b->cap, b->len + length, 1, NULL) < 0) {
		b->failed = true;
		return CAIRO_STATUS_NO_MEMORY;
	}
	memcpy(b->data + b->len, data, length);
	b->len += length;
	return CAIRO_STATUS_SUCCESS;
}

static void xml_escaped(FILE *out, const char *s)
{
	static const char special[] = "&<>\"";
	static const char *const entity[] = { "&amp;", "&lt;", "&gt;", "&quot;" };

	for (; *s; s++) {
		const char *at = strchr(special, *s); /* never the NUL: the loop stops there */
		if (at)
			fputs(entity[at - special], out);
		else
			fputc(*s, out);
	}
}

/* The time axis's tick labels, as drawn. */
static void write_svg_time_ticks(const struct plot *p, FILE *out)
{
	char time[32], date[32];

	fputs("; time axis ticks:", out);
	for (unsigned i = 0; i < p->t.count; i++) {
		time_tick_label(p, i, time, date, sizeof(time));
		fprintf(out, "%s %s%s%s", i ? "," : "", time[0] && date[0] ? date : "", time[0] && date[0] ? " " : "",
			time[0] ? time : date);
	}
}

/* Which partitions have goal lines. */
static void write_svg_goals(const struct plot *p, FILE *out)
{
	static const struct {
		unsigned flag;
		const char *what;
	} goals[] = { { RECORD_GUARANTEE, "guarantee (dashed)" }, { RECORD_TARGET, "target (dash-dot)" } };
	bool first = true;

	for (size_t i = 0; i < p->file->partition_count; i++)
		for (size_t g = 0; g < sizeof(goals) / sizeof(goals[0]); g++) {
			if (!partition_drawn(p, (unsigned)i) || !(p->goals[i] & goals[g].flag))
				continue;
			fputs(first ? "; goal lines: " : ", ", out);
			xml_escaped(out, p->file->partitions[i]);
			fprintf(out, " %s", goals[g].what);
			first = false;
		}
}

/* Which partitions asked for another ceiling than their class holds. */
static void write_svg_asked(const struct plot *p, FILE *out)
{
	bool first = true;

	for (size_t i = 0; i < p->file->partition_count; i++) {
		if (!partition_drawn(p, (unsigned)i) || !(p->goals[i] & RECORD_MB_MAX_ASKED))
			continue;
		fputs(first ? "; mb_max asked, where its class holds another (long-dashed): " : ", ", out);
		xml_escaped(out, p->file->partitions[i]);
		first = false;
	}
}

/* Which domains have limit lines of their own. */
static void write_svg_domain_limits(const struct plot *p, FILE *out)
{
	const struct record_file *f = p->file;
	bool first = true;

	for (size_t i = 0; i < f->partition_count; i++)
		for (size_t d = 1; d < f->domain_count; d++) {
			if (!partition_drawn(p, (unsigned)i) || !p->domain_differs[i * f->domain_count + d])
				continue;
			fputs(first ? "; limits of their own: " : ", ", out);
			xml_escaped(out, f->partitions[i]);
			fputs(" on domain ", out);
			xml_escaped(out, f->domains[d]);
			first = false;
		}
}

/* cairo draws text as glyph outlines: the SVG gets a <title> and a <desc> naming the partitions
 * and their colours, the time axis's ticks and what lines there are, for screen readers and for
 * searching. */
static void write_svg_description(const struct plot *p, FILE *out)
{
	fputs("<title>", out);
	xml_escaped(out, p->opts->title ? p->opts->title : p->file->name);
	fputs("</title>\n<desc>mpamd record plot. Legend: ", out);
	bool first = true;
	for (size_t i = 0; i < p->file->partition_count; i++) {
		if (!partition_drawn(p, (unsigned)i))
			continue;
		const struct rgb *c = &palette[p->colour[i] % PALETTE_SIZE];
		fprintf(out, "%s", first ? "" : ", ");
		xml_escaped(out, p->file->partitions[i]);
		fprintf(out, " (#%02x%02x%02x)", (unsigned)lround(c->r * 255), (unsigned)lround(c->g * 255),
			(unsigned)lround(c->b * 255));
		first = false;
	}
	char label[64];
	fprintf(out, ". Upper panel: bandwidth in MB/s; lower panel: mb_max and mb_min in %% of capacity; %s",
		time_label(p, label, sizeof(label)));
	write_svg_time_ticks(p, out);
	write_svg_goals(p, out);
	write_svg_asked(p, out);
	write_svg_domain_limits(p, out);
	if (p->event_count)
		fprintf(out, "; %zu event%s, %zu label%s left out", p->event_count, p->event_count == 1 ? "" : "s",
			p->labels_left_out, p->labels_left_out == 1 ? "" : "s");
	fputs(".</desc>\n", out);
}

/* Each event as boxes the size of its marker and of its label (when it has one), without ink, each
 * with the whole event for its title: a browser shows it when the pointer rests there. */
static void write_svg_events(const struct plot *p, FILE *out)
{
	char when[RFC3339_MS_LEN + 1];

	if (!p->event_count)
		return;
	fputs("<g id=\"events\" fill=\"#fff\" fill-opacity=\"0\">\n", out);
	for (size_t i = 0; i < p->event_count; i++) {
		const struct event_box *b = &p->events[i];
		const struct record_sample *s = &p->file->samples[b->sample];
		for (int label = 0; label <= (b->labelled ? 1 : 0); label++) {
			const struct rect *r = label ? &b->label : &b->marker;
			fprintf(out,
				"<rect class=\"event-%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>",
				label ? "label" : "marker", r->x, r->y, r->w, r->h);
			xml_escaped(out, p->file->partitions[s->partition]);
			if (p->wall &&
			    rfc3339_format_ms(wall_ms(p, record_file_seconds(p->file, s)), when, sizeof(when)))
				fprintf(out, " at %s", when);
			else
				fprintf(out, " at %.3f s", record_file_seconds(p->file, s));
			fputs(": ", out);
			xml_escaped(out, s->event);
			fputs("</title></rect>\n", out);
		}
	}
	fputs("</g>\n", out);
}

/* The last </svg> in data[len], or NULL. */
static char *svg_end(char *data, size_t len)
{
	static const char tag[] = "</svg>";

	for (size_t i = len; i >= sizeof(tag) - 1; i--)
		if (!memcmp(data + i - (sizeof(tag) - 1), tag, sizeof(tag) - 1))
			return data + i - (sizeof(tag) - 1);
	return NULL;
}

static int write_svg(struct plot *p, struct err *err)
{
	struct buffer b = { 0 };
	cairo_surface_t *surface = cairo_svg_surface_create_for_stream(buffer_write, &b, p->width, p->height);
	int r = 0;

	cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX);
	p->cr = cairo_create(surface);
	draw(p);
	cairo_status_t status = cairo_status(p->cr);
	cairo_destroy(p->cr);
	p->cr = NULL;
	cairo_surface_finish(surface);
	if (status == CAIRO_STATUS_SUCCESS)
		status = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	if (status != CAIRO_STATUS_SUCCESS || b.failed) {
		r = err_set(err, -EIO, "cannot draw the SVG: %s", cairo_status_to_string(status));
		goto out;
	}

	/* the description goes right after the <svg ...> start tag */
	char *svg = b.data ? memmem(b.data, b.len, "<svg", 4) : NULL;
	char *end = svg ? memchr(svg, '>', b.len - (size_t)(svg - b.data)) : NULL;
	if (!end) {
		r = err_set(err, -EIO, "cannot draw the SVG: cairo wrote no <svg> element");
		goto out;
	}
	size_t head = (size_t)(end + 1 - b.data);
	FILE *out = fopen(p->opts->output, "we");
	if (!out) {
		int saved = errno;
		r = err_set(err, -saved, "cannot create %s: %s", p->opts->output, strerror(saved));
		goto out;
	}
	/* and the events' boxes last, over everything cairo drew */
	char *close = svg_end(b.data, b.len);
	size_t tail = close ? (size_t)(close - b.data) : b.len;
	fwrite(b.data, 1, head, out);
	fputc('\n', out);
	write_svg_description(p, out);
	fwrite(b.data + head, 1, tail - head, out);
	write_svg_events(p, out);
	fwrite(b.data + tail, 1, b.len - tail, out);
	bool failed = ferror(out);
	if (fclose(out) != 0 || failed) {
		int saved = errno ? errno : EIO;
		r = err_set(err, -saved, "cannot write %s: %s", p->opts->output, strerror(saved));
	}
out:
	free(b.data);
	return r;
}

static int write_png(struct plot *p, struct err *err)
{
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)p->width, (int)p->height);
	cairo_status_t status = cairo_surface_status(surface);

	if (status == CAIRO_STATUS_SUCCESS) {
		p->cr = cairo_create(surface);
		draw(p);
		status = cairo_status(p->cr);
		cairo_destroy(p->cr);
		p->cr = NULL;
	}
	if (status != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(surface);
		return err_set(err, -EIO, "cannot draw the PNG: %s", cairo_status_to_string(status));
	}
	errno = 0;
	status = cairo_surface_write_to_png(surface, p->opts->output);
	cairo_surface_destroy(surface);
	if (status != CAIRO_STATUS_SUCCESS) {
		int saved = errno ? errno : EIO;
		return err_set(err, -saved, "cannot write %s: %s", p->opts->output,
			       status == CAIRO_STATUS_WRITE_ERROR ? strerror(saved) : cairo_status_to_string(status));
	}
	return 0;
}

static void plot_free(struct plot *p)
{
	free(p->colour);
	free(p->goals);
	free(p->domain_differs);
	free(p->events);
}

int plot_render(const struct record_file *file, const struct plot_options *opts, struct err *err)
{
	struct plot p = { .file = file, .opts = opts };
	int r;

	p.width = opts->width ? opts->width : PLOT_DEFAULT_WIDTH;
	p.height = opts->height ? opts->height : PLOT_DEFAULT_HEIGHT;
	if (p.width < 400 || p.height < 300 || p.width > 10000 || p.height > 10000)
		return err_set(err, -EINVAL, "plot size %gx%g out of range 400x300..10000x10000", p.width, p.height);
	p.t_lo = opts->has_from ? opts->from_s : -INFINITY;
	p.t_hi = opts->has_to ? opts->to_s : INFINITY;
	p.wall = (file->columns & RECORD_HAS_TIME) != 0;
	p.colour = calloc(file->partition_count + 1, sizeof(*p.colour));
	p.goals = calloc(file->partition_count + 1, sizeof(*p.goals));
	p.domain_differs = calloc(file->partition_count * file->domain_count + 1, sizeof(*p.domain_differs));
	if (!p.colour || !p.goals || !p.domain_differs) {
		plot_free(&p);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < file->partition_count; i++)
		if (partition_drawn(&p, (unsigned)i))
			p.colour[i] = (unsigned)p.drawn++;

	/* layout: title, the bandwidth panel (about 60%), the limits panel, time labels; legend right */
	double left = 84, right = 210, top = 58, bottom = 66, gap = 22;
	double h = p.height - top - bottom - gap;
	p.bw = (struct rect){ left, top, p.width - left - right, round(h * 0.64) };
	p.lim = (struct rect){ left, top + p.bw.h + gap, p.bw.w, h - p.bw.h };

	r = find_ranges(&p, err);
	if (r == 0)
		r = opts->format == PLOT_SVG ? write_svg(&p, err) : write_png(&p, err);
	plot_free(&p);
	/* cairo and fontconfig keep fonts in caches for the process's life: released, so that leak
	 * checkers (the sanitizer build) see a clean exit; the next plot builds them again */
	cairo_debug_reset_static_data();
	FcFini();
	return r;
}
