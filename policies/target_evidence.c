/* Did the move show: the target controller's evidence from its samples (see policies/target_search.c
 * for the search that acts on it).
 *
 * - A move is judged only once it shows. The samples after a move still come from the old limit for
 *   as long as the hardware takes to apply it (the actuation delay, in samples): they are dropped
 *   until the rate leaves the level measured before the move (by more than the noise, in the
 *   direction of the move), and the number of samples that took is the delay learned (the largest
 *   seen, less one for each move that showed sooner). A move that does not show within the delay (the
 *   rate did not change: a flat stretch of the curve, or a partition its ceiling does not hold) is
 *   taken as shown after it.
 * - The noise of one sample is learned from the differences between successive samples at one rung,
 *   and the mean of the samples at the rung in force (over the last TARGET_MEAN_WINDOW) and its
 *   standard error are what the search judges a rung on. */
#include <math.h>

#include "policies/target_internal.h"

/* The mean absolute deviation times 1.25 estimates the standard deviation of normal noise. */
#define TARGET_MAD_TO_SIGMA 1.25
/* The noise estimate follows the last 8 or so deviations. */
#define TARGET_NOISE_WEIGHT 0.125
/* A move shows when the rate leaves the level before it by three standard deviations of one sample,
 * and by at least 3% (a move that changes less is not told from drift). */
#define TARGET_SHOW_Z	3.0
#define TARGET_SHOW_MIN 0.03
/* Before the noise was measured (the first move), it is taken as 2% of the rate: a first sample
 * under a noisy old limit must not pass for a move that has not shown yet. */
#define TARGET_NOISE_PRIOR 0.02
/* ... and at least that until 4 differences of samples were seen (one difference says little). */
#define TARGET_NOISE_TRUSTED 4
/* No hardware takes longer than 8 ticks to apply a limit; before a delay was seen, 2 samples are
 * waited for at most (a longer delay shows later: late_show). */
#define TARGET_MAX_DELAY   8
#define TARGET_DELAY_PROBE 2
/* ... and up to 4 for the first move, when the chord says it should show plainly. */
#define TARGET_DELAY_UNKNOWN 4

static unsigned window(const struct target_memory *m)
{
	return m->n < TARGET_MEAN_WINDOW ? m->n : TARGET_MEAN_WINDOW;
}

/* One sample's standard deviation at the level of the mean, MB/s. */
double target_sample_sigma(const struct target_memory *m, double level)
{
	double rel = m->noise_n >= TARGET_NOISE_TRUSTED ? m->noise_rel : fmax(m->noise_rel, TARGET_NOISE_PRIOR);

	return TARGET_MAD_TO_SIGMA * rel * level;
}

double target_mean_error(const struct target_memory *m)
{
	unsigned n = window(m);

	return target_sample_sigma(m, m->mean_mbps) / sqrt(n ? n : 1);
}

/* Learns the delay from a move that showed at sample k. */
static void learn_delay(struct target_memory *m, unsigned k)
{
	if (!m->delay_known || k > m->delay)
		m->delay = k < TARGET_MAX_DELAY ? k : TARGET_MAX_DELAY;
	else if (k < m->delay)
		m->delay--;
	m->delay_known = true;
}

/* Sample y left the level measured before the last move, in the move's direction. */
static bool shows(const struct target_memory *m, double y)
{
	double from = m->from_mbps;
	double sigma = m->noise_n > 0 ? target_sample_sigma(m, from) : TARGET_NOISE_PRIOR * from;
	double threshold = fmax(TARGET_SHOW_Z * sigma, TARGET_SHOW_MIN * from);

	return from > 0 && (m->out_pct < m->from_pct ? y < from - threshold : y > from + threshold);
}

/* Whether sample y is the first under the limit in force (see the file comment); the samples before
 * are dropped. */
bool target_move_shown(struct target_memory *m, double y)
{
	unsigned k = m->since_move++;

	if (shows(m, y)) {
		m->engaged_once = true;
		learn_delay(m, k);
		m->settling = false;
		m->awaiting = false;
		return true;
	}
	/* What the chord says the move changes: one that should show plainly is waited for longer while
	 * the delay is not known yet. */
	double expected = m->from_pct > 0 ? m->from_mbps * fabs(m->out_pct / m->from_pct - 1) : 0;
	bool plain = expected > 2 * TARGET_SHOW_Z * TARGET_NOISE_PRIOR * m->from_mbps;
	unsigned wait = m->delay_known		    ? m->delay
			: plain && !m->engaged_once ? TARGET_DELAY_UNKNOWN
						    : TARGET_DELAY_PROBE - 1;
	if (k < wait)
		return false;
	/* Not shown: the curve is flat here, the partition is not held, or the delay is longer than
	 * thought; the last is caught if the move shows later (late_show). */
	m->moved_flat = plain;
	m->settling = false;
	m->awaiting = m->moved_flat && !m->delay_known;
	m->engaged_once = true;
	return true;
}

/* A move taken as not showing showed after all, k samples after it, before any delay was seen: the
 * delay is at least k and the samples kept since were taken under the old limit. (Once a delay was
 * seen, a move that does not show within it is flat.) */
void target_late_show(struct target_memory *m, double y)
{
	unsigned k = m->since_move++;

	if (k >= TARGET_MAX_DELAY) {
		m->awaiting = false;
		return;
	}
	if (!shows(m, y))
		return;
	learn_delay(m, k);
	m->awaiting = false;
	m->moved_flat = false;
	m->n = 0;
	m->mean_mbps = 0;
	/* what was judged from those samples goes with them */
	if (m->lo.pct == m->out_pct)
		m->lo = (struct target_point){ 0 };
	if (m->hi.pct == m->out_pct)
		m->hi = (struct target_point){ 0 };
	m->settled = false;
	m->said_unheld = false;
}

/* The noise is learned from the differences between successive samples at one rung (a difference of
 * two samples has sqrt(2) times their spread): a change of level costs one large difference, where
 * deviations from a lagging mean would count it for a whole window. */
void target_note_sample(struct target_memory *m, double y)
{
	if (m->n > 0 && m->mean_mbps > 0) {
		double dev = fabs(y - m->last_sample) / M_SQRT2 / m->mean_mbps;
		m->noise_rel = m->noise_n > 0 ? m->noise_rel + TARGET_NOISE_WEIGHT * (dev - m->noise_rel) : dev;
		m->noise_n += m->noise_n < TARGET_NOISE_TRUSTED;
	}
	m->last_sample = y;
	m->recent_mbps = m->n > 0 ? m->recent_mbps + TARGET_RECENT_WEIGHT * (y - m->recent_mbps) : y;
	m->n++;
	m->mean_mbps += (y - m->mean_mbps) / window(m);
}
