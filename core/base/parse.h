/* Strict parsers for configuration and command-line values.
 *
 * Each returns 0 and stores the result through ret_*, or returns a negative errno and leaves ret_*
 * untouched, writing a short human reason into err, which never repeats the value itself, so callers
 * can frame it: "mb_max = 150: out of range 1..100").
 * "Strict" means: no leading or trailing garbage, no sign where none makes sense, no overflow. */
#ifndef MPAMD_CORE_PARSE_H
#define MPAMD_CORE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

/* Decimal, or hexadecimal with a 0x prefix. */
int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct err *err);
/* Decimal digits only: a count a program wrote (a record file's t_ms), where 0x would be damage. */
int parse_uint_decimal(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct err *err);
/* A size in bytes: decimal, optionally followed by K, M or G (either case; powers of 1024). */
int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct err *err);
/* Hexadecimal with or without 0x: bitmaps are written bare in resctrl schemata. */
int parse_hex(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct err *err);
/* An integer percentage, optionally followed by '%'. */
int parse_percent(const char *s, unsigned min, unsigned max, unsigned *ret, struct err *err);
/* A decimal number without sign or exponent ("0.2", "1.5", "3", ".5") in [min,max]. */
int parse_decimal(const char *s, double min, double max, double *ret, struct err *err);
/* A number >= 0 as a program writes one, in [min,max]: a digit first, then digits, a fraction and an
 * exponent as strtod reads them ("1234.5", "3", "2e3", "1.5e-3"); no sign, blanks, hex, inf or nan,
 * and nothing strtod would take past the largest double or below the smallest. For what programs
 * write (a record file's rates, times in seconds); a configuration's values are parse_decimal's. */
int parse_real(const char *s, double min, double max, double *ret, struct err *err);
/* true/false, yes/no, on/off, 1/0. */
int parse_bool(const char *s, bool *ret, struct err *err);

/* The value of hexadecimal digit `c` (either case), or -1. */
int hex_digit_value(char c);
/* Whether comma-separated `list` (mount options, say) holds the `len` bytes of `word` as a whole item. */
bool word_list_has(const char *list, const char *word, size_t len);

/* One of the names in `names` (NULL-terminated); stores its index. */
int parse_enum(const char *s, const char *const *names, unsigned *ret, struct err *err);

/* A list of unsigned integers in [min,max], separated by commas and/or blanks.
 * On success *ret_values is malloc'ed (caller frees) and holds *ret_count (>= 1) values. */
int parse_uint_list(const char *s, uint64_t min, uint64_t max, uint64_t **ret_values, size_t *ret_count,
		    struct err *err);

/* A CPU list as in cpus_list: "0-3,8,10-11", every CPU below `limit` (a multiple of 64).
 * Sets the bits in bits[limit / 64] (cleared first) and the count of CPUs. */
int parse_cpu_list(const char *s, unsigned limit, uint64_t *bits, unsigned *ret_count, struct err *err);

/* Names of partitions and MSCs: [A-Za-z0-9_.-]{1,64}, not "." or "..". */
#define NAME_MAX_LEN 64
int name_check(const char *s, struct err *err);

#endif
