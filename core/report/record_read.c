#include "core/report/record_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/file_read.h"
#include "core/report/record_columns.h"

/* Limits that keep a damaged file from taking all memory or time. */
#define RECORD_MAX_BYTES  (1u << 20) /* one record (line), quotes included */
#define RECORD_MAX_FIELDS 1024
#define RECORD_MAX_NAMES  4096 /* distinct partitions, distinct domains */

/* ---- CSV records ---- */

struct csv {
	FILE *in;
	const char *name;
	unsigned long line;  /* physical line of the next character */
	unsigned long start; /* line where the current record started */
	char *text;	     /* the record's fields, each NUL-terminated */
	size_t len, cap;
	size_t *fields; /* offsets into text */
	size_t count, fields_cap;
	uint64_t left;	 /* bytes it may still read (a file that grows while read stops here) */
	bool past_limit; /* it tried to read more: the input ended there, as if cut */
};

static int csv_getc(struct csv *csv)
{
	if (csv->left == 0) {
		csv->past_limit = getc(csv->in) != EOF;
		return EOF;
	}
	int c = getc(csv->in);
	csv->left -= c != EOF;
	return c;
}

static int csv_put(struct csv *csv, char c, struct err *err)
{
	if (csv->len + 1 >= csv->cap) {
		if (csv->cap >= RECORD_MAX_BYTES)
			return err_set(err, -E2BIG, "%s:%lu: line too long (more than %u bytes)", csv->name, csv->start,
				       RECORD_MAX_BYTES);
		size_t cap = csv->cap ? csv->cap * 2 : 256;
		char *grown = realloc(csv->text, cap);
		if (!grown)
			return err_set(err, -ENOMEM, "%s:%lu: out of memory", csv->name, csv->start);
		csv->text = grown;
		csv->cap = cap;
	}
	csv->text[csv->len++] = c;
	return 0;
}

static int csv_begin_field(struct csv *csv, struct err *err)
{
	if (csv->count == csv->fields_cap) {
		if (csv->fields_cap >= RECORD_MAX_FIELDS)
			return err_set(err, -E2BIG, "%s:%lu: too many fields (more than %u)", csv->name, csv->start,
				       RECORD_MAX_FIELDS);
		size_t cap = csv->fields_cap ? csv->fields_cap * 2 : 16;
		size_t *grown = realloc(csv->fields, cap * sizeof(*grown));
		if (!grown)
			return err_set(err, -ENOMEM, "%s:%lu: out of memory", csv->name, csv->start);
		csv->fields = grown;
		csv->fields_cap = cap;
	}
	csv->fields[csv->count++] = csv->len;
	return 0;
}

static const char *csv_field(const struct csv *csv, size_t i)
{
	return csv->text + csv->fields[i];
}

/* After a line break character `c` (CR or LF): consumes the LF of a CRLF. */
static int csv_end_line(struct csv *csv, int c, struct err *err)
{
	if (c == '\r') {
		int next = csv_getc(csv);
		if (next != '\n')
			return err_set(err, -EINVAL, "%s:%lu: carriage return not followed by a line feed", csv->name,
				       csv->line);
	}
	csv->line++;
	return 0;
}

/* Reads one record into csv->fields. Returns 1, 0 at the end of the input, or a negative errno.
 * Empty lines are skipped. */
