/* Shared replies: within one generation of the daemon's state, status, list and metrics are encoded
 * once, whatever the number of requests; a reply is never older than its request; everything else
 * is answered afresh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/ctl/reply_cache.h"
#include "tests/util/testutil.h"

struct fake {
	unsigned status, list, show;
	uint64_t generation;
	int fail_list; /* list returns NULL with an error */
};

static struct fake fake;

static json_t *fake_status(void *ctx)
{
	struct fake *f = ctx;

	f->status++;
	return json_pack("{s:I}", "ticks", (json_int_t)f->generation);
}

static json_t *fake_list(void *ctx)
{
	struct fake *f = ctx;

	f->list++;
	if (f->fail_list)
		return NULL;
	return json_pack("{s:[{s:s, s:I}]}", "partitions", "name", "web", "n", (json_int_t)f->list);
}

static json_t *fake_show(void *ctx, const char *name, struct err *err)
{
	struct fake *f = ctx;

	(void)err;
	f->show++;
	return json_pack("{s:s}", "name", name);
}

static uint64_t fake_generation(void *ctx)
{
	return ((struct fake *)ctx)->generation;
}

static const struct ctl_handler with_generation = {
	.ctx = &fake,
	.status = fake_status,
	.list = fake_list,
	.show = fake_show,
	.generation = fake_generation,
};
static const struct ctl_handler without_generation = {
	.ctx = &fake,
	.status = fake_status,
	.list = fake_list,
	.show = fake_show,
};
static const struct ctl_peer peer = { .uid = 1000, .gid = 1000, .pid = 2 };

static struct reply_cache cache;

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	memset(&cache, 0, sizeof(cache));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	reply_cache_fini(&cache);
	return 0;
}

/* The reply to `request`, read at generation *floor, as a malloc'ed string. */
static char *answer_from(const struct ctl_handler *h, const char *request, uint64_t *floor)
{
	struct reply_buf *r;

	assert_int_equal(reply_cache_answer(&cache, h, &peer, request, strlen(request), floor, &r), 0);
	assert_true(reply_buf_len(r) > 0 && reply_buf_data(r)[reply_buf_len(r) - 1] == '\n');
	char *copy = strndup(reply_buf_data(r), reply_buf_len(r));
	reply_buf_unref(r);
	return copy;
}

/* The reply to `request` read now, as the server does. */
static char *answer(const struct ctl_handler *h, const char *request)
{
	uint64_t floor = h->generation ? h->generation(h->ctx) : 0;

	return answer_from(h, request, &floor);
}

static void assert_contains(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("'%s' lacks '%s'", text, needle);
}

static void test_one_encoding_per_generation(void **state)
{
	const int requests = 50;

	(void)state;
	fake.generation = 7;
	char *first = answer(&with_generation, "{\"cmd\":\"list\"}\n");
	for (int i = 1; i < requests; i++) {
		char *again =
			answer(&with_generation, i % 2 ? "{\"cmd\":\"list\"}\n" : "{\"version\":1,\"cmd\":\"list\"}");
		assert_string_equal(again, first);
		free(again);
	}
	assert_int_equal(fake.list, 1);
	assert_int_equal(cache.encodings, 1);
	assert_int_equal(cache.hits, requests - 1);

	/* status has an entry of its own. */
	char *status = answer(&with_generation, "{\"cmd\":\"status\"}");
	free(answer(&with_generation, "{\"cmd\":\"status\"}"));
	assert_int_equal(fake.status, 1);
	assert_contains(status, "\"ticks\":7");
	free(status);

	/* A new generation: each is made again, once. */
	fake.generation = 8;
	char *next = answer(&with_generation, "{\"cmd\":\"list\"}");
	free(answer(&with_generation, "{\"cmd\":\"list\"}"));
	assert_int_equal(fake.list, 2);
	assert_string_not_equal(next, first);
	status = answer(&with_generation, "{\"cmd\":\"status\"}");
	assert_contains(status, "\"ticks\":8");
	assert_int_equal(fake.status, 2);
	assert_int_equal(cache.encodings, 4);
	free(status);
	free(next);
	free(first);
}

