/* A bench program's whole-number arguments. */
#include "bench/bench_arg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/base/error.h"
#include "core/base/parse.h"

unsigned bench_arg(const char *program, const char *what, const char *s, unsigned lo, unsigned hi)
{
	struct err err = { "" };
	uint64_t v;

	if (parse_uint(s, lo, hi, &v, &err) < 0) {
		fprintf(stderr, "%s: %s: %s\n", program, what, err.text);
		exit(2);
	}
	return (unsigned)v;
}

struct bench_shape bench_shape_args(const char *program, char *const argv[], unsigned monitors_lo)
{
	struct bench_shape s;

	s.partitions = bench_arg(program, "PARTITIONS", argv[1], 1, 65535);
	s.mscs = bench_arg(program, "MSCS", argv[2], 1, 64);
	s.monitors = bench_arg(program, "MONITORS", argv[3], monitors_lo, 65535);
	s.ticks = bench_arg(program, "TICKS", argv[4], 1, 1000000);
	return s;
}
