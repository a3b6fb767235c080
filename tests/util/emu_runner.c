/* See emu_runner.h. */
#include "tests/util/emu_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/util/testutil.h"

#define START_TIMEOUT_MS 5000
#define STOP_TIMEOUT_MS	 5000
#define POLL_MS		 5
#define MAX_ARGS	 64
#define MAX_RUNNING	 16

struct emu {
	pid_t pid;	/* 0 once reaped */
	int status;	/* wait status once reaped */
	bool log_shown; /* its output was printed already */
	char dir[64];
	char mnt[80];
	char log[80];
	char *argv[MAX_ARGS]; /* what it was started with (copies), for emu_restart */
};

static void free_argv(struct emu *emu)
{
	for (size_t i = 0; i < MAX_ARGS && emu->argv[i]; i++)
		free(emu->argv[i]);
	memset(emu->argv, 0, sizeof(emu->argv));
}

static int keep_argv(struct emu *emu, char *const argv[])
{
	for (size_t i = 0; argv[i] && i < MAX_ARGS - 1; i++)
		if (!(emu->argv[i] = strdup(argv[i])))
			return -ENOMEM;
	return 0;
}

static struct emu *running[MAX_RUNNING];

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void stop_all(void)
{
	for (size_t i = 0; i < MAX_RUNNING; i++)
		(void)emu_stop(running[i]);
}

static void track(struct emu *emu, bool add)
{
	static bool registered;

	if (add && !registered) {
		atexit(stop_all);
		registered = true;
	}
	for (size_t i = 0; i < MAX_RUNNING; i++) {
		if (add ? running[i] == NULL : running[i] == emu) {
			running[i] = add ? emu : NULL;
			return;
		}
	}
}

/* Mounted when the mount point is on another device than its parent, or no longer answers. */
static bool is_mounted(const struct emu *emu)
{
	struct stat mnt, dir;

	if (stat(emu->dir, &dir) < 0)
		return false;
	return stat(emu->mnt, &mnt) < 0 ? errno == ENOTCONN : mnt.st_dev != dir.st_dev;
}

static void dump_log(struct emu *emu)
{
	if (emu->log_shown)
		return;
	emu->log_shown = true;
	char *text = read_text_file(emu->log);
	fprintf(stderr, "resctrl-emu output:\n%s\n", text && text[0] ? text : "(none)");
	free(text);
}

/* The child: die with the test, output to the log, then exec. */
static void exec_child(const struct emu *emu, char *const argv[], pid_t parent)
{
	int fd = open(emu->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent || fd < 0 || null < 0)
		_exit(127);
	dup2(null, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	/* libfuse 3.14 can leave a request it has read unfreed when the connection ends while it is
	 * being handled (120-byte callocs inside libfuse, seen under load), which LeakSanitizer would
	 * report at every such exit. The emulator is a test double: leak checks are off for it, its
	 * ASan and UBSan checks stay on. */
	const char *asan = getenv("ASAN_OPTIONS");
	char options[512];
	snprintf(options, sizeof(options), "%s%sdetect_leaks=0", asan ? asan : "", asan && *asan ? ":" : "");
	setenv("ASAN_OPTIONS", options, 1);
	execv(argv[0], argv);
	_exit(127);
}

static size_t build_argv(const struct emu *emu, const char *path, const char *profile, const char *config,
			 const char *const *extra, char *argv[MAX_ARGS])
{
	size_t n = 0;

	argv[n++] = (char *)path;
	argv[n++] = (char *)emu->mnt;
	argv[n++] = (char *)"--profile";
	argv[n++] = (char *)profile;
	if (config) {
		argv[n++] = (char *)"-c";
		argv[n++] = (char *)config;
	}
	for (size_t i = 0; extra && extra[i] && n < MAX_ARGS - 1; i++)
		argv[n++] = (char *)extra[i];
	argv[n] = NULL;
	return n;
}

static bool reap(struct emu *emu, int flags)
{
	if (emu->pid && waitpid(emu->pid, &emu->status, flags) == emu->pid)
		emu->pid = 0;
	return emu->pid == 0;
}

/* Live once info/last_cmd_status can be read through the mount. */
static int wait_live(struct emu *emu)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/info/last_cmd_status", emu->mnt);
	for (long waited = 0; waited < START_TIMEOUT_MS; waited += POLL_MS) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			char c;
			ssize_t n = read(fd, &c, 1);
			close(fd);
			if (n == 1)
				return 0;
		}
		if (reap(emu, WNOHANG)) {
			fprintf(stderr, "emu_start: resctrl-emu exited before mounting %s\n", emu->mnt);
			return -ECHILD;
		}
		sleep_ms(POLL_MS);
	}
	fprintf(stderr, "emu_start: %s not mounted after %d ms\n", emu->mnt, START_TIMEOUT_MS);
	return -ETIMEDOUT;
}

/* Starts the emulator with emu->argv and waits until its mount answers. */
static int spawn(struct emu *emu)
{
	pid_t parent = getpid();

	emu->pid = fork();
	if (emu->pid == 0)
		exec_child(emu, emu->argv, parent);
	if (emu->pid < 0) {
		int err = errno;
		emu->pid = 0;
		return -err;
	}
	int r = wait_live(emu);
	if (r)
		dump_log(emu);
	return r;
}