static json_t *fake_set(void *ctx, const struct ctl_peer *p, const char *name, const char *const *settings,
			size_t count, struct err *err)
{
	struct fake *f = ctx;

	(void)p, (void)name, (void)settings, (void)count, (void)err;
	f->generation++; /* what a set does to the daemon's generation */
	return json_object();
}

/* Requests read while a reply was built get that reply, however many generations passed since (the
 * daemon's ticks go on while a large reply is built); one read after a set gets a reply of it. */
static void test_no_older_than_its_request(void **state)
{
	struct ctl_handler h = with_generation;
	uint64_t floor_a = 3, floor_b = 3;

	(void)state;
	h.set = fake_set;
	fake.generation = 3;
	char *first = answer_from(&h, "{\"cmd\":\"status\"}", &floor_a);
	fake.generation = 5; /* two ticks while the reply was built */
	char *second = answer_from(&h, "{\"cmd\":\"status\"}", &floor_b);
	assert_string_equal(second, first);
	assert_int_equal(fake.status, 1);
	free(second);
	/* A request read at generation 5 is not answered with 3's text. */
	floor_b = 5;
	second = answer_from(&h, "{\"cmd\":\"status\"}", &floor_b);
	assert_contains(second, "\"ticks\":5");
	free(second);
	/* Pipelined: status, set, status read together at 5. The second status is of the set. */
	static const struct ctl_peer root = { .may_mutate = true };
	static const char set[] = "{\"cmd\":\"set\",\"name\":\"web\",\"settings\":[\"weight=2\"]}";
	struct reply_buf *r;
	assert_int_equal(reply_cache_answer(&cache, &h, &root, set, strlen(set), &floor_a, &r), 0);
	assert_non_null(strstr(reply_buf_data(r), "\"ok\":true"));
	reply_buf_unref(r);
	assert_int_equal(floor_a, 6);
	second = answer_from(&h, "{\"cmd\":\"status\"}", &floor_a);
	assert_contains(second, "\"ticks\":6");
	assert_int_equal(fake.status, 3);
	free(second);
	free(first);
}

static void test_not_shared(void **state)
{
	(void)state;
	/* Per-argument replies, and a handler that cannot say when its state changes. */
	for (int i = 0; i < 3; i++) {
		free(answer(&with_generation, "{\"cmd\":\"show\",\"name\":\"web\"}"));
		free(answer(&without_generation, "{\"cmd\":\"list\"}"));
	}
	assert_int_equal(fake.show, 3);
	assert_int_equal(fake.list, 3);
	assert_int_equal(cache.hits, 0);

	/* Requests that are errors are never answered from a shared entry. */
	free(answer(&with_generation, "{\"cmd\":\"list\"}"));
	char *r = answer(&with_generation, "{\"cmd\":\"list\",\"version\":2}");
	assert_contains(r, "protocol version 2 is not supported");
	free(r);
	r = answer(&with_generation, "{\"cmd\":\"list\",\"name\":\"web\"}");
	assert_contains(r, "'list' does not take \\\"name\\\"");
	free(r);
	r = answer(&with_generation, "{\"cmd\":\"list\"} x");
	assert_contains(r, "not valid JSON");
	free(r);
	assert_int_equal(fake.list, 4);
	assert_int_equal(cache.hits, 0);
}

/* A failed reply is not kept: the next request asks the handler again. */
static void test_errors_not_kept(void **state)
{
	(void)state;
	fake.fail_list = 1;
	for (int i = 0; i < 3; i++) {
		char *r = answer(&with_generation, "{\"cmd\":\"list\"}");
		assert_contains(r, "\"ok\":false");
		free(r);
	}
	assert_int_equal(fake.list, 3);
	fake.fail_list = 0;
	free(answer(&with_generation, "{\"cmd\":\"list\"}"));
	free(answer(&with_generation, "{\"cmd\":\"list\"}"));
	assert_int_equal(fake.list, 4);
	assert_int_equal(cache.hits, 1);
}

