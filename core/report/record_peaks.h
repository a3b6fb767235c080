/* The most each domain of a record file carried (core/report/record_peaks.c), for mpamctl discover's
 * capacity hint and for mpamd, which starts from it where no capacity is known.
 *
 * A tick's total on a domain is the sum of its partitions' rates there (each partition's row for
 * that domain; the totals' rows for the whole). A tick where one of them was not valid has no total:
 * what it carried is not known. The peak is the highest mean of `window` totals of consecutive ticks
 * of one run (window 1: the most in one tick). It is what the host carried, so a lower bound of what
 * it can carry, never more than that but for the counters' noise, which a window of a few ticks
 * smooths. */
#ifndef MPAMD_CORE_REPORT_RECORD_PEAKS_H
#define MPAMD_CORE_REPORT_RECORD_PEAKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/report/record_read.h"

#define RECORD_PEAKS_WINDOW_MAX 8

/* One domain of the file, while it is read. */
struct record_peak {
	double mbps;	   /* the peak so far; 0: no full window yet */
	double tick_mbps;  /* this tick's sum */
	bool in_tick;	   /* it has rows in this tick */
	bool tick_invalid; /* one of them was not valid */
	double recent[RECORD_PEAKS_WINDOW_MAX];
	unsigned recent_count, recent_next;
};

struct record_peaks {
	unsigned window;
	struct record_peak *at; /* [count], by the file's domain index: 0 is the totals ("" or "*") */
	size_t count;
	uint64_t ticks; /* ticks read */
	bool started;
	unsigned run;
	uint64_t t_ms;
	int error; /* -ENOMEM while reading: the peaks are not all there */
};

/* Peaks over `window` ticks (1..RECORD_PEAKS_WINDOW_MAX). */
void record_peaks_init(struct record_peaks *p, unsigned window);
/* One sample, in file order (a record_sample_fn with the peaks as ctx). */
void record_peaks_add(void *peaks, const struct record_file *file, const struct record_sample *s);
/* After the last sample: ends the last tick. -ENOMEM (and err) when the reading ran out of memory. */
int record_peaks_end(struct record_peaks *p, struct err *err);
void record_peaks_fini(struct record_peaks *p);

/* The peaks of a file read whole (record_file_new), into *ret (record_peaks_fini it). */
int record_peaks_of_file(const struct record_file *file, unsigned window, struct record_peaks *ret, struct err *err);

/* The peak on the domain `name` of `file` ("" for the totals); -1 when the file has no such domain. */
double record_peaks_of_domain(const struct record_peaks *p, const struct record_file *file, const char *name);

#endif
