/* The peaks of mpamd's record file and the one rotated before it, when they are this host's
 * (record_history.h). */
#include "core/report/record_history.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/report/record_peaks.h"

/* The file's domain names, but the totals, are exactly `domains`: a file of another host's shape
 * (other domains, more or fewer) would give a figure of another machine. Else says why in `why`. */
static bool same_domains(const struct record_file *file, const char *const *domains, unsigned count, char *why,
			 size_t len)
{
	if (file->domain_count == 1) { /* totals alone: a host of one domain, or before domains */
		if (count <= 1)
			return true;
		snprintf(why, len, "it has no per-domain rows, and this host has %u domains", count);
		return false;
	}
	for (size_t k = 1; k < file->domain_count; k++) {
		bool found = false;
		for (unsigned d = 0; d < count && !found; d++)
			found = !strcmp(file->domains[k], domains[d]);
		if (!found) {
			snprintf(why, len, "its domain '%.64s' is not one of this host's: a record of another host",
				 file->domains[k]);
			return false;
		}
	}
	if (file->domain_count - 1 != count) {
		snprintf(why, len, "it has %zu domains, this host %u: a record of another host", file->domain_count - 1,
			 count);
		return false;
	}
	return true;
}

static void note(struct record_history *h, const char *text)
{
	if (h->note_count < RECORD_HISTORY_FILES)
		snprintf(h->notes[h->note_count++], sizeof(h->notes[0]), "%s", text);
}

/* No peak above what capacity_mbps can be (a whole number of MB/s in 32 bits): a figure past it is
 * a damaged or forged file, not a host. Else says why in `why`. */
static bool plausible(const struct record_peaks *peaks, const struct record_file *file, char *why, size_t len)
{
	for (size_t k = 0; k < file->domain_count && k < peaks->count; k++) {
		if (peaks->at[k].mbps > (double)UINT32_MAX) {
			snprintf(why, len,
				 "%s: a peak of %.3g MB/s on domain '%.64s', more than any capacity_mbps can be",
				 file->name, peaks->at[k].mbps, k ? file->domains[k] : "*");
			return false;
		}
	}
	return true;
}

/* The file's domains are this host's and its figures could be a host's; else says why. */
static bool usable(const struct record_peaks *peaks, const struct record_file *file, const char *const *domains,
		   unsigned count, char *why, size_t len)
{
	char shape[ERR_TEXT_MAX - 64];

	if (!same_domains(file, domains, count, shape, sizeof(shape))) {
		snprintf(why, len, "%s: %s", file->name, shape);
		return false;
	}
	return plausible(peaks, file, why, len);
}

/* One file's peaks into ret_mbps and h, when it is this host's. */
static void read_one(const char *path, unsigned window, const char *const *domains, unsigned count, double *ret_mbps,
		     struct record_history *h)
{
	struct record_peaks peaks;
	struct record_file *file = NULL;
	struct err err = { "" };
	char why[ERR_TEXT_MAX];

	record_peaks_init(&peaks, window);
	int r = record_file_scan(path, RECORD_HISTORY_MAX_BYTES, record_peaks_add, &peaks, &file, &err);
	if (r == 0)
		r = record_peaks_end(&peaks, &err);
	if (r == -ENOENT) {
		record_peaks_fini(&peaks);
		return;
	}
	if (r < 0) {
		note(h, err.text); /* it names the file, and the line where the reading stopped */
	} else if (!usable(&peaks, file, domains, count, why, sizeof(why))) {
		note(h, why);
	} else {
		for (unsigned d = 0; d < count; d++) {
			double peak = record_peaks_of_domain(&peaks, file,
							     count == 1 && file->domain_count == 1 ? "" : domains[d]);
			ret_mbps[d] = fmax(ret_mbps[d], peak);
		}
		h->total_mbps = fmax(h->total_mbps, record_peaks_of_domain(&peaks, file, ""));
		h->ticks += peaks.ticks;
		h->files++;
	}
	record_file_free(file);
	record_peaks_fini(&peaks);
}

void record_history_read(const char *path, unsigned window, const char *const *domains, unsigned count,
			 double *ret_mbps, struct record_history *ret)
{
	char older[PATH_MAX];

	memset(ret, 0, sizeof(*ret));
	for (unsigned d = 0; d < count; d++)
		ret_mbps[d] = 0;
	if (snprintf(older, sizeof(older), "%s.1", path) < (int)sizeof(older))
		read_one(older, window, domains, count, ret_mbps, ret);
	read_one(path, window, domains, count, ret_mbps, ret);
}
