/* mpamctl top: the partitions' bandwidth, limits and states, refreshed every daemon tick. This file
 * is the terminal and the loop only: the data is top_model.c's, the columns top_layout.c's and the
 * screen top_frame.c's, so --once prints the very frame the live view draws. */
#include <curses.h>
#include <getopt.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/ctl_client.h"
#include "cli/mpamctl.h"
#include "cli/top_frame.h"
#include "cli/top_model.h"
#include "core/base/parse.h"

#define REFRESH_MIN_MS	   100	   /* faster than this only redraws the same numbers */
#define REFRESH_MAX_MS	   3600000 /* an hour */
#define REFRESH_DEFAULT_MS 1000	   /* until the daemon says its interval */
#define PLAIN_COLUMNS	   80

struct top_session {
	const char *socket_path;
	int interval_override; /* --interval, 0 when not given */
	struct top_model model;
	bool have_model;
	char error[ERR_TEXT_MAX]; /* why there is no model */
	int error_exit;		  /* and the exit code it gives, as the other commands' (cli/mpamctl.h) */
	struct top_view view;
};

static void top_usage(FILE *out)
{
	fprintf(out,
		"Usage: mpamctl [--socket PATH] top [--interval MS] [--once]\n"
		"\n"
		"A live view of every partition: its class, a bar of its MB/s against its limit and\n"
		"guarantee, the MB/s, mb_max/mb_min, the state of its sample and its last event, refreshed\n"
		"every daemon tick. The bar runs from 0 to the host's capacity (or to the largest number\n"
		"shown when mpamd does not know it): '#' the rate, '|' the limit (mb_max%% of the\n"
		"capacity, or the target), '+' the guarantee. States: measured, estimated (extrapolated from\n"
		"a shared monitor), invalid (no sample this tick), failed (the partition did not open).\n"
		"\n"
		"Keys:\n"
		"  q   quit\n"
		"  s   sort by name, bandwidth or class\n"
		"  r   reverse the order\n"
		"  p   pause (keep the data on screen) or resume\n"
		"  d   show or hide the per-domain rows, when mpamd sends them\n"
		"\n"
		"Options:\n"
		"  -i, --interval MS  refresh every MS milliseconds (%d..%d; default: the daemon's\n"
		"                     interval_ms, at least %d)\n"
		"      --once         print one frame as plain text and exit (also when stdout or stdin is\n"
		"                     not a terminal); $COLUMNS sets its width (default %d)\n"
		"  -h, --help         show this help\n"
		"\n"
		"Exit status: 0 on q (or after the frame), 1 when --once gets no data from mpamd (it\n"
		"refused, or its reply makes no sense) or the terminal cannot be driven, 2 usage error,\n"
		"3 when --once finds no mpamd answering on the control socket.\n",
		REFRESH_MIN_MS, REFRESH_MAX_MS, REFRESH_MIN_MS, PLAIN_COLUMNS);
}

/* ---- data ---- */

static int refresh_ms(const struct top_session *s)
{
	double daemon = s->have_model ? s->model.status.interval_ms : NAN;

	if (s->interval_override)
		return s->interval_override;
	if (isnan(daemon))
		return s->view.refresh_ms ? s->view.refresh_ms : REFRESH_DEFAULT_MS;
	return daemon < REFRESH_MIN_MS ? REFRESH_MIN_MS : daemon > REFRESH_MAX_MS ? REFRESH_MAX_MS : (int)daemon;
}

/* One status and one list request, each on its own connection. Failure leaves no model, only why. */
static void fetch(struct top_session *s)
{
	json_t *status = NULL, *list = NULL;
	struct err err = { { 0 } };
	struct top_model fresh;
	enum ctl_client_outcome outcome;
	int r = -1;

	outcome = ctl_client_call(s->socket_path, "status", NULL, NULL, 0, &status, &err);
	if (outcome == CTL_CLIENT_OK)
		outcome = ctl_client_call(s->socket_path, "list", NULL, NULL, 0, &list, &err);
	if (outcome == CTL_CLIENT_OK)
		r = top_model_build(status, list, &fresh, &err);
	s->error_exit = outcome == CTL_CLIENT_OK ? EXIT_FAILED : ctl_client_exit_code(outcome);
	json_decref(status);
	json_decref(list);
	if (s->have_model)
		top_model_fini(&s->model);
	s->have_model = r == 0;
	if (r == 0) {
		s->model = fresh;
		top_model_sort(&s->model, s->view.sort, s->view.reverse);
	}
	snprintf(s->error, sizeof(s->error), "%s", r == 0 ? "" : err.text);
	s->view.error = r == 0 ? NULL : s->error;
	s->view.refresh_ms = refresh_ms(s);
}

