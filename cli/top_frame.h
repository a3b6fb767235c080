/* One screen of mpamctl top, as text with an attribute per character: drawn by ncurses in the live
 * view and printed as plain text by --once, from the same code. Pure.
 *
 *   mpamd sim  ticks 30  overruns 0  capacity 20000 MB/s  refresh 100 ms
 *   NAME   CLASS            BANDWIDTH      MB/s MAX/MIN STATE    EVENT
 *   batch  best-effort      [#########   ] 14394.7   100/0 measured
 *   tenant default          [#|          ]  2578.1   13/0 measured throttle: new ...
 *   q quit  s sort: name  r reverse  p pause  d domains
 *
 * The bar runs from 0 to the host's capacity (or, when mpamd does not know it, to the largest rate,
 * target or guarantee shown): '#' is the rate, '|' the limit (mb_max percent of the capacity; the
 * target when there is no capacity), '+' the guarantee (guarantee_mbps, else mb_min percent of the
 * capacity). Markers are characters, so the bar reads the same without colour. */
#ifndef MPAMD_CLI_TOP_FRAME_H
#define MPAMD_CLI_TOP_FRAME_H

#include <stdbool.h>

#include "cli/top_model.h"

#define TOP_FILL      '#'
#define TOP_LIMIT     '|'
#define TOP_GUARANTEE '+'

/* What a character is, for the colours and attributes of the live view. */
enum top_attr {
	TOP_ATTR_PLAIN,
	TOP_ATTR_TITLE,	    /* the header line */
	TOP_ATTR_HEADING,   /* the column headings */
	TOP_ATTR_FILL,	    /* the rate, within the limit */
	TOP_ATTR_OVER,	    /* the rate beyond the limit marker */
	TOP_ATTR_LIMIT,	    /* the limit marker */
	TOP_ATTR_GUARANTEE, /* the guarantee marker */
	TOP_ATTR_WARN,	    /* an estimated sample */
	TOP_ATTR_BAD,	    /* an invalid or failed partition, a daemon that does not answer */
	TOP_ATTR_PAUSED,
	TOP_ATTR_KEYS, /* the footer */
	TOP_ATTR_COUNT,
};

struct top_view {
	enum top_sort sort;
	bool reverse, paused, show_domains;
	bool interactive;	 /* the live view: a keys line, "retrying" */
	int refresh_ms;		 /* how often the data is fetched */
	const char *socket_path; /* named when the daemon does not answer */
	const char *error;	 /* why there is no data, or NULL */
};

struct top_frame {
	int cols, lines;
	char *text;	     /* lines of cols characters, each NUL-terminated (stride cols + 1) */
	unsigned char *attr; /* enum top_attr per character (stride cols) */
};

/* Draws `m` (sorted already; may be NULL when view->error says why) into a frame of `cols` by
 * `lines`; 0 lines means as many as every row needs. Returns 0 or -ENOMEM. */
int top_frame_render(const struct top_model *m, const struct top_view *view, int cols, int lines,
		     struct top_frame *ret);
void top_frame_fini(struct top_frame *f);

static inline const char *top_frame_line(const struct top_frame *f, int y)
{
	return f->text + (long)y * (f->cols + 1);
}

static inline const unsigned char *top_frame_attrs(const struct top_frame *f, int y)
{
	return f->attr + (long)y * f->cols;
}

#endif
