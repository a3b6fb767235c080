#include "core/base/histogram.h"

#include <string.h>

void histogram_init(struct histogram *h, const double *bounds, size_t count)
{
	memset(h, 0, sizeof(*h));
	h->bound_count = count < HISTOGRAM_MAX_BOUNDS ? count : HISTOGRAM_MAX_BOUNDS;
	memcpy(h->bounds, bounds, h->bound_count * sizeof(*bounds));
}

void histogram_observe(struct histogram *h, double value)
{
	size_t i = 0;

	while (i < h->bound_count && value > h->bounds[i])
		i++;
	h->counts[i]++;
	h->count++;
	h->sum += value;
}

uint64_t histogram_cumulative(const struct histogram *h, size_t index)
{
	uint64_t total = 0;

	for (size_t i = 0; i <= index && i <= h->bound_count; i++)
		total += h->counts[i];
	return total;
}
