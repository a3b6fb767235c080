/* The engine's event loop: epoll over a timerfd (the ticks), a signalfd (SIGHUP reloads and reopens
 * the record file, SIGTERM/SIGINT stop), the calls the control socket's thread hands over
 * (engine_ctl.c) and the proc connector (engine_place.c).
 * With the simulated clock the ticks run back to back and the loop only looks at the other
 * descriptors between them. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/log.h"
#include "core/base/loop.h"
#include "core/engine/engine_internal.h"
#include "core/engine/engine_snapshot.h"

struct run_state {
	struct engine *e;
	int timer_fd;
	int signal_fd;
	/* The timer runs on absolute CLOCK_MONOTONIC deadlines, first + k * interval, so how late a
	 * tick begins is known exactly. */
	uint64_t first_deadline_ns;
	uint64_t expirations; /* since start */
	sigset_t old_mask;
	bool masked;
};

static struct timespec timespec_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
}

const struct tick_stats *engine_tick_stats(const struct engine *e)
{
	return &e->ticks.stats;
}

uint64_t engine_overruns(const struct engine *e)
{
	return e->ticks.overruns;
}

/* The tick, timed in real time (also on simulated time, where it says what a tick costs), then
 * published with its own duration: the replies and the textfile read that snapshot. */
static void tick_measured(struct engine *e, uint64_t now_ns, uint64_t late_ns)
{
	uint64_t start = clock_monotonic_ns();

	engine_tick(e, now_ns);
	uint64_t end = clock_monotonic_ns();
	tick_stats_record(&e->ticks.stats, late_ns, end - start);
	engine_metrics_tick_done(e, end - start);
	engine_ctl_publish(e);
	struct engine_snapshot *published = engine_ctl_published(e);
	if (published)
		engine_metrics_textfile(e, published, end);
	engine_snapshot_unref(published);
}

void engine_stop(struct engine *e)
{
	e->run.stopping = true;
}

static bool should_stop(const struct engine *e)
{
	return e->run.stopping || (e->opts.ticks && e->ticks.done >= e->opts.ticks);
}

/* One expiration per interval; more than one means ticks were missed: they are counted and
 * skipped, never run back to back. */
static void on_timer(void *ctx, int fd, uint32_t events)
{
	struct run_state *rs = ctx;
	uint64_t expirations = 0;

	(void)events;
	if (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations) || expirations == 0)
		return;
	if (expirations > 1) {
		rs->e->ticks.overruns += expirations - 1;
		log_warning("tick overran: %llu interval(s) skipped", (unsigned long long)(expirations - 1));
	}
	rs->expirations += expirations;
	uint64_t deadline = rs->first_deadline_ns + (rs->expirations - 1) * rs->e->ticks.interval_ns;
	uint64_t now = clock_monotonic_ns();
	tick_measured(rs->e, clock_now(&rs->e->clock), now > deadline ? now - deadline : 0);
}

void engine_loop_rearm(struct engine *e)
{
	struct run_state *rs = e->run.state;

	if (!rs || rs->timer_fd < 0)
		return; /* not running, or on the simulated clock: the next deadline uses the interval */
	rs->first_deadline_ns = clock_monotonic_ns() + e->ticks.interval_ns;
	rs->expirations = 0;
	struct itimerspec spec = { .it_interval = timespec_of(e->ticks.interval_ns),
				   .it_value = timespec_of(rs->first_deadline_ns) };
	if (timerfd_settime(rs->timer_fd, TFD_TIMER_ABSTIME, &spec, NULL) < 0)
		log_error("interval_ms: the timer keeps its old interval: %s", strerror(errno));
}

static void on_signal(void *ctx, int fd, uint32_t events)
{
	struct run_state *rs = ctx;
	struct signalfd_siginfo si;
	struct err err = { "" };

	(void)events;
	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			log_info("SIGHUP: reloading %s", rs->e->opts.config_path ? rs->e->opts.config_path : "(none)");
			if (engine_reload(rs->e, &err) < 0)
				log_error("reload failed: %s", err.text);
			/* logrotate moves the record file, then sends SIGHUP: reopened whatever the reload did */
			engine_record_reopen(rs->e);
			engine_ctl_publish(rs->e); /* the next reply shows the reload */
		} else {
			log_info("%s: stopping", strsignal((int)si.ssi_signo));
			rs->e->run.stopping = true;
		}
	}
}

