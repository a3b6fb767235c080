/* The metrics textfile, written the way node_exporter's textfile collector wants it: the whole text
 * into PATH.tmp in the same directory, then rename()d over PATH, so a reader sees the old file or the
 * new one, never a part. A failing write is logged once, and once more when writing works again; it
 * never stops the caller. */
#ifndef MPAMD_CORE_REPORT_TEXTFILE_H
#define MPAMD_CORE_REPORT_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

struct textfile {
	char *path;	/* NULL: no textfile */
	char *tmp_path; /* path + ".tmp": not *.prom, so the collector never reads it */
	bool written;	/* path holds a file of ours */
	bool failing;	/* the last write failed (and the log said so) */
};

/* Points the writer at `path` (NULL: none). A file written under another path is removed: it would
 * only go stale. A new path mpamd cannot write (output_path_check: no such directory, a read-only
 * file system...) is logged at once, as a failing write would be. 0 or -ENOMEM. */
int textfile_set_path(struct textfile *tf, const char *path, struct err *err);

/* Replaces the file with `text`; 0 or a negative errno and err. Logs as described above. */
int textfile_write(struct textfile *tf, const char *text, size_t len, struct err *err);

/* Removes the file (a clean stop: what it said is no longer true) and forgets the path. */
void textfile_remove(struct textfile *tf);
/* Forgets the path and leaves the file as it is. */
void textfile_fini(struct textfile *tf);

#endif
