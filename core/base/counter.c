#include "core/base/counter.h"

#include <math.h>

double counter_rate_mbps(uint64_t bytes, uint64_t elapsed_ns)
{
	if (elapsed_ns == 0)
		return 0.0;
	/* bytes / ns * 1e9 = bytes/s; / 1e6 = MB/s. */
	return (double)bytes * 1e3 / (double)elapsed_ns;
}

uint64_t counter_wrap_ns(unsigned bits, unsigned scale, double mbps)
{
	if (mbps <= 0.0)
		return UINT64_MAX;
	double bytes = ldexp(1.0, (int)(bits + scale)); /* one full range */
	double ns = bytes * 1e3 / mbps;
	return ns >= 1.8e19 ? UINT64_MAX : (uint64_t)ns;
}
