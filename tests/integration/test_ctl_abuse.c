/* The control socket of a running mpamd under abuse: requests longer than the limit, malformed ones
 * of every kind, 1000 connections from an unprivileged user (it keeps its share and another user
 * still gets in), floods of several users, clients that never read their replies and clients that
 * say nothing. Through it all mpamd keeps ticking and answers root (the reserved slots), every
 * refused connection is told why before it is closed, each bad request gets its error reply and the
 * connection goes on, and the memory it holds comes back when the clients go. It prints the daemon's
 * resident memory before, at the peak and after, and its tick durations (the
 * mpamd_tick_duration_seconds histogram's p50 and p99 buckets, and status's max_tick_ms). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/ctl/ctl.h"
#include "core/ctl/ctl_server.h"
#include "tests/util/testutil.h"

#define WAIT_MS	      10000
#define NOBODY	      65534
#define FLOOD	      1000
#define NEVER_READERS 20
#define IDLE_CLIENTS  20
#define PARTITIONS    64
#define ROUNDS	      3
/* KiB the daemon may hold after a round, once the abusers are gone: what the allocator keeps of the
 * never-readers' queued replies varies from run to run (0.5 to 8 MiB here), and must not add up
 * from round to round. A leak per connection is LeakSanitizer's to find (the sanitizer build). */
#define RSS_GROWTH_MAX (16 * 1024)

static char dir[64], config[96], sock[108], log_path[96];
/* Users flooding at once: enough that their shares fill every slot a reader may take. */
#define FLOODERS ((CTL_SERVER_MAX_CLIENTS - CTL_SERVER_RESERVED + CTL_SERVER_PER_UID - 1) / CTL_SERVER_PER_UID)

static pid_t daemon_pid, flooders[FLOODERS];
static int flood_go[FLOODERS];

/* ---- the daemon ---- */

static long rss_kib(const char *field)
{
	char path[64], line[128];
	long kib = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)daemon_pid);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kib = strtol(line + strlen(field), NULL, 10);
	fclose(f);
	return kib;
}

static int connect_socket(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void send_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* the daemon hung up: what it said is still there to read */
		data += n;
		len -= (size_t)n;
	}
}

/* The next line from `fd` (malloc'ed, without its newline), NULL at EOF or after `ms`. Reads one byte
 * at a time, so nothing after the line is taken from the socket. */
static char *read_line(int fd, int ms)
{
	size_t len = 0, cap = 4096;
	char *line = malloc(cap);

	assert_non_null(line);
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, ms) <= 0)
			break;
		char c;
		ssize_t n = read(fd, &c, 1);
		if (n <= 0)
			break;
		if (c == '\n') {
			line[len] = '\0';
			return line;
		}
		if (len + 1 == cap)
			line = realloc(line, cap *= 2);
		line[len++] = c;
	}
	free(line);
	return NULL;
}

/* Whether the daemon has closed `fd` within `ms`: EOF, or ECONNRESET when it closed with some of
 * what was sent unread (a line too long is not read to its end). */
