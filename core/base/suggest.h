/* "Did you mean ...?" for misspelt keys and section kinds. */
#ifndef MPAMD_CORE_SUGGEST_H
#define MPAMD_CORE_SUGGEST_H

#include <stddef.h>

/* Edit distance (insertions, deletions, substitutions, adjacent swaps), capped at 255. */
unsigned suggest_distance(const char *a, const char *b);

/* The candidate closest to `word` if it is close enough to be a plausible typo, else NULL.
 * `candidates` holds `count` strings. */
const char *suggest_nearest(const char *word, const char *const *candidates, size_t count);

#endif
