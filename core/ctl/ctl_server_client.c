/* One client of the control socket, the protocol's side of the server: its bytes read and cut into
 * request lines, answered in order (through the reply cache) within what the dispatch's budget and
 * its own queue allow, the replies queued (by reference: a shared reply is one line for all its
 * clients) and written as the socket takes them, and a line too long answered with an error before
 * hanging up. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "core/ctl/ctl_server.h"
#include "core/ctl/ctl_server_internal.h"
#include "core/ctl/proto.h"
#include "core/ctl/reply_cache.h"

/* Replies a client holds alone are appended to the last one it holds alone, up to this size, so a
 * stream of small replies costs about what their bytes do, not a line each. */
#define OUT_COALESCE (64 * 1024)
#define OUT_KEEP     64 /* an emptied queue larger than this many lines is released */

static struct out_segment *queue_tail(struct ctl_client *c)
{
	return c->out_count ? &c->out[c->out_head + c->out_count - 1] : NULL;
}

/* Appends `line` (held by the client alone) to the tail when the tail is the client's alone, short
 * and has room: true when it did, and `line` is dropped. */
static bool queue_coalesce(struct ctl_client *c, struct reply_buf *line)
{
	struct out_segment *tail = queue_tail(c);

	if (!tail || line->refs != 1 || tail->line->refs != 1 ||
	    reply_buf_len(tail->line) + reply_buf_len(line) > OUT_COALESCE)
		return false;
	json_text_raw(&tail->line->text, reply_buf_data(line), reply_buf_len(line));
	if (tail->line->text.failed) {
		tail->line->text.failed = false; /* nothing was appended: the tail is whole, queue `line` apart */
		return false;
	}
	reply_buf_unref(line);
	return true;
}

