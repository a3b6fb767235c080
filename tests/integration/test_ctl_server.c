/* The control socket server with real client sockets and a fake daemon behind it, driven by a small
 * epoll loop of the test's own (as the daemon's loop drives it), and mpamctl run against it. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/ctl/ctl_server.h"
#include "core/ctl/proto.h"
#include "tests/util/ctl_fake.h"
#include "tests/util/testutil.h"

#define SOCKET_GID 1	 /* "daemon" on Debian: a group the unprivileged peer is not in */
#define NOBODY	   65534 /* uid and gid of the unprivileged peer */
#define WAIT_MS	   5000	 /* a test step that takes this long has failed */
#define BIG_REPLY  (300 * 1024)

/* ---- the fake daemon ---- */

struct fake {
	unsigned status, list, show, metrics, set, reload;
	size_t big; /* when set, status carries this many bytes of padding */
	uint64_t generation;
	struct ctl_fake_set last; /* what the last set asked for */
};

static struct fake fake;

static const char *status_json = "{\"backend\": \"sim\", \"interval_ms\": 100, \"ticks\": 42, \"uptime_s\": 3723, "
				 "\"partitions\": 2, \"events\": [{\"tick\": 40, \"t_ms\": 4000, \"partition\": "
				 "\"batch\", \"action\": \"throttle\", \"reason\": \"web below guarantee\"}]}";
static const char *list_json =
	"{\"partitions\": ["
	"{\"name\": \"web\", \"class\": \"latency-critical\", \"mb_max\": 100, \"mb_min\": 20, \"mbps\": 5000.0, "
	"\"valid\": true, \"estimated\": false, \"target_mbps\": null, \"guarantee_mbps\": 6000},"
	"{\"name\": \"batch\", \"class\": \"best-effort\", \"mb_max\": 40, \"mb_min\": 0, \"mbps\": null, "
	"\"valid\": false, \"estimated\": false, \"target_mbps\": 3000, \"guarantee_mbps\": null},"
	"{\"name\": \"vm3\", \"class\": \"default\", \"mb_max\": 60, \"mb_min\": 0, \"mbps\": 812.25, "
	"\"valid\": true, \"estimated\": true, \"target_mbps\": null, \"guarantee_mbps\": null}]}";
static const char *show_json = "{\"name\": \"web\", \"class\": \"latency-critical\", \"mb_max\": 100, \"mb_min\": 20, "
			       "\"mbps\": 5000.0, \"valid\": true, \"estimated\": false, \"target_mbps\": null, "
			       "\"guarantee_mbps\": 6000, \"events\": [{\"tick\": 40, \"t_ms\": 4000, \"partition\": "
			       "\"web\", \"action\": \"protect\", \"reason\": \"below guarantee\"}]}";
/* The daemon builds the Prometheus text itself (core/engine/metrics.c); mpamctl passes it on. */
static const char *metrics_text = "# HELP mpamd_ticks_total Ticks run since the start.\n"
				  "# TYPE mpamd_ticks_total counter\n"
				  "mpamd_ticks_total 42\n"
				  "# HELP mpamd_partition_open 1 when the backend accepted the partition.\n"
				  "# TYPE mpamd_partition_open gauge\n"
				  "mpamd_partition_open{partition=\"ba\\\"tch\"} 1\n";
static const char *metrics_json =
	"{\"format\": \"prometheus-text-0.0.4\", \"text\": \"# HELP mpamd_ticks_total Ticks run since the start.\\n"
	"# TYPE mpamd_ticks_total counter\\nmpamd_ticks_total 42\\n"
	"# HELP mpamd_partition_open 1 when the backend accepted the partition.\\n"
	"# TYPE mpamd_partition_open gauge\\nmpamd_partition_open{partition=\\\"ba\\\\\\\"tch\\\"} 1\\n\"}";

static json_t *canned(const char *text)
{
	json_error_t error;
	json_t *v = json_loads(text, 0, &error);

	if (!v)
		fail_msg("canned JSON: %s at column %d", error.text, error.column);
	return v;
}

static json_t *fake_status(void *ctx)
{
	struct fake *f = ctx;
	json_t *v = canned(status_json);

	f->status++;
	json_object_set_new(v, "n", json_integer(f->status));
	if (f->big) {
		char *pad = malloc(f->big + 1);
		memset(pad, 'x', f->big);
		pad[f->big] = '\0';
		json_object_set_new(v, "pad", json_string(pad));
		free(pad);
	}
	return v;
}

static json_t *fake_list(void *ctx)
{
	((struct fake *)ctx)->list++;
	return canned(list_json);
}

static json_t *fake_show(void *ctx, const char *name, struct err *err)
{
	((struct fake *)ctx)->show++;
	if (strcmp(name, "web")) {
		err_set(err, -ENOENT, "no partition named '%s'", name);
		return NULL;
	}
	return canned(show_json);
}

static json_t *fake_metrics(void *ctx)
{
	((struct fake *)ctx)->metrics++;
	return canned(metrics_json);
}

static json_t *fake_set(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
			size_t count, struct err *err)
{
	struct fake *f = ctx;

	f->set++;
	ctl_fake_note_set(&f->last, peer, name, settings, count);
	if (!strcmp(settings[0], "mb_max=150")) {
		err_set(err, -EINVAL, "%s: mb_max = 150: out of range 1..100", name);
		return NULL;
	}
	return ctl_fake_set_result(name, settings, count);
}

static int fake_reload(void *ctx, struct err *err)
{
	(void)err;
	((struct fake *)ctx)->reload++;
	return 0;
}

static uint64_t fake_generation(void *ctx)
{
	return ((struct fake *)ctx)->generation;
}

static const struct ctl_handler handler = CTL_FAKE_HANDLER(&fake, fake_metrics, NULL);
/* The same daemon, saying when its state changes (as the engine does, once per tick). */
static const struct ctl_handler handler_with_generation = CTL_FAKE_HANDLER(&fake, fake_metrics, fake_generation);

/* ---- the test's event loop ---- */

static char dir[64];
static char sock_path[100]; /* fits sun_path */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct server {
	struct ctl_server *s;
	int epoll_fd; /* the "daemon's" loop, watching the one fd the server shows */
};

static void server_open_config(struct server *srv, const struct ctl_server_config *config, const struct ctl_handler *h)
{
	struct err err = { { 0 } };
	int r = ctl_server_new(config, h, &srv->s, &err);

	if (r < 0)
		fail_msg("ctl_server_new: %s", err.text);
	srv->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	assert_true(srv->epoll_fd >= 0);
	struct epoll_event ev = { .events = EPOLLIN };
	assert_int_equal(epoll_ctl(srv->epoll_fd, EPOLL_CTL_ADD, ctl_server_fd(srv->s), &ev), 0);
}

static void server_open(struct server *srv, unsigned max_clients, unsigned stall_ms)
{
	struct ctl_server_config config = {
		.path = sock_path,
		.gid = SOCKET_GID,
		.max_clients = max_clients,
		.stall_ms = stall_ms,
	};

	server_open_config(srv, &config, &handler);
}

static void server_close(struct server *srv)
{
	ctl_server_free(srv->s);
	close(srv->epoll_fd);
}

/* One turn of the loop: wait up to `ms` for the server's fd, dispatch what is ready. */
static void serve(struct server *srv, int ms)
{
	struct epoll_event ev;
	int n = epoll_wait(srv->epoll_fd, &ev, 1, ms);

	assert_true(n >= 0 || errno == EINTR);
	if (n > 0)
		assert_int_equal(ctl_server_dispatch(srv->s), 0);
}

static void serve_for(struct server *srv, int ms)
{
	for (long long end = now_ms() + ms; now_ms() < end;)
		serve(srv, 10);
}

/* ---- clients ---- */

struct peer {
	int fd;
	char *buf;
	size_t len, cap;
};

static void peer_adopt(struct peer *p, int fd)
{
	*p = (struct peer){ .fd = fd };
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
}

static void peer_connect(struct peer *p)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		fail_msg("connect %s: %s", sock_path, strerror(errno));
	peer_adopt(p, fd);
}

static void peer_close(struct peer *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	*p = (struct peer){ .fd = -1 };
}

/* Writes all of `data`, letting the server run while the socket is full. */
static void peer_send_len(struct server *srv, struct peer *p, const char *data, size_t len)
{
	long long end = now_ms() + WAIT_MS;

	while (len > 0) {
		ssize_t n = send(p->fd, data, len, MSG_NOSIGNAL);
		if (n < 0) {
			assert_true(errno == EAGAIN || errno == EINTR);
			assert_true(now_ms() < end);
			serve(srv, 10);
			continue;
		}
		data += n;
		len -= (size_t)n;
	}
}

static void peer_send(struct server *srv, struct peer *p, const char *data)
{
	peer_send_len(srv, p, data, strlen(data));
}

