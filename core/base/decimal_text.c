/* See decimal_text.h. */
#include "core/base/decimal_text.h"

#include <stdio.h>
#include <stdlib.h>

void decimal_text(double v, char *buf, size_t len)
{
	/* 17 significant digits always read back exactly; fewer usually do and read better. */
	for (int digits = 6; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}
