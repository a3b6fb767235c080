/* A bench program's whole-number argument. */
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