static bool closed_by_daemon(int fd, int ms)
{
	char c;
	struct pollfd p = { fd, POLLIN, 0 };

	if (poll(&p, 1, ms) != 1)
		return false;
	ssize_t n = read(fd, &c, 1);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* One request on a new connection: the reply object (a new reference), NULL when refused. */
static json_t *ask(const char *request)
{
	int fd = connect_socket();

	if (fd < 0)
		return NULL;
	send_all(fd, request, strlen(request));
	char *line = read_line(fd, WAIT_MS);
	close(fd);
	json_t *reply = line ? json_loads(line, 0, NULL) : NULL;
	free(line);
	return reply;
}

static json_t *status(void)
{
	json_t *reply = ask("{\"cmd\":\"status\"}\n");

	if (!json_is_true(json_object_get(reply, "ok")))
		fail_msg("status was not answered");
	json_t *result = json_incref(json_object_get(reply, "result"));
	json_decref(reply);
	return result;
}

static long long ticks(void)
{
	json_t *st = status();
	long long n = json_integer_value(json_object_get(st, "ticks"));

	json_decref(st);
	return n;
}

/* Ticks go on: at least `count` more within WAIT_MS. */
static void wait_ticks(long long count)
{
	long long from = ticks();

	for (int waited = 0; waited < WAIT_MS && ticks() < from + count; waited += 20)
		usleep(20000);
	if (ticks() < from + count)
		fail_msg("mpamd stopped ticking");
}

static void start_daemon(void)
{
	snprintf(dir, sizeof(dir), "/tmp/mpamd-abuse-%d-XXXXXX", (int)getpid());
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0); /* the unprivileged flooder reaches the socket */
	snprintf(config, sizeof(config), "%s/mpamd.ini", dir);
	snprintf(sock, sizeof(sock), "%s/mpamd.sock", dir);
	snprintf(log_path, sizeof(log_path), "%s/mpamd.log", dir);
	FILE *f = fopen(config, "w");
	assert_non_null(f);
	fprintf(f, "[global]\nbackend = sim\ninterval_ms = 20\n[sim]\nmscs = 2\ncapacity_mbps = 20000\nmonitors = "
		   "64\npartid_max = 127\n");
	for (int i = 0; i < PARTITIONS; i++)
		fprintf(f, "[partition \"vm-%d\"]\nclass = best-effort\nsim_demand = %d\n", i, 100 + 10 * i);
	fclose(f);
	char *argv[] = { MPAMD, "-c", config, "-f", "--socket", sock, "--log-level", "info", NULL };
	daemon_pid = spawn_background(argv, log_path);
	assert_true(daemon_pid > 0);
	assert_true(wait_for_text(log_path, "control socket", WAIT_MS));
	wait_ticks(5);
}

static int teardown(void **state)
{
	(void)state;
	for (int n = 0; n < FLOODERS; n++) {
		if (flooders[n] <= 0)
			continue;
		kill(flooders[n], SIGKILL);
		waitpid(flooders[n], NULL, 0);
		close(flood_go[n]);
		flooders[n] = 0;
	}
	kill_daemon(&daemon_pid);
	return remove_tree(dir);
}

/* ---- the abuse ---- */

static bool reply_is_error(const char *line, const char *says)
{
	json_t *reply = line ? json_loads(line, 0, NULL) : NULL;
	const char *error = json_string_value(json_object_get(reply, "error"));
	bool ok = json_is_false(json_object_get(reply, "ok")) && error && strstr(error, says);

	json_decref(reply);
	return ok;
}

/* Longer than CTL_MAX_REQUEST, with and without a newline at the end: an error reply, then EOF. */
static void oversized_requests(void)
{
	size_t len = CTL_MAX_REQUEST + 4096;
	char *big = malloc(len);

	assert_non_null(big);
	memset(big, 'x', len);
	for (int i = 0; i < 10; i++) {
		int fd = connect_socket();
		assert_true(fd >= 0);
		big[len - 1] = i % 2 ? '\n' : 'x';
		send_all(fd, big, len);
		char *line = read_line(fd, WAIT_MS);
		if (!reply_is_error(line, "request larger than"))
			fail_msg("an oversized request got %s", line ? line : "no reply");
		assert_true(closed_by_daemon(fd, WAIT_MS));
		free(line);
		close(fd);
	}
	free(big);
}

/* Every malformed request on one connection, pipelined: one error reply each, in order, and the
 * connection answers a good request after them. */