/* ---- one plain frame ---- */

static int plain_columns(void)
{
	const char *env = getenv("COLUMNS");
	uint64_t cols;

	if (env && parse_uint(env, 20, 1000, &cols, NULL) == 0)
		return (int)cols;
	return PLAIN_COLUMNS;
}

static int print_once(struct top_session *s)
{
	struct top_frame f;

	s->view.interactive = false;
	fetch(s);
	if (top_frame_render(s->have_model ? &s->model : NULL, &s->view, plain_columns(), 0, &f) < 0) {
		fprintf(stderr, "mpamctl top: out of memory\n");
		return EXIT_FAILED;
	}
	for (int y = 0; y < f.lines; y++) {
		const char *line = top_frame_line(&f, y);
		int len = f.cols;
		while (len > 0 && line[len - 1] == ' ')
			len--;
		printf("%.*s\n", len, line);
	}
	top_frame_fini(&f);
	if (!s->have_model)
		fprintf(stderr, "mpamctl top: %s\n", s->error);
	if (fflush(stdout) != 0)
		return EXIT_FAILED;
	return s->have_model ? EXIT_OK : s->error_exit;
}

/* ---- the terminal ---- */

static attr_t attrs[TOP_ATTR_COUNT];

/* Colour is a help, never the only sign: every marker is a character too. */
static bool want_colour(void)
{
	const char *no_color = getenv("NO_COLOR");

	return has_colors() && !(no_color && *no_color);
}

static void setup_attrs(bool colour)
{
	enum {
		GREEN = 1,
		RED,
		CYAN,
		YELLOW
	};

	attrs[TOP_ATTR_TITLE] = A_BOLD;
	attrs[TOP_ATTR_HEADING] = A_REVERSE;
	attrs[TOP_ATTR_KEYS] = A_REVERSE;
	attrs[TOP_ATTR_PAUSED] = A_REVERSE | A_BOLD;
	attrs[TOP_ATTR_OVER] = attrs[TOP_ATTR_LIMIT] = attrs[TOP_ATTR_GUARANTEE] = A_BOLD;
	attrs[TOP_ATTR_WARN] = attrs[TOP_ATTR_BAD] = A_BOLD;
	if (!colour || start_color() == ERR)
		return;
	short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
	init_pair(GREEN, COLOR_GREEN, bg);
	init_pair(RED, COLOR_RED, bg);
	init_pair(CYAN, COLOR_CYAN, bg);
	init_pair(YELLOW, COLOR_YELLOW, bg);
	attrs[TOP_ATTR_FILL] = COLOR_PAIR(GREEN);
	attrs[TOP_ATTR_OVER] = attrs[TOP_ATTR_LIMIT] = attrs[TOP_ATTR_BAD] = COLOR_PAIR(RED) | A_BOLD;
	attrs[TOP_ATTR_GUARANTEE] = COLOR_PAIR(CYAN) | A_BOLD;
	attrs[TOP_ATTR_WARN] = COLOR_PAIR(YELLOW);
	attrs[TOP_ATTR_PAUSED] = COLOR_PAIR(YELLOW) | A_REVERSE | A_BOLD;
}

/* Runs of one attribute at a time. The bottom-right cell is never written: curses would scroll. */
static void draw_line(const struct top_frame *f, int y)
{
	const char *text = top_frame_line(f, y);
	const unsigned char *a = top_frame_attrs(f, y);
	int end = y == f->lines - 1 ? f->cols - 1 : f->cols;

	for (int x = 0; x < end;) {
		int run = 1;
		while (x + run < end && a[x + run] == a[x])
			run++;
		attrset(attrs[a[x] < TOP_ATTR_COUNT ? a[x] : TOP_ATTR_PLAIN]);
		mvaddnstr(y, x, text + x, run);
		x += run;
	}
}

