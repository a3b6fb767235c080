#include "core/report/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/file_create.h"
#include "core/base/log.h"
#include "core/report/output_path.h"

/* Readable by node_exporter, which runs as another user; written by mpamd only. */
#define TEXTFILE_MODE 0644

/* Logged once, until writing works again. */
static void failing(struct textfile *tf, const struct err *why)
{
	if (!tf->failing)
		log_error("metrics textfile: %s; mpamd goes on and says so again when it works", why->text);
	tf->failing = true;
}

void textfile_fini(struct textfile *tf)
{
	free(tf->path);
	free(tf->tmp_path);
	*tf = (struct textfile){ .path = NULL };
}

void textfile_remove(struct textfile *tf)
{
	if (tf->written && unlink(tf->path) < 0 && errno != ENOENT)
		log_warning("metrics textfile %s: cannot remove it: %s", tf->path, strerror(errno));
	textfile_fini(tf);
}

int textfile_set_path(struct textfile *tf, const char *path, struct err *err)
{
	if (tf->path && path && !strcmp(tf->path, path))
		return 0;
	textfile_remove(tf);
	if (!path)
		return 0;
	tf->path = strdup(path);
	if (tf->path && asprintf(&tf->tmp_path, "%s.tmp", path) < 0)
		tf->tmp_path = NULL;
	if (!tf->path || !tf->tmp_path) {
		textfile_fini(tf);
		return err_set(err, -ENOMEM, "out of memory");
	}
	/* Said now, at start-up or at the reload that named it, not only when the first write fails. */
	struct err why = { "" };
	if (output_path_check(path, &why) < 0) {
		err_prefix(&why, "%s", path);
		failing(tf, &why);
	}
	return 0;
}

/* The new text under the temporary name, then in place at once. The temporary file is always a new
 * one: whatever is under its name (a file left by a crash, a link someone put there) is removed
 * first, never written through. */
static int replace(struct textfile *tf, const char *text, size_t len, struct err *err)
{
	char why[ERR_TEXT_MAX];

	if (unlink(tf->tmp_path) < 0 && errno != ENOENT)
		return err_set(err, -errno, "cannot remove %s: %s", tf->tmp_path,
			       output_path_error(tf->tmp_path, -errno, why, sizeof(why)));
	int fd = file_create_new(tf->tmp_path, O_WRONLY, TEXTFILE_MODE);
	if (fd < 0)
		return err_set(err, fd, "cannot create %s: %s", tf->tmp_path,
			       output_path_error(tf->tmp_path, fd, why, sizeof(why)));
	int r = file_write_all(fd, text, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tf->tmp_path, tf->path) < 0)
		r = err_set(err, -errno, "cannot rename %s to %s: %s", tf->tmp_path, tf->path,
			    output_path_error(tf->path, -errno, why, sizeof(why)));
	else if (r < 0)
		err_set(err, r, "cannot write %s: %s", tf->tmp_path,
			output_path_error(tf->tmp_path, r, why, sizeof(why)));
	if (r < 0)
		unlink(tf->tmp_path);
	return r;
}

int textfile_write(struct textfile *tf, const char *text, size_t len, struct err *err)
{
	if (!tf->path)
		return 0;
	int r = replace(tf, text, len, err);
	if (r < 0)
		failing(tf, err);
	else if (tf->failing)
		log_info("metrics textfile %s: written again", tf->path);
	tf->failing = r < 0;
	tf->written |= r == 0;
	return r;
}
