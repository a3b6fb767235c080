/* A bench program's whole-number argument, checked the one way they all check it. */
#ifndef MPAMD_BENCH_BENCH_ARG_H
#define MPAMD_BENCH_BENCH_ARG_H

/* The whole number `s` (decimal, or hexadecimal after 0x) in [lo, hi]; otherwise says "<program>: <what>: <why>" on stderr and
 * exits 2, as a usage error does. */
unsigned bench_arg(const char *program, const char *what, const char *s, unsigned lo, unsigned hi);

#endif
