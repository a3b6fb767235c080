/* "Did you mean ...?" for misspelt keys, section kinds and partition names. */
#ifndef MPAMD_CORE_SUGGEST_H
#define MPAMD_CORE_SUGGEST_H

#include <stddef.h>

/* Edit distance (insertions, deletions, substitutions, adjacent swaps), capped at 255. */
unsigned suggest_distance(const char *a, const char *b);

/* The candidate closest to `word` if it is close enough to be a plausible typo, else NULL.
 * `candidates` holds `count` strings. */
const char *suggest_nearest(const char *word, const char *const *candidates, size_t count);

/* Every plausible candidate for `word` (a misspelt name among many alike: "vm-web-3" for "vm-web-1"
 * and "vm-web-2"), nearest first and in their given order among equals, at most `max` of them into
 * ret; a difference of letter case alone counts as one edit. Returns how many. */
size_t suggest_near(const char *word, const char *const *candidates, size_t count, const char **ret, size_t max);

#endif
