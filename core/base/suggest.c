#include "core/base/suggest.h"

#include <string.h>
#include <strings.h>

#define SUGGEST_MAX_LEN 64

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;
	return m < c ? m : c;
}

/* Optimal string alignment distance over a (la+1)x(lb+1) table. */
unsigned suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return 255;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb] > 255 ? 255 : d[la][lb];
}

/* Allow about one edit per three characters, at least one and at most three. */
static unsigned allowed_distance(const char *word)
{
	size_t len = strlen(word);

	return len < 3 ? 1 : (len / 3 > 3 ? 3 : (unsigned)(len / 3));
}

const char *suggest_nearest(const char *word, const char *const *candidates, size_t count)
{
	const char *best = NULL;
	unsigned best_distance = 255;

	for (size_t i = 0; i < count; i++) {
		unsigned dist = suggest_distance(word, candidates[i]);
		if (dist < best_distance) {
			best_distance = dist;
			best = candidates[i];
		}
	}
	size_t len = strlen(word);
	if (best_distance <= allowed_distance(word))
		return best;
	/* A unit or suffix left off ("target" for "target_mbps"). */
	for (size_t i = 0; len >= 4 && i < count; i++)
		if (!strncmp(candidates[i], word, len))
			return candidates[i];
	return NULL;
}

static unsigned name_distance(const char *word, const char *candidate)
{
	return strcasecmp(word, candidate) ? suggest_distance(word, candidate) : 1;
}

size_t suggest_near(const char *word, const char *const *candidates, size_t count, const char **ret, size_t max)
{
	unsigned allowed = allowed_distance(word);
	size_t found = 0;

	/* One pass per distance keeps the nearest first without sorting: allowed is at most 3. */
	for (unsigned d = 0; d <= allowed; d++)
		for (size_t i = 0; i < count && found < max; i++)
			if (name_distance(word, candidates[i]) == d)
				ret[found++] = candidates[i];
	return found;
}