/* Reads up to `chunk` bytes if any are there; 0 at EOF or reset, 1 if it read, -1 if nothing yet. */
static int peer_fill(struct peer *p, size_t chunk)
{
	if (p->cap - p->len < chunk) {
		p->cap = p->len + chunk + 65536;
		p->buf = realloc(p->buf, p->cap);
		assert_non_null(p->buf);
	}
	ssize_t n = recv(p->fd, p->buf + p->len, chunk, MSG_DONTWAIT);
	if (n < 0 && errno == ECONNRESET)
		return 0;
	if (n < 0) {
		assert_true(errno == EAGAIN || errno == EINTR);
		return -1;
	}
	p->len += (size_t)n;
	return n > 0;
}

/* The next reply line as the server wrote it ('\n' included, malloc'ed, *ret_len its length), reading
 * `chunk` bytes at a time; NULL at end of stream. */
static char *peer_line_chunked(struct server *srv, struct peer *p, size_t chunk, size_t *ret_len)
{
	long long end = now_ms() + WAIT_MS;

	for (;;) {
		char *nl = p->len ? memchr(p->buf, '\n', p->len) : NULL;
		if (nl) {
			size_t len = (size_t)(nl - p->buf) + 1;
			char *line = malloc(len + 1);
			assert_non_null(line);
			memcpy(line, p->buf, len);
			line[len] = '\0';
			memmove(p->buf, p->buf + len, p->len - len);
			p->len -= len;
			*ret_len = len;
			return line;
		}
		int r = peer_fill(p, chunk);
		if (r == 0)
			return NULL;
		if (r < 0) {
			if (now_ms() > end)
				fail_msg("no reply within %d ms", WAIT_MS);
			serve(srv, 10);
		}
	}
}

/* The next reply line as a JSON object, reading `chunk` bytes at a time; NULL at end of stream. */
static json_t *peer_reply_chunked(struct server *srv, struct peer *p, size_t chunk)
{
	size_t len;
	char *line = peer_line_chunked(srv, p, chunk, &len);
	json_error_t error;

	if (!line)
		return NULL;
	json_t *reply = json_loadb(line, len - 1, 0, &error);
	if (!reply)
		fail_msg("reply is not JSON: %s: %.200s", error.text, line);
	free(line);
	assert_int_equal(json_integer_value(json_object_get(reply, "version")), 1);
	return reply;
}

static json_t *peer_reply(struct server *srv, struct peer *p)
{
	return peer_reply_chunked(srv, p, 65536);
}

/* Waits for the next reply and returns its result, failing unless it is ok. */
static json_t *peer_ok(struct server *srv, struct peer *p)
{
	json_t *reply = peer_reply(srv, p);

	assert_non_null(reply);
	if (!json_is_true(json_object_get(reply, "ok")))
		fail_msg("error reply: %s", json_string_value(json_object_get(reply, "error")));
	json_t *result = json_incref(json_object_get(reply, "result"));
	json_decref(reply);
	return result;
}

static void peer_expect_error(struct server *srv, struct peer *p, const char *text)
{
	json_t *reply = peer_reply(srv, p);

	assert_non_null(reply);
	assert_true(json_is_false(json_object_get(reply, "ok")));
	const char *error = json_string_value(json_object_get(reply, "error"));
	if (!error || !strstr(error, text))
		fail_msg("error '%s' lacks '%s'", error ? error : "(none)", text);
	json_decref(reply);
}

static void peer_expect_eof(struct server *srv, struct peer *p)
{
	json_t *reply = peer_reply(srv, p);

	if (reply)
		fail_msg("expected the end of the stream, got %s", json_dumps(reply, JSON_COMPACT));
}

static void roundtrip_status(struct server *srv, struct peer *p)
{
	peer_send(srv, p, "{\"cmd\":\"status\"}\n");
	json_t *r = peer_ok(srv, p);
	assert_string_equal(json_string_value(json_object_get(r, "backend")), "sim");
	json_decref(r);
}

/* Sends `request` and expects an ok reply (its result dropped). */
static void request_ok(struct server *srv, struct peer *p, const char *request)
{
	peer_send(srv, p, request);
	json_decref(peer_ok(srv, p));
}

/* Sends `request` and expects an error reply saying `text`. */
static void request_refused(struct server *srv, struct peer *p, const char *request, const char *text)
{
	peer_send(srv, p, request);
	peer_expect_error(srv, p, text);
}

