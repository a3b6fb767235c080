#include "core/base/counter.h"

#include <math.h>

uint64_t counter_wrap_ns(unsigned bits, unsigned scale, double mbps)
{
	if (mbps <= 0.0)
		return UINT64_MAX;
	double bytes = ldexp(1.0, (int)(bits + scale)); /* one full range */
	double ns = bytes * 1e3 / mbps;
	return ns >= 1.8e19 ? UINT64_MAX : (uint64_t)ns;
}
