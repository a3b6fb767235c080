/* One screen of mpamctl top; see top_frame.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/top_frame.h"
#include "cli/top_layout.h"

/* ---- writing into the frame ---- */

static void put_text(struct top_frame *f, int y, int x, int width, const char *text, bool right, enum top_attr a)
{
	int len = (int)strlen(text);

	if (y < 0 || y >= f->lines || x >= f->cols || width <= 0)
		return;
	if (x + width > f->cols)
		width = f->cols - x;
	if (len > width)
		len = width;
	int start = right ? x + width - len : x;
	memcpy(f->text + (long)y * (f->cols + 1) + start, text, (size_t)len);
	memset(f->attr + (long)y * f->cols + start, a, (size_t)len);
}

static void put_char(struct top_frame *f, int y, int x, char ch, enum top_attr a)
{
	char s[2] = { ch, '\0' };

	put_text(f, y, x, 1, s, false, a);
}

static void paint_line(struct top_frame *f, int y, enum top_attr a)
{
	memset(f->attr + (long)y * f->cols, a, (size_t)f->cols);
}

/* ---- the bar ---- */

struct bar {
	double scale;	  /* MB/s at the right end; not > 0: nothing to draw against */
	double rate;	  /* NAN: no fill */
	double limit;	  /* NAN: no marker */
	double guarantee; /* NAN: no marker */
};

static int cell_of(double v, double scale, int cells)
{
	int c = (int)floor(v / scale * cells);

	return c < 0 ? 0 : c >= cells ? cells - 1 : c;
}

static void draw_bar(struct top_frame *f, int y, int x, int width, const struct bar *b)
{
	int cells = width - 2;

	put_char(f, y, x, '[', TOP_ATTR_PLAIN);
	put_char(f, y, x + width - 1, ']', TOP_ATTR_PLAIN);
	if (cells < 1 || !(b->scale > 0))
		return;
	int fill = isnan(b->rate) ? 0 : (int)lround(fmin(fmax(b->rate / b->scale, 0), 1) * cells);
	int limit = isnan(b->limit) ? -1 : cell_of(b->limit, b->scale, cells);
	for (int c = 0; c < fill; c++)
		put_char(f, y, x + 1 + c, TOP_FILL, limit >= 0 && c > limit ? TOP_ATTR_OVER : TOP_ATTR_FILL);
	if (!isnan(b->guarantee) && b->guarantee > 0)
		put_char(f, y, x + 1 + cell_of(b->guarantee, b->scale, cells), TOP_GUARANTEE, TOP_ATTR_GUARANTEE);
	if (limit >= 0)
		put_char(f, y, x + 1 + limit, TOP_LIMIT, TOP_ATTR_LIMIT); /* the limit wins a shared cell */
}

/* ---- scales ---- */

struct scales {
	double capacity; /* the host's, NAN when unknown */
	double host;	 /* a partition bar's right end */
	double domain;	 /* a domain bar's right end when the capacity is unknown */
};

static double max_known(double a, double b)
{
	return isnan(b) || b <= a ? a : b;
}

static void compute_scales(const struct top_model *m, struct scales *s)
{
	*s = (struct scales){ .capacity = m->status.capacity_mbps, .host = 0, .domain = 0 };
	for (size_t i = 0; i < m->count; i++) {
		const struct top_row *row = &m->rows[i];
		s->host = max_known(s->host, row->mbps);
		s->host = max_known(s->host, row->target_mbps);
		s->host = max_known(s->host, row->guarantee_mbps);
		for (size_t d = 0; d < row->domain_count; d++)
			s->domain = max_known(s->domain, row->domains[d].mbps);
	}
	if (!isnan(s->capacity))
		s->host = s->capacity;
}

/* mb_max and mb_min are percents of each domain's bandwidth, so of the host's too. */
static double percent_of(double pct, double capacity)
{
	return isnan(pct) || isnan(capacity) ? NAN : pct / 100 * capacity;
}

