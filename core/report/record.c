#include "core/report/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/base/rfc3339.h"
#include "core/report/record_internal.h"

#define TICK_BUFFER_START 4096

struct record {
	struct record_out out;
	char *path;
	struct record_options opts;
	char header[128];
	char *tick; /* the current tick's rows */
	size_t tick_len, tick_cap;
	uint64_t tick_time_ms; /* the wall clock of the tick's rows: names files moved aside */
	/* tick_time_ms formatted, once for all the rows of a tick (a row per partition and domain:
	 * formatting it for each was a quarter of a tick at 4096 partitions). "" until a row. */
	char tick_time_text[RFC3339_MS_LEN + 1];
	bool out_of_memory; /* a row of this tick was lost */
};

static void header(const struct record *rec, char *buf, size_t len)
{
	snprintf(buf, len, "time,t_ms,partition,domain,mbps,mb_max,mb_min,valid,estimated,event%s%s\n",
		 rec->opts.with_truth ? ",sim_mbps" : "", rec->opts.with_ipc ? ",ipc" : "");
}

/* Room for `more` bytes after what the tick holds; false (and the tick marked) when memory ran out. */
static bool tick_reserve(struct record *rec, size_t more)
{
	if (rec->tick_len + more <= rec->tick_cap)
		return true;
	size_t cap = rec->tick_cap ? rec->tick_cap : TICK_BUFFER_START;
	while (cap < rec->tick_len + more)
		cap *= 2;
	char *grown = realloc(rec->tick, cap);
	if (!grown) {
		rec->out_of_memory = true;
		return false;
	}
	rec->tick = grown;
	rec->tick_cap = cap;
	return true;
}

static void tick_append(struct record *rec, const char *data, size_t len)
{
	if (!tick_reserve(rec, len))
		return;
	memcpy(rec->tick + rec->tick_len, data, len);
	rec->tick_len += len;
}

__attribute__((format(printf, 2, 3))) static void tick_printf(struct record *rec, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		rec->out_of_memory = true; /* the fixed columns never need this much */
	else
		tick_append(rec, line, (size_t)n);
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
	header(rec, rec->header, sizeof(rec->header));
	int r = record_out_open(path, rec->header, opts->now_ms, &rec->out, err);
	if (r < 0) {
		free(rec->path);
		free(rec);
		return r;
	}
	*ret = rec;
	return 0;
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled. */
static void write_field(struct record *rec, const char *text)
{
	if (!strpbrk(text, ",\"\r\n")) {
		tick_append(rec, text, strlen(text));
		return;
	}
	tick_append(rec, "\"", 1);
	for (const char *c = text; *c; c++)
		tick_append(rec, *c == '"' ? "\"\"" : c, *c == '"' ? 2 : 1); /* a quote doubled */
	tick_append(rec, "\"", 1);
}

void record_write(struct record *rec, const struct record_row *row)
{
	char mbps[32] = "", max[16] = "", min[16] = "";

	if (row->valid)
		snprintf(mbps, sizeof(mbps), "%.1f", row->mbps);
	if (!row->no_limits) {
		snprintf(max, sizeof(max), "%u", row->mb_max);
		snprintf(min, sizeof(min), "%u", row->mb_min);
	}
	if (!rec->tick_time_text[0] || row->time_ms != rec->tick_time_ms) {
		rfc3339_format_ms((int64_t)row->time_ms, rec->tick_time_text, sizeof(rec->tick_time_text));
		rec->tick_time_ms = row->time_ms;
	}
	tick_printf(rec, "%s,%llu,%s,", rec->tick_time_text, (unsigned long long)row->t_ms, row->partition);
	write_field(rec, row->domain ? row->domain : "*");
	tick_printf(rec, ",%s,%s,%s,%d,%d,", mbps, max, min, row->valid, row->estimated);
	write_field(rec, row->event ? row->event : "");
	if (rec->opts.with_truth)
		tick_printf(rec, ",%.1f", row->has_truth ? row->truth_mbps : 0.0);
	if (rec->opts.with_ipc && row->ipc_valid)
		tick_printf(rec, ",%.3f", row->ipc);
	else if (rec->opts.with_ipc)
		tick_append(rec, ",", 1); /* not counted: empty, never 0 */
	tick_append(rec, "\n", 1);
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

int record_end_tick(struct record *rec, struct err *err)
{
	int r = 0;

	if (rec->out_of_memory)
		r = err_set(err, -ENOMEM, "record file %s: out of memory for a tick's rows", rec->path);
	else if (rec->out.fd < 0)
		r = err_set(err, -EBADF, "record file %s is not open", rec->path);
	else if (rec->tick_len && tick_needs_new_file(rec))
		r = rotate(rec, err);
	if (r == 0 && rec->tick_len && (r = record_out_write(&rec->out, rec->tick, rec->tick_len)) < 0)
		write_failed(rec, r, err);
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
