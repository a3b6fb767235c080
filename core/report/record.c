#include "core/report/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/base/rfc3339.h"
#include "core/report/record_columns.h"
#include "core/report/record_internal.h"

#define TICK_BUFFER_START 4096
/* More than a row of short fields takes: a longer field (an event, a huge rate) makes more room. */
#define ROW_ROOM 256

struct record {
	struct record_out out;
	struct record_recovery recovery;
	char *path;
	struct record_options opts;
	enum record_col columns[RECORD_COL_COUNT]; /* those this file has, in the table's order */
	size_t column_count;
	char header[256];
	char *tick; /* the current tick's rows */
	size_t tick_len, tick_cap;
	uint64_t tick_time_ms; /* the wall clock of the tick's rows: names files moved aside */
	/* tick_time_ms formatted, once for all the rows of a tick (a row per partition and domain:
	 * formatting it for each was a quarter of a tick at 4096 partitions). "" until a row. */
	char tick_time_text[RFC3339_MS_LEN + 1];
	bool out_of_memory; /* a row of this tick was lost */
};

static bool writes(const struct record_options *opts, enum record_col col)
{
	switch (record_columns[col].written) {
	case RECORD_WRITTEN_ALWAYS:
		return true;
	case RECORD_WRITTEN_WITH_TRUTH:
		return opts->with_truth;
	case RECORD_WRITTEN_WITH_IPC:
		return opts->with_ipc;
	case RECORD_WRITTEN_WITH_CLASSES:
		return opts->with_classes;
	}
	return false;
}

/* The columns of the table the options ask for, and the header that names them. */
static void choose_columns(struct record *rec)
{
	size_t used = 0;

	rec->column_count = 0;
	for (enum record_col c = 0; c < RECORD_COL_COUNT; c++) {
		if (!writes(&rec->opts, c))
			continue;
		used += (size_t)snprintf(rec->header + used, sizeof(rec->header) - used, "%s%s",
					 rec->column_count ? "," : "", record_columns[c].name);
		rec->columns[rec->column_count++] = c;
	}
	snprintf(rec->header + used, sizeof(rec->header) - used, "\n");
}

/* Room for `more` bytes after what the tick holds; false (and the tick marked) when memory ran out. */
static bool tick_reserve(struct record *rec, size_t more)
{
	size_t want = rec->tick_len + more;

	if (want <= rec->tick_cap)
		return true;
	if (array_grow((void **)&rec->tick, &rec->tick_cap, want > TICK_BUFFER_START ? want : TICK_BUFFER_START, 1,
		       NULL) == 0)
		return true;
	rec->out_of_memory = true;
	return false;
}

static void tick_append(struct record *rec, const char *data, size_t len)
{
	if (!tick_reserve(rec, len))
		return;
	memcpy(rec->tick + rec->tick_len, data, len);
	rec->tick_len += len;
}

static int write_failed(const struct record *rec, int code, struct err *err)
{
	return err_set(err, code, "cannot write record file %s: %s", rec->path, strerror(-code));
}

int record_new(const char *path, const struct record_options *opts, struct record **ret, struct err *err)
{
	struct record *rec = calloc(1, sizeof(*rec));

	if (!rec || !(rec->path = strdup(path))) {
		free(rec);
		return err_set(err, -ENOMEM, "out of memory");
	}
	rec->opts = *opts;
	record_recovery_init(&rec->recovery);
	choose_columns(rec);
	int r = record_out_open(path, rec->header, opts->now_ms, &rec->out, err);
	if (r < 0) {
		free(rec->path);
		free(rec);
		return r;
	}
	*ret = rec;
	return 0;
}

static void file_close(struct record *rec)
{
	if (rec->out.fd >= 0)
		close(rec->out.fd);
	rec->out.fd = -1;
}

int record_reopen(struct record *rec, const char *path, const struct record_options *opts, struct err *err)
{
	char *copy = strdup(path);

	if (!copy)
		return err_set(err, -ENOMEM, "out of memory");
	file_close(rec);
	free(rec->path);
	rec->path = copy;
	rec->opts = *opts;
	choose_columns(rec);
	int r = record_out_open(path, rec->header, opts->now_ms, &rec->out, err);
	record_recovery_opened(&rec->recovery, r, err);
	return r;
}

