/* What mpamd's own record file says each of this host's domains carried (record_history.c): where no
 * capacity is configured or published, mpamd starts from it (docs/mpamd.ini.5, capacity_mbps), and
 * mpamctl check-config --host says so.
 *
 * The file (`[global] record`) and, when record_max_bytes rotated it, PATH.1 are read, each as
 * record_file_scan reads (a regular file of at most RECORD_HISTORY_MAX_BYTES; a FIFO, a device, a
 * malformed or cut file is not used). A file is used only when its domains are this host's: the same
 * domain names, no more and no fewer (a file of totals alone stands for a host of one domain or
 * none). Every file not used is noted with why, for the caller to log. */
#ifndef MPAMD_CORE_REPORT_RECORD_HISTORY_H
#define MPAMD_CORE_REPORT_RECORD_HISTORY_H

#include <stdint.h>

#include "core/base/error.h"

/* A larger file is not read: reading it would hold up the start (record_max_bytes keeps it smaller). */
#define RECORD_HISTORY_MAX_BYTES (256u << 20)
#define RECORD_HISTORY_FILES	 2 /* PATH.1, PATH */

struct record_history {
	double total_mbps; /* the peak of the totals' rows (the host's); 0: none */
	uint64_t ticks;	   /* ticks read in the files used */
	unsigned files;	   /* files used */
	unsigned note_count;
	char notes[RECORD_HISTORY_FILES][ERR_TEXT_MAX]; /* "PATH: why it is not used" for each file not used */
};

/* The peaks (record_peaks.h, over `window` ticks) of each domain named domains[0..count) in the
 * record at `path` and its PATH.1: ret_mbps[d] (0: none), the host's in ret->total_mbps. A file
 * that is not there is not noted. */
void record_history_read(const char *path, unsigned window, const char *const *domains, unsigned count,
			 double *ret_mbps, struct record_history *ret);

#endif
