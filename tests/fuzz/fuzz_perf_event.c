/* libFuzzer target: the perf event resolver on arbitrary strings against the fixture PMU trees. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/perf/perf_event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct perf_sysfs *s;
	struct perf_event_desc d;
	struct err err;
	char text[1024];

	if (!s && perf_sysfs_new(PERF_FUZZ_SYSFS, &s, &err) < 0)
		abort();
	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	if (perf_resolve(s, text, &d, &err) == 0) {
		if (!d.name[0] || (d.ncpus && !d.cpus))
			abort();
		perf_event_desc_clear(&d);
	} else if (!err.text[0]) {
		abort(); /* every failure says why */
	}
	return 0;
}