static int csv_read(struct csv *csv, struct err *err)
{
	int c, r;

	for (;;) {
		csv->start = csv->line;
		c = csv_getc(csv);
		if (c == EOF)
			return ferror(csv->in) ? err_set(err, -EIO, "%s:%lu: read error", csv->name, csv->line) : 0;
		if (c != '\n' && c != '\r')
			break;
		if ((r = csv_end_line(csv, c, err)) < 0)
			return r;
	}
	csv->len = 0;
	csv->count = 0;
	for (;;) {
		/* c is the field's first character */
		if ((r = csv_begin_field(csv, err)) < 0)
			return r;
		if (c == '"') {
			for (;;) {
				c = csv_getc(csv);
				if (c == EOF)
					return err_set(err, -EINVAL, "%s:%lu: unterminated quoted field", csv->name,
						       csv->start);
				if (c == '"') {
					c = csv_getc(csv);
					if (c != '"')
						break;
				} else if (c == '\n') {
					csv->line++;
				} else if (c == '\0') {
					return err_set(err, -EINVAL, "%s:%lu: NUL byte", csv->name, csv->line);
				}
				if ((r = csv_put(csv, (char)c, err)) < 0)
					return r;
			}
			if (c != ',' && c != '\n' && c != '\r' && c != EOF)
				return err_set(err, -EINVAL, "%s:%lu: unexpected character after a closing quote",
					       csv->name, csv->line);
		} else {
			for (; c != ',' && c != '\n' && c != '\r' && c != EOF; c = csv_getc(csv)) {
				if (c == '"')
					return err_set(err, -EINVAL, "%s:%lu: quote inside an unquoted field",
						       csv->name, csv->line);
				if (c == '\0')
					return err_set(err, -EINVAL, "%s:%lu: NUL byte", csv->name, csv->line);
				if ((r = csv_put(csv, (char)c, err)) < 0)
					return r;
			}
		}
		if ((r = csv_put(csv, '\0', err)) < 0)
			return r;
		if (c == ',') {
			c = csv_getc(csv);
			continue;
		}
		if (c == EOF) {
			if (ferror(csv->in))
				return err_set(err, -EIO, "%s:%lu: read error", csv->name, csv->line);
			return 1;
		}
		if ((r = csv_end_line(csv, c, err)) < 0)
			return r;
		return 1;
	}
}

/* "FILE:LINE: " before what core/report/record_columns.c said (err_prefix would cut a long path). */
static int located(const struct csv *csv, int r, struct err *err)
{
	char what[ERR_TEXT_MAX];

	if (!err)
		return r;
	memcpy(what, err->text, sizeof(what));
	return err_set(err, r, "%s:%lu: %s", csv->name, csv->start, what);
}

/* ---- columns (core/report/record_columns.h) ---- */

#define COL_IGNORED (-1)

/* What the file has, for the caller. */
static const unsigned column_flags[RECORD_COL_COUNT] = {
	[RECORD_COL_VALID] = RECORD_HAS_VALID,	      [RECORD_COL_ESTIMATED] = RECORD_HAS_ESTIMATED,
	[RECORD_COL_EVENT] = RECORD_HAS_EVENT,	      [RECORD_COL_SIM_MBPS] = RECORD_HAS_SIM,
	[RECORD_COL_DOMAIN] = RECORD_HAS_DOMAIN,      [RECORD_COL_GUARANTEE_MBPS] = RECORD_HAS_GUARANTEE,
	[RECORD_COL_TARGET_MBPS] = RECORD_HAS_TARGET, [RECORD_COL_TIME] = RECORD_HAS_TIME,
};
/* Nothing here uses them: left unchecked, as a column of no name the table knows is. */
#define COLUMNS_IGNORED RECORD_COL_BIT(RECORD_COL_IPC)

struct reader {
	struct csv csv;
	struct record_file *file;
	int *roles; /* per header field: enum record_col or COL_IGNORED */
	size_t header_count;
	long last_partition;
	size_t samples_cap;
	record_sample_fn *each; /* NULL: keep the samples in file->samples */
	void *ctx;
	struct record_sample one; /* the sample handed to `each` */
	uint64_t rows, last_t_ms;
};

/* The header's fields by their names, as the record's columns declare them. */
static int read_layout(struct reader *rd, struct err *err)
{
	struct csv *csv = &rd->csv;
	struct record_layout layout;
	const char **names = calloc(csv->count, sizeof(*names));

	if (!names)
		return err_set(err, -ENOMEM, "%s: out of memory", csv->name);
	for (size_t i = 0; i < csv->count; i++)
		names[i] = csv_field(csv, i);
	int r = record_layout_read(&layout, names, csv->count, 0, err);
	free(names);
	if (r < 0)
		return located(csv, r, err);
	for (size_t i = 0; i < csv->count; i++)
		rd->roles[i] = COL_IGNORED;
	for (int c = 0; c < RECORD_COL_COUNT; c++) {
		if (layout.at[c] < 0 || (COLUMNS_IGNORED & RECORD_COL_BIT(c)))
			continue;
		rd->roles[layout.at[c]] = c;
		rd->file->columns |= column_flags[c];
	}
	return 0;
}

