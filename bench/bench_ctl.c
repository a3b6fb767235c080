/* Ticks under control-socket load: the engine on the simulated host in real time (not --sim-clock),
 * with client threads asking for `list` in a loop, and as many others asking for `metrics`.
 *
 *   bench_ctl [--partitions N] [--interval MS] [--seconds S] [--clients N[,N...]] [--metrics-clients N]
 *
 * For each client count (default 0, 20, 100) it runs the engine for S seconds and prints how late
 * the ticks began (p50, p99, max), the intervals skipped (overruns), how long ticks took, and the
 * round trip of every list (p50, p99, max); with --metrics-clients, that many more clients loop on
 * `metrics` in every run (round trips on a second line). Clients beyond the server's connection cap
 * are refused and try again; the refusals are counted. Times are wall clock: run it on an idle
 * machine. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/base/diag.h"
#include "core/base/log.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/registry.h"

#define MAX_PHASES   8
#define WARMUP_TICKS 5 /* the first ticks open the partitions' counters: not what is measured */
#define REPLY_PREFIX "{\"version\":1,\"ok\":true"
#define REFUSED_TEXT "too many clients"

struct samples {
	uint64_t *ns;
	size_t count, cap;
};

struct bench {
	unsigned partitions, interval_ms, seconds;
	unsigned metrics_clients; /* asking for metrics beside each run's list clients */
	unsigned phases[MAX_PHASES];
	size_t phase_count;
	char dir[64], path[108];
};

/* One run: the engine in the main thread, `clients` threads asking. */
struct run {
	const struct bench *b;
	unsigned clients;
	pthread_mutex_t lock;
	pthread_cond_t ready_cond;
	bool ready;
	atomic_bool stop;
	uint64_t ticks;			/* the run's length: the clients stop with its last tick */
	struct samples late, took, rtt; /* rtt is filled by the clients under `lock` */
	struct samples metrics_rtt;	/* the same for metrics */
	uint64_t refused, failed;
};

