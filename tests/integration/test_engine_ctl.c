/* The engine behind its control socket: a reply does not wait for the tick thread, replies are of one
 * snapshot (the same for every client, status's tick and list's rows of the same tick), a set shows
 * in the next reply, and status reports how long ticks take. The clients live in the test's own
 * thread and talk from the engine's on_tick hook, which runs on the tick thread before the tick is
 * published: while a hook waits for a reply, no tick runs and none is published, so every reply is
 * of a known tick; nothing here depends on how fast the machine is. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/engine/engine.h"
#include "tests/util/engine_util.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"

#define CLIENTS	     6
#define INTERVAL_MS  20
#define WAIT_MS	     5000
#define LINE_MAX_LEN 65536

static const char *config_text = "[global]\nbackend = sim\ninterval_ms = 20\n"
				 "[sim]\ncapacity_mbps = 20000\nnoise_pct = 5\nseed = 7\n"
				 "[partition \"web\"]\ntarget_mbps = 3000\nsim_demand = 5000\n"
				 "[partition \"batch\"]\nclass = best-effort\nsim_demand = 8000\n";

struct client {
	int fd;
	char buf[LINE_MAX_LEN];
	size_t len;
};

struct scene {
	char dir[64];
	char path[96];
	struct client clients[CLIENTS];
	int phase;
	uint64_t tick_asked;		      /* the tick after which the waiting request was sent */
	uint64_t late_seen;		      /* tick_stats.late_ns of the tick that was due while the request waited */
	char lines[CLIENTS][3][LINE_MAX_LEN]; /* status, list and metrics asked in tick 3's hook */
	double web_mbps[2], batch_mbps[2];    /* live rates in the hooks of ticks 2 and 3 */
	char later[5][LINE_MAX_LEN];	      /* client 0's list, set, list, status, metrics after tick 5 */
	size_t later_count;
};

static struct scene scene;

static void client_connect(struct client *c, const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(c->fd >= 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		fail_msg("connect %s: %s", path, strerror(errno));
	assert_int_equal(fcntl(c->fd, F_SETFL, O_NONBLOCK), 0);
	c->len = 0;
}

static void client_send(struct client *c, const char *text)
{
	assert_int_equal(send(c->fd, text, strlen(text), MSG_NOSIGNAL), (ssize_t)strlen(text));
}

/* The next reply line (without its newline) into `out`, if one is complete; waits up to wait_ms. */
static bool client_line(struct client *c, char *out, int wait_ms)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		if (nl) {
			size_t len = (size_t)(nl - c->buf);
			memcpy(out, c->buf, len);
			out[len] = '\0';
			memmove(c->buf, nl + 1, c->len - len - 1);
			c->len -= len + 1;
			return true;
		}
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		if (poll(&pfd, 1, wait_ms) <= 0)
			return false;
		ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
		if (n <= 0)
			return false;
		c->len += (size_t)n;
	}
}

static json_t *result_of(const char *line)
{
	json_error_t error;
	json_t *reply = json_loads(line, 0, &error);

	if (!reply)
		fail_msg("reply is not JSON: %s: %.200s", error.text, line);
	if (!json_is_true(json_object_get(reply, "ok")))
		fail_msg("error reply: %s", line);
	json_t *result = json_incref(json_object_get(reply, "result"));
	json_decref(reply);
	return result;
}

static int setup(void **state)
{
	(void)state;
	memset(&scene, 0, sizeof(scene));
	snprintf(scene.dir, sizeof(scene.dir), "/tmp/mpamd-engine-ctl-XXXXXX");
	if (!mkdtemp(scene.dir))
		return -1;
	snprintf(scene.path, sizeof(scene.path), "%s/mpamd.sock", scene.dir);
	for (int i = 0; i < CLIENTS; i++)
		scene.clients[i].fd = -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < CLIENTS; i++)
		if (scene.clients[i].fd >= 0)
			close(scene.clients[i].fd);
	unlink(scene.path);
	return rmdir(scene.dir);
}

