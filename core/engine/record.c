#include "core/engine/record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct record {
	FILE *out;
	char *path;
	bool with_truth;
	bool with_ipc;
};

int record_new(const char *path, bool with_truth, struct record **ret, struct err *err)
{
	return record_new_ipc(path, with_truth, false, ret, err);
}

int record_new_ipc(const char *path, bool with_truth, bool with_ipc, struct record **ret, struct err *err)
{
	struct record *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return err_set(err, -ENOMEM, "out of memory");
	rec->out = fopen(path, "we");
	if (!rec->out) {
		int saved = errno;
		free(rec);
		return err_set(err, -saved, "cannot create record file %s: %s", path, strerror(saved));
	}
	rec->path = strdup(path);
	rec->with_truth = with_truth;
	rec->with_ipc = with_ipc;
	fprintf(rec->out, "t_ms,partition,mbps,mb_max,mb_min,valid,estimated,event%s%s\n",
		with_truth ? ",sim_mbps" : "", with_ipc ? ",ipc" : "");
	*ret = rec;
	return 0;
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled. */
static void write_field(FILE *out, const char *text)
{
	if (!strpbrk(text, ",\"\r\n")) {
		fputs(text, out);
		return;
	}
	fputc('"', out);
	for (const char *c = text; *c; c++) {
		if (*c == '"')
			fputc('"', out);
		fputc(*c, out);
	}
	fputc('"', out);
}

int record_write(struct record *rec, const struct record_row *row)
{
	char mbps[32] = "";

	if (row->valid)
		snprintf(mbps, sizeof(mbps), "%.1f", row->mbps);
	fprintf(rec->out, "%llu,%s,%s,%u,%u,%d,%d,", (unsigned long long)row->t_ms, row->partition, mbps, row->mb_max,
		row->mb_min, row->valid, row->estimated);
	write_field(rec->out, row->event ? row->event : "");
	if (rec->with_truth)
		fprintf(rec->out, ",%.1f", row->has_truth ? row->truth_mbps : 0.0);
	if (rec->with_ipc && row->ipc_valid)
		fprintf(rec->out, ",%.3f", row->ipc);
	else if (rec->with_ipc)
		fputc(',', rec->out);
	fputc('\n', rec->out);
	return 0;
}

int record_flush(struct record *rec, struct err *err)
{
	if (fflush(rec->out) != 0 || ferror(rec->out)) {
		int saved = errno ? errno : EIO;
		return err_set(err, -saved, "cannot write record file %s: %s", rec->path, strerror(saved));
	}
	return 0;
}

int record_free(struct record *rec, struct err *err)
{
	int r = 0;

	if (!rec)
		return 0;
	r = record_flush(rec, err);
	if (fclose(rec->out) != 0 && r == 0)
		r = err_set(err, -errno, "cannot close record file %s: %s", rec->path, strerror(errno));
	free(rec->path);
	free(rec);
	return r;
}
