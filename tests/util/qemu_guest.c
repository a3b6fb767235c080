#include "tests/util/qemu_guest.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "backends/shared/threads.h"
#include "tests/util/place_run.h"
#include "tests/util/testutil.h"

/* How long QMP gets to answer one command: generous, for a machine shared with other builds. */
#define QMP_REPLY_MS 20000
#define STOP_MS	     10000

bool qemu_guest_available(void)
{
	const char *path = getenv("PATH");
	char candidate[4096];

	for (const char *dir = path ? path : "/usr/bin:/bin"; *dir;) {
		size_t n = strcspn(dir, ":");
		snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)n, dir, QEMU_GUEST_PROGRAM);
		if (n && access(candidate, X_OK) == 0)
			return true;
		dir += n + (dir[n] == ':');
	}
	return false;
}

/* The child: into its cgroup, its output to the log, then QEMU. Never returns. */
static void exec_qemu(const struct qemu_guest *g, const struct qemu_guest_options *o)
{
	char name[160], smp[64], qmp[160];
	unsigned maxcpus = o->maxcpus ? o->maxcpus : o->smp;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	int log = open(g->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log < 0 || place_run_enter(o->cgroup) < 0)
		_exit(126);
	dup2(log, 1);
	dup2(log, 2);
	snprintf(name, sizeof(name), "guest=%s%s", o->name, o->no_thread_names ? "" : ",debug-threads=on");
	snprintf(smp, sizeof(smp), "%u,maxcpus=%u", o->smp, maxcpus);
	snprintf(qmp, sizeof(qmp), "unix:%s,server=on,wait=off", g->socket);
	execlp(QEMU_GUEST_PROGRAM, QEMU_GUEST_PROGRAM, "-name", name, "-accel",
	       o->single_thread ? "tcg,thread=single" : "tcg,thread=multi", "-machine", "pc", "-nodefaults", "-display",
	       "none", "-m", "64", "-smp", smp, "-S", "-qmp", qmp, (char *)NULL);
	_exit(127);
}

int qemu_guest_start(struct qemu_guest *g, const struct qemu_guest_options *o)
{
	*g = (struct qemu_guest){ .qmp = -1 };
	snprintf(g->socket, sizeof(g->socket), "%s/qmp-%s.sock", o->dir, o->name);
	snprintf(g->log, sizeof(g->log), "%s/qemu-%s.log", o->dir, o->name);
	unlink(g->socket);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		exec_qemu(g, o);
	g->pid = pid;
	return 0;
}

char *qemu_guest_output(const struct qemu_guest *g)
{
	return read_text_file(g->log);
}

static void fail_with_output(const struct qemu_guest *g, const char *what)
{
	char *out = qemu_guest_output(g);

	fail_msg("QEMU %s; its output: %s", what, out ? out : "(none)");
	free(out);
}

/* The next line QMP sent (a reply or an event), parsed; NULL after QMP_REPLY_MS without one. */
static json_t *read_message(struct qemu_guest *g)
{
	for (;;) {
		char *nl = memchr(g->buf, '\n', g->used);
		if (nl) {
			*nl = '\0';
			json_t *msg = json_loads(g->buf, 0, NULL);
			size_t rest = g->used - (size_t)(nl + 1 - g->buf);
			memmove(g->buf, nl + 1, rest);
			g->used = rest;
			if (!msg)
				fail_with_output(g, "sent a line that is no JSON");
			return msg;
		}
		struct pollfd p = { .fd = g->qmp, .events = POLLIN };
		if (g->used == sizeof(g->buf) || poll(&p, 1, QMP_REPLY_MS) != 1)
			return NULL;
		ssize_t n = read(g->qmp, g->buf + g->used, sizeof(g->buf) - g->used);
		if (n <= 0)
			return NULL;
		g->used += (size_t)n;
	}
}

/* Sends `cmd` (a new reference, taken) and returns its reply's "return" (a new reference), or NULL
 * with the error's text in `why`. Events on the way are passed over. */
static json_t *qmp_call(struct qemu_guest *g, json_t *cmd, char *why, size_t why_len)
{
	char *text = json_dumps(cmd, JSON_COMPACT);

	json_decref(cmd);
	assert_non_null(text);
	size_t len = strlen(text);
	bool sent = write(g->qmp, text, len) == (ssize_t)len && write(g->qmp, "\n", 1) == 1;
	free(text);
	if (!sent)
		fail_with_output(g, "does not take QMP commands");
	for (;;) {
		json_t *msg = read_message(g);
		if (!msg)
			fail_with_output(g, "does not answer on QMP");
		json_t *ret = json_object_get(msg, "return"), *err = json_object_get(msg, "error");
		if (ret || err) {
			json_incref(ret);
			if (err)
				snprintf(why, why_len, "%s", json_string_value(json_object_get(err, "desc")));
			json_decref(msg);
			return ret;
		}
		json_decref(msg); /* an event */
	}
}