const struct record_health *record_health(const struct record *rec)
{
	return &rec->recovery.health;
}

json_t *record_status_json(const struct record *rec)
{
	return record_recovery_json(&rec->recovery, rec->path);
}

/* Column `col` of `row`, as the column's kind holds it. */
static struct record_value row_value(const struct record_row *row, enum record_col col)
{
	switch (col) {
	case RECORD_COL_TIME:
		return (struct record_value){ .time_ms = (int64_t)row->time_ms };
	case RECORD_COL_T_MS:
		return (struct record_value){ .ms = row->t_ms };
	case RECORD_COL_PARTITION:
		return (struct record_value){ .text = row->partition };
	case RECORD_COL_DOMAIN:
		return (struct record_value){ .text = row->domain ? row->domain : RECORD_DOMAIN_TOTAL };
	case RECORD_COL_MBPS:
		return (struct record_value){ .empty = !row->valid, .number = row->mbps };
	case RECORD_COL_MB_MAX:
		return (struct record_value){ .empty = row->no_limits, .number = row->mb_max };
	case RECORD_COL_MB_MIN:
		return (struct record_value){ .empty = row->no_limits, .number = row->mb_min };
	case RECORD_COL_MB_MAX_MBPS:
		return (struct record_value){ .empty = row->no_limits || !(row->mb_max_mbps > 0),
					      .number = row->mb_max_mbps };
	case RECORD_COL_HW_CLASS:
		return (struct record_value){ .empty = !row->in_class, .class_id = row->class_id };
	case RECORD_COL_MB_MAX_ASKED:
		return (struct record_value){ .empty = !row->in_class, .number = row->mb_max_asked };
	case RECORD_COL_GUARANTEE_MBPS:
		return (struct record_value){ .empty = !(row->guarantee_mbps > 0), .number = row->guarantee_mbps };
	case RECORD_COL_TARGET_MBPS:
		return (struct record_value){ .empty = !(row->target_mbps > 0), .number = row->target_mbps };
	case RECORD_COL_VALID:
		return (struct record_value){ .number = row->valid };
	case RECORD_COL_ESTIMATED:
		return (struct record_value){ .number = row->estimated };
	case RECORD_COL_EVENT:
		return (struct record_value){ .text = row->event ? row->event : "" };
	case RECORD_COL_SIM_MBPS:
		return (struct record_value){ .number = row->has_truth ? row->truth_mbps : 0.0 };
	case RECORD_COL_IPC:
		return (struct record_value){ .empty = !row->ipc_valid, .number = row->ipc };
	case RECORD_COL_COUNT:
		break;
	}
	return (struct record_value){ .empty = true };
}

/* The tick's time, formatted once for all its rows. */
static void write_time(struct record *rec, uint64_t time_ms)
{
	if (!rec->tick_time_text[0] || time_ms != rec->tick_time_ms) {
		struct record_value v = { .time_ms = (int64_t)time_ms };
		record_field_format(RECORD_COL_TIME, &v, rec->tick_time_text, sizeof(rec->tick_time_text));
		rec->tick_time_ms = time_ms;
	}
	tick_append(rec, rec->tick_time_text, strlen(rec->tick_time_text));
}

/* Formatted straight into the tick, and again into more room when it did not fit. */
static void write_field(struct record *rec, enum record_col col, const struct record_row *row)
{
	struct record_value v = row_value(row, col);
	size_t room = rec->tick_cap - rec->tick_len;
	size_t len = record_field_format(col, &v, rec->tick + rec->tick_len, room);

	if (len >= room) {
		if (!tick_reserve(rec, len + 1))
			return;
		record_field_format(col, &v, rec->tick + rec->tick_len, len + 1);
	}
	rec->tick_len += len;
}

/* One byte: a comma, the line's end. Most often there is room (ROW_ROOM per row): the call to
 * tick_reserve for each was a tenth of a row. */