static int read_header(struct reader *rd, struct err *err)
{
	struct csv *csv = &rd->csv;
	int r = csv_read(csv, err);

	if (r < 0)
		return r;
	if (r == 0)
		return err_set(err, -EINVAL, "%s: empty file: no header line", csv->name);
	rd->header_count = csv->count;
	rd->roles = calloc(csv->count, sizeof(*rd->roles));
	if (!rd->roles)
		return err_set(err, -ENOMEM, "%s: out of memory", csv->name);
	return read_layout(rd, err);
}

static int intern(struct reader *rd, char ***names, size_t *count, size_t first, const char *name, unsigned *ret,
		  const char *what, struct err *err)
{
	for (size_t i = first; i < *count; i++) {
		if (!strcmp((*names)[i], name)) {
			*ret = (unsigned)i;
			return 0;
		}
	}
	if (*count >= RECORD_MAX_NAMES)
		return err_set(err, -E2BIG, "%s:%lu: too many distinct %s (more than %u)", rd->csv.name, rd->csv.start,
			       what, RECORD_MAX_NAMES);
	/* counts stay small: grow one by one */
	char **grown = realloc(*names, (*count + 1) * sizeof(*grown));
	if (!grown)
		return err_set(err, -ENOMEM, "%s: out of memory", rd->csv.name);
	*names = grown;
	grown[*count] = strdup(name);
	if (!grown[*count])
		return err_set(err, -ENOMEM, "%s: out of memory", rd->csv.name);
	*ret = (unsigned)(*count)++;
	return 0;
}

static int parse_field(struct reader *rd, int col, const char *s, struct record_sample *out, struct err *err)
{
	struct record_file *file = rd->file;
	struct record_value v;

	if (col == COL_IGNORED)
		return 0;
	int r = record_field_parse(col, s, &v, err);
	if (r < 0)
		return located(&rd->csv, r, err);
	switch (col) {
	case RECORD_COL_T_MS:
		out->t_ms = v.ms;
		return 0;
	case RECORD_COL_TIME:
		out->time_ms = v.time_ms;
		return 0;
	case RECORD_COL_PARTITION:
		if (rd->last_partition >= 0 && !strcmp(file->partitions[rd->last_partition], s)) {
			out->partition = (unsigned)rd->last_partition;
			return 0;
		}
		r = intern(rd, &file->partitions, &file->partition_count, 0, s, &out->partition, "partitions", err);
		if (r == 0)
			rd->last_partition = out->partition;
		return r;
	case RECORD_COL_DOMAIN:
		if (record_domain_is_total(s)) {
			out->domain = 0;
			return 0;
		}
		return intern(rd, &file->domains, &file->domain_count, 1, s, &out->domain, "domains", err);
	case RECORD_COL_MB_MAX:
	case RECORD_COL_MB_MIN:
		/* empty: no limit was in force, not 0% (both empty, checked once the row is read) */
		if (v.empty)
			out->flags |= RECORD_NO_LIMITS;
		*(col == RECORD_COL_MB_MAX ? &out->mb_max : &out->mb_min) = v.empty ? -1 : v.number;
		return 0;
	case RECORD_COL_VALID:
	case RECORD_COL_ESTIMATED:
		if (v.number)
			out->flags |= col == RECORD_COL_VALID ? RECORD_VALID : RECORD_ESTIMATED;
		return 0;
	case RECORD_COL_EVENT:
		if (!v.empty && !(out->event = strdup(s)))
			return err_set(err, -ENOMEM, "%s: out of memory", rd->csv.name);
		return 0;
	case RECORD_COL_MB_MAX_ASKED:
		if (!v.empty) { /* empty: in no class */
			out->mb_max_asked = v.number;
			out->flags |= RECORD_MB_MAX_ASKED;
		}
		return 0;
	case RECORD_COL_MB_MAX_MBPS:
	case RECORD_COL_HW_CLASS:
		return 0; /* checked; mpamctl plot draws the limits in percent, the rest is for other tools */
	case RECORD_COL_MBPS:
	case RECORD_COL_SIM_MBPS:
	case RECORD_COL_GUARANTEE_MBPS:
	case RECORD_COL_TARGET_MBPS:
		if (v.empty)
			return 0; /* not measured, not set */
		if (col == RECORD_COL_MBPS) {
			out->mbps = v.number;
			out->flags |= RECORD_MBPS;
		} else if (col == RECORD_COL_SIM_MBPS) {
			out->sim_mbps = v.number;
			out->flags |= RECORD_SIM;
		} else if (col == RECORD_COL_GUARANTEE_MBPS) {
			out->guarantee_mbps = v.number;
			out->flags |= RECORD_GUARANTEE;
		} else {
			out->target_mbps = v.number;
			out->flags |= RECORD_TARGET;
		}
		return 0;
	default:
		return 0;
	}
}