static void run_engine(struct engine_options *opts, uint64_t ticks)
{
	struct engine *engine = NULL;
	struct err err = { "" };
	struct config *config = load_config_text(config_text);

	assert_non_null(config);
	opts->ticks = ticks;
	opts->socket_path = scene.path;
	opts->socket_gid = getegid(); /* the test may set things, as root or not */
	if (engine_new(config, opts, &engine, &err) < 0)
		fail_msg("engine: %s", err.text);
	if (engine_run(engine, &err) < 0)
		fail_msg("engine_run: %s", err.text);
	assert_true(engine_ticks_done(engine) <= ticks); /* or fewer, when a hook stopped it */
	engine_free(engine);
}

/* ---- a reply does not wait for the tick ---- */

static void late_connect(void *ctx, struct engine *e)
{
	(void)ctx;
	(void)e;
	client_connect(&scene.clients[0], scene.path);
}

/* Tick 1 sleeps past the next deadline. Tick 2's hook asks for status and waits for the reply with
 * the tick thread held in the hook: the server's thread answers from tick 1's snapshot. */
static void late_on_tick(void *ctx, struct engine *e)
{
	(void)ctx;
	if (engine_ticks_done(e) == 1) {
		usleep(INTERVAL_MS * 1500);
	} else if (engine_ticks_done(e) == 2) {
		scene.late_seen = engine_tick_stats(e)->late_ns; /* tick 2's: it began after its deadline */
		client_send(&scene.clients[0], "{\"cmd\":\"status\"}\n");
		scene.phase = client_line(&scene.clients[0], scene.later[0], WAIT_MS);
	}
}

static void test_reply_without_the_tick(void **state)
{
	struct engine_options opts = { .on_ready = late_connect, .on_tick = late_on_tick };

	(void)state;
	run_engine(&opts, 4);
	assert_true(scene.phase); /* answered while the tick thread waited in its hook */
	json_t *status = result_of(scene.later[0]);
	/* Of tick 1, the last published: tick 2's hook runs before tick 2 is. */
	assert_int_equal(json_integer_value(json_object_get(status, "ticks")), 1);
	assert_true(scene.late_seen > 0);
	/* Tick 1, which slept, is the longest so far, and the last. */
	double last = json_real_value(json_object_get(status, "last_tick_ms"));
	double max = json_real_value(json_object_get(status, "max_tick_ms"));
	assert_true(max >= INTERVAL_MS * 1.5);
	assert_true(last >= 0 && last <= max);
	assert_true(json_is_integer(json_object_get(status, "overruns")));
	json_decref(status);
}

/* ---- replies within one tick, and set ---- */

static void sharing_connect(void *ctx, struct engine *e)
{
	(void)ctx;
	(void)e;
	for (int i = 0; i < CLIENTS; i++)
		client_connect(&scene.clients[i], scene.path);
}

static void note_rates(int k, struct engine *e)
{
	scene.web_mbps[k] = engine_find(e, "web", NULL)->mbps;
	scene.batch_mbps[k] = engine_find(e, "batch", NULL)->mbps;
}

/* Tick 3's hook: every client asks for status, list and metrics at once and waits for them: the
 * replies are of tick 2, whose rates tick 2's hook noted (tick 3's differ). From tick 5, client 0
 * pipelines list, set, list, status and metrics; the set is answered by the tick thread between two
 * ticks, so its reply is looked for without waiting, over as many ticks as it takes. */
static void sharing_on_tick(void *ctx, struct engine *e)
{
	uint64_t tick = engine_ticks_done(e);

	(void)ctx;
	if (tick == 2) {
		note_rates(0, e);
	} else if (tick == 3) {
		note_rates(1, e);
		for (int i = 0; i < CLIENTS; i++)
			client_send(&scene.clients[i],
				    "{\"cmd\":\"status\"}\n{\"cmd\":\"list\"}\n{\"cmd\":\"metrics\"}\n");
		for (int i = 0; i < CLIENTS; i++)
			for (int k = 0; k < 3; k++)
				assert_true(client_line(&scene.clients[i], scene.lines[i][k], WAIT_MS));
	} else if (tick == 5) {
		client_send(&scene.clients[0],
			    "{\"cmd\":\"list\"}\n"
			    "{\"cmd\":\"set\",\"name\":\"web\",\"settings\":[\"target_mbps=2500\"]}\n"
			    "{\"cmd\":\"list\"}\n{\"cmd\":\"status\"}\n{\"cmd\":\"metrics\"}\n");
	} else if (tick > 5) {
		/* The set's reply needs the tick thread, which must leave its hook for it; the others not. */
		while (scene.later_count < 5 && client_line(&scene.clients[0], scene.later[scene.later_count],
							    scene.later_count == 1 ? 0 : WAIT_MS))
			scene.later_count++;
		if (scene.later_count == 5)
			engine_stop(e);
	}
}

