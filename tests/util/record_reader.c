#include "core/engine/registry.h"
#include "tests/util/record_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/rfc3339.h"
#include "core/config/config.h"

#define MAX_FIELDS 32

/* The columns the tests read, found by their header names (any order, others ignored). */
enum column {
	COL_T_MS,
	COL_PARTITION,
	COL_MBPS,
	COL_MB_MAX,
	COL_MB_MIN,
	COL_VALID,
	COL_ESTIMATED,
	COL_EVENT,
	COL_REQUIRED, /* the columns above are required, those below optional */
	COL_TIME = COL_REQUIRED,
	COL_SIM,
	COL_IPC,
	COL_DOMAIN,
	COL_COUNT,
};

static const char *const column_names[COL_COUNT] = {
	"t_ms",	     "partition", "mbps", "mb_max",   "mb_min", "valid",
	"estimated", "event",	  "time", "sim_mbps", "ipc",	"domain",
};

struct layout {
	const char *path;
	size_t fields;	   /* in the header */
	int at[COL_COUNT]; /* field index of each column, -1 when absent */
};

/* Splits one CSV line in place; quoted fields lose their quotes and doubled quotes. */
static size_t split_csv(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *out = line;

	for (char *p = line; n < max;) {
		fields[n++] = out;
		bool quoted = *p == '"';
		p += quoted;
		for (; *p && (quoted || *p != ','); p++) {
			if (quoted && *p == '"') {
				if (p[1] != '"') {
					quoted = false;
					continue;
				}
				p++;
			}
			*out++ = *p;
		}
		bool more = *p == ',';
		*out++ = '\0';
		if (!more)
			break;
		p++;
	}
	return n;
}

static bool read_layout(char *header, struct layout *l)
{
	char *f[MAX_FIELDS + 1];

	l->fields = split_csv(header, f, MAX_FIELDS + 1);
	for (size_t c = 0; c < COL_COUNT; c++) {
		l->at[c] = -1;
		for (size_t i = 0; i < l->fields; i++)
			if (!strcmp(f[i], column_names[c]))
				l->at[c] = (int)i;
		if (c < COL_REQUIRED && l->at[c] < 0) {
			fprintf(stderr, "record_read: %s:1: no column %s\n", l->path, column_names[c]);
			return false;
		}
	}
	return true;
}

static bool parse_line(const struct layout *l, unsigned long line_no, char *line, struct record_line *row)
{
	char *f[MAX_FIELDS + 1] = { 0 };
	size_t n = split_csv(line, f, MAX_FIELDS + 1);
	struct err err = { "" };

	if (n != l->fields) {
		fprintf(stderr, "record_read: %s:%lu: %zu fields where the header has %zu\n", l->path, line_no, n,
			l->fields);
		return false;
	}
	memset(row, 0, sizeof(*row));
	row->t_ms = strtoull(f[l->at[COL_T_MS]], NULL, 10);
	snprintf(row->partition, sizeof(row->partition), "%s", f[l->at[COL_PARTITION]]);
	row->has_mbps = f[l->at[COL_MBPS]][0] != '\0';
	row->mbps = strtod(f[l->at[COL_MBPS]], NULL);
	row->mb_max = (unsigned)strtoul(f[l->at[COL_MB_MAX]], NULL, 10);
	row->mb_min = (unsigned)strtoul(f[l->at[COL_MB_MIN]], NULL, 10);
	row->valid = atoi(f[l->at[COL_VALID]]);
	row->estimated = atoi(f[l->at[COL_ESTIMATED]]);
	snprintf(row->event, sizeof(row->event), "%s", f[l->at[COL_EVENT]]);
	row->sim_mbps = l->at[COL_SIM] >= 0 ? strtod(f[l->at[COL_SIM]], NULL) : 0;
	row->has_ipc = l->at[COL_IPC] >= 0 && f[l->at[COL_IPC]][0] != '\0';
	snprintf(row->domain, sizeof(row->domain), "%s", l->at[COL_DOMAIN] >= 0 ? f[l->at[COL_DOMAIN]] : "*");
	if (!row->domain[0])
		snprintf(row->domain, sizeof(row->domain), "*");
	row->ipc = row->has_ipc ? strtod(f[l->at[COL_IPC]], NULL) : 0;
	if (l->at[COL_TIME] >= 0) {
		const char *time = f[l->at[COL_TIME]];
		if (rfc3339_parse_ms(time, &row->time_ms, &err) < 0) {
			fprintf(stderr, "record_read: %s:%lu: bad time '%s': %s\n", l->path, line_no, time, err.text);
			return false;
		}
		row->has_time = true;
	}
	return true;
}

static bool is_total(const struct record_line *row)
{
	return !strcmp(row->domain, "*");
}

long record_read(const char *path, char *header, size_t len, struct record_line **ret_rows)
{
	struct record_line *rows = NULL;
	long all = record_read_all(path, header, len, &rows), totals = 0;

	for (long i = 0; i < all; i++)
		if (is_total(&rows[i]))
			rows[totals++] = rows[i];
	if (all >= 0)
		*ret_rows = rows;
	return all < 0 ? all : totals;
}

long record_read_all(const char *path, char *header, size_t len, struct record_line **ret_rows)
{
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	struct record_line *rows = NULL;
	struct layout layout = { .path = path };
	long count = 0;
	unsigned long line_no = 1;

	if (!in || getline(&line, &cap, in) < 0) {
		fprintf(stderr, "record_read: %s has no header\n", path);
		if (in)
			fclose(in);
		free(line);
		return -1;
	}
	line[strcspn(line, "\n")] = '\0';
	snprintf(header, len, "%s", line);
	if (!read_layout(line, &layout))
		count = -1;
	size_t rows_cap = 0;
	while (count >= 0 && getline(&line, &cap, in) >= 0) {
		line_no++;
		line[strcspn(line, "\n")] = '\0';
		/* Doubling: a long record (a row per domain too) is read in linear time. */
		bool room = array_grow((void **)&rows, &rows_cap, (size_t)count + 1, sizeof(*rows), NULL) == 0;
		if (!room || !parse_line(&layout, line_no, line, &rows[count])) {
			count = -1;
			break;
		}
		count++;
	}
	free(line);
	fclose(in);
	if (count >= 0)
		*ret_rows = rows;
	else
		free(rows);
	return count;
}

struct config *load_config_text(const char *text)
{
	struct diag_list diags;
	struct config *config = NULL;

	diag_list_init(&diags, "scenario.ini");
	int r = config_load_string(text, engine_default_schema(), NULL, &config, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	return r == 0 ? config : NULL;
}