static void malformed_requests(void)
{
	static const struct {
		const char *line;
		const char *says;
	} bad[] = {
		{ "not json\n", "" },
		{ "{\"cmd\":\"status\"\n", "" },
		{ "[]\n", "" },
		{ "null\n", "" },
		{ "\"status\"\n", "" },
		{ "{}\n", "" },
		{ "{\"version\":99,\"cmd\":\"status\"}\n", "version" },
		{ "{\"version\":\"1\",\"cmd\":\"status\"}\n", "" },
		{ "{\"cmd\":\"nope\"}\n", "nope" },
		{ "{\"cmd\":42}\n", "" },
		{ "{\"cmd\":\"show\"}\n", "" },
		{ "{\"cmd\":\"show\",\"name\":123}\n", "" },
		{ "{\"cmd\":\"show\",\"name\":\"nosuch\"}\n", "nosuch" },
		{ "{\"cmd\":\"status\",\"extra\":1}\n", "" },
		{ "{\"cmd\":\"set\",\"name\":\"vm-1\",\"settings\":[]}\n", "" },
		{ "{\"cmd\":\"set\",\"name\":\"vm-1\",\"settings\":[\"mb_max=0\"]}\n", "mb_max" },
		{ "{\"cmd\":\"set\",\"name\":\"vm-1\",\"settings\":[\"mb_max=1e999\"]}\n", "mb_max" },
		{ "{\"cmd\":\"show\",\"name\":\"\\u0000\"}\n", "" },
		{ "{\"cmd\":\"st\xff\xfe\"}\n", "" },
		{ "\x01\x02\x03\x04\r\n", "" },
	};
	size_t n = sizeof(bad) / sizeof(bad[0]);
	int fd = connect_socket();

	assert_true(fd >= 0);
	for (size_t i = 0; i < n; i++)
		send_all(fd, bad[i].line, strlen(bad[i].line));
	/* Nested 20000 deep: jansson refuses beyond its depth limit. */
	char *deep = malloc(40002);
	memset(deep, '[', 20000);
	memset(deep + 20000, ']', 20000);
	deep[40000] = '\n';
	deep[40001] = '\0';
	send_all(fd, deep, 40001);
	free(deep);
	send_all(fd, "{\"cmd\":\"status\"}\n", 17);
	for (size_t i = 0; i <= n; i++) {
		char *line = read_line(fd, WAIT_MS);
		if (!reply_is_error(line, i < n ? bad[i].says : ""))
			fail_msg("malformed request %zu (%s) got %s", i, i < n ? bad[i].line : "nested",
				 line ? line : "no reply");
		free(line);
	}
	char *line = read_line(fd, WAIT_MS);
	json_t *reply = line ? json_loads(line, 0, NULL) : NULL;
	if (!json_is_true(json_object_get(reply, "ok")))
		fail_msg("the connection did not answer a good request after the bad ones: %s",
			 line ? line : "nothing");
	json_decref(reply);
	free(line);
	close(fd);
}

/* A flooder: `count` connections from `uid` held open; it reports how many the daemon kept and how
 * many it refused saying why, then waits for its parent to close its end of `go`. */
static void flood_child(uid_t uid, int count, int report, int go)
{
	struct rlimit rl = { FLOOD + 64, FLOOD + 64 };
	static int fds[FLOOD];
	int kept = 0, told = 0, lost = 0;

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(uid) < 0)
		_exit(10);
	for (int i = 0; i < count; i++)
		if ((fds[i] = connect_socket()) < 0)
			_exit(11);
	/* A refused connection is told why and closed at once; a kept one hears nothing: once nothing
	 * more has been said for half a second, the ones left are kept. */
	static struct pollfd p[FLOOD];
	for (int i = 0; i < count; i++)
		p[i] = (struct pollfd){ fds[i], POLLIN, 0 };
	while (poll(p, (nfds_t)count, 500) > 0) {
		for (int i = 0; i < count; i++) {
			if (!p[i].revents)
				continue;
			char *line = read_line(fds[i], WAIT_MS);
			bool refused = reply_is_error(line, "too many c");
			told += refused && closed_by_daemon(fds[i], WAIT_MS);
			lost += !refused;
			free(line);
			p[i].fd = -1; /* answered: poll ignores it from now on */
		}
	}
	for (int i = 0; i < count; i++)
		kept += p[i].fd >= 0;
	dprintf(report, "%d %d %d\n", kept, told, lost);
	char c;
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

