/* Pure arithmetic on group reads: decoding the read buffer and per-interval deltas scaled for
 * multiplexing. No I/O, so it is tested with synthetic buffers. */
#include <errno.h>
#include <string.h>

#include "backends/perf/perf_event.h"

int perf_read_decode(const void *buf, size_t nbytes, const uint64_t *ids, size_t nevents, struct perf_count *counts,
		     struct err *err)
{
	/* { nr, time_enabled, time_running, { value, id } x nr } */
	const size_t header = 3, per_event = 2;
	uint64_t w[3];
	bool *seen;

	if (nbytes < header * sizeof(uint64_t))
		return err_set(err, -EPROTO, "group read of %zu bytes is shorter than its header", nbytes);
	memcpy(w, buf, sizeof(w));
	if (w[0] != nevents)
		return err_set(err, -EPROTO, "group read has %llu events, expected %zu", (unsigned long long)w[0],
			       nevents);
	if (nbytes < (header + per_event * nevents) * sizeof(uint64_t))
		return err_set(err, -EPROTO, "group read of %zu bytes is too short for %zu events", nbytes, nevents);
	if (nevents > 64)
		return err_set(err, -E2BIG, "more than 64 events in a group");
	bool seen_small[64] = { false };
	seen = seen_small;
	for (size_t i = 0; i < nevents; i++) {
		uint64_t pair[2];
		memcpy(pair, (const unsigned char *)buf + (header + per_event * i) * sizeof(uint64_t), sizeof(pair));
		size_t k = 0;
		while (k < nevents && ids[k] != pair[1])
			k++;
		if (k == nevents)
			return err_set(err, -EPROTO, "group read has an unknown event id %llu",
				       (unsigned long long)pair[1]);
		if (seen[k])
			return err_set(err, -EPROTO, "group read has event id %llu twice", (unsigned long long)pair[1]);
		seen[k] = true;
		counts[k].value = pair[0];
		counts[k].enabled = w[1];
		counts[k].running = w[2];
	}
	return 0;
}

struct perf_delta perf_delta_compute(const struct perf_count *before, const struct perf_count *after)
{
	struct perf_delta d;

	memset(&d, 0, sizeof(d));
	d.raw = after->value - before->value; /* 64-bit counts: modular difference */
	d.enabled = after->enabled - before->enabled;
	d.running = after->running - before->running;
	if (d.running == 0 || d.running > d.enabled + d.enabled / 1000 + 1000) {
		/* never ran, or times that went backwards: no estimate, and certainly not 0 */
		d.counted = false;
		return d;
	}
	d.counted = true;
	if (d.running >= d.enabled) {
		d.value = (double)d.raw;
		d.running_pct = 100.0;
	} else {
		d.value = (double)d.raw * (double)d.enabled / (double)d.running;
		d.running_pct = 100.0 * (double)d.running / (double)d.enabled;
	}
	return d;
}

struct perf_delta perf_delta_sum(const struct perf_count *before, const struct perf_count *after, size_t ncpus,
				 size_t nevents, size_t event)
{
	struct perf_delta sum;

	memset(&sum, 0, sizeof(sum));
	for (size_t c = 0; c < ncpus; c++) {
		struct perf_delta d = perf_delta_compute(&before[c * nevents + event], &after[c * nevents + event]);
		sum.enabled += d.enabled;
		sum.running += d.running;
		if (!d.counted)
			continue;
		sum.counted = true;
		sum.raw += d.raw;
		sum.value += d.value;
	}
	if (sum.counted && sum.enabled)
		sum.running_pct =
			sum.running >= sum.enabled ? 100.0 : 100.0 * (double)sum.running / (double)sum.enabled;
	return sum;
}
