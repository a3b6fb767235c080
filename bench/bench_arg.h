/* A bench program's whole-number argument, checked the one way they all check it. */
#ifndef MPAMD_BENCH_BENCH_ARG_H
#define MPAMD_BENCH_BENCH_ARG_H

/* The whole number `s` (decimal, or hexadecimal after 0x) in [lo, hi]; otherwise says "<program>: <what>: <why>" on stderr and
 * exits 2, as a usage error does. */
unsigned bench_arg(const char *program, const char *what, const char *s, unsigned lo, unsigned hi);

/* The host a driver bench (bench_driver, bench_sim) measures: PARTITIONS MSCS MONITORS TICKS. */
struct bench_shape {
	unsigned partitions, mscs, monitors, ticks;
};

/* The four of argv[1..4], each checked by bench_arg; MONITORS from `monitors_lo` (0 where the program
 * can run without monitors). */
struct bench_shape bench_shape_args(const char *program, char *const argv[], unsigned monitors_lo);

#endif
