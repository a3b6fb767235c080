#include "core/ctl/reply_buf.h"

#include <stdlib.h>

struct reply_buf *reply_buf_new(void)
{
	struct reply_buf *b = calloc(1, sizeof(*b));

	if (b)
		b->refs = 1;
	return b;
}

struct reply_buf *reply_buf_ref(struct reply_buf *b)
{
	b->refs++;
	return b;
}

void reply_buf_unref(struct reply_buf *b)
{
	if (!b || --b->refs > 0)
		return;
	json_text_fini(&b->text);
	free(b);
}