static json_t *qmp_command(struct qemu_guest *g, const char *command, json_t *arguments, char *why, size_t why_len)
{
	json_t *cmd = json_pack("{s:s}", "execute", command);

	if (arguments)
		json_object_set_new(cmd, "arguments", arguments);
	return qmp_call(g, cmd, why, why_len);
}

static void ensure_running(struct qemu_guest *g)
{
	int status;

	if (waitpid(g->pid, &status, WNOHANG) == g->pid) {
		g->pid = 0;
		fail_with_output(g, "ended before its QMP socket answered");
	}
}

bool qemu_guest_ready(struct qemu_guest *g)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char why[256] = "";

	if (g->qmp >= 0)
		return true;
	ensure_running(g);
	if (access(g->socket, F_OK) != 0)
		return false;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", g->socket);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return false; /* there, not yet listening */
	}
	g->qmp = fd;
	json_t *greeting = read_message(g);
	if (!greeting || !json_object_get(greeting, "QMP"))
		fail_with_output(g, "sent no QMP greeting");
	json_decref(greeting);
	json_t *ok = qmp_command(g, "qmp_capabilities", NULL, why, sizeof(why));
	if (!ok)
		fail_msg("qmp_capabilities: %s", why);
	json_decref(ok);
	return true;
}

size_t qemu_guest_vcpus(struct qemu_guest *g, pid_t *ids, size_t max)
{
	char why[256] = "";
	json_t *cpus = qmp_command(g, "query-cpus-fast", NULL, why, sizeof(why));
	size_t count = 0, i;
	json_t *cpu;

	if (!cpus)
		fail_msg("query-cpus-fast: %s", why);
	json_array_foreach(cpus, i, cpu) {
		pid_t tid = (pid_t)json_integer_value(json_object_get(cpu, "thread-id"));
		assert_true(tid > 0);
		if (count && thread_ids_have(ids, count, tid))
			continue; /* thread=single: every vCPU names the one thread */
		assert_true(count < max);
		ids[count++] = tid;
		thread_ids_sort(ids, count);
	}
	json_decref(cpus);
	return count;
}

/* The first CPU slot with no CPU in it: its type and properties (new references), or false. */
static bool free_slot(json_t *slots, json_t **ret_type, json_t **ret_props)
{
	size_t i;
	json_t *slot;

	json_array_foreach(slots, i, slot) {
		if (json_object_get(slot, "qom-path"))
			continue;
		*ret_type = json_incref(json_object_get(slot, "type"));
		*ret_props = json_deep_copy(json_object_get(slot, "props"));
		return *ret_type && *ret_props;
	}
	return false;
}

int qemu_guest_add_vcpu(struct qemu_guest *g, char *why, size_t why_len)
{
	json_t *slots = qmp_command(g, "query-hotpluggable-cpus", NULL, why, why_len), *type, *args;
	char id[32];

	if (!slots)
		return -1;
	bool found = free_slot(slots, &type, &args);
	json_decref(slots);
	if (!found) {
		snprintf(why, why_len, "no free CPU slot (maxcpus reached)");
		return -1;
	}
	snprintf(id, sizeof(id), "vcpu-added-%u", g->added);
	json_object_set_new(args, "driver", type);
	json_object_set_new(args, "id", json_string(id));
	json_t *ok = qmp_command(g, "device_add", args, why, why_len);
	if (!ok)
		return -1;
	json_decref(ok);
	g->added++;
	return 0;
}

void qemu_guest_stop(struct qemu_guest *g)
{
	static const char quit[] = "{\"execute\": \"quit\"}\n";
	/* No reply awaited: QEMU may close the socket before it sends one. */
	bool asked = g->pid > 0 && g->qmp >= 0 && write(g->qmp, quit, strlen(quit)) == (ssize_t)strlen(quit);

	if (g->pid > 0 && wait_exit(g->pid, asked ? STOP_MS : 0) < 0) {
		kill(g->pid, SIGKILL);
		waitpid(g->pid, NULL, 0);
	}
	g->pid = 0;
	if (g->qmp >= 0)
		close(g->qmp);
	g->qmp = -1;
	unlink(g->socket);
}