static void draw(struct top_session *s)
{
	struct top_frame f;

	if (top_frame_render(s->have_model ? &s->model : NULL, &s->view, COLS, LINES, &f) < 0)
		return; /* the previous screen stays; the next tick tries again */
	erase();
	for (int y = 0; y < f.lines; y++)
		draw_line(&f, y);
	attrset(A_NORMAL);
	refresh();
	top_frame_fini(&f);
}

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A key's effect on the view; returns false for quit. */
static bool handle_key(struct top_session *s, int key)
{
	switch (key) {
	case 'q':
	case 'Q':
		return false;
	case 's':
		s->view.sort = (enum top_sort)((s->view.sort + 1) % TOP_SORT_COUNT);
		break;
	case 'r':
		s->view.reverse = !s->view.reverse;
		break;
	case 'p':
		s->view.paused = !s->view.paused;
		break;
	case 'd':
		s->view.show_domains = !s->view.show_domains;
		break;
	default:
		return true; /* KEY_RESIZE among them: the next draw lays out for LINES x COLS */
	}
	if (s->have_model)
		top_model_sort(&s->model, s->view.sort, s->view.reverse);
	return true;
}

static void run_loop(struct top_session *s)
{
	long long next_fetch = 0;

	for (;;) {
		long long now = ms_now();
		if (!s->view.paused && now >= next_fetch) {
			fetch(s);
			now = ms_now();
			next_fetch = now + s->view.refresh_ms;
		}
		draw(s);
		/* Paused, only a key (or a resize) changes the screen. */
		timeout(s->view.paused ? -1 : (int)(next_fetch > now ? next_fetch - now : 0));
		int key = getch();
		if (key != ERR && !handle_key(s, key))
			return;
	}
}

static int run_live(struct top_session *s)
{
	setlocale(LC_ALL, "");
	SCREEN *screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		const char *term = getenv("TERM");
		fprintf(stderr, "mpamctl top: cannot drive terminal type '%s'; try 'mpamctl top --once'\n",
			term ? term : "");
		return EXIT_FAILED;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	setup_attrs(want_colour());
	s->view.interactive = true;
	run_loop(s);
	endwin();
	delscreen(screen);
	return EXIT_OK;
}

/* ---- the command ---- */

static int parse_options(int argc, char **argv, struct top_session *s, bool *once)
{
	static const struct option options[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct err err = { { 0 } };
	uint64_t ms;
	int opt;

	while ((opt = getopt_long(argc, argv, "+i:h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (parse_uint(optarg, REFRESH_MIN_MS, REFRESH_MAX_MS, &ms, &err) < 0) {
				fprintf(stderr, "mpamctl top: --interval %s: %s\n", optarg, err.text);
				return EXIT_USAGE;
			}
			s->interval_override = (int)ms;
			break;
		case 'o':
			*once = true;
			break;
		case 'h':
			top_usage(stdout);
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'mpamctl top --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mpamctl top: unexpected argument '%s'. Try 'mpamctl top --help'.\n", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_top(int argc, char **argv, const struct ctl_options *opts)
{
	struct top_session s = { .socket_path = opts->socket_path };
	bool once = false;

	int rc = parse_options(argc, argv, &s, &once);
	if (rc >= 0)
		return rc;
	if (opts->json) {
		fprintf(stderr, "mpamctl top: no JSON view; 'mpamctl --json list' and 'status' give the data\n");
		return EXIT_USAGE;
	}
	s.view.socket_path = s.socket_path;
	s.view.refresh_ms = s.interval_override ? s.interval_override : REFRESH_DEFAULT_MS;
	if (once || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		rc = print_once(&s);
	else
		rc = run_live(&s);
	if (s.have_model)
		top_model_fini(&s.model);
	return rc;
}