/* ---- fixtures ---- */

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	snprintf(dir, sizeof(dir), "/tmp/test_ctl_server.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0) /* the unprivileged peer must reach the socket */
		return -1;
	snprintf(sock_path, sizeof(sock_path), "%s/mpamd.sock", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(sock_path);
	return rmdir(dir);
}

/* ---- tests ---- */

static void test_socket_file(void **state)
{
	struct server srv;
	struct stat st;

	(void)state;
	server_open(&srv, 0, 0);
	assert_int_equal(lstat(sock_path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, CTL_SOCKET_MODE);
	assert_int_equal(st.st_gid, SOCKET_GID);
	assert_int_equal(ctl_server_client_count(srv.s), 0);
	server_close(&srv);
	assert_int_equal(lstat(sock_path, &st), -1);
	assert_int_equal(errno, ENOENT);
}

/* The default socket lives in /run/mpamd/: without systemd's RuntimeDirectory, mpamd makes the
 * directory itself (one level, 0755), and a missing grandparent is an error that names it. */
static void test_socket_directory_created(void **state)
{
	char sub[sizeof(dir) + 16], path[sizeof(dir) + 32], deep[sizeof(dir) + 48];
	struct ctl_server *s = NULL;
	struct err err = { { 0 } };
	struct stat st;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/run", dir);
	snprintf(path, sizeof(path), "%s/mpamd.sock", sub);
	struct ctl_server_config config = { .path = path, .gid = -1 };
	assert_int_equal(ctl_server_new(&config, &handler, &s, &err), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	ctl_server_free(s);
	assert_int_equal(rmdir(sub), 0);

	snprintf(deep, sizeof(deep), "%s/no/such/mpamd.sock", dir);
	config.path = deep;
	s = NULL;
	assert_int_equal(ctl_server_new(&config, &handler, &s, &err), -ENOENT);
	assert_null(s);
	if (!strstr(err.text, "/no/such") || !strstr(err.text, "cannot create"))
		fail_msg("unexpected error: %s", err.text);
}

static void test_stale_replaced_live_refused(void **state)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ctl_server_config config = { .path = sock_path, .gid = -1 };
	struct ctl_server *second = NULL;
	struct err err = { { 0 } };
	struct server srv;
	struct peer p;

	(void)state;
	/* A socket file nobody listens on, as a crashed daemon leaves it. */
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	close(fd);
	server_open(&srv, 0, 0);

	/* A live one is not taken over, and keeps working. */
	assert_int_equal(ctl_server_new(&config, &handler, &second, &err), -EADDRINUSE);
	assert_null(second);
	assert_non_null(strstr(err.text, sock_path));
	assert_non_null(strstr(err.text, "listening"));
	peer_connect(&p);
	roundtrip_status(&srv, &p);
	peer_close(&p);
	server_close(&srv);

	/* Something that is not a socket is never removed. */
	fd = open(sock_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ctl_server_new(&config, &handler, &second, &err), -EEXIST);
	assert_non_null(strstr(err.text, "is not a socket"));
	assert_int_equal(access(sock_path, F_OK), 0);
	unlink(sock_path);

	/* Without a group, the socket keeps the creator's and the same mode. */
	assert_int_equal(ctl_server_new(&config, &handler, &second, &err), 0);
	struct stat st;
	assert_int_equal(lstat(sock_path, &st), 0);
	assert_int_equal(st.st_mode & 07777, CTL_SOCKET_MODE);
	assert_int_equal(st.st_gid, getegid());
	ctl_server_free(second);
}

static void test_pipelined_requests_in_order(void **state)
{
	struct server srv;
	struct peer p;
	json_t *r;

	(void)state;
	server_open(&srv, 0, 0);
	peer_connect(&p);
	peer_send(&srv, &p,
		  "{\"cmd\":\"status\"}\n{\"cmd\":\"list\"}\n{\"cmd\":\"show\",\"name\":\"web\"}\n"
		  "{\"cmd\":\"show\",\"name\":\"db\"}\n{\"cmd\":\"metrics\"}\n"
		  "{\"cmd\":\"set\",\"name\":\"web\",\"settings\":[\"mb_max=50\",\"mb_min=10\",\"class=best-effort\"]}"
		  "\n");
	r = peer_ok(&srv, &p);
	assert_int_equal(json_integer_value(json_object_get(r, "ticks")), 42);
	json_decref(r);
	r = peer_ok(&srv, &p);
	assert_int_equal(json_array_size(json_object_get(r, "partitions")), 3);
	json_decref(r);
	r = peer_ok(&srv, &p);
	assert_string_equal(json_string_value(json_object_get(r, "name")), "web");
	json_decref(r);
	peer_expect_error(&srv, &p, "no partition named 'db'");
	r = peer_ok(&srv, &p);
	assert_string_equal(json_string_value(json_object_get(r, "format")), "prometheus-text-0.0.4");
	json_decref(r);
	r = peer_ok(&srv, &p);
	assert_int_equal(json_array_size(json_object_get(r, "settings")), 3);
	json_decref(r);
	assert_int_equal(fake.set, 1);
	assert_int_equal(fake.last.count, 3);
	assert_string_equal(fake.last.settings[0], "mb_max=50");
	assert_string_equal(fake.last.settings[1], "mb_min=10");
	assert_string_equal(fake.last.settings[2], "class=best-effort");

	/* A request trickling in a byte at a time is answered once, when its newline arrives. */
	const char *slow = "{\"cmd\":\"list\"}\n";
	for (size_t i = 0; slow[i]; i++) {
		peer_send_len(&srv, &p, slow + i, 1);
		serve_for(&srv, 1);
	}
	r = peer_ok(&srv, &p);
	json_decref(r);
	assert_int_equal(fake.list, 2);
	peer_close(&p);
	server_close(&srv);
}

static void test_end_of_input(void **state)
{
	struct server srv;
	struct peer p;

	(void)state;
	server_open(&srv, 0, 0);
	/* Requests then EOF: every one is answered, the last even without its newline, then the end. */
	peer_connect(&p);
	peer_send(&srv, &p, "{\"cmd\":\"status\"}\n{\"cmd\":\"list\"}");
	assert_int_equal(shutdown(p.fd, SHUT_WR), 0);
	json_decref(peer_ok(&srv, &p));
	json_decref(peer_ok(&srv, &p));
	peer_expect_eof(&srv, &p);
	peer_close(&p);
	serve_for(&srv, 20);
	assert_int_equal(ctl_server_client_count(srv.s), 0);
	server_close(&srv);
}

static void test_long_line_answered_and_disconnected(void **state)
{
	size_t size = 70 * 1024;
	char *line = malloc(size + 1);
	struct server srv;
	struct peer bad, good;

	(void)state;
	memset(line, ' ', size);
	memcpy(line, "{\"cmd\":\"status\"", 15);
	line[size - 1] = '\n';
	line[size] = '\0';
	server_open(&srv, 0, 0);
	peer_connect(&bad);
	peer_connect(&good);
	request_refused(&srv, &bad, line, "request larger than 65536 bytes");
	peer_expect_eof(&srv, &bad);
	roundtrip_status(&srv, &good);
	assert_int_equal(fake.status, 1);
	assert_int_equal(ctl_server_client_count(srv.s), 1);
	peer_close(&bad);

	/* At the limit exactly (newline included) is fine. */
	line[CTL_MAX_REQUEST - 2] = '}';
	line[CTL_MAX_REQUEST - 1] = '\n';
	memcpy(line, "{\"cmd\":\"list\"  ", 15);
	peer_send_len(&srv, &good, line, CTL_MAX_REQUEST);
	json_decref(peer_ok(&srv, &good));
	/* One byte more is not. */
	line[CTL_MAX_REQUEST - 1] = ' ';
	line[CTL_MAX_REQUEST] = '\n';
	peer_send_len(&srv, &good, line, CTL_MAX_REQUEST + 1);
	peer_expect_error(&srv, &good, "request larger than 65536 bytes");
	peer_expect_eof(&srv, &good);
	assert_int_equal(fake.list, 1);
	peer_close(&good);
	free(line);
	server_close(&srv);
}

static void test_bad_requests_do_not_disturb(void **state)
{
	struct server srv;
	struct peer a, b;

	(void)state;
	server_open(&srv, 0, 0);
	peer_connect(&a);
	peer_connect(&b);
	peer_send(&srv, &a, "this is not json\n");
	peer_send(&srv, &b, "{\"cmd\":\"status\"}\n");
	peer_expect_error(&srv, &a, "request is not valid JSON: ");
	json_decref(peer_ok(&srv, &b));
	request_refused(&srv, &a, "{\"cmd\":\"frob\"}\n{\"cmd\":\"show\"}\n\n{\"cmd\":\"list\"}\n",
			"unknown command 'frob'");
	peer_expect_error(&srv, &a, "'show' needs a \"name\" string");
	peer_expect_error(&srv, &a, "request is not valid JSON");
	json_decref(peer_ok(&srv, &a));
	roundtrip_status(&srv, &b);
	assert_int_equal(ctl_server_client_count(srv.s), 2);
	peer_close(&a);
	peer_close(&b);
	server_close(&srv);
}

/* "{"cmd": CMD, "name": "éé..."}" with `bytes` bytes of two-byte characters after one ASCII byte, so
 * that any message cut at a byte limit falls inside a character somewhere. */
static char *utf8_request(const char *cmd, size_t bytes)
{
	char *line = malloc(bytes + 64), *p = line;

	p += sprintf(p, "{\"cmd\":\"%s\",\"name\":\"x", cmd);
	for (size_t i = 0; i + 1 < bytes; i += 2)
		p += sprintf(p, "\xc3\xa9");
	sprintf(p, "\"}\n");
	return line;
}

/* 10 KB of UTF-8 in a name or a command, and bytes that are not UTF-8, get error replies on a
 * connection that stays up (it used to be dropped as "out of memory"). */
static void test_non_ascii_requests_answered(void **state)
{
	struct server srv;
	struct peer p;

	(void)state;
	server_open(&srv, 0, 0);
	peer_connect(&p);
	char *show = utf8_request("show", 10 * 1024);
	request_refused(&srv, &p, show, "no partition named 'x\xc3\xa9");
	free(show);
	char *cmd = malloc(11 * 1024), *q = cmd;
	q += sprintf(q, "{\"cmd\":\"y");
	for (int i = 0; i < 5 * 1024; i++)
		q += sprintf(q, "\xc3\xa9");
	sprintf(q, "\"}\n");
	request_refused(&srv, &p, cmd, "unknown command 'y\xc3\xa9");
	free(cmd);
	request_refused(&srv, &p, "{\"cmd\":\"show\",\"name\":\"\xff\xfe\x80\"}\n{\"cmd\":\"\xc3\"}\n",
			"request is not valid JSON");
	peer_expect_error(&srv, &p, "request is not valid JSON");
	roundtrip_status(&srv, &p);
	assert_int_equal(fake.show, 1);
	assert_int_equal(ctl_server_client_count(srv.s), 1);
	peer_close(&p);
	server_close(&srv);
}

/* A connection made by a child that became `uid` with primary group `gid` (and `extra_group` as its
 * only supplementary group, if not -1): SO_PEERCRED records who connected, so the test can use the
 * fd. */
static int connect_as_uid(uid_t uid, gid_t gid, gid_t extra_group)
{
	char ctrl[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl, .msg_controllen = sizeof(ctrl) };
	int sv[2], status;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sockaddr_un addr = { .sun_family = AF_UNIX };
		gid_t groups[1] = { extra_group };
		if (setgroups(extra_group != (gid_t)-1, groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(10);
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
			_exit(11);
		struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
		_exit(sendmsg(sv[1], &msg, 0) == 1 ? 0 : 12);
	}
	close(sv[1]);
	assert_int_equal(recvmsg(sv[0], &msg, 0), 1);
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	int fd;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
	return fd;
}

/* uid NOBODY with primary group `gid` (and `extra_group` as its only supplementary group, if not -1). */
static int connect_as(gid_t gid, gid_t extra_group)
{
	return connect_as_uid(NOBODY, gid, extra_group);
}

/* uid and gid NOBODY, with `extra_group` as its one supplementary group (0: none). */
static int connect_as_nobody(gid_t extra_group)
{
	return connect_as(NOBODY, extra_group ? extra_group : (gid_t)-1);
}

/* A request that changes something, for the tests of who may. */
static const char *const set_request = "{\"cmd\":\"set\",\"name\":\"web\",\"settings\":[\"mb_max=50\"]}\n";

static void test_peer_privilege(void **state)
{
	struct server srv;
	struct peer outsider, member, root;

	(void)state;
	server_open(&srv, 0, 0);
	/* Anyone may connect (CTL_SOCKET_MODE): the server's own rule keeps outsiders to reading. */
	peer_adopt(&outsider, connect_as_nobody(0));
	roundtrip_status(&srv, &outsider);
	peer_send(&srv, &outsider, "{\"cmd\":\"list\"}\n{\"cmd\":\"show\",\"name\":\"web\"}\n{\"cmd\":\"metrics\"}\n");
	for (int i = 0; i < 3; i++)
		json_decref(peer_ok(&srv, &outsider));
	request_refused(&srv, &outsider, set_request,
			"'set' is not allowed: peer uid 65534 is neither root nor in group daemon");
	request_refused(&srv, &outsider, "{\"cmd\":\"reload\"}\n", "'reload' is not allowed: peer uid 65534");
	assert_int_equal(fake.set + fake.reload, 0);

	/* The socket's group as a supplementary group is enough. */
	peer_adopt(&member, connect_as_nobody(SOCKET_GID));
	request_ok(&srv, &member, set_request);
	assert_int_equal(fake.set, 1);

	peer_connect(&root);
	request_ok(&srv, &root, "{\"cmd\":\"reload\"}\n");
	assert_int_equal(fake.reload, 1);
	peer_close(&outsider);
	peer_close(&member);
	peer_close(&root);
	server_close(&srv);
}

/* Without a group for the socket (no group mpamd on the host), only root may mutate: the socket keeps
 * its creator's group, and being in that group (root's, here) as primary or supplementary group
 * grants nothing. */
static void test_without_group_root_only(void **state)
{
	struct ctl_server_config config = { .path = sock_path, .gid = -1 };
	struct peer primary, supplementary, root;
	struct server srv;
	struct stat st;

	(void)state;
	server_open_config(&srv, &config, &handler);
	assert_int_equal(lstat(sock_path, &st), 0);
	assert_int_equal(st.st_gid, getegid());
	assert_int_equal(st.st_mode & 07777, CTL_SOCKET_MODE);

	/* Both reach the socket (anyone may), and may read. */
	peer_adopt(&primary, connect_as(st.st_gid, (gid_t)-1));
	peer_adopt(&supplementary, connect_as(NOBODY, st.st_gid));
	roundtrip_status(&srv, &primary);
	roundtrip_status(&srv, &supplementary);
	request_refused(&srv, &primary, set_request,
			"'set' is not allowed: peer uid 65534 is not root (no group may change mpamd)");
	request_refused(&srv, &supplementary, "{\"cmd\":\"reload\"}\n",
			"'reload' is not allowed: peer uid 65534 is not root");
	assert_int_equal(fake.set + fake.reload, 0);

	peer_connect(&root);
	request_ok(&srv, &root, set_request);
	assert_int_equal(fake.set, 1);
	peer_close(&primary);
	peer_close(&supplementary);
	peer_close(&root);
	server_close(&srv);
}

static void test_slow_reader_gets_everything(void **state)
{
	struct server srv;
	struct peer p, other;

	(void)state;
	fake.big = BIG_REPLY; /* 4 replies of 300 KiB: far more than the socket buffers hold */
	server_open(&srv, 0, 0);
	peer_connect(&p);
	peer_connect(&other);
	peer_send(&srv, &p, "{\"cmd\":\"status\"}\n{\"cmd\":\"status\"}\n{\"cmd\":\"status\"}\n{\"cmd\":\"status\"}\n");
	serve_for(&srv, 50);
	/* Its replies wait for it to read (not all its requests have even run), and the loop serves others. */
	assert_true(fake.status < 4);
	fake.big = 0;
	roundtrip_status(&srv, &other);
	fake.big = BIG_REPLY;
	int last = 0;
	for (int i = 1; i <= 4; i++) {
		json_t *r = peer_reply_chunked(&srv, &p, 4096);
		assert_non_null(r);
		json_t *result = json_object_get(r, "result");
		int n = (int)json_integer_value(json_object_get(result, "n"));
		/* In the order sent, each reply whole. */
		assert_true(n > last);
		last = n;
		assert_int_equal(strlen(json_string_value(json_object_get(result, "pad"))), BIG_REPLY);
		json_decref(r);
	}
	assert_int_equal(fake.status, 5);
	assert_int_equal(ctl_server_client_count(srv.s), 2);
	peer_close(&p);
	peer_close(&other);
	server_close(&srv);
}

/* One dispatch answers a bounded share of one client's pipelined requests and serves the others
 * in between; the rest follow on later dispatches without the client sending anything more. */
static void test_long_pipeline_shares_the_loop(void **state)
{
	const char *one = "{\"cmd\":\"list\"}\n";
	size_t count = 200, len = strlen(one);
	char *many = malloc(count * len + 1);
	struct server srv;
	struct peer a, b;
	struct epoll_event ev;

	(void)state;
	for (size_t i = 0; i < count; i++)
		memcpy(many + i * len, one, len);
	many[count * len] = '\0';
	server_open(&srv, 0, 0);
	peer_connect(&a);
	peer_connect(&b);
	roundtrip_status(&srv, &a);
	roundtrip_status(&srv, &b);
	peer_send(&srv, &a, many);
	peer_send(&srv, &b, "{\"cmd\":\"status\"}\n");
	assert_int_equal(epoll_wait(srv.epoll_fd, &ev, 1, WAIT_MS), 1);
	assert_int_equal(ctl_server_dispatch(srv.s), 0);
	assert_int_equal(fake.list, CTL_SERVER_ANSWERS_PER_CLIENT);
	assert_int_equal(fake.status, 3);
	json_decref(peer_ok(&srv, &b));
	for (size_t i = 0; i < count; i++)
		json_decref(peer_ok(&srv, &a));
	assert_int_equal(fake.list, count);
	peer_close(&a);
	peer_close(&b);
	free(many);
	server_close(&srv);
}

/* Waits until the server's fd is ready and dispatches exactly once. */
static void dispatch_once(struct server *srv)
{
	struct epoll_event ev;

	assert_int_equal(epoll_wait(srv->epoll_fd, &ev, 1, WAIT_MS), 1);
	assert_int_equal(ctl_server_dispatch(srv->s), 0);
}

#define BUDGET_CLIENTS 12

/* The budget bounds a whole dispatch, not each client: many clients with long pipelines get
 * CTL_SERVER_ANSWERS_PER_DISPATCH answers in all, and the next dispatches answer the rest. */
static void test_dispatch_budget_spans_clients(void **state)
{
	const char *one = "{\"cmd\":\"list\"}\n";
	size_t per_client = 2 * CTL_SERVER_ANSWERS_PER_CLIENT, len = strlen(one);
	char *many = malloc(per_client * len + 1);
	struct peer peers[BUDGET_CLIENTS];
	struct server srv;

	(void)state;
	/* Enough clients that their shares together exceed the dispatch's budget. */
	assert_true(BUDGET_CLIENTS * CTL_SERVER_ANSWERS_PER_CLIENT > CTL_SERVER_ANSWERS_PER_DISPATCH);
	for (size_t i = 0; i < per_client; i++)
		memcpy(many + i * len, one, len);
	many[per_client * len] = '\0';
	server_open(&srv, 0, 0);
	for (int i = 0; i < BUDGET_CLIENTS; i++) {
		peer_connect(&peers[i]);
		roundtrip_status(&srv, &peers[i]);
	}
	for (int i = 0; i < BUDGET_CLIENTS; i++)
		peer_send(&srv, &peers[i], many);
	assert_int_equal(fake.list, 0);
	dispatch_once(&srv);
	assert_int_equal(fake.list, CTL_SERVER_ANSWERS_PER_DISPATCH);
	dispatch_once(&srv);
	assert_int_equal(fake.list, 2 * CTL_SERVER_ANSWERS_PER_DISPATCH);
	for (int i = 0; i < BUDGET_CLIENTS; i++)
		for (size_t k = 0; k < per_client; k++)
			json_decref(peer_ok(&srv, &peers[i]));
	assert_int_equal(fake.list, BUDGET_CLIENTS * per_client);
	for (int i = 0; i < BUDGET_CLIENTS; i++)
		peer_close(&peers[i]);
	free(many);
	server_close(&srv);
}

/* Large replies: a dispatch stops answering once it has queued CTL_SERVER_BYTES_PER_DISPATCH. */
static void test_dispatch_budget_in_bytes(void **state)
{
	struct peer peers[BUDGET_CLIENTS + 8];
	size_t count = sizeof(peers) / sizeof(peers[0]);
	/* Replies of BIG_REPLY bytes and a little more: the budget runs out after this many. */
	size_t fit = (CTL_SERVER_BYTES_PER_DISPATCH + BIG_REPLY - 1) / BIG_REPLY;
	struct server srv;

	(void)state;
	assert_true(fit < count && fit < CTL_SERVER_ANSWERS_PER_DISPATCH);
	server_open(&srv, 0, 0);
	for (size_t i = 0; i < count; i++) {
		peer_connect(&peers[i]);
		roundtrip_status(&srv, &peers[i]);
	}
	fake.status = 0;
	fake.big = BIG_REPLY;
	for (size_t i = 0; i < count; i++)
		peer_send(&srv, &peers[i], "{\"cmd\":\"status\"}\n");
	dispatch_once(&srv);
	/* Each reply is a little over BIG_REPLY, so the budget may be spent one reply earlier. */
	assert_true(fake.status == fit || fake.status == fit - 1);
	for (size_t i = 0; i < count; i++) {
		json_t *r = peer_ok(&srv, &peers[i]);
		assert_int_equal(strlen(json_string_value(json_object_get(r, "pad"))), BIG_REPLY);
		json_decref(r);
	}
	assert_int_equal(fake.status, count);
	for (size_t i = 0; i < count; i++)
		peer_close(&peers[i]);
	server_close(&srv);
}

#define SHARING_CLIENTS 20

/* N clients asking for list within one generation: the daemon is asked once, the reply encoded once,
 * and every client gets the same reply; the next generation asks again. */
static void test_shared_reply_encoded_once(void **state)
{
	struct ctl_server_config config = { .path = sock_path, .gid = SOCKET_GID };
	struct peer peers[SHARING_CLIENTS];
	struct server srv;

	(void)state;
	server_open_config(&srv, &config, &handler_with_generation);
	for (int i = 0; i < SHARING_CLIENTS; i++) {
		peer_connect(&peers[i]);
		peer_send(&srv, &peers[i], "{\"cmd\":\"list\"}\n{\"cmd\":\"status\"}\n");
	}
	json_t *first = peer_ok(&srv, &peers[0]);
	json_decref(peer_ok(&srv, &peers[0]));
	for (int i = 1; i < SHARING_CLIENTS; i++) {
		json_t *r = peer_ok(&srv, &peers[i]);
		assert_true(json_equal(r, first));
		json_decref(r);
		json_decref(peer_ok(&srv, &peers[i]));
	}
	assert_int_equal(fake.list, 1);
	assert_int_equal(fake.status, 1);
	/* show takes an argument: every request is answered afresh. */
	for (int i = 0; i < 3; i++) {
		peer_send(&srv, &peers[i], "{\"cmd\":\"show\",\"name\":\"web\"}\n");
		json_decref(peer_ok(&srv, &peers[i]));
	}
	assert_int_equal(fake.show, 3);

	fake.generation++;
	for (int i = 0; i < SHARING_CLIENTS; i++) {
		peer_send(&srv, &peers[i], "{\"cmd\":\"status\"}\n");
		json_t *r = peer_ok(&srv, &peers[i]);
		assert_int_equal(json_integer_value(json_object_get(r, "n")), 2);
		json_decref(r);
	}
	assert_int_equal(fake.status, 2);
	assert_int_equal(fake.list, 1);
	json_decref(first);
	for (int i = 0; i < SHARING_CLIENTS; i++)
		peer_close(&peers[i]);
	server_close(&srv);
}

/* One shared reply for a client that reads slowly and one that reads at once: the same bytes for
 * both, and the slow one's stays whole after the next generation's reply has replaced it in the cache
 * (the server holds it by reference until the slow reader has it all; ASan checks the freeing). */
static void test_shared_reply_slow_and_fast(void **state)
{
	struct ctl_server_config config = { .path = sock_path, .gid = SOCKET_GID };
	struct peer slow, fast;
	struct server srv;
	size_t slow_len, fast_len, next_len;

	(void)state;
	fake.big = BIG_REPLY; /* far more than the socket buffers hold: the slow reply waits in the server */
	server_open_config(&srv, &config, &handler_with_generation);
	peer_connect(&slow);
	peer_connect(&fast);
	peer_send(&srv, &slow, "{\"cmd\":\"status\"}\n");
	peer_send(&srv, &fast, "{\"cmd\":\"status\"}\n");
	char *fast_line = peer_line_chunked(&srv, &fast, 65536, &fast_len);
	assert_non_null(fast_line);
	assert_int_equal(fake.status, 1);

	fake.generation++;
	peer_send(&srv, &fast, "{\"cmd\":\"status\"}\n");
	char *next = peer_line_chunked(&srv, &fast, 65536, &next_len);
	assert_int_equal(fake.status, 2);
	assert_non_null(strstr(next, "\"n\":2"));

	char *slow_line = peer_line_chunked(&srv, &slow, 4096, &slow_len);
	assert_non_null(slow_line);
	assert_int_equal(slow_len, fast_len);
	assert_memory_equal(slow_line, fast_line, fast_len);
	assert_non_null(strstr(slow_line, "\"n\":1"));
	free(slow_line);
	free(fast_line);
	free(next);
	peer_close(&slow);
	peer_close(&fast);
	server_close(&srv);
}

static void test_stalled_clients_dropped(void **state)
{
	struct server srv;
	struct peer hog, loris, idle;

	(void)state;
	fake.big = BIG_REPLY;
	server_open(&srv, 0, 300);
	peer_connect(&hog);
	peer_connect(&loris);
	peer_connect(&idle);
	for (int i = 0; i < 8; i++)
		peer_send(&srv, &hog, "{\"cmd\":\"status\"}\n");
	peer_send(&srv, &loris, "{\"cmd\":");
	serve_for(&srv, 30);
	assert_int_equal(ctl_server_client_count(srv.s), 3);
	/* Requests wait while the queue is long: not all eight have run. */
	assert_true(fake.status < 8);
	serve_for(&srv, 900);
	/* The one that never reads and the one that never finishes are gone; the idle one stays. */
	assert_int_equal(ctl_server_client_count(srv.s), 1);
	fake.big = 0;
	roundtrip_status(&srv, &idle);
	peer_close(&hog);
	peer_close(&loris);
	peer_close(&idle);
	server_close(&srv);
}

static void test_client_cap(void **state)
{
	struct peer peers[CTL_SERVER_MAX_CLIENTS + 1];
	struct server srv;

	(void)state;
	server_open(&srv, 0, 0);
	for (int i = 0; i < CTL_SERVER_MAX_CLIENTS; i++) {
		peer_connect(&peers[i]);
		roundtrip_status(&srv, &peers[i]);
	}
	assert_int_equal(ctl_server_client_count(srv.s), CTL_SERVER_MAX_CLIENTS);
	struct peer *extra = &peers[CTL_SERVER_MAX_CLIENTS];
	peer_connect(extra);
	peer_expect_error(&srv, extra, "too many clients (64 connected)");
	peer_expect_eof(&srv, extra);
	peer_close(extra);
	assert_int_equal(fake.status, CTL_SERVER_MAX_CLIENTS);

	/* One leaves, another gets in. */
	peer_close(&peers[0]);
	serve_for(&srv, 20);
	peer_connect(extra);
	roundtrip_status(&srv, extra);
	roundtrip_status(&srv, &peers[1]);
	peer_close(extra);
	for (int i = 1; i < CTL_SERVER_MAX_CLIENTS; i++)
		peer_close(&peers[i]);
	server_close(&srv);
}

/* Serves until the server has `count` clients (a failure after WAIT_MS). */
static void serve_until_clients(struct server *srv, size_t count)
{
	long long end = now_ms() + WAIT_MS;

	while (ctl_server_client_count(srv->s) != count) {
		if (now_ms() > end)
			fail_msg("%zu clients, expected %zu", ctl_server_client_count(srv->s), count);
		serve(srv, 10);
	}
}

/* Connected and silent: dropped after idle_ms. So is a client that asked but never read a reply that
 * fits in its socket buffer (it is owed nothing the server holds). One in the middle of a request is
 * not idle, and is answered when it finishes. */
static void test_idle_clients_dropped(void **state)
{
	struct ctl_server_config config = { .path = sock_path, .gid = SOCKET_GID, .idle_ms = 100 };
	struct peer idle, unread, busy;
	struct server srv;

	(void)state;
	server_open_config(&srv, &config, &handler);
	peer_connect(&idle);
	peer_connect(&unread);
	peer_connect(&busy);
	peer_send(&srv, &unread, "{\"cmd\":\"status\"}\n");
	peer_send(&srv, &busy, "{\"cmd\":");
	serve_until_clients(&srv, 3);
	serve_until_clients(&srv, 1);
	peer_expect_eof(&srv, &idle);
	json_decref(peer_ok(&srv, &unread));
	peer_expect_eof(&srv, &unread);
	peer_send(&srv, &busy, "\"list\"}\n"); /* the rest of its request */
	json_decref(peer_ok(&srv, &busy));
	assert_int_equal(fake.status, 1);
	assert_int_equal(fake.list, 1);
	peer_close(&idle);
	peer_close(&unread);
	peer_close(&busy);
	server_close(&srv);
}

/* The i-th of many readers: CTL_SERVER_PER_UID connections for each uid, counting down from NOBODY. */
static int connect_as_reader(size_t i)
{
	return connect_as_uid(NOBODY - (uid_t)(i / CTL_SERVER_PER_UID), NOBODY, (gid_t)-1);
}

/* Connections anyone may open (the socket made 0666) fill all but the reserved slots; the next
 * unprivileged one is told so and closed, while root and the socket's group still get in. */
static void test_reserved_slots_for_privileged_peers(void **state)
{
	struct peer peers[CTL_SERVER_MAX_CLIENTS + 2];
	size_t open_slots = CTL_SERVER_MAX_CLIENTS - CTL_SERVER_RESERVED;
	char expected[160];
	struct server srv;

	(void)state;
	server_open(&srv, 0, 0);
	assert_int_equal(chmod(sock_path, 0666), 0);
	for (size_t i = 0; i < CTL_SERVER_MAX_CLIENTS; i++) {
		peer_adopt(&peers[i], connect_as_reader(i));
		if (i < open_slots)
			serve_until_clients(&srv, i + 1);
	}
	snprintf(expected, sizeof(expected),
		 "too many clients (%zu connected; the other %d slots are kept for root and group daemon)", open_slots,
		 CTL_SERVER_RESERVED);
	for (size_t i = open_slots; i < CTL_SERVER_MAX_CLIENTS; i++) {
		peer_expect_error(&srv, &peers[i], expected);
		peer_expect_eof(&srv, &peers[i]);
	}
	assert_int_equal(ctl_server_client_count(srv.s), open_slots);
	peer_adopt(&peers[CTL_SERVER_MAX_CLIENTS], connect_as_nobody(SOCKET_GID));
	peer_connect(&peers[CTL_SERVER_MAX_CLIENTS + 1]);
	roundtrip_status(&srv, &peers[CTL_SERVER_MAX_CLIENTS]);
	roundtrip_status(&srv, &peers[CTL_SERVER_MAX_CLIENTS + 1]);
	assert_int_equal(ctl_server_client_count(srv.s), open_slots + 2);
	/* The ones let in are served as before. */
	roundtrip_status(&srv, &peers[0]);
	assert_int_equal(fake.status, 3);
	for (size_t i = 0; i < CTL_SERVER_MAX_CLIENTS + 2; i++)
		peer_close(&peers[i]);
	server_close(&srv);
}

/* One uid that may only read holds CTL_SERVER_PER_UID connections: its next one is told so and closed,
 * while another reader, a member of the socket's group with the same uid, and root still get in (before,
 * 60 connections of one user locked every other reader out). One closed, the uid gets one again. */
static void test_per_uid_limit(void **state)
{
	struct peer mine[CTL_SERVER_PER_UID + 1], other, member, root;
	char expected[160];
	struct server srv;

	(void)state;
	server_open(&srv, 0, 0);
	assert_int_equal(chmod(sock_path, 0666), 0);
	for (size_t i = 0; i <= CTL_SERVER_PER_UID; i++) {
		peer_adopt(&mine[i], connect_as_nobody(0));
		if (i < CTL_SERVER_PER_UID)
			serve_until_clients(&srv, i + 1);
	}
	snprintf(expected, sizeof(expected), "too many connections from uid %d (%d, the most one user may hold", NOBODY,
		 CTL_SERVER_PER_UID);
	peer_expect_error(&srv, &mine[CTL_SERVER_PER_UID], expected);
	peer_expect_eof(&srv, &mine[CTL_SERVER_PER_UID]);
	peer_close(&mine[CTL_SERVER_PER_UID]);
	assert_int_equal(ctl_server_client_count(srv.s), CTL_SERVER_PER_UID);

	peer_adopt(&other, connect_as_uid(NOBODY - 1, NOBODY, (gid_t)-1));
	roundtrip_status(&srv, &other);
	peer_adopt(&member, connect_as_nobody(SOCKET_GID));
	roundtrip_status(&srv, &member);
	peer_connect(&root);
	roundtrip_status(&srv, &root);
	assert_int_equal(ctl_server_client_count(srv.s), CTL_SERVER_PER_UID + 3);

	peer_close(&mine[0]);
	serve_until_clients(&srv, CTL_SERVER_PER_UID + 2);
	peer_adopt(&mine[0], connect_as_nobody(0));
	roundtrip_status(&srv, &mine[0]);
	for (size_t i = 0; i < CTL_SERVER_PER_UID; i++)
		peer_close(&mine[i]);
	peer_close(&other);
	peer_close(&member);
	peer_close(&root);
	server_close(&srv);
}

/* ---- mpamctl against a server running in a thread ---- */

struct background {
	struct server srv;
	int stop_fd;
	pthread_t thread;
};

static void *background_loop(void *arg)
{
	struct background *bg = arg;
	uint64_t one;

	for (;;) {
		struct pollfd fds[2] = { { .fd = bg->srv.epoll_fd, .events = POLLIN },
					 { .fd = bg->stop_fd, .events = POLLIN } };
		if (poll(fds, 2, -1) < 0)
			continue;
		if (fds[1].revents && read(bg->stop_fd, &one, sizeof(one)) == sizeof(one))
			return NULL;
		/* No cmocka assertions off the main thread: a failure shows as a missing reply instead. */
		if (fds[0].revents && ctl_server_dispatch(bg->srv.s) < 0)
			return NULL;
	}
}

/* Runs mpamctl --socket sock_path ARGS... while the server answers in another thread. */
static struct run_result mpamctl(const char *first, ...)
{
	char *argv[16] = { MPAMCTL, "--socket", sock_path };
	struct background bg;
	struct run_result r;
	size_t n = 3;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a && n < 15; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	server_open(&bg.srv, 0, 0);
	bg.stop_fd = eventfd(0, EFD_CLOEXEC);
	assert_int_equal(pthread_create(&bg.thread, NULL, background_loop, &bg), 0);
	assert_int_equal(run_command(argv, &r), 0);
	uint64_t one = 1;
	assert_int_equal(write(bg.stop_fd, &one, sizeof(one)), sizeof(one));
	assert_int_equal(pthread_join(bg.thread, NULL), 0);
	close(bg.stop_fd);
	server_close(&bg.srv);
	return r;
}

static void assert_has(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("output lacks '%s':\n%s", needle, text);
}

static void assert_ok_run(struct run_result *r)
{
	if (r->exit_code != 0)
		fail_msg("mpamctl exited %d: %s", r->exit_code, r->err);
	assert_string_equal(r->err, "");
}

/* --json prints the daemon's result as is. */
static void assert_json_output(struct run_result *r, const char *expected)
{
	json_error_t error;

	assert_ok_run(r);
	json_t *got = json_loads(r->out, 0, &error), *want = canned(expected);
	if (!got)
		fail_msg("--json output is not JSON: %s\n%s", error.text, r->out);
	json_object_del(got, "n");
	assert_true(json_equal(got, want));
	json_decref(got);
	json_decref(want);
	run_result_fini(r);
}

static void test_mpamctl_status_list_show(void **state)
{
	struct run_result r;

	(void)state;
	r = mpamctl("status", NULL);
	assert_ok_run(&r);
	assert_has(r.out, "backend: sim\n");
	assert_has(r.out, "interval_ms: 100\n");
	assert_has(r.out, "uptime: 1h02m03s\n");
	assert_has(r.out, "events:\n  TICK  T_MS  PARTITION  ACTION    REASON\n");
	assert_has(r.out, "    40  4000  batch      throttle  web below guarantee\n");
	run_result_fini(&r);
	r = mpamctl("--json", "status", NULL);
	assert_json_output(&r, status_json);

	r = mpamctl("list", NULL);
	assert_ok_run(&r);
	/* One header, one line per partition; '-' when not measured, '~' when extrapolated. */
	assert_has(r.out, "NAME   CLASS               MB/S  MAX/MIN  TARGET  GUARANTEE\n"
			  "web    latency-critical  5000.0   100/20       -       6000\n"
			  "batch  best-effort            -     40/0    3000          -\n"
			  "vm3    default           812.2~     60/0       -          -\n");
	run_result_fini(&r);
	/* --wide: every field the daemon sent, one column each */
	r = mpamctl("list", "--wide", NULL);
	assert_ok_run(&r);
	assert_has(r.out, "NAME   CLASS             MB_MIN  MB_MAX    MBPS  TARGET_MBPS  GUARANTEE_MBPS\n"
			  "web    latency-critical      20     100  5000.0            -            6000\n"
			  "batch  best-effort            0      40       -         3000               -\n"
			  "vm3    default                0      60  812.2~            -               -\n");
	run_result_fini(&r);
	r = mpamctl("list", "--json", NULL);
	assert_json_output(&r, list_json);

	r = mpamctl("show", "web", NULL);
	assert_ok_run(&r);
	assert_has(r.out, "name: web\nclass: latency-critical\nmb_max: 100\nmb_min: 20\nmbps: 5000.0\n"
			  "target_mbps: -\nguarantee_mbps: 6000\nevents:\n");
	assert_has(r.out, "protect");
	run_result_fini(&r);
	r = mpamctl("--json", "show", "web", NULL);
	assert_json_output(&r, show_json);

	r = mpamctl("show", "db", NULL);
	assert_int_equal(r.exit_code, 1);
	assert_string_equal(r.out, "");
	assert_has(r.err, "mpamctl show: no partition named 'db'");
	run_result_fini(&r);
}

/* classes = shared (resctrl): the class each partition is in and the ceiling it asked for, beside the
 * one its class holds; status's classes and RMIDs on one line. */
static const char *shared_status_json =
	"{\"backend\": \"resctrl\", \"ticks\": 7, \"classes\": {\"mode\": \"shared\", \"used\": 3, \"left\": 12, "
	"\"monitors_name\": \"RMIDs\", \"monitors_used\": 51, \"monitors_left\": 205, \"deviation_pp\": 0.0, "
	"\"members\": 3}}";
static const char *quantised_status_json =
	"{\"backend\": \"resctrl\", \"classes\": {\"mode\": \"shared\", \"used\": 15, \"left\": 0, "
	"\"monitors_used\": 66, \"monitors_left\": 190, \"deviation_pp\": 36.5, \"members\": 50}}";
static const char *shared_list_json =
	"{\"partitions\": ["
	"{\"name\": \"vm-01\", \"class\": \"best-effort\", \"state\": \"open\", \"mb_max\": 40, \"mb_min\": 0, "
	"\"mbps\": 812.0, \"valid\": true, \"domains\": ["
	"{\"domain\": \"0\", \"mbps\": 400.0, \"state\": \"measured\", \"mb_max\": 40, \"mb_min\": 0, "
	"\"mb_max_asked\": 42}, "
	"{\"domain\": \"1\", \"mbps\": 412.0, \"state\": \"measured\", \"mb_max\": 30, \"mb_min\": 0, "
	"\"mb_max_asked\": 35.5}], \"hw_class\": 3, \"mb_max_asked\": 42},"
	"{\"name\": \"vm-02\", \"class\": \"latency-critical\", \"state\": \"open\", \"mb_max\": 100, \"mb_min\": 0, "
	"\"mbps\": 95.5, \"valid\": true, \"domains\": ["
	"{\"domain\": \"0\", \"mbps\": 95.5, \"state\": \"measured\", \"mb_max\": 100, \"mb_min\": 0, "
	"\"mb_max_asked\": 100}, "
	"{\"domain\": \"1\", \"mbps\": 0.0, \"state\": \"measured\", \"mb_max\": 100, \"mb_min\": 0, "
	"\"mb_max_asked\": 100}], \"hw_class\": 12, \"mb_max_asked\": 100},"
	"{\"name\": \"vm-03\", \"class\": \"default\", \"state\": \"failed\", \"mb_max\": null, \"mb_min\": null, "
	"\"mbps\": null, \"valid\": false, \"domains\": ["
	"{\"domain\": \"0\", \"mbps\": null, \"state\": \"invalid\", \"mb_max\": null, \"mb_min\": null, "
	"\"mb_max_asked\": null}, "
	"{\"domain\": \"1\", \"mbps\": null, \"state\": \"invalid\", \"mb_max\": null, \"mb_min\": null, "
	"\"mb_max_asked\": null}], \"hw_class\": null, \"mb_max_asked\": null, \"error\": \"no RMID left\"}]}";
static const char *shared_show_json =
	"{\"name\": \"web\", \"mb_max\": 40, \"hw_class\": 3, \"mb_max_asked\": 42, \"domains\": ["
	"{\"domain\": \"0\", \"what\": \"an MSC\", \"mbps\": 400.0, \"state\": \"measured\", \"mb_max\": 40, "
	"\"mb_min\": 0, \"mb_max_asked\": 42}, "
	"{\"domain\": \"1\", \"what\": \"an MSC\", \"mbps\": 412.0, \"state\": \"measured\", \"mb_max\": 30, "
	"\"mb_min\": 0, \"mb_max_asked\": 35.5}]}";
/* Each partition a class of its own: every domain's mb_max_asked null. */
static const char *own_list_json =
	"{\"partitions\": [{\"name\": \"web\", \"class\": \"default\", \"state\": \"open\", \"mb_max\": 40, "
	"\"mb_min\": 0, \"mbps\": 812.0, \"valid\": true, \"domains\": ["
	"{\"domain\": \"0\", \"mbps\": 400.0, \"state\": \"measured\", \"mb_max\": 40, \"mb_min\": 0, "
	"\"mb_max_asked\": null}, "
	"{\"domain\": \"1\", \"mbps\": 412.0, \"state\": \"measured\", \"mb_max\": 30, \"mb_min\": 0, "
	"\"mb_max_asked\": null}], \"hw_class\": null, \"mb_max_asked\": null}]}";
static const char *own_show_json =
	"{\"name\": \"web\", \"mb_max\": 40, \"hw_class\": null, \"mb_max_asked\": null, \"domains\": ["
	"{\"domain\": \"0\", \"what\": \"an MSC\", \"mbps\": 400.0, \"state\": \"measured\", \"mb_max\": 40, "
	"\"mb_min\": 0, \"mb_max_asked\": null}, "
	"{\"domain\": \"1\", \"what\": \"an MSC\", \"mbps\": 412.0, \"state\": \"measured\", \"mb_max\": 30, "
	"\"mb_min\": 0, \"mb_max_asked\": null}]}";

/* mpamctl CMD [ARG] succeeds and prints `text` among its output. */
static void expect_prints(const char *cmd, const char *arg, const char *text)
{
	struct run_result r = mpamctl(cmd, arg, NULL);

	assert_ok_run(&r);
	assert_has(r.out, text);
	run_result_fini(&r);
}

static void test_mpamctl_shared_classes(void **state)
{
	const char *saved[] = { status_json, list_json, show_json };
	struct run_result r;

	(void)state;
	status_json = shared_status_json;
	list_json = shared_list_json;
	show_json = shared_show_json;
	expect_prints("status", NULL, "\nclasses: shared, 3 used, 12 left; RMIDs: 51 used, 205 left\n");
	status_json = quantised_status_json; /* without monitors_name (an older daemon): "monitors" */
	expect_prints("status", NULL,
		      "classes: shared, 15 used, 0 left; monitors: 66 used, 190 left; quantised: 36.5 points "
		      "over 50 partitions\n");
	status_json = shared_status_json;
	expect_prints("list", NULL,
		      "NAME   CLASS             HW   STATE    MB/S  MAX/MIN  ASKED  NOTE\n"
		      "vm-01  best-effort       c3   open    812.0     40/0     42  -\n"
		      "vm-02  latency-critical  c12  open     95.5    100/0    100  -\n"
		      "vm-03  default           -    failed      -        -      -  no RMID left\n");
	/* the domains' table: ASKED on each domain (vm-01 asked 35.5 on domain 1, its class holds 30) */
	expect_prints("list", NULL,
		      "\nPARTITION  DOMAIN   MBPS  STATE     MB_MAX  MB_MIN  ASKED\n"
		      "vm-01      0       400.0  measured      40       0     42\n"
		      "vm-01      1       412.0  measured      30       0   35.5\n"
		      "vm-02      0        95.5  measured     100       0    100\n"
		      "vm-02      1         0.0  measured     100       0    100\n"
		      "vm-03      0           -  invalid        -       -      -\n");
	expect_prints("list", "--wide", "MB_MAX  MB_MAX_ASKED  HW_CLASS");
	expect_prints("show", "web", "mb_max: 40\nhw_class: 3\nmb_max_asked: 42\n");
	expect_prints("show", "web",
		      "domains:\n"
		      "  DOMAIN  WHAT     MBPS  STATE     MB_MAX  MB_MAX_ASKED  MB_MIN\n"
		      "  0       an MSC  400.0  measured      40            42       0\n"
		      "  1       an MSC  412.0  measured      30          35.5       0\n");

	/* Each partition a class of its own: status says so, list has no HW or ASKED column. */
	status_json = "{\"backend\": \"resctrl\", \"classes\": null}";
	list_json = saved[1];
	expect_prints("status", NULL, "classes: own (each partition a class of its own)\n");
	r = mpamctl("list", NULL);
	assert_ok_run(&r);
	assert_null(strstr(r.out, "HW"));
	assert_null(strstr(r.out, "ASKED"));
	run_result_fini(&r);
	/* nor has the domains' table (each domain's mb_max_asked null), nor show's */
	list_json = own_list_json;
	show_json = own_show_json;
	r = mpamctl("list", NULL);
	assert_ok_run(&r);
	assert_has(r.out, "\nPARTITION  DOMAIN   MBPS  STATE     MB_MAX  MB_MIN\nweb        0       400.0  measured    "
			  "  40       0\n");
	assert_null(strstr(r.out, "ASKED"));
	run_result_fini(&r);
	r = mpamctl("show", "web", NULL);
	assert_ok_run(&r);
	assert_has(r.out, "domains:\n  DOMAIN  WHAT     MBPS  STATE     MB_MAX  MB_MIN\n");
	assert_null(strstr(r.out, "MB_MAX_ASKED "));
	run_result_fini(&r);
	list_json = saved[1];
	status_json = saved[0];
	show_json = saved[2];
}

static void test_mpamctl_set_reload(void **state)
{
	struct run_result r;

	(void)state;
	r = mpamctl("set", "web", "mb_max=50", "mb_min=10", NULL);
	assert_ok_run(&r);
	assert_string_equal(r.out, "web: mb_max=50 mb_min=10\n");
	run_result_fini(&r);
	assert_int_equal(fake.last.count, 2);
	assert_string_equal(fake.last.settings[0], "mb_max=50");
	assert_string_equal(fake.last.settings[1], "mb_min=10");
	r = mpamctl("--json", "set", "web", "class=best-effort", NULL);
	assert_json_output(&r, "{\"name\": \"web\", \"settings\": [\"class=best-effort\"]}");

	r = mpamctl("set", "web", "mb_max=150", NULL);
	assert_int_equal(r.exit_code, 1);
	assert_has(r.err, "mpamctl set: web: mb_max = 150: out of range 1..100");
	run_result_fini(&r);

	r = mpamctl("reload", NULL);
	assert_ok_run(&r);
	assert_string_equal(r.out, "configuration reloaded\n");
	run_result_fini(&r);
	r = mpamctl("reload", "--json", NULL);
	assert_json_output(&r, "{\"reloaded\": true}");
	assert_int_equal(fake.set, 3);
	assert_int_equal(fake.reload, 2);
}

/* mpamctl prints the daemon's text byte for byte, and the reply itself with --json. */
static void test_mpamctl_metrics(void **state)
{
	struct run_result r;

	(void)state;
	r = mpamctl("metrics", NULL);
	assert_ok_run(&r);
	assert_string_equal(r.out, metrics_text);
	run_result_fini(&r);
	r = mpamctl("--json", "metrics", NULL);
	assert_json_output(&r, metrics_json);
}

static void test_mpamctl_usage_and_help(void **state)
{
	static const char *const commands[] = { "status", "list", "show", "set", "reload", "metrics" };
	struct run_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char *argv[] = { MPAMCTL, (char *)commands[i], "--help", NULL };
		assert_int_equal(run_command(argv, &r), 0);
		assert_int_equal(r.exit_code, 0);
		assert_has(r.out, "Usage: mpamctl [--socket PATH] [--json] ");
		assert_has(r.out, commands[i]);
		run_result_fini(&r);
	}
	char *top[] = { MPAMCTL, "--help", NULL };
	assert_int_equal(run_command(top, &r), 0);
	assert_has(r.out, "  metrics ");
	assert_has(r.out, "  set ");
	run_result_fini(&r);

	/* Usage errors never reach the daemon. */
	r = mpamctl("set", "web", NULL);
	assert_int_equal(r.exit_code, 2);
	assert_has(r.err, "mpamctl set: expected [--persist] NAME KEY=VALUE...");
	run_result_fini(&r);
	r = mpamctl("set", "web", "mb_max", NULL);
	assert_int_equal(r.exit_code, 2);
	assert_has(r.err, "'mb_max' is not key=value");
	run_result_fini(&r);
	r = mpamctl("show", NULL);
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
	r = mpamctl("status", "extra", NULL);
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
	r = mpamctl("list", "--frob", NULL);
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
	assert_int_equal(fake.status + fake.list + fake.show + fake.set, 0);
}

static void test_mpamctl_without_daemon(void **state)
{
	char *argv[] = { MPAMCTL, "--socket", sock_path, "status", NULL };
	struct run_result r;

	(void)state;
	assert_int_equal(run_command(argv, &r), 0);
	assert_int_equal(r.exit_code, 3); /* unreachable, told apart from a refusal */
	assert_string_equal(r.out, "");
	char expected[256];
	snprintf(expected, sizeof(expected), "mpamctl: cannot connect to %s: No such file or directory; ", sock_path);
	assert_has(r.err, expected);
	/* whether an mpamd runs elsewhere on this machine (another test's) is not this test's to know */
	if (!strstr(r.err, "mpamd runs (pid "))
		assert_has(r.err, "no mpamd process is visible: start it ('systemctl start mpamd'");
	run_result_fini(&r);

	/* With --json (anywhere) the failure is JSON on stdout as well. */
	char *json_argv[] = { MPAMCTL, "show", "web", "--socket", sock_path, "--json", NULL };
	assert_int_equal(run_command(json_argv, &r), 0);
	assert_int_equal(r.exit_code, 3);
	json_error_t error;
	json_t *reply = json_loads(r.out, 0, &error);
	if (!reply)
		fail_msg("not JSON: %s\n%s", error.text, r.out);
	assert_true(json_is_false(json_object_get(reply, "ok")));
	assert_int_equal(json_integer_value(json_object_get(reply, "exit")), 3);
	assert_has(json_string_value(json_object_get(reply, "error")), sock_path);
	json_decref(reply);
	run_result_fini(&r);
}

/* Options after the arguments, usage errors as JSON, and a "did you mean" for a mistyped command. */
static void test_mpamctl_options_anywhere(void **state)
{
	struct run_result r;

	(void)state;
	r = mpamctl("show", "web", "--json", NULL);
	assert_ok_run(&r);
	assert_has(r.out, "\"name\": \"web\"");
	run_result_fini(&r);
	r = mpamctl("set", "web", "mb_max=50", "--json", NULL);
	assert_ok_run(&r);
	assert_has(r.out, "\"settings\"");
	run_result_fini(&r);
	assert_int_equal(fake.set, 1);

	char *typo[] = { MPAMCTL, "stauts", NULL };
	assert_int_equal(run_command(typo, &r), 0);
	assert_int_equal(r.exit_code, 2);
	assert_has(r.err, "unknown command 'stauts'; did you mean 'status'?");
	run_result_fini(&r);
	char *bad[] = { MPAMCTL, "list", "--frob", "--json", NULL };
	assert_int_equal(run_command(bad, &r), 0);
	assert_int_equal(r.exit_code, 2);
	assert_has(r.out, "\"ok\": false");
	assert_has(r.out, "unknown option '--frob'");
	run_result_fini(&r);
}

/* A "daemon" of another protocol version: the CLI says so instead of misreading the reply. */
static void *other_version_daemon(void *arg)
{
	int listener = *(int *)arg, fd = accept(listener, NULL, NULL);
	char buf[4096];
	const char *reply = "{\"version\":2,\"ok\":true,\"result\":{\"backend\":\"sim\"}}\n";

	if (fd < 0)
		return NULL;
	if (read(fd, buf, sizeof(buf)) > 0 && write(fd, reply, strlen(reply)) < 0)
		perror("write");
	close(fd);
	return NULL;
}

static void test_mpamctl_version_mismatch(void **state)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char *argv[] = { MPAMCTL, "--socket", sock_path, "status", NULL };
	struct run_result r;
	pthread_t thread;
	int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)state;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
	assert_int_equal(bind(listener, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(listener, 1), 0);
	assert_int_equal(pthread_create(&thread, NULL, other_version_daemon, &listener), 0);
	assert_int_equal(run_command(argv, &r), 0);
	pthread_join(thread, NULL);
	close(listener);
	assert_int_equal(r.exit_code, 1);
	assert_has(r.err, "mpamd speaks protocol version 2, this client speaks version 1");
	run_result_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		fixture_test(test_socket_file),
		fixture_test(test_socket_directory_created),
		fixture_test(test_stale_replaced_live_refused),
		fixture_test(test_pipelined_requests_in_order),
		fixture_test(test_end_of_input),
		fixture_test(test_long_line_answered_and_disconnected),
		fixture_test(test_bad_requests_do_not_disturb),
		fixture_test(test_non_ascii_requests_answered),
		fixture_test(test_peer_privilege),
		fixture_test(test_without_group_root_only),
		fixture_test(test_slow_reader_gets_everything),
		fixture_test(test_long_pipeline_shares_the_loop),
		fixture_test(test_dispatch_budget_spans_clients),
		fixture_test(test_dispatch_budget_in_bytes),
		fixture_test(test_shared_reply_encoded_once),
		fixture_test(test_shared_reply_slow_and_fast),
		fixture_test(test_stalled_clients_dropped),
		fixture_test(test_client_cap),
		fixture_test(test_idle_clients_dropped),
		fixture_test(test_reserved_slots_for_privileged_peers),
		fixture_test(test_per_uid_limit),
		fixture_test(test_mpamctl_status_list_show),
		fixture_test(test_mpamctl_shared_classes),
		fixture_test(test_mpamctl_set_reload),
		fixture_test(test_mpamctl_metrics),
		fixture_test(test_mpamctl_usage_and_help),
		fixture_test(test_mpamctl_without_daemon),
		fixture_test(test_mpamctl_options_anywhere),
		fixture_test(test_mpamctl_version_mismatch),
	};

	if (geteuid() != 0) {
		/* The socket's group and the unprivileged peer need root to set up. */
		fprintf(stderr, "test_ctl_server: needs root (skipped)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