static void row_bar(const struct top_row *row, const struct scales *s, struct bar *b)
{
	b->scale = s->host;
	b->rate = row->mbps;
	/* 100% is no limit: the bar's end says so already. */
	b->limit = row->mb_max < 100 ? percent_of(row->mb_max, s->capacity) : NAN;
	if (isnan(s->capacity))
		b->limit = row->target_mbps;
	b->guarantee = !isnan(row->guarantee_mbps) ? row->guarantee_mbps : percent_of(row->mb_min, s->capacity);
}

/* Domains are taken as equal shares of the capacity, as mb_max's percent assumes. */
static void domain_bar(const struct top_row *row, const struct top_domain *dom, const struct scales *s, struct bar *b)
{
	double capacity = s->capacity / (double)row->domain_count;

	b->scale = isnan(s->capacity) ? s->domain : capacity;
	b->rate = dom->mbps;
	b->limit = dom->mb_max < 100 ? percent_of(dom->mb_max, capacity) : NAN;
	b->guarantee = percent_of(dom->mb_min, capacity);
}

/* ---- lines ---- */

static void format_count(double v, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.0f", v);
}

static void format_capacity(const struct top_status *st, const struct scales *s, char *buf, size_t size)
{
	if (!isnan(st->capacity_mbps))
		snprintf(buf, size, "%.0f MB/s%s", st->capacity_mbps, st->capacity_learned ? " (learned)" : "");
	else if (s->host > 0)
		snprintf(buf, size, "-  bar 0-%.0f MB/s", s->host);
	else
		snprintf(buf, size, "-");
}

static void header_line(struct top_frame *f, const struct top_model *m, const struct top_view *v,
			const struct scales *s)
{
	char line[512], ticks[64], overruns[64], capacity[128];
	const struct top_status *st = &m->status;

	format_count(st->ticks, ticks, sizeof(ticks));
	format_count(st->overruns, overruns, sizeof(overruns));
	format_capacity(st, s, capacity, sizeof(capacity));
	snprintf(line, sizeof(line), "%smpamd %s  ticks %s  overruns %s  capacity %s  refresh %d ms",
		 v->paused ? "PAUSED  " : "", st->backend ? st->backend : "-", ticks, overruns, capacity,
		 v->refresh_ms);
	paint_line(f, 0, TOP_ATTR_TITLE);
	put_text(f, 0, 0, f->cols, line, false, TOP_ATTR_TITLE);
	if (v->paused)
		put_text(f, 0, 0, 6, "PAUSED", false, TOP_ATTR_PAUSED);
}

static void headings_line(struct top_frame *f, const struct top_layout *l)
{
	paint_line(f, 1, TOP_ATTR_HEADING);
	for (int c = 0; c < TOP_COL_COUNT; c++)
		if (l->width[c])
			put_text(f, 1, l->x[c], l->width[c], top_column_heading((enum top_column)c, l->width[c]),
				 top_column_right((enum top_column)c), TOP_ATTR_HEADING);
}

static enum top_attr state_attr(enum top_state state)
{
	if (state == TOP_STATE_INVALID || state == TOP_STATE_FAILED)
		return TOP_ATTR_BAD;
	return state == TOP_STATE_ESTIMATED ? TOP_ATTR_WARN : TOP_ATTR_PLAIN;
}

static void cell(struct top_frame *f, const struct top_layout *l, int y, enum top_column c, const char *text,
		 enum top_attr a)
{
	if (l->width[c])
		put_text(f, y, l->x[c], l->width[c], text ? text : "-", top_column_right(c), a);
}

static void partition_line(struct top_frame *f, const struct top_layout *l, int y, const struct top_row *row,
			   const struct scales *s)
{
	char buf[64];
	struct bar b;
	bool failing = row->state == TOP_STATE_INVALID || row->state == TOP_STATE_FAILED;

	cell(f, l, y, TOP_COL_NAME, row->name, TOP_ATTR_PLAIN);
	cell(f, l, y, TOP_COL_CLASS, row->class_name, TOP_ATTR_PLAIN);
	row_bar(row, s, &b);
	if (l->width[TOP_COL_BAR])
		draw_bar(f, y, l->x[TOP_COL_BAR], l->width[TOP_COL_BAR], &b);
	top_format_mbps(row->mbps, row->state == TOP_STATE_ESTIMATED, buf, sizeof(buf));
	cell(f, l, y, TOP_COL_MBPS, buf, state_attr(row->state));
	top_format_limits(row->mb_max, row->mb_min, buf, sizeof(buf));
	cell(f, l, y, TOP_COL_LIMITS, buf, TOP_ATTR_PLAIN);
	cell(f, l, y, TOP_COL_STATE, top_state_name(row->state), state_attr(row->state));
	/* Why a partition has no rate matters more than what a policy did to it last. */
	if (failing && row->reason)
		cell(f, l, y, TOP_COL_EVENT, row->reason, TOP_ATTR_BAD);
	else if (row->event)
		cell(f, l, y, TOP_COL_EVENT, row->event, TOP_ATTR_PLAIN);
}