static int queue_push(struct ctl_client *c, struct reply_buf *line)
{
	if (c->out_head + c->out_count == c->out_cap) {
		if (c->out_head > 0) {
			memmove(c->out, c->out + c->out_head, c->out_count * sizeof(*c->out));
			c->out_head = 0;
		} else {
			size_t cap = c->out_cap ? c->out_cap * 2 : 8;
			struct out_segment *grown = realloc(c->out, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			c->out = grown;
			c->out_cap = cap;
		}
	}
	c->out[c->out_head + c->out_count++] = (struct out_segment){ line, 0 };
	return 0;
}

/* Queues a reply line, taking the caller's reference; it is written by client_flush. A line others
 * hold too (the reply cache's) is queued by reference, never copied. */
static int client_queue_line(struct ctl_client *c, struct reply_buf *line)
{
	size_t len = reply_buf_len(line);

	if (len == 0) {
		reply_buf_unref(line);
		return 0;
	}
	if (!queue_coalesce(c, line)) {
		int r = queue_push(c, line);
		if (r < 0) {
			reply_buf_unref(line);
			return r;
		}
	}
	if (c->queued == 0)
		c->out_since_ms = now_ms();
	c->queued += len;
	return 0;
}

static int client_queue(struct ctl_client *c, const json_t *reply)
{
	struct reply_buf *line = reply_buf_new();
	int r = line ? ctl_reply_encode_to(reply, &line->text) : -ENOMEM;

	if (r < 0) {
		reply_buf_unref(line);
		return r;
	}
	return client_queue_line(c, line);
}

static void queue_pop(struct ctl_client *c)
{
	reply_buf_unref(c->out[c->out_head].line);
	c->out_head++;
	c->out_count--;
}

static void queue_release_if_empty(struct ctl_client *c)
{
	if (c->out_count)
		return;
	c->out_head = 0;
	if (c->out_cap > OUT_KEEP) {
		free(c->out);
		c->out = NULL;
		c->out_cap = 0;
	}
}

static int client_flush(struct ctl_client *c)
{
	while (c->out_count > 0) {
		struct out_segment *seg = &c->out[c->out_head];
		size_t left = reply_buf_len(seg->line) - seg->off;
		ssize_t n = send(c->fd, reply_buf_data(seg->line) + seg->off, left, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		seg->off += (size_t)n;
		c->queued -= (size_t)n;
		c->out_since_ms = c->active_ms = now_ms();
		if (seg->off == reply_buf_len(seg->line))
			queue_pop(c);
	}
	queue_release_if_empty(c);
	return 0;
}

void ctl_server_client_release(struct ctl_client *c)
{
	while (c->out_count > 0)
		queue_pop(c);
	free(c->out);
	free(c->in);
	c->out = NULL;
	c->in = NULL;
	c->out_head = c->out_cap = c->queued = 0;
}

static bool client_paused(const struct ctl_client *c)
{
	return client_queued(c) >= CTL_SERVER_OUT_PAUSE;
}

/* Reads only when everything read so far has been answered, so input stays within one line. */
static bool client_reading(const struct ctl_client *c)
{
	return !c->closing && !c->eof && !client_paused(c) && !c->lines_pending;
}

static int client_answer(struct ctl_server *s, struct ctl_client *c, const char *line, size_t len)
{
	struct reply_buf *reply;
	int r = reply_cache_answer(&s->replies, s->handler, &c->peer, line, len, &c->floor, &reply);

	return r < 0 ? r : client_queue_line(c, reply);
}

/* Whether one more request may be answered now: `taken` is this client's count in this dispatch. */
static bool budget_allows(const struct ctl_server *s, unsigned taken)
{
	return taken < CTL_SERVER_ANSWERS_PER_CLIENT && s->budget.answers > 0 && s->budget.bytes > 0;
}

static int client_answer_counted(struct ctl_server *s, struct ctl_client *c, const char *line, size_t len,
				 unsigned *taken)
{
	size_t before = client_queued(c);
	int r = client_answer(s, c, line, len);
	size_t queued = client_queued(c) - before;

	(*taken)++;
	s->budget.answers--;
	s->budget.bytes -= queued < s->budget.bytes ? queued : s->budget.bytes;
	return r;
}

/* Answers the complete lines buffered, in order, while the queue is short and the budget lasts;
 * then, at end of input, a last line without its newline. */
static int client_process(struct ctl_server *s, struct ctl_client *c, unsigned *taken)
{
	size_t pos = 0;
	int r = 0;

	while (r >= 0 && !c->closing && !client_paused(c) && budget_allows(s, *taken)) {
		char *nl = memchr(c->in + pos, '\n', c->in_len - pos);
		if (!nl)
			break;
		size_t len = (size_t)(nl - (c->in + pos)) + 1;
		r = client_answer_counted(s, c, c->in + pos, len, taken);
		pos += len;
	}
	memmove(c->in, c->in + pos, c->in_len - pos);
	c->in_len -= pos;
	c->lines_pending = !c->closing && memchr(c->in, '\n', c->in_len);
	if (r >= 0 && c->eof && !c->lines_pending && c->in_len > 0 && !client_paused(c) && budget_allows(s, *taken)) {
		r = client_answer_counted(s, c, c->in, c->in_len, taken);
		c->in_len = 0;
	}
	bool partial = !c->eof && !c->lines_pending && c->in_len > 0;
	if (partial && !c->partial)
		c->in_since_ms = now_ms();
	c->partial = partial;
	return r;
}

/* Requests are buffered that the budget or the queue held back. */
static bool client_has_work(const struct ctl_client *c)
{
	return !c->closing && (c->lines_pending || (c->eof && c->in_len > 0));
}

/* A full buffer without a newline: the line is too long. Say so and hang up, reading no more. */
static int client_reject_long_line(struct ctl_client *c)
{
	json_t *reply = ctl_reply_error("request larger than %d bytes", CTL_MAX_REQUEST);
	int r = reply ? client_queue(c, reply) : -ENOMEM;

	json_decref(reply);
	c->closing = true;
	c->in_len = 0;
	c->partial = false;
	shutdown(c->fd, SHUT_RD);
	return r;
}

/* What the handler shows now: a request read from here on is answered with this or later. */
static void client_note_generation(const struct ctl_server *s, struct ctl_client *c)
{
	uint64_t now = s->handler->generation ? s->handler->generation(s->handler->ctx) : 0;

	c->floor = now > c->floor ? now : c->floor;
}

static int client_read(const struct ctl_server *s, struct ctl_client *c)
{
	if (c->in_len == CTL_MAX_REQUEST)
		return 0; /* full of lines still to answer; a zero-length recv would look like EOF */
	if (c->in_len == c->in_cap) {
		size_t cap = c->in_cap * 2 < CTL_MAX_REQUEST ? c->in_cap * 2 : CTL_MAX_REQUEST;
		char *grown = realloc(c->in, cap);
		if (!grown)
			return -ENOMEM;
		c->in = grown;
		c->in_cap = cap;
	}
	ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	if (n == 0)
		c->eof = true;
	else
		c->active_ms = now_ms();
	if (n > 0)
		client_note_generation(s, c);
	c->in_len += (size_t)n;
	return 0;
}

static int client_watch(struct ctl_server *s, struct ctl_client *c)
{
	/* Work left by the budget asks for EPOLLOUT: a socket with room is writable at once, so the
	 * next dispatch comes back to it after serving the others. */
	bool out = client_queued(c) > 0 || client_has_work(c);
	uint32_t want = (client_reading(c) ? EPOLLIN : 0) | (out ? EPOLLOUT : 0);

	if (want == c->watched)
		return 0;
	int r = ctl_server_watch(s, EPOLL_CTL_MOD, c->fd, want, c);
	if (r == 0)
		c->watched = want;
	return r;
}

/* One round for a client: write, read, answer, write. Returns why it must go, or NULL. */
const char *ctl_server_client_step(struct ctl_server *s, struct ctl_client *c, uint32_t events)
{
	if ((events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) && client_flush(c) < 0)
		return "gone while replies were pending";
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && client_reading(c) && client_read(s, c) < 0)
		return "read failed";
	if (!c->closing && !c->eof && c->in_len == CTL_MAX_REQUEST && !memchr(c->in, '\n', c->in_len) &&
	    client_reject_long_line(c) < 0)
		return "out of memory";
	/* Answering may queue enough to pause, writing may unpause: go on until neither moves. */
	unsigned taken = 0;
	for (;;) {
		size_t queued = client_queued(c), buffered = c->in_len;
		if (client_process(s, c, &taken) < 0)
			return "out of memory";
		if (client_flush(c) < 0)
			return "gone while replies were pending";
		if (client_queued(c) > CTL_SERVER_OUT_MAX)
			return "too many replies queued";
		if (client_queued(c) == queued && c->in_len == buffered)
			break;
	}
	if ((c->closing || (c->eof && c->in_len == 0)) && client_queued(c) == 0)
		return c->closing ? "request too long" : "done";
	if (client_watch(s, c) < 0)
		return "cannot watch";
	return NULL;
}