/* Starts flooder `n` (uid NOBODY - n) with `count` connections and waits for its report. */
static void flood_from(int n, int count, int *ret_kept, int *ret_told)
{
	int report[2], go[2];
	char text[64] = "";

	assert_int_equal(pipe(report), 0);
	assert_int_equal(pipe(go), 0);
	flooders[n] = fork();
	assert_true(flooders[n] >= 0);
	if (flooders[n] == 0) {
		close(report[0]);
		close(go[1]);
		for (int other = 0; other < n; other++)
			close(flood_go[other]); /* the others' ends: they wait for EOF on theirs */
		flood_child((uid_t)(NOBODY - n), count, report[1], go[0]);
	}
	close(report[1]);
	close(go[0]);
	flood_go[n] = go[1];
	ssize_t got = read(report[0], text, sizeof(text) - 1);
	close(report[0]);
	int lost = -1;
	if (got <= 0 || sscanf(text, "%d %d %d", ret_kept, ret_told, &lost) != 3)
		fail_msg("flooder %d did not report (it needs root to change its uid)", n);
	assert_int_equal(lost, 0);
	assert_int_equal(*ret_kept + *ret_told, count);
}

static void floods_end(void)
{
	for (int n = 0; n < FLOODERS; n++) {
		if (flooders[n] <= 0)
			continue;
		close(flood_go[n]);
		assert_int_equal(wait_exit(flooders[n], WAIT_MS), 0);
		flooders[n] = 0;
	}
}

/* Another reader, uid `uid` in a child of its own, asks for the status while the floods hold. */
static bool reader_answered(uid_t uid)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(uid) < 0)
			_exit(10);
		json_t *reply = ask("{\"cmd\":\"status\"}\n");
		_exit(json_is_true(json_object_get(reply, "ok")) ? 0 : 1);
	}
	return wait_exit(pid, WAIT_MS) == 0;
}

/* FLOOD connections from uid nobody: it keeps CTL_SERVER_PER_UID, and another reader still gets in.
 * Then more users, CTL_SERVER_PER_UID + 2 connections each, until only the reserved slots are left:
 * each keeps at most its share, all together exactly the slots anyone may take. */
static void flood(void)
{
	int kept, told, total;

	flood_from(0, FLOOD, &kept, &told);
	printf("  %d connections from uid nobody: %d kept, %d refused and told why\n", FLOOD, kept, told);
	assert_int_equal(kept, CTL_SERVER_PER_UID);
	if (!reader_answered(NOBODY - FLOODERS))
		fail_msg("one user's flood locked another reader out");
	total = kept;
	for (int n = 1; n < FLOODERS; n++) {
		flood_from(n, CTL_SERVER_PER_UID + 2, &kept, &told);
		assert_true(kept <= CTL_SERVER_PER_UID);
		total += kept;
	}
	printf("  %d users together: %d kept\n", FLOODERS, total);
	assert_int_equal(total, CTL_SERVER_MAX_CLIENTS - CTL_SERVER_RESERVED);
	assert_false(reader_answered(NOBODY - FLOODERS)); /* the reserved slots are not a reader's */

	/* Root still gets in (the reserved slots), and the loop still ticks. */
	wait_ticks(5);
	int mine[CTL_SERVER_RESERVED];
	for (int i = 0; i < CTL_SERVER_RESERVED - 1; i++)
		assert_true((mine[i] = connect_socket()) >= 0);
	json_t *st = status(); /* the last reserved slot */
	json_decref(st);
	/* With all 64 taken, even root is told. */
	mine[CTL_SERVER_RESERVED - 1] = connect_socket();
	int extra = connect_socket();
	char *line = read_line(extra, WAIT_MS);
	if (!reply_is_error(line, "too many clients"))
		fail_msg("the 65th connection got %s", line ? line : "nothing");
	free(line);
	close(extra);
	for (int i = 0; i < CTL_SERVER_RESERVED; i++)
		close(mine[i]);
	floods_end();
}

/* Clients that ask and ask and never read: the daemon stops reading them once their replies pile
 * up, and goes on serving the others. Returns the daemon's RSS (KiB) at the height of it. */
static long never_readers(void)
{
	int fds[NEVER_READERS];
	static const char list[] = "{\"cmd\":\"list\"}\n";

	for (int i = 0; i < NEVER_READERS; i++) {
		assert_true((fds[i] = connect_socket()) >= 0);
		fcntl(fds[i], F_SETFL, O_NONBLOCK);
		/* As many requests as the socket takes now and in a few more tries. */
		for (int tries = 0; tries < 50; tries++) {
			while (send(fds[i], list, sizeof(list) - 1, MSG_NOSIGNAL) > 0)
				;
			usleep(1000);
		}
	}
	long peak = 0;
	for (int round = 0; round < 20; round++) {
		wait_ticks(1);
		long rss = rss_kib("VmRSS:");
		peak = rss > peak ? rss : peak;
	}
	for (int i = 0; i < NEVER_READERS; i++)
		close(fds[i]);
	return peak;
}