static void domain_line(struct top_frame *f, const struct top_layout *l, int y, const struct top_row *row,
			const struct top_domain *dom, const struct scales *s)
{
	char buf[64];
	struct bar b;

	snprintf(buf, sizeof(buf), "  %s", dom->id ? dom->id : "-");
	cell(f, l, y, TOP_COL_NAME, buf, TOP_ATTR_PLAIN);
	domain_bar(row, dom, s, &b);
	if (l->width[TOP_COL_BAR])
		draw_bar(f, y, l->x[TOP_COL_BAR], l->width[TOP_COL_BAR], &b);
	top_format_mbps(dom->mbps, false, buf, sizeof(buf));
	cell(f, l, y, TOP_COL_MBPS, buf, TOP_ATTR_PLAIN);
	top_format_limits(dom->mb_max, dom->mb_min, buf, sizeof(buf));
	cell(f, l, y, TOP_COL_LIMITS, buf, TOP_ATTR_PLAIN);
}

static size_t rows_wanted(const struct top_model *m, const struct top_view *v)
{
	size_t n = m->count;

	for (size_t i = 0; v->show_domains && i < m->count; i++)
		n += m->rows[i].domain_count;
	return n;
}

/* The rows, and "+N more" when they do not all fit in `lines` (-1: no limit). */
static void body_lines(struct top_frame *f, const struct top_layout *l, const struct top_model *m,
		       const struct top_view *v, const struct scales *s, int lines)
{
	size_t wanted = rows_wanted(m, v), shown = 0, partitions_shown = 0;
	size_t room = lines < 0 || (size_t)lines >= wanted ? wanted : (size_t)lines - 1;
	int y = TOP_LINES_ABOVE;
	char more[64];

	if (m->count == 0) {
		put_text(f, y, 0, f->cols, "no partitions", false, TOP_ATTR_PLAIN);
		return;
	}
	for (size_t i = 0; i < m->count && shown < room; i++) {
		const struct top_row *row = &m->rows[i];
		partition_line(f, l, y++, row, s);
		shown++;
		partitions_shown++;
		for (size_t d = 0; v->show_domains && d < row->domain_count && shown < room; d++, shown++)
			domain_line(f, l, y++, row, &row->domains[d], s);
	}
	if (shown == wanted)
		return;
	if (partitions_shown < m->count)
		snprintf(more, sizeof(more), "+%zu more", m->count - partitions_shown);
	else
		snprintf(more, sizeof(more), "+%zu more domain rows", wanted - shown);
	put_text(f, y, 0, f->cols, more, false, TOP_ATTR_PLAIN);
}

static void footer_line(struct top_frame *f, const struct top_model *m, const struct top_view *v)
{
	char line[256];
	bool no_domains = v->show_domains && m && !m->domains_sent;

	snprintf(line, sizeof(line), "%sq quit  s sort: %s%s  r reverse  p %s  d domains %s",
		 no_domains ? "this mpamd sends no per-domain numbers | " : "", top_sort_name(v->sort),
		 v->reverse ? " (reversed)" : "", v->paused ? "resume" : "pause", v->show_domains ? "on" : "off");
	paint_line(f, f->lines - 1, TOP_ATTR_KEYS);
	put_text(f, f->lines - 1, 0, f->cols, line, false, TOP_ATTR_KEYS);
}

/* ---- no data ---- */

