/* The engine behind its control socket: a due tick runs before requests that wait, replies are the
 * same for every client within a tick, set shows at once, and status reports how long ticks take.
 * The clients live in the test's own thread and talk from the engine's hooks, so every step happens
 * at a known point between ticks; nothing here depends on how fast the machine is. */
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
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"

#define CLIENTS	     6
#define INTERVAL_MS  20
#define WAIT_MS	     5000
#define LINE_MAX_LEN 65536

static const char *config_text = "[global]\nbackend = sim\ninterval_ms = 20\n"
				 "[sim]\ncapacity_mbps = 20000\n"
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
	char lines[CLIENTS][2][LINE_MAX_LEN]; /* status and list of tick 2, per client */
	char later[4][LINE_MAX_LEN];	      /* client 0's list, set, list, status of tick 5 */
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
	assert_int_equal(engine_ticks_done(engine), ticks);
	engine_free(engine);
}

/* ---- a due tick before a waiting request ---- */

/* The client connects and then the loop, not yet started, is held past the first deadline: its
 * first turn finds the socket ready first and the timer next. */
static void first_connect(void *ctx, struct engine *e)
{
	(void)ctx;
	(void)e;
	client_connect(&scene.clients[0], scene.path);
	usleep(INTERVAL_MS * 1500);
}

/* Tick 1 asks and sleeps past the next deadline. epoll keeps ready descriptors in the order it last
 * reported them (socket, timer), so the next turn finds both ready with the request listed first. */
static void first_on_tick(void *ctx, struct engine *e)
{
	(void)ctx;
	if (engine_ticks_done(e) == 1) {
		client_send(&scene.clients[0], "{\"cmd\":\"status\"}\n");
		usleep(INTERVAL_MS * 1500);
	} else if (engine_ticks_done(e) == 3) {
		scene.late_seen = engine_tick_stats(e)->late_ns; /* tick 2's: the one that was due */
	}
}

static void test_due_tick_runs_before_waiting_request(void **state)
{
	struct engine_options opts = { .on_ready = first_connect, .on_tick = first_on_tick };
	char line[LINE_MAX_LEN];

	(void)state;
	run_engine(&opts, 5);
	assert_true(client_line(&scene.clients[0], line, WAIT_MS));
	json_t *status = result_of(line);
	/* Answered after tick 2, which was due when the loop found the request, not before it. */
	assert_int_equal(json_integer_value(json_object_get(status, "ticks")), 2);
	/* Tick 2 began after its deadline, and tick 1, which slept, is the longest so far. */
	assert_true(scene.late_seen > 0);
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

/* On simulated time the loop looks at the socket once between two ticks: everything sent from one
 * tick's hook is answered before the next tick. */
static void sharing_on_tick(void *ctx, struct engine *e)
{
	uint64_t tick = engine_ticks_done(e);

	(void)ctx;
	if (tick == 2) {
		for (int i = 0; i < CLIENTS; i++)
			client_send(&scene.clients[i], "{\"cmd\":\"status\"}\n{\"cmd\":\"list\"}\n");
	} else if (tick == 3) {
		for (int i = 0; i < CLIENTS; i++)
			for (int k = 0; k < 2; k++)
				assert_true(client_line(&scene.clients[i], scene.lines[i][k], 0));
	} else if (tick == 5) {
		client_send(&scene.clients[0],
			    "{\"cmd\":\"list\"}\n"
			    "{\"cmd\":\"set\",\"name\":\"web\",\"settings\":[\"target_mbps=2500\"]}\n"
			    "{\"cmd\":\"list\"}\n{\"cmd\":\"status\"}\n");
	} else if (tick == 6) {
		for (int k = 0; k < 4; k++)
			assert_true(client_line(&scene.clients[0], scene.later[k], 0));
	}
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
	run_engine(&opts, 8);
	/* Every client got the same text, that of tick 2. */
	for (int i = 1; i < CLIENTS; i++) {
		assert_string_equal(scene.lines[i][0], scene.lines[0][0]);
		assert_string_equal(scene.lines[i][1], scene.lines[0][1]);
	}
	json_t *status = result_of(scene.lines[1][0]);
	assert_int_equal(json_integer_value(json_object_get(status, "ticks")), 2);
	assert_int_equal(json_integer_value(json_object_get(status, "overruns")), 0);
	assert_true(json_is_real(json_object_get(status, "last_tick_ms")));
	assert_true(json_real_value(json_object_get(status, "max_tick_ms")) >=
		    json_real_value(json_object_get(status, "last_tick_ms")));
	json_decref(status);
	assert_int_equal(web_target(scene.lines[1][1]), 3000);

	/* Within tick 5: list, set, list. The second list shows the new goal at once. */
	assert_int_equal(web_target(scene.later[0]), 3000);
	json_decref(result_of(scene.later[1]));
	assert_int_equal(web_target(scene.later[2]), 2500);
	status = result_of(scene.later[3]);
	assert_int_equal(json_integer_value(json_object_get(status, "ticks")), 5);
	json_decref(status);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_due_tick_runs_before_waiting_request),
		fixture_test(test_replies_of_one_tick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