/* Every run of mpamd counts t_ms from 0: a row whose t_ms is below the row before begins the next
 * run. The first row sets where the file's time line starts. */
static void place_in_run(struct reader *rd, struct record_sample *s)
{
	struct record_file *file = rd->file;

	if (rd->rows++ == 0) {
		file->run_count = 1;
		/* a t_ms past any real run (a damaged file) must not overflow: the origin is then the row's time */
		if (s->t_ms > INT64_MAX || __builtin_sub_overflow(s->time_ms, (int64_t)s->t_ms, &file->time_origin_ms))
			file->time_origin_ms = s->time_ms;
	} else if (s->t_ms < rd->last_t_ms) {
		file->run_count++;
	}
	rd->last_t_ms = s->t_ms;
	s->run = file->run_count - 1;
}

/* Where the next sample goes: the end of file->samples (grown), or the one handed to `each`. */
static int next_sample(struct reader *rd, struct record_sample **ret, struct err *err)
{
	struct record_file *file = rd->file;

	if (rd->each) {
		*ret = &rd->one;
		return 0;
	}
	if (file->sample_count == rd->samples_cap) {
		size_t want = rd->samples_cap ? rd->samples_cap * 2 : 64;
		if (want > SIZE_MAX / sizeof(*file->samples))
			return err_set(err, -ENOMEM, "%s: out of memory", rd->csv.name);
		struct record_sample *grown = realloc(file->samples, want * sizeof(*grown));
		if (!grown)
			return err_set(err, -ENOMEM, "%s: out of memory", rd->csv.name);
		file->samples = grown;
		rd->samples_cap = want;
	}
	*ret = &file->samples[file->sample_count];
	return 0;
}

static int read_row(struct reader *rd, struct err *err)
{
	struct csv *csv = &rd->csv;
	struct record_file *file = rd->file;
	if (csv->count < rd->header_count) {
		/* a row cut short: mpamd stopped while writing it, and the next run ended its line */
		if (file->cut_rows++ == 0)
			file->first_cut_line = csv->start;
		return 0;
	}
	if (csv->count > rd->header_count)
		return err_set(err, -EINVAL, "%s:%lu: too many fields: %zu where the header has %zu", csv->name,
			       csv->start, csv->count, rd->header_count);
	struct record_sample *s = NULL;
	int r = next_sample(rd, &s, err);
	if (r < 0)
		return r;
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < csv->count; i++) {
		r = parse_field(rd, rd->roles[i], csv_field(csv, i), s, err);
		if (r < 0) {
			free(s->event);
			return r;
		}
	}
	if ((s->flags & RECORD_NO_LIMITS) && (s->mb_max >= 0 || s->mb_min >= 0)) {
		free(s->event); /* one limit empty, the other not: not what mpamd writes */
		r = record_field_refused(s->mb_max >= 0 ? RECORD_COL_MB_MIN : RECORD_COL_MB_MAX, "", err);
		return located(csv, r, err);
	}
	if (s->flags & RECORD_NO_LIMITS)
		s->mb_max = s->mb_min = 0;
	if (!(file->columns & RECORD_HAS_VALID) && (s->flags & RECORD_MBPS))
		s->flags |= RECORD_VALID;
	place_in_run(rd, s);
	if (!rd->each) {
		file->sample_count++;
		return 0;
	}
	rd->each(rd->ctx, file, s);
	free(s->event);
	return 0;
}