/* A partition's rate in a list reply. */
static double list_mbps(json_t *list, const char *name)
{
	size_t i;
	json_t *row;

	json_array_foreach(json_object_get(list, "partitions"), i, row)
		if (!strcmp(json_string_value(json_object_get(row, "name")), name))
			return json_real_value(json_object_get(row, "mbps"));
	fail_msg("no %s in list", name);
	return 0;
}

/* The value of a sample line `series` in a metrics reply's text. */
static double metrics_value(const char *reply_line, const char *series)
{
	json_t *result = result_of(reply_line);
	const char *text = json_string_value(json_object_get(result, "text"));
	char needle[160];
	snprintf(needle, sizeof(needle), "\n%s ", series);
	const char *at = text ? strstr(text, needle) : NULL;
	if (!at)
		fail_msg("no %s in the metrics", series);
	double v = strtod(at + strlen(needle), NULL);
	json_decref(result);
	return v;
}

static json_int_t web_target(const char *list_line)
{
	json_t *list = result_of(list_line);
	json_t *web = json_array_get(json_object_get(list, "partitions"), 0);
	json_int_t target;

	assert_string_equal(json_string_value(json_object_get(web, "name")), "web");
	target = json_integer_value(json_object_get(web, "target_mbps"));
	json_decref(list);
	return target;
}

static void test_replies_of_one_tick(void **state)
{
	struct engine_options opts = { .sim_clock = true, .on_ready = sharing_connect, .on_tick = sharing_on_tick };

	(void)state;
	run_engine(&opts, 100000); /* stopped by the hook once the set's replies are in */
	/* Every client got the same text. */
	for (int i = 1; i < CLIENTS; i++)
		for (int k = 0; k < 3; k++)
			assert_string_equal(scene.lines[i][k], scene.lines[0][k]);
	/* status's tick, list's rows and the metrics are all of tick 2: the rates are those noted then. */
	assert_true(scene.web_mbps[0] != scene.web_mbps[1] || scene.batch_mbps[0] != scene.batch_mbps[1]);
	json_t *status = result_of(scene.lines[1][0]);
	assert_int_equal(json_integer_value(json_object_get(status, "ticks")), 2);
	assert_int_equal(json_integer_value(json_object_get(status, "overruns")), 0);
	assert_true(json_is_real(json_object_get(status, "last_tick_ms")));
	assert_true(json_real_value(json_object_get(status, "max_tick_ms")) >=
		    json_real_value(json_object_get(status, "last_tick_ms")));
	json_decref(status);
	json_t *list = result_of(scene.lines[1][1]);
	assert_true(list_mbps(list, "web") == scene.web_mbps[0]);
	assert_true(list_mbps(list, "batch") == scene.batch_mbps[0]);
	json_decref(list);
	assert_true(metrics_value(scene.lines[1][2], "mpamd_ticks_total") == 2);
	assert_int_equal(web_target(scene.lines[1][1]), 3000);

	/* From tick 5: list, set, list, status, metrics. Those after the set show it, whether or not a
	 * tick came between. */
	assert_int_equal(scene.later_count, 5);
	assert_int_equal(web_target(scene.later[0]), 3000);
	json_decref(result_of(scene.later[1]));
	assert_int_equal(web_target(scene.later[2]), 2500);
	status = result_of(scene.later[3]);
	assert_true(json_integer_value(json_object_get(status, "ticks")) >= 5);
	json_decref(status);
	assert_true(metrics_value(scene.later[4], "mpamd_partition_target_bytes_per_second{partition=\"web\"}") ==
		    2500e6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_reply_without_the_tick),
		fixture_test(test_replies_of_one_tick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