/* Connected and silent: they take slots, nothing else. */
static void idle_clients(void)
{
	int fds[IDLE_CLIENTS];

	for (int i = 0; i < IDLE_CLIENTS; i++)
		assert_true((fds[i] = connect_socket()) >= 0);
	wait_ticks(10);
	for (int i = 0; i < IDLE_CLIENTS; i++)
		close(fds[i]);
}

/* The upper bound of the histogram bucket that holds quantile `q` of the ticks, in ms. */
static double tick_quantile_ms(const char *text, double q)
{
	double bounds[32], counts[32], total = 0;
	int n = 0;

	for (const char *p = text; (p = strstr(p, "mpamd_tick_duration_seconds_bucket{le=\"")) && n < 32; p++) {
		const char *v = p + strlen("mpamd_tick_duration_seconds_bucket{le=\"");
		bounds[n] = strncmp(v, "+Inf", 4) ? strtod(v, NULL) : 1e9;
		counts[n++] = strtod(strchr(v, '}') + 1, NULL);
	}
	for (const char *p = strstr(text, "mpamd_tick_duration_seconds_count "); p; p = NULL)
		total = strtod(p + strlen("mpamd_tick_duration_seconds_count "), NULL);
	for (int i = 0; i < n; i++)
		if (counts[i] >= q * total)
			return bounds[i] * 1000;
	return -1;
}

static void test_socket_abuse(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		printf("skipped: needs root (the flood comes from uid nobody)\n");
		skip();
	}
	start_daemon();
	long before = rss_kib("VmRSS:"), peak = 0, after[ROUNDS];
	long long ticks_before = ticks();

	/* Again and again: what a round leaves held (the allocator keeps freed memory) must not add up. */
	for (int round = 0; round < ROUNDS; round++) {
		oversized_requests();
		malformed_requests();
		flood();
		long high = never_readers();
		peak = high > peak ? high : peak;
		idle_clients();
		wait_ticks(25);
		after[round] = rss_kib("VmRSS:");
	}

	json_t *st = status();
	json_t *metrics = ask("{\"cmd\":\"metrics\"}\n");
	const char *text = json_string_value(json_object_get(json_object_get(metrics, "result"), "text"));
	assert_non_null(text);
	printf("  daemon RSS %ld KiB before, %ld at the peak, after each of %d rounds:", before, peak, ROUNDS);
	for (int round = 0; round < ROUNDS; round++)
		printf(" %ld", after[round]);
	printf("\n");
	printf("  %lld ticks meanwhile, %lld overruns; tick p50 <= %.2f ms, p99 <= %.2f ms (histogram buckets), max "
	       "%.2f ms\n",
	       (long long)json_integer_value(json_object_get(st, "ticks")) - ticks_before,
	       (long long)json_integer_value(json_object_get(st, "overruns")), tick_quantile_ms(text, 0.5),
	       tick_quantile_ms(text, 0.99), json_number_value(json_object_get(st, "max_tick_ms")));
	json_decref(metrics);
	json_decref(st);
#ifdef __SANITIZE_ADDRESS__
	/* AddressSanitizer keeps freed memory in quarantine: the daemon's RSS says nothing here. */
	printf("  (RSS not checked: AddressSanitizer holds freed memory in quarantine)\n");
#else
	for (int round = 0; round < ROUNDS; round++)
		if (after[round] - before > RSS_GROWTH_MAX)
			fail_msg("mpamd holds %ld KiB more after round %d of the abuse than before",
				 after[round] - before, round + 1);
#endif

	kill(daemon_pid, SIGTERM);
	assert_int_equal(wait_exit(daemon_pid, WAIT_MS), 0);
	daemon_pid = 0;
	teardown(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_socket_abuse, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