/* The file read from `in`, its samples kept or handed to `each`; at most `max_bytes` of it. */
static int read_file(FILE *in, const char *name, uint64_t max_bytes, record_sample_fn *each, void *ctx,
		     struct record_file **ret, struct err *err)
{
	struct reader rd = { .csv = { .in = in, .name = name, .line = 1, .left = max_bytes },
			     .last_partition = -1,
			     .each = each,
			     .ctx = ctx };
	int r = -ENOMEM;

	rd.file = calloc(1, sizeof(*rd.file));
	if (!rd.file || !(rd.file->name = strdup(name)) || !(rd.file->domains = calloc(1, sizeof(char *))) ||
	    !(rd.file->domains[0] = strdup(""))) {
		err_set(err, r, "%s: out of memory", name);
		goto out;
	}
	rd.file->domain_count = 1;
	rd.csv.name = rd.file->name;
	r = read_header(&rd, err);
	while (r == 0) {
		r = csv_read(&rd.csv, err);
		if (r > 0)
			r = read_row(&rd, err);
		else if (r == 0)
			break;
	}
	if (rd.csv.past_limit) /* what it said of where the input stopped is not the reason */
		r = err_set(err, -EFBIG, "%s: more than %llu bytes (it grew while read)", name,
			    (unsigned long long)max_bytes);
out:
	free(rd.csv.text);
	free(rd.csv.fields);
	free(rd.roles);
	if (r < 0) {
		record_file_free(rd.file);
		return r;
	}
	*ret = rd.file;
	return 0;
}

int record_file_new_from_stream(FILE *in, const char *name, struct record_file **ret, struct err *err)
{
	return read_file(in, name, UINT64_MAX, NULL, NULL, ret, err);
}

int record_file_scan(const char *path, uint64_t max_bytes, record_sample_fn *each, void *ctx, struct record_file **ret,
		     struct err *err)
{
	struct err why = { "" };
	int fd;
	int r = file_open_regular(path, max_bytes > SIZE_MAX ? SIZE_MAX : (size_t)max_bytes, &fd, &why);

	if (r < 0)
		return err_set(err, r, "%s: %s", path, why.text);
	FILE *in = fdopen(fd, "r");
	if (!in) {
		r = -errno;
		close(fd);
		return err_set(err, r, "%s: %s", path, strerror(-r));
	}
	r = read_file(in, path, max_bytes, each, ctx, ret, err);
	fclose(in);
	return r;
}

int record_file_new(const char *path, struct record_file **ret, struct err *err)
{
	FILE *in = fopen(path, "re");

	if (!in) {
		int saved = errno;
		return err_set(err, -saved, "cannot open %s: %s", path, strerror(saved));
	}
	int r = record_file_new_from_stream(in, path, ret, err);
	fclose(in);
	return r;
}

void record_file_free(struct record_file *file)
{
	if (!file)
		return;
	for (size_t i = 0; i < file->sample_count; i++)
		free(file->samples[i].event);
	free(file->samples);
	for (size_t i = 0; i < file->partition_count; i++)
		free(file->partitions[i]);
	free(file->partitions);
	for (size_t i = 0; i < file->domain_count; i++)
		free(file->domains[i]);
	free(file->domains);
	free(file->name);
	free(file);
}

double record_file_seconds(const struct record_file *file, const struct record_sample *sample)
{
	if (file->columns & RECORD_HAS_TIME)
		return (double)(sample->time_ms - file->time_origin_ms) / 1000.0;
	return (double)sample->t_ms / 1000.0;
}

long record_file_find_partition(const struct record_file *file, const char *name)
{
	for (size_t i = 0; i < file->partition_count; i++)
		if (!strcmp(file->partitions[i], name))
			return (long)i;
	return -1;
}