int emu_start_path(const char *emu_path, const char *profile, const char *sim_config_path,
		   const char *const *extra_args, struct emu **ret)
{
	char *argv[MAX_ARGS];
	struct emu *emu = calloc(1, sizeof(*emu));

	if (!emu)
		return -ENOMEM;
	snprintf(emu->dir, sizeof(emu->dir), "/tmp/resctrl-emu-XXXXXX");
	if (!mkdtemp(emu->dir)) {
		int err = errno;
		free(emu);
		return -err;
	}
	snprintf(emu->mnt, sizeof(emu->mnt), "%s/mnt", emu->dir);
	snprintf(emu->log, sizeof(emu->log), "%s/log", emu->dir);
	if (mkdir(emu->mnt, 0755) < 0) {
		int err = errno;
		(void)emu_stop(emu);
		return -err;
	}
	build_argv(emu, emu_path, profile, sim_config_path, extra_args, argv);
	int r = keep_argv(emu, argv);
	if (r == 0)
		r = spawn(emu);
	if (r) {
		(void)emu_stop(emu);
		return r;
	}
	track(emu, true);
	*ret = emu;
	return 0;
}

const char *emu_root(const struct emu *emu)
{
	return emu->mnt;
}

int emu_ctl(struct emu *emu, const char *command)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/.emu_ctl", emu->mnt);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, command, strlen(command));
	int err = n < 0 ? errno : 0;
	close(fd);
	return -err;
}

int emu_advance(struct emu *emu, unsigned ms)
{
	char command[32];

	snprintf(command, sizeof(command), "advance %u", ms);
	return emu_ctl(emu, command);
}

/* The figure on .emu_ctl's line "NAME N": 0 or -errno. */
static int emu_figure(struct emu *emu, const char *name, unsigned long *ret)
{
	char path[128], key[32];

	snprintf(path, sizeof(path), "%s/.emu_ctl", emu->mnt);
	snprintf(key, sizeof(key), "\n%s ", name);
	char *text = read_text_file(path);
	const char *line = text ? strstr(text, key) : NULL;
	int r = line && sscanf(line + strlen(key), "%lu", ret) == 1 ? 0 : -EIO;
	free(text);
	return r;
}

int emu_changes(struct emu *emu, unsigned long *ret)
{
	return emu_figure(emu, "changes", ret);
}

int emu_listings(struct emu *emu, unsigned long *ret)
{
	return emu_figure(emu, "listings", ret);
}

static void terminate(struct emu *emu)
{
	if (!emu->pid)
		return;
	/* Unmounting first ends the emulator's loop with nothing in flight (its read of /dev/fuse
	 * fails with ENODEV); a signal can land while libfuse holds a request, which it then never
	 * frees, and LeakSanitizer reports that as a leak of the emulator. */
	for (long waited = 0; waited < STOP_TIMEOUT_MS; waited += POLL_MS) {
		if (umount2(emu->mnt, 0) == 0 || errno != EBUSY)
			break;
		sleep_ms(POLL_MS); /* files just closed may still be on their way out */
	}
	for (long waited = 0; waited < STOP_TIMEOUT_MS; waited += POLL_MS) {
		if (reap(emu, WNOHANG))
			return;
		sleep_ms(POLL_MS);
	}
	kill(emu->pid, SIGTERM);
	for (long waited = 0; waited < STOP_TIMEOUT_MS; waited += POLL_MS) {
		if (reap(emu, WNOHANG))
			return;
		sleep_ms(POLL_MS);
	}
	fprintf(stderr, "emu_stop: resctrl-emu ignored SIGTERM, killing it\n");
	kill(emu->pid, SIGKILL);
	reap(emu, 0);
}

/* The emulator unmounts itself; this is the fallback for one that could not. */
static void force_unmount(struct emu *emu)
{
	if (!is_mounted(emu))
		return;
	if (umount2(emu->mnt, MNT_DETACH) == 0)
		return;
	char *argv[] = { (char *)"/usr/bin/fusermount3", (char *)"-u", (char *)"-z", emu->mnt, NULL };
	struct run_result res;
	if (run_command(argv, &res) == 0)
		run_result_fini(&res);
}

int emu_unmount(struct emu *emu, bool lazy)
{
	return umount2(emu->mnt, lazy ? MNT_DETACH : 0) == 0 ? 0 : -errno;
}

bool emu_wait_end(struct emu *emu, long timeout_ms)
{
	for (long waited = 0; waited < timeout_ms && !reap(emu, WNOHANG); waited += POLL_MS)
		sleep_ms(POLL_MS);
	return reap(emu, WNOHANG);
}

int emu_restart(struct emu *emu)
{
	/* The old one ends by itself after vanish; one that does not is stopped. */
	emu_wait_end(emu, STOP_TIMEOUT_MS);
	terminate(emu);
	force_unmount(emu);
	if (is_mounted(emu))
		return -EBUSY;
	return spawn(emu);
}

int emu_stop(struct emu *emu)
{
	if (!emu)
		return 0;
	track(emu, false);
	terminate(emu);
	force_unmount(emu);
	bool clean = WIFEXITED(emu->status) && WEXITSTATUS(emu->status) == 0;
	if (!clean) {
		fprintf(stderr, "emu_stop: resctrl-emu ended with wait status 0x%x\n", (unsigned)emu->status);
		dump_log(emu);
	}
	if (is_mounted(emu)) {
		fprintf(stderr, "emu_stop: %s is still mounted\n", emu->mnt);
		clean = false;
	}
	unlink(emu->log);
	rmdir(emu->mnt);
	rmdir(emu->dir);
	free_argv(emu);
	free(emu);
	return clean ? 0 : -1;
}

bool emu_group_exists(const struct emu *emu, const char *group)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", emu_root(emu), group);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool emu_group_file_has(const struct emu *emu, const char *group, const char *file, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", emu_root(emu), group, file);
	char *content = read_text_file(path);
	bool has = content && strstr(content, text);
	free(content);
	return has;
}
