/* One encoded reply line, shared by reference: the reply cache holds one while its generation lasts,
 * and every client it answered holds one until it has written the line (each with its own offset),
 * so N clients of one generation cost one line in memory, not N copies. The count is not atomic: a
 * reply_buf lives and dies on the server's thread (core/ctl/ctl_thread.h). */
#ifndef MPAMD_CORE_CTL_REPLY_BUF_H
#define MPAMD_CORE_CTL_REPLY_BUF_H

#include <stddef.h>

#include "core/ctl/json_text.h"

struct reply_buf {
	size_t refs;
	struct json_text text; /* the reply line, '\n' included */
};

/* An empty line with one reference, the caller's; NULL when out of memory. */
struct reply_buf *reply_buf_new(void);
struct reply_buf *reply_buf_ref(struct reply_buf *b);
/* Drops a reference; the last one frees the line. NULL is ignored. */
void reply_buf_unref(struct reply_buf *b);

static inline const char *reply_buf_data(const struct reply_buf *b)
{
	return b->text.data;
}

static inline size_t reply_buf_len(const struct reply_buf *b)
{
	return b->text.len;
}

#endif