static int setup_signals(struct run_state *rs, struct err *err)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, &rs->old_mask) < 0)
		return err_set(err, -errno, "cannot block signals: %s", strerror(errno));
	rs->masked = true;
	rs->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (rs->signal_fd < 0)
		return err_set(err, -errno, "signalfd: %s", strerror(errno));
	return loop_add(rs->e->run.loop, rs->signal_fd, EPOLLIN, on_signal, rs);
}

/* The timer goes first in the loop: a tick that is due runs before a call that arrived meanwhile
 * (set, reload, show from the control socket's thread). */
static int setup_timer(struct run_state *rs, struct err *err)
{
	struct engine *e = rs->e;

	rs->first_deadline_ns = clock_monotonic_ns() + e->ticks.interval_ns;
	struct itimerspec spec = { .it_interval = timespec_of(e->ticks.interval_ns),
				   .it_value = timespec_of(rs->first_deadline_ns) };
	rs->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (rs->timer_fd < 0 || timerfd_settime(rs->timer_fd, TFD_TIMER_ABSTIME, &spec, NULL) < 0)
		return err_set(err, -errno, "timerfd: %s", strerror(errno));
	return loop_add_first(e->run.loop, rs->timer_fd, EPOLLIN, on_timer, rs);
}

static void teardown(struct run_state *rs)
{
	if (rs->timer_fd >= 0)
		close(rs->timer_fd);
	if (rs->signal_fd >= 0)
		close(rs->signal_fd);
	if (rs->masked)
		sigprocmask(SIG_SETMASK, &rs->old_mask, NULL);
	engine_ctl_detach(rs->e);
	engine_place_stop(rs->e);
	loop_free(rs->e->run.loop);
	rs->e->run.loop = NULL;
}

static int run_loop(struct run_state *rs)
{
	struct engine *e = rs->e;

	while (!should_stop(e)) {
		if (e->opts.sim_clock) {
			/* Simulated time: the next deadline is reached at once (one interval after the last
			 * tick, so that a reloaded interval_ms takes effect). */
			uint64_t deadline = e->ticks.last_ns + e->ticks.interval_ns;
			clock_advance_to(&e->clock, deadline);
			tick_measured(e, clock_now(&e->clock), 0);
			if (loop_run_once(e->run.loop, 0) < 0)
				return -errno;
			continue;
		}
		int r = loop_run_once(e->run.loop, -1);
		if (r < 0)
			return r;
	}
	return 0;
}

/* What stays in force after mpamd (the on_stop key, or --on-stop): said in the log, whichever it is. */
static void leave_limits(struct engine *e)
{
	unsigned mode = e->opts.on_stop_given ? e->opts.on_stop : e->gens.config->global.on_stop;

	switch (mode) {
	case STOP_RESET:
		log_info("stopping (on_stop = reset): removing every limit");
		engine_reset_limits(e);
		break;
	case STOP_CONFIGURED:
		log_info("stopping (on_stop = configured): the configured limits, the policies' cuts and CPU quotas "
			 "released");
		engine_configured_limits(e);
		break;
	default:
		log_info("stopping (on_stop = keep): every limit stays in force, the policies' cuts too");
	}
}

int engine_run(struct engine *e, struct err *err)
{
	struct run_state rs = { .e = e, .timer_fd = -1, .signal_fd = -1 };
	int r = loop_new(&e->run.loop);

	if (r < 0)
		return err_set(err, r, "cannot create the event loop: %s", strerror(-r));
	e->run.state = &rs;
	if (r == 0 && e->opts.handle_signals)
		r = setup_signals(&rs, err);
	if (r == 0 && !e->opts.sim_clock)
		r = setup_timer(&rs, err);
	if (r == 0)
		r = engine_ctl_attach(e, err);
	if (r == 0)
		engine_place_update(e);
	if (r == 0) {
		log_info("ready: %zu partition(s), every %u ms", engine_partitions_in_use(e),
			 e->gens.config->global.interval_ms);
		if (e->opts.on_ready)
			e->opts.on_ready(e->opts.on_ready_ctx, e);
		r = run_loop(&rs);
		if (r < 0)
			err_set(err, r, "event loop: %s", strerror(-r));
	}
	leave_limits(e);
	teardown(&rs);
	e->run.state = NULL;
	engine_metrics_stop(e);
	return r;
}