/* Lines of at most `cols` characters, broken at blanks where one is near. */
static int wrap_count_or_draw(struct top_frame *f, int y, int last, const char *text, int cols, enum top_attr a)
{
	int count = 0;

	while (*text && cols > 0) {
		int len = (int)strlen(text);
		if (len > cols) {
			len = cols;
			for (int k = cols; k > cols / 2; k--)
				if (text[k] == ' ') {
					len = k;
					break;
				}
		}
		if (f && y + count <= last) {
			char piece[512];
			snprintf(piece, sizeof(piece), "%.*s", len, text);
			put_text(f, y + count, 0, cols, piece, false, a);
		}
		count++;
		text += len;
		while (*text == ' ')
			text++;
	}
	return count;
}

static void retry_text(const struct top_view *v, char *buf, size_t size)
{
	if (v->interactive)
		snprintf(buf, size, "retrying every %d ms; q quits", v->refresh_ms);
	else
		buf[0] = '\0';
}

static void error_screen(struct top_frame *f, const struct top_view *v, int last)
{
	char line[512];

	snprintf(line, sizeof(line), "%smpamd at %s: no data", v->paused ? "PAUSED  " : "",
		 v->socket_path ? v->socket_path : "-");
	paint_line(f, 0, TOP_ATTR_BAD);
	put_text(f, 0, 0, f->cols, line, false, TOP_ATTR_BAD);
	int y = 1 + wrap_count_or_draw(f, 1, last, v->error, f->cols, TOP_ATTR_BAD);
	retry_text(v, line, sizeof(line));
	wrap_count_or_draw(f, y, last, line, f->cols, TOP_ATTR_PLAIN);
}

/* ---- the frame ---- */

static int frame_alloc(struct top_frame *f, int cols, int lines)
{
	f->cols = cols;
	f->lines = lines;
	f->text = malloc((size_t)lines * (size_t)(cols + 1));
	f->attr = calloc((size_t)lines * (size_t)cols, 1);
	if (!f->text || !f->attr) {
		top_frame_fini(f);
		return -ENOMEM;
	}
	for (int y = 0; y < lines; y++) {
		memset(f->text + (long)y * (cols + 1), ' ', (size_t)cols);
		f->text[(long)y * (cols + 1) + cols] = '\0';
	}
	return 0;
}

/* Lines the whole content needs, for a frame of unlimited height. */
static int lines_needed(const struct top_model *m, const struct top_view *v, int cols)
{
	char retry[128];

	if (!m || v->error) {
		retry_text(v, retry, sizeof(retry));
		return 1 + wrap_count_or_draw(NULL, 0, 0, v->error ? v->error : "", cols, TOP_ATTR_PLAIN) +
		       wrap_count_or_draw(NULL, 0, 0, retry, cols, TOP_ATTR_PLAIN) + v->interactive;
	}
	size_t rows = rows_wanted(m, v);
	return TOP_LINES_ABOVE + (int)(rows ? rows : 1) + v->interactive;
}

int top_frame_render(const struct top_model *m, const struct top_view *v, int cols, int lines, struct top_frame *ret)
{
	struct top_layout l;
	struct scales s;

	*ret = (struct top_frame){ .cols = 0 };
	if (cols < 1)
		cols = 1;
	if (lines <= 0)
		lines = lines_needed(m, v, cols);
	if (frame_alloc(ret, cols, lines) < 0)
		return -ENOMEM;
	int last_body = lines - 1 - v->interactive;
	if (!m || v->error) {
		error_screen(ret, v, last_body);
	} else {
		top_layout_compute(m, v->show_domains, v->interactive, cols, lines, &l);
		if (l.too_small) {
			put_text(ret, 0, 0, cols, "terminal too small for mpamctl top", false, TOP_ATTR_BAD);
			return 0;
		}
		compute_scales(m, &s);
		header_line(ret, m, v, &s);
		headings_line(ret, &l);
		body_lines(ret, &l, m, v, &s, l.body_lines);
	}
	if (v->interactive && lines > 1)
		footer_line(ret, m, v);
	return 0;
}

void top_frame_fini(struct top_frame *f)
{
	free(f->text);
	free(f->attr);
	*f = (struct top_frame){ .cols = 0 };
}