static void tick_append_char(struct record *rec, char c)
{
	if (rec->tick_len < rec->tick_cap)
		rec->tick[rec->tick_len++] = c;
	else
		tick_append(rec, &c, 1);
}

void record_write(struct record *rec, const struct record_row *row)
{
	if (!tick_reserve(rec, ROW_ROOM))
		return;
	for (size_t i = 0; i < rec->column_count; i++) {
		if (i)
			tick_append_char(rec, ',');
		if (rec->columns[i] == RECORD_COL_TIME)
			write_time(rec, row->time_ms);
		else
			write_field(rec, rec->columns[i], row);
	}
	tick_append_char(rec, '\n');
}

/* A tick that would take the file past its cap goes to a new one; a file holding only its header
 * takes any tick, so that a tick larger than the cap is still written, whole. */
static bool tick_needs_new_file(const struct record *rec)
{
	return rec->opts.max_bytes && rec->out.regular && rec->out.size > strlen(rec->header) &&
	       rec->out.size + rec->tick_len > rec->opts.max_bytes;
}

static int rotate(struct record *rec, struct err *err)
{
	uint64_t size = rec->out.size;
	int r = record_out_rotate(rec->path, rec->header, rec->tick_time_ms, &rec->out, err);

	if (r == 0)
		log_info("record file %s: %llu bytes, the next tick would pass record_max_bytes = %llu: moved to "
			 "%s.1, a new one begun",
			 rec->path, (unsigned long long)size, (unsigned long long)rec->opts.max_bytes, rec->path);
	return r;
}

/* The file ready for this tick's rows: begun again at once when it vanished, opened again after a
 * failure when its next try is due. *ret_tried: whether this tick touches the file (else it waits). */
static int file_ready(struct record *rec, bool *ret_tried, struct err *err)
{
	bool vanished = rec->out.fd >= 0 && record_out_vanished(&rec->out, rec->path);

	*ret_tried = true;
	if (rec->out.fd >= 0 && !vanished)
		return 0;
	if (!vanished && !record_recovery_due(&rec->recovery)) {
		*ret_tried = false;
		return err_set(err, rec->recovery.code, "%s", rec->recovery.health.error);
	}
	file_close(rec);
	int r = record_out_open(rec->path, rec->header, rec->tick_time_ms ? rec->tick_time_ms : rec->opts.now_ms,
				&rec->out, err);
	if (r == 0 && vanished) /* a failure to begin it again is the recovery's to say */
		log_warning("record file %s was removed or replaced while mpamd wrote it: a new one is begun",
			    rec->path);
	return r;
}

/* The tick's rows into the file; a write that fails closes it, to be opened again (which ends the
 * row it may have cut) at a later tick. */
static int tick_flush(struct record *rec, bool *ret_tried, struct err *err)
{
	int r;

	*ret_tried = false;
	if (rec->out_of_memory)
		return err_set(err, -ENOMEM, "record file %s: out of memory for a tick's rows", rec->path);
	if ((r = file_ready(rec, ret_tried, err)) < 0)
		return r;
	if (rec->tick_len && tick_needs_new_file(rec) && (r = rotate(rec, err)) < 0)
		return r;
	if (rec->tick_len && (r = record_out_write(&rec->out, rec->tick, rec->tick_len)) < 0) {
		write_failed(rec, r, err);
		file_close(rec);
	}
	return r;
}

int record_end_tick(struct record *rec, struct err *err)
{
	bool tried;
	int r = tick_flush(rec, &tried, err);

	record_recovery_tick(&rec->recovery, rec->path, r, err, tried);
	rec->tick_len = 0;
	rec->out_of_memory = false;
	return r;
}

int record_free(struct record *rec, struct err *err)
{
	int r = 0;

	if (!rec)
		return 0;
	r = record_end_tick(rec, err);
	if (rec->out.fd >= 0 && close(rec->out.fd) != 0 && r == 0) {
		int saved = errno;
		r = err_set(err, -saved, "cannot close record file %s: %s", rec->path, strerror(saved));
	}
	free(rec->tick);
	free(rec->path);
	free(rec);
	return r;
}
