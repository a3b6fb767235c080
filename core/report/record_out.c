/* The record file on disk across restarts: appended to when its header is ours, moved aside when
 * it is not, mended when a row was cut short, and rotated at its size cap. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/file_create.h"
#include "core/base/log.h"
#include "core/report/output_path.h"
#include "core/base/rfc3339.h"
#include "core/report/record_internal.h"

/* How far back from the end a cut row is looked at: more than the longest row mpamd writes. */
#define TAIL_BYTES 4096
/* Names tried for a file moved aside in the same second as another one. */
#define ASIDE_TRIES 100

int record_out_write(struct record_out *out, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(out->fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		data += n;
		len -= (size_t)n;
		out->size += (uint64_t)n;
	}
	return 0;
}

/* Whether the file starts with exactly `header`. */
static int header_is(int fd, const struct stat *st, const char *header, const char *path, bool *ret, struct err *err)
{
	size_t len = strlen(header);
	char *first = malloc(len);

	if (!first)
		return err_set(err, -ENOMEM, "out of memory");
	*ret = false;
	ssize_t n = (uint64_t)st->st_size >= len ? pread(fd, first, len, 0) : 0;
	if (n < 0) {
		int saved = errno;
		free(first);
		return err_set(err, -saved, "cannot read record file %s: %s", path, strerror(saved));
	}
	*ret = (size_t)n == len && !memcmp(first, header, len);
	free(first);
	return 0;
}

/* PATH.YYYYMMDDTHHMMSSZ, then PATH.YYYYMMDDTHHMMSSZ-1...: the basic ISO 8601 form, no colons. */
static void aside_name(const char *path, uint64_t now_ms, unsigned attempt, char *buf, size_t len)
{
	char t[RFC3339_MS_LEN + 1], compact[32];
	size_t n = 0;

	rfc3339_format_ms((int64_t)now_ms, t, sizeof(t));
	for (const char *c = t; *c && *c != '.' && n + 1 < sizeof(compact); c++)
		if (*c != '-' && *c != ':')
			compact[n++] = *c;
	compact[n] = '\0';
	if (attempt == 0)
		snprintf(buf, len, "%s.%sZ", path, compact);
	else
		snprintf(buf, len, "%s.%sZ-%u", path, compact, attempt);
}

/* Renames without replacing anything: a name already taken is never overwritten. */
static int rename_new(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* a file system without RENAME_NOREPLACE */
	if (access(to, F_OK) == 0)
		return -EEXIST;
	return rename(from, to) == 0 ? 0 : -errno;
}

static int move_aside(const char *path, uint64_t now_ms, struct err *err)
{
	char aside[PATH_MAX];
	int r = -EEXIST;

	for (unsigned attempt = 0; attempt < ASIDE_TRIES && r == -EEXIST; attempt++) {
		aside_name(path, now_ms, attempt, aside, sizeof(aside));
		r = rename_new(path, aside);
	}
	if (r < 0)
		return err_set(err, r, "record file %s has another header and cannot be moved aside to %s: %s", path,
			       aside, strerror(-r));
	log_warning("record file %s has a header that is not this mpamd's (an older version or another program): "
		    "moved to %s, a new one begun",
		    path, aside);
	return 0;
}

/* A file that does not end in a line break ends in a row cut short: the break goes in first, after a
 * closing quote when the cut fell inside a quoted field (an odd number of quotes since the last
 * line break), so the next row starts on a line of its own. */
static int mend_cut_row(struct record_out *out, const char *path, struct err *err)
{
	char tail[TAIL_BYTES];
	uint64_t from = out->size > TAIL_BYTES ? out->size - TAIL_BYTES : 0;
	ssize_t n = pread(out->fd, tail, (size_t)(out->size - from), (off_t)from);

	if (n < 0) {
		int saved = errno;
		return err_set(err, -saved, "cannot read record file %s: %s", path, strerror(saved));
	}
	if (n == 0 || tail[n - 1] == '\n')
		return 0;
	unsigned quotes = 0;
	for (ssize_t i = n - 1; i >= 0 && tail[i] != '\n'; i--)
		quotes += tail[i] == '"';
	int r = record_out_write(out, quotes % 2 ? "\"\n" : "\n", quotes % 2 ? 2 : 1);
	if (r < 0)
		return err_set(err, r, "cannot write record file %s: %s", path, strerror(-r));
	log_warning("record file %s ends in a row cut short (mpamd stopped while writing it): its line is ended so "
		    "that the next row starts on its own; readers skip the cut row",
		    path);
	return 0;
}

static int open_error(const char *path, int code, struct err *err)
{
	char why[ERR_TEXT_MAX];

	return err_set(err, code, "cannot open record file %s: %s", path,
		       output_path_error(path, code, why, sizeof(why)));
}

/* Appends to what is at `path` if it can be: 1 when it must be moved aside first. Non-blocking, so
 * that a FIFO put there whose reader stops makes writes fail (and say so) instead of stopping the
 * loop. */
static int try_open(const char *path, const char *header, struct record_out *out, struct err *err)
{
	struct stat st;
	bool ours = false;
	int r;

	out->fd = file_open_nofollow(path, O_RDWR | O_APPEND | O_NONBLOCK, RECORD_FILE_MODE, NULL);
	if (out->fd < 0)
		return open_error(path, out->fd, err);
	if (fstat(out->fd, &st) < 0) {
		r = open_error(path, -errno, err);
		goto fail;
	}
	out->regular = S_ISREG(st.st_mode);
	out->size = out->regular ? (uint64_t)st.st_size : 0;
	if (out->size == 0) {
		if ((r = record_out_write(out, header, strlen(header))) < 0) {
			err_set(err, r, "cannot write record file %s: %s", path, strerror(-r));
			goto fail;
		}
		return 0;
	}
	if ((r = header_is(out->fd, &st, header, path, &ours, err)) < 0)
		goto fail;
	if (!ours) {
		close(out->fd);
		return 1;
	}
	if ((r = mend_cut_row(out, path, err)) < 0)
		goto fail;
	return 0;
fail:
	close(out->fd);
	return r;
}

static int open_or_move_aside(const char *path, const char *header, uint64_t now_ms, struct record_out *ret,
			      struct err *err)
{
	int r = try_open(path, header, ret, err);

	if (r <= 0)
		return r;
	if ((r = move_aside(path, now_ms, err)) < 0)
		return r;
	r = try_open(path, header, ret, err);
	if (r > 0) /* another program put a file there in the meantime */
		return err_set(err, -EEXIST,
			       "record file %s: a file with another header appeared while it was moved aside", path);
	return r;
}

int record_out_open(const char *path, const char *header, uint64_t now_ms, struct record_out *ret, struct err *err)
{
	int r = open_or_move_aside(path, header, now_ms, ret, err);

	if (r < 0)
		ret->fd = -1; /* closed on the way */
	return r;
}

bool record_out_vanished(const struct record_out *out, const char *path)
{
	struct stat st;

	if (!out->regular)
		return false;
	return (fstat(out->fd, &st) == 0 && st.st_nlink == 0) || !file_at_path(out->fd, path);
}

int record_out_rotate(const char *path, const char *header, uint64_t now_ms, struct record_out *out, struct err *err)
{
	char older[PATH_MAX];

	snprintf(older, sizeof(older), "%s.1", path);
	if (file_at_path(out->fd, path) && rename(path, older) < 0) {
		int saved = errno;
		return err_set(err, -saved, "cannot rotate record file %s to %s: %s", path, older, strerror(saved));
	}
	close(out->fd);
	out->fd = -1;
	return record_out_open(path, header, now_ms, out, err);
}