/* One client thread: what it asks and where its round trips go. */
struct client {
	struct run *r;
	const char *request;
	struct samples *rtt;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void samples_add(struct samples *s, uint64_t v)
{
	if (s->count == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->ns = realloc(s->ns, s->cap * sizeof(*s->ns));
		if (!s->ns) {
			fprintf(stderr, "bench_ctl: out of memory\n");
			exit(1);
		}
	}
	s->ns[s->count++] = v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (nearest rank) in ms; the samples get sorted. */
static double percentile_ms(struct samples *s, double p)
{
	if (s->count == 0)
		return 0;
	qsort(s->ns, s->count, sizeof(*s->ns), cmp_u64);
	size_t rank = (size_t)(p / 100.0 * (double)s->count + 0.999999);
	rank = rank < 1 ? 1 : rank > s->count ? s->count : rank;
	return (double)s->ns[rank - 1] / 1e6;
}

/* ---- the clients ---- */

static int client_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads one reply line into *buf; returns its length, or -1 at end of stream. Only the start of
 * the reply is kept and looked at: parsing 300 KB would cost the clients more than the daemon. */
static ssize_t client_reply(int fd, char *head, size_t head_len)
{
	static _Thread_local char chunk[65536];
	size_t total = 0;

	for (;;) {
		ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		if (total < head_len) {
			size_t take = (size_t)n < head_len - total ? (size_t)n : head_len - total;
			memcpy(head + total, chunk, take);
		}
		total += (size_t)n;
		/* One request at a time, so the newline that ends the chunk ends the reply. */
		if (chunk[n - 1] == '\n')
			return (ssize_t)total;
	}
}

static void wait_ready(struct run *r)
{
	pthread_mutex_lock(&r->lock);
	while (!r->ready)
		pthread_cond_wait(&r->ready_cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

static void count(struct run *r, uint64_t *counter)
{
	pthread_mutex_lock(&r->lock);
	(*counter)++;
	pthread_mutex_unlock(&r->lock);
}

/* Asks on one connection until it ends; returns false when the server refused the connection. */
static bool client_session(struct client *c, int fd)
{
	struct run *r = c->r;
	size_t request_len = strlen(c->request);
	char head[128];

	while (!atomic_load(&r->stop)) {
		uint64_t start = now_ns();
		if (send(fd, c->request, request_len, MSG_NOSIGNAL) < 0)
			return true;
		memset(head, 0, sizeof(head));
		ssize_t n = client_reply(fd, head, sizeof(head) - 1);
		if (n < 0)
			return true;
		if (strstr(head, REFUSED_TEXT)) {
			count(r, &r->refused);
			return false;
		}
		if (strncmp(head, REPLY_PREFIX, strlen(REPLY_PREFIX))) {
			count(r, &r->failed);
			continue;
		}
		uint64_t rtt = now_ns() - start;
		pthread_mutex_lock(&r->lock);
		samples_add(c->rtt, rtt);
		pthread_mutex_unlock(&r->lock);
	}
	return true;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct run *r = c->r;

	wait_ready(r);
	while (!atomic_load(&r->stop)) {
		int fd = client_connect(r->b->path);
		if (fd < 0) {
			if (!atomic_load(&r->stop))
				count(r, &r->failed);
			usleep(10000);
			continue;
		}
		if (!client_session(c, fd))
			usleep(10000); /* refused: every slot is taken, try again a little later */
		close(fd);
	}
	return NULL;
}

/* ---- the engine ---- */

static void on_ready(void *ctx, struct engine *e)
{
	struct run *r = ctx;

	(void)e;
	pthread_mutex_lock(&r->lock);
	r->ready = true;
	pthread_cond_broadcast(&r->ready_cond);
	pthread_mutex_unlock(&r->lock);
}

/* tick_stats holds the previous tick's figures while this one runs. */
static void on_tick(void *ctx, struct engine *e)
{
	struct run *r = ctx;

	if (engine_ticks_done(e) > WARMUP_TICKS + 1) {
		samples_add(&r->late, engine_tick_stats(e)->late_ns);
		samples_add(&r->took, engine_tick_stats(e)->last_ns);
	}
	/* Before the engine closes the socket: what the clients see after this is not load. */
	if (engine_ticks_done(e) == r->ticks)
		atomic_store(&r->stop, true);
}

static char *config_text(const struct bench *b)
{
	size_t cap = 256 + (size_t)b->partitions * 64, len = 0;
	char *text = malloc(cap);

	if (!text)
		return NULL;
	len += (size_t)snprintf(text + len, cap - len,
				"[global]\nbackend = sim\ninterval_ms = %u\n"
				"[sim]\nmscs = 2\ncapacity_mbps = 100000\nmonitors = %u\npartid_max = %u\n",
				b->interval_ms, b->partitions, 2 * b->partitions - 1);
	for (unsigned i = 0; i < b->partitions; i++)
		len += (size_t)snprintf(text + len, cap - len, "[partition \"p%04u\"]\nsim_demand = %u\n", i,
					50 + i % 50);
	return text;
}

static struct config *load(const struct bench *b)
{
	struct diag_list diags;
	struct config *config = NULL;
	char *text = config_text(b);

	diag_list_init(&diags, "bench.ini");
	int r = text ? config_load_string(text, engine_default_schema(), NULL, &config, &diags) : -ENOMEM;
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	free(text);
	if (r < 0) {
		fprintf(stderr, "bench_ctl: the configuration does not load\n");
		exit(1);
	}
	return config;
}

static void run_phase(const struct bench *b, unsigned clients)
{
	struct run r = { .b = b,
			 .clients = clients,
			 .ticks = (uint64_t)b->seconds * 1000 / b->interval_ms + WARMUP_TICKS };
	unsigned threads_n = clients + b->metrics_clients;
	pthread_t *threads = calloc(threads_n ? threads_n : 1, sizeof(*threads));
	struct client *each = calloc(threads_n ? threads_n : 1, sizeof(*each));
	struct engine *engine = NULL;
	struct err err = { "" };
	struct engine_options opts = {
		.ticks = r.ticks,
		.socket_path = b->path,
		.socket_gid = (gid_t)-1,
		.on_ready = on_ready,
		.on_ready_ctx = &r,
		.on_tick = on_tick,
		.on_tick_ctx = &r,
	};

	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.ready_cond, NULL);
	for (unsigned i = 0; i < threads_n; i++) {
		bool lists = i < clients;
		each[i] = (struct client){ &r, lists ? "{\"cmd\":\"list\"}\n" : "{\"cmd\":\"metrics\"}\n",
					   lists ? &r.rtt : &r.metrics_rtt };
		if (pthread_create(&threads[i], NULL, client_main, &each[i]) != 0) {
			fprintf(stderr, "bench_ctl: cannot start client %u\n", i);
			exit(1);
		}
	}
	if (engine_new(load(b), &opts, &engine, &err) < 0 || engine_run(engine, &err) < 0) {
		fprintf(stderr, "bench_ctl: %s\n", err.text);
		exit(1);
	}
	uint64_t overruns = engine_overruns(engine);
	atomic_store(&r.stop, true);
	engine_free(engine); /* the socket is closed: every client's recv ends */
	on_ready(&r, NULL);  /* in case the engine failed before it was ready */
	for (unsigned i = 0; i < threads_n; i++)
		pthread_join(threads[i], NULL);
	size_t lists = r.rtt.count, ticks = r.late.count;
	printf("%-8u %6zu %9llu %9.2f %9.2f %9.2f %9.2f %9.2f %7zu %9.1f %9.1f %9.1f %8llu\n", clients, ticks,
	       (unsigned long long)overruns, percentile_ms(&r.late, 50), percentile_ms(&r.late, 99),
	       percentile_ms(&r.late, 100), percentile_ms(&r.took, 50), percentile_ms(&r.took, 100), lists,
	       percentile_ms(&r.rtt, 50), percentile_ms(&r.rtt, 99), percentile_ms(&r.rtt, 100),
	       (unsigned long long)r.refused);
	if (b->metrics_clients)
		printf("%-8s %6s %9s %9s %9s %9s %9s %9s %7zu %9.1f %9.1f %9.1f   (metrics, %u clients)\n", "", "", "",
		       "", "", "", "", "", r.metrics_rtt.count, percentile_ms(&r.metrics_rtt, 50),
		       percentile_ms(&r.metrics_rtt, 99), percentile_ms(&r.metrics_rtt, 100), b->metrics_clients);
	if (r.failed)
		printf("         (%llu requests or connections failed)\n", (unsigned long long)r.failed);
	fflush(stdout);
	free(r.late.ns);
	free(r.took.ns);
	free(r.rtt.ns);
	free(r.metrics_rtt.ns);
	free(threads);
	free(each);
}

static unsigned parse_count(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || (*end && *end != ',') || v > 100000) {
		fprintf(stderr, "bench_ctl: %s: '%s' is not a count\n", what, s);
		exit(2);
	}
	return (unsigned)v;
}

static void parse_args(int argc, char **argv, struct bench *b)
{
	*b = (struct bench){ .partitions = 1024, .interval_ms = 100, .seconds = 10, .phases = { 0, 20, 100 } };
	b->phase_count = 3;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--partitions")) {
			b->partitions = parse_count(argv[i + 1], argv[i]);
		} else if (!strcmp(argv[i], "--interval")) {
			b->interval_ms = parse_count(argv[i + 1], argv[i]);
		} else if (!strcmp(argv[i], "--seconds")) {
			b->seconds = parse_count(argv[i + 1], argv[i]);
		} else if (!strcmp(argv[i], "--metrics-clients")) {
			b->metrics_clients = parse_count(argv[i + 1], argv[i]);
		} else if (!strcmp(argv[i], "--clients")) {
			b->phase_count = 0;
			for (const char *p = argv[i + 1]; p && b->phase_count < MAX_PHASES;
			     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
				b->phases[b->phase_count++] = parse_count(p, argv[i]);
		} else {
			break;
		}
	}
	if (argc % 2 == 0 || !b->partitions || !b->interval_ms || !b->seconds) {
		fprintf(stderr, "usage: bench_ctl [--partitions N] [--interval MS] [--seconds S] "
				"[--clients N[,N...]] [--metrics-clients N]\n");
		exit(2);
	}
}

static struct bench bench;

/* Also on the exit(1) paths: no socket or directory left behind. */
static void remove_files(void)
{
	unlink(bench.path);
	rmdir(bench.dir);
}

int main(int argc, char **argv)
{
	struct bench *b = &bench;

	parse_args(argc, argv, b);
	log_setup("bench_ctl", LOG_LEVEL_ERROR, false);
	snprintf(b->dir, sizeof(b->dir), "/tmp/bench_ctl.XXXXXX");
	if (!mkdtemp(b->dir)) {
		perror("bench_ctl: mkdtemp");
		return 1;
	}
	snprintf(b->path, sizeof(b->path), "%.63s/mpamd.sock", b->dir);
	atexit(remove_files);
	printf("%u partitions, interval %u ms, %u s per run; times in ms\n", b->partitions, b->interval_ms, b->seconds);
	printf("%-8s %6s %9s %9s %9s %9s %9s %9s %7s %9s %9s %9s %8s\n", "clients", "ticks", "overruns", "late p50",
	       "late p99", "late max", "tick p50", "tick max", "lists", "list p50", "list p99", "list max", "refused");
	for (size_t i = 0; i < b->phase_count; i++)
		run_phase(b, b->phases[i]);
	return 0;
}
