/* Growing arrays indexed by a partition's slot: a slot beyond what was opened at start (a partition
 * added by a reload) makes the array longer, never renumbers what is there. */
#ifndef MPAMD_CORE_BASE_GROW_H
#define MPAMD_CORE_BASE_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes *items (of *cap elements of `size` bytes) hold at least `want` elements: at least doubling,
 * so that adding slots one at a time stays linear. The new elements are zeroed; *first_new (may be
 * NULL) gets the old capacity, from where the caller initialises what zero does not. 0 or -ENOMEM
 * (the array is then as it was). */
static inline int array_grow(void **items, size_t *cap, size_t want, size_t size, size_t *first_new)
{
	size_t old = *cap, next = old ? old : 4;

	if (first_new)
		*first_new = old;
	if (want <= old)
		return 0;
	while (next < want)
		next = next > SIZE_MAX / 2 ? want : next * 2;
	if (next > SIZE_MAX / size)
		return -ENOMEM;
	void *grown = realloc(*items, next * size);
	if (!grown)
		return -ENOMEM;
	memset((char *)grown + old * size, 0, (next - old) * size);
	*items = grown;
	*cap = next;
	return 0;
}

#endif
