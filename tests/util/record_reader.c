#include "core/engine/registry.h"
#include "tests/util/record_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/config/config.h"
#include "core/report/record_columns.h"
#include "tests/util/engine_util.h"

#define MAX_FIELDS 32

/* Stricter than the record's own required columns: every file a test reads has these. */
#define TESTS_ALSO_REQUIRE \
	(RECORD_COL_BIT(RECORD_COL_VALID) | RECORD_COL_BIT(RECORD_COL_ESTIMATED) | RECORD_COL_BIT(RECORD_COL_EVENT))

struct layout {
	const char *path;
	struct record_layout columns; /* found by their header names (any order, others ignored) */
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
	size_t n = split_csv(header, f, MAX_FIELDS + 1);
	struct err err = { "" };

	if (record_layout_read(&l->columns, (const char *const *)f, n, TESTS_ALSO_REQUIRE, &err) < 0) {
		fprintf(stderr, "record_read: %s:1: %s\n", l->path, err.text);
		return false;
	}
	return true;
}

/* Field `col` of a row, read as its column says; false (and said) when it does not take it. */
static bool read_field(const struct layout *l, unsigned long line_no, char **f, enum record_col col,
		       struct record_value *v)
{
	struct err err = { "" };

	if (record_field_parse(col, f[l->columns.at[col]], v, &err) == 0)
		return true;
	fprintf(stderr, "record_read: %s:%lu: %s\n", l->path, line_no, err.text);
	return false;
}

/* Fills the line's member that column `col` is read into. */
static void put_value(struct record_line *row, enum record_col col, const struct record_value *v)
{
	switch (col) {
	case RECORD_COL_TIME:
		row->has_time = true;
		row->time_ms = v->time_ms;
		break;
	case RECORD_COL_T_MS:
		row->t_ms = v->ms;
		break;
	case RECORD_COL_PARTITION:
		snprintf(row->partition, sizeof(row->partition), "%s", v->text);
		break;
	case RECORD_COL_DOMAIN:
		snprintf(row->domain, sizeof(row->domain), "%s",
			 record_domain_is_total(v->text) ? RECORD_DOMAIN_TOTAL : v->text);
		break;
	case RECORD_COL_MBPS:
		row->has_mbps = !v->empty;
		row->mbps = v->number;
		break;
	case RECORD_COL_MB_MAX:
		row->mb_max = v->number;
		break;
	case RECORD_COL_MB_MIN:
		row->mb_min = v->number;
		break;
	case RECORD_COL_VALID:
		row->valid = v->number != 0;
		break;
	case RECORD_COL_ESTIMATED:
		row->estimated = v->number != 0;
		break;
	case RECORD_COL_EVENT:
		snprintf(row->event, sizeof(row->event), "%s", v->text);
		break;
	case RECORD_COL_SIM_MBPS:
		row->sim_mbps = v->number;
		break;
	case RECORD_COL_IPC:
		row->has_ipc = !v->empty;
		row->ipc = v->number;
		break;
	case RECORD_COL_GUARANTEE_MBPS:
		row->has_guarantee = !v->empty;
		row->guarantee_mbps = v->number;
		break;
	case RECORD_COL_TARGET_MBPS:
		row->has_target = !v->empty;
		row->target_mbps = v->number;
		break;
	case RECORD_COL_HW_CLASS:
		row->in_class = !v->empty;
		row->class_id = v->class_id;
		break;
	case RECORD_COL_MB_MAX_ASKED:
		row->has_mb_max_asked = !v->empty;
		row->mb_max_asked = v->number;
		break;
	default:
		break; /* what the tests do not read */
	}
}

enum line_read {
	LINE_ROW,
	LINE_CUT,
	LINE_BAD
};

/* One line into *row. `forgive`: a row with fewer fields than the header is LINE_CUT (skipped), not
 * an error. */
static enum line_read parse_line(const struct layout *l, unsigned long line_no, char *line, bool forgive,
				 struct record_line *row)
{
	char *f[MAX_FIELDS + 1] = { 0 };
	size_t n = split_csv(line, f, MAX_FIELDS + 1);

	if (forgive && n < l->columns.fields)
		return LINE_CUT;
	if (n != l->columns.fields) {
		fprintf(stderr, "record_read: %s:%lu: %zu fields where the header has %zu\n", l->path, line_no, n,
			l->columns.fields);
		return LINE_BAD;
	}
	memset(row, 0, sizeof(*row));
	snprintf(row->domain, sizeof(row->domain), RECORD_DOMAIN_TOTAL); /* a file without a domain column */
	for (enum record_col col = 0; col < RECORD_COL_COUNT; col++) {
		struct record_value v;
		if (l->columns.at[col] < 0)
			continue;
		if (!read_field(l, line_no, f, col, &v))
			return LINE_BAD;
		put_value(row, col, &v);
	}
	return LINE_ROW;
}

static bool is_total(const struct record_line *row)
{
	return !strcmp(row->domain, "*");
}

/* cut NULL: every row must parse; else a row with fewer fields than the header is counted there and
 * skipped, as the product's reader does. */
static long read_rows(const char *path, char *header, size_t len, struct record_line **ret_rows, long *cut)
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
		enum line_read got = room ? parse_line(&layout, line_no, line, cut != NULL, &rows[count]) : LINE_BAD;
		if (got == LINE_BAD) {
			count = -1;
			break;
		}
		if (got == LINE_CUT)
			(*cut)++;
		else
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

long record_read_all(const char *path, char *header, size_t len, struct record_line **ret_rows)
{
	return read_rows(path, header, len, ret_rows, NULL);
}

/* The partitions' totals of what read_rows reads. */
static long read_totals(const char *path, char *header, size_t len, struct record_line **ret_rows, long *cut)
{
	struct record_line *rows = NULL;
	long all = read_rows(path, header, len, &rows, cut), totals = 0;

	for (long i = 0; i < all; i++)
		if (is_total(&rows[i]))
			rows[totals++] = rows[i];
	if (all >= 0)
		*ret_rows = rows;
	return all < 0 ? all : totals;
}

long record_read(const char *path, char *header, size_t len, struct record_line **ret_rows)
{
	return read_totals(path, header, len, ret_rows, NULL);
}

long record_read_forgiving(const char *path, char *header, size_t len, struct record_line **ret_rows, long *ret_cut)
{
	*ret_cut = 0;
	return read_totals(path, header, len, ret_rows, ret_cut);
}

/* The default registry's schema is the default schema (registry.c), so engine_util's loader serves. */
struct config *load_config_text(const char *text)
{
	return load_config_for(&engine_registry_default, text);
}
