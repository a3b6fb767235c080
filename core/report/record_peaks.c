/* The most each domain of a record file carried (record_peaks.h says how a tick's total and the peak
 * are counted). */
#include "core/report/record_peaks.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void record_peaks_init(struct record_peaks *p, unsigned window)
{
	*p = (struct record_peaks){ .window = window < 1			 ? 1
					      : window > RECORD_PEAKS_WINDOW_MAX ? RECORD_PEAKS_WINDOW_MAX
										 : window };
}

static void note_total(struct record_peaks *p, struct record_peak *d)
{
	double sum = 0;

	d->recent[d->recent_next] = d->tick_mbps;
	d->recent_next = (d->recent_next + 1) % p->window;
	if (d->recent_count < p->window)
		d->recent_count++;
	if (d->recent_count < p->window)
		return;
	for (unsigned i = 0; i < p->window; i++)
		sum += d->recent[i];
	d->mbps = fmax(d->mbps, sum / p->window);
}

/* The tick's totals into each domain's window; a domain without one this tick, or a new run, starts
 * its window again (the ticks of a window are consecutive). */
static void end_tick(struct record_peaks *p, bool new_run)
{
	for (size_t i = 0; i < p->count; i++) {
		struct record_peak *d = &p->at[i];
		if (d->in_tick && !d->tick_invalid)
			note_total(p, d);
		else
			d->recent_count = d->recent_next = 0;
		if (new_run)
			d->recent_count = d->recent_next = 0;
		d->tick_mbps = 0;
		d->in_tick = d->tick_invalid = false;
	}
	p->ticks++;
}

static int grow(struct record_peaks *p, size_t count)
{
	if (count <= p->count)
		return 0;
	struct record_peak *grown = realloc(p->at, count * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	memset(grown + p->count, 0, (count - p->count) * sizeof(*grown));
	p->at = grown;
	p->count = count;
	return 0;
}

void record_peaks_add(void *peaks, const struct record_file *file, const struct record_sample *s)
{
	struct record_peaks *p = peaks;

	if (p->error)
		return;
	if (p->started && (s->run != p->run || s->t_ms != p->t_ms))
		end_tick(p, s->run != p->run);
	p->started = true;
	p->run = s->run;
	p->t_ms = s->t_ms;
	if (grow(p, file->domain_count) < 0) {
		p->error = -ENOMEM;
		return;
	}
	struct record_peak *d = &p->at[s->domain];
	d->in_tick = true;
	if ((s->flags & RECORD_VALID) && (s->flags & RECORD_MBPS))
		d->tick_mbps += s->mbps;
	else
		d->tick_invalid = true;
}

int record_peaks_end(struct record_peaks *p, struct err *err)
{
	if (p->error)
		return err_set(err, p->error, "out of memory");
	if (p->started)
		end_tick(p, false);
	p->started = false;
	return 0;
}

void record_peaks_fini(struct record_peaks *p)
{
	free(p->at);
	p->at = NULL;
	p->count = 0;
}

int record_peaks_of_file(const struct record_file *file, unsigned window, struct record_peaks *ret, struct err *err)
{
	record_peaks_init(ret, window);
	for (size_t i = 0; i < file->sample_count; i++)
		record_peaks_add(ret, file, &file->samples[i]);
	int r = record_peaks_end(ret, err);
	if (r < 0)
		record_peaks_fini(ret);
	return r;
}

double record_peaks_of_domain(const struct record_peaks *p, const struct record_file *file, const char *name)
{
	for (size_t i = 0; i < file->domain_count; i++)
		if (!strcmp(file->domains[i], name))
			return i < p->count ? p->at[i].mbps : 0;
	return -1;
}