static void test_shared_commands(void **state)
{
	(void)state;
	assert_true(ctl_command_find("status")->shared);
	assert_true(ctl_command_find("list")->shared);
	assert_true(ctl_command_find("metrics")->shared);
	assert_false(ctl_command_find("show")->shared);
	assert_false(ctl_command_find("set")->shared);
	assert_false(ctl_command_find("reload")->shared);
	const char *line = "{\"cmd\":\"status\"}\r\n";
	assert_ptr_equal(ctl_request_shared(line, strlen(line)), ctl_command_find("status"));
	line = "{\"cmd\":\"reload\"}";
	assert_null(ctl_request_shared(line, strlen(line)));
	line = "{\"cmd\":\"frob\"}";
	assert_null(ctl_request_shared(line, strlen(line)));
}

/* The reply line to `request` read now: a reference, the caller's. */
static struct reply_buf *answer_ref(const struct ctl_handler *h, const char *request)
{
	uint64_t floor = h->generation(h->ctx);
	struct reply_buf *r;

	assert_int_equal(reply_cache_answer(&cache, h, &peer, request, strlen(request), &floor, &r), 0);
	return r;
}

/* Clients of one generation get the cache's line itself, not a copy; a line outlives its entry while
 * a client holds it (a slow reader), and goes with the last reference (ASan: no leak, no use after
 * free). */
static void test_shared_by_reference(void **state)
{
	(void)state;
	fake.generation = 3;
	struct reply_buf *slow = answer_ref(&with_generation, "{\"cmd\":\"list\"}");
	struct reply_buf *fast = answer_ref(&with_generation, "{\"cmd\":\"list\"}");
	assert_ptr_equal(slow, fast);
	assert_int_equal(slow->refs, 3); /* the entry's and the two clients' */
	char *before = strndup(reply_buf_data(slow), reply_buf_len(slow));
	reply_buf_unref(fast);

	fake.generation = 4; /* the entry moves on; the slow reader still holds generation 3's line */
	struct reply_buf *next = answer_ref(&with_generation, "{\"cmd\":\"list\"}");
	assert_ptr_not_equal(next, slow);
	assert_int_equal(slow->refs, 1);
	assert_memory_equal(reply_buf_data(slow), before, reply_buf_len(slow));
	reply_buf_unref(slow);
	reply_buf_unref(next);
	free(before);

	/* A reply that is not shared is the client's alone. */
	struct reply_buf *own = answer_ref(&with_generation, "{\"cmd\":\"show\",\"name\":\"web\"}");
	assert_int_equal(own->refs, 1);
	reply_buf_unref(own);
}

/* list written by the handler's own writer: wrapped as ctl_reply_ok wraps a value, shared like one,
 * and a writer that fails is answered as a list that returns NULL, whatever it wrote before. */
static bool fake_list_text(void *ctx, struct json_text *t)
{
	struct fake *f = ctx;

	f->list++;
	json_text_lit(t, "{\"partitions\":[]");
	if (f->fail_list)
		return false;
	json_text_lit(t, "}");
	return true;
}

static void test_handler_writes_text(void **state)
{
	struct ctl_handler h = with_generation;

	(void)state;
	h.list_text = fake_list_text;
	char *r = answer(&h, "{\"cmd\":\"list\"}");
	assert_string_equal(r, "{\"version\":1,\"ok\":true,\"result\":{\"partitions\":[]}}\n");
	free(r);
	free(answer(&h, "{\"cmd\":\"list\"}"));
	assert_int_equal(fake.list, 1);
	assert_int_equal(cache.hits, 1);
	/* status has no writer: jansson's value, as before. */
	r = answer(&h, "{\"cmd\":\"status\"}");
	assert_string_equal(r, "{\"version\":1,\"ok\":true,\"result\":{\"ticks\":0}}\n");
	free(r);

	fake.fail_list = 1;
	fake.generation = 1;
	char *failed = answer(&h, "{\"cmd\":\"list\"}");
	h.list_text = NULL;
	fake.generation = 2;
	char *from_json = answer(&h, "{\"cmd\":\"list\"}");
	assert_string_equal(failed, from_json);
	assert_string_equal(failed, "{\"version\":1,\"ok\":false,\"error\":\"'list' failed\"}\n");
	free(failed);
	free(from_json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_one_encoding_per_generation),
		fixture_test(test_no_older_than_its_request),
		fixture_test(test_not_shared),
		fixture_test(test_errors_not_kept),
		fixture_test(test_shared_commands),
		fixture_test(test_shared_by_reference),
		fixture_test(test_handler_writes_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
