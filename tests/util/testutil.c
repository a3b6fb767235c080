#include "tests/util/testutil.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

extern char **environ;

struct sink {
	int fd;
	char *buf;
	size_t len;
};

static int sink_read(struct sink *s)
{
	char chunk[4096];
	ssize_t n = read(s->fd, chunk, sizeof(chunk));

	if (n <= 0)
		return (int)n;
	char *grown = realloc(s->buf, s->len + (size_t)n + 1);
	if (!grown)
		return -1;
	memcpy(grown + s->len, chunk, (size_t)n);
	s->buf = grown;
	s->len += (size_t)n;
	s->buf[s->len] = '\0';
	return (int)n;
}

static void drain(struct sink *sinks, size_t count)
{
	size_t open = count;

	while (open > 0) {
		struct pollfd fds[2];
		for (size_t i = 0; i < count; i++)
			fds[i] = (struct pollfd){ .fd = sinks[i].fd, .events = POLLIN };
		if (poll(fds, count, -1) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; i < count; i++) {
			if (sinks[i].fd >= 0 && fds[i].revents && sink_read(&sinks[i]) <= 0) {
				close(sinks[i].fd);
				sinks[i].fd = -1;
				open--;
			}
		}
	}
}

int run_command(char *const argv[], struct run_result *ret)
{
	int out[2], err[2];
	posix_spawn_file_actions_t actions;
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return -errno;
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, out[1], 1);
	posix_spawn_file_actions_adddup2(&actions, err[1], 2);
	int r = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(out[1]);
	close(err[1]);
	struct sink sinks[2] = { { out[0], NULL, 0 }, { err[0], NULL, 0 } };
	if (r != 0) {
		close(out[0]);
		close(err[0]);
		return -r;
	}
	drain(sinks, 2);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ret->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	ret->out = sinks[0].buf ? sinks[0].buf : strdup("");
	ret->err = sinks[1].buf ? sinks[1].buf : strdup("");
	return 0;
}

void run_result_fini(struct run_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

void expect_run_says(char *const argv[], int code, const char *const texts[])
{
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	if (r.exit_code != code)
		print_error("%s exited %d:\n%s%s", argv[0], r.exit_code, r.out, r.err);
	assert_int_equal(r.exit_code, code);
	for (const char *const *text = texts; *text; text++) {
		const char *said = code ? r.err : r.out;
		const char *found = strstr(said, *text);

		if (!found)
			print_error("%s's %s lacks '%s':\n%s", argv[0], code ? "stderr" : "stdout", *text, said);
		assert_non_null(found);
	}
	run_result_fini(&r);
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **list_files(const char *dir, const char *suffix, size_t *ret_count)
{
	DIR *d = opendir(dir);
	char **files = NULL;
	size_t count = 0;
	struct dirent *e;

	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), slen = strlen(suffix);
		if (len <= slen || strcmp(e->d_name + len - slen, suffix))
			continue;
		char *path;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			break;
		struct stat st;
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		char **grown = realloc(files, (count + 1) * sizeof(*files));
		if (!grown) {
			free(path);
			break;
		}
		files = grown;
		files[count++] = path;
	}
	closedir(d);
	if (count)
		qsort(files, count, sizeof(*files), compare_strings);
	*ret_count = count;
	return files;
}

void free_file_list(char **files, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(files[i]);
	free(files);
}

char *read_text_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	FILE *mem = open_memstream(&buf, &len);
	if (mem) {
		int c;
		while ((c = getc(f)) != EOF)
			putc(c, mem);
		fclose(mem);
	}
	fclose(f);
	return buf;
}

char *read_file_below(const char *dir, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	char *text = read_text_file(path);
	if (!text)
		fail_msg("cannot read %s", path);
	return text;
}

/* mkdir that takes a directory already there; fails the test when it cannot be made. */
static void make_dir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

/* The directories that hold the last name in `path`, from path[from] on (those before exist). */
static void make_parents(char *path, size_t from)
{
	for (char *p = path + from; (p = strchr(p, '/')); p++) {
		*p = '\0';
		make_dir(path);
		*p = '/';
	}
}

void make_dirs_below(const char *dir, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	make_parents(path, strlen(dir) + 1);
	make_dir(path);
}

void write_file_below(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	make_parents(path, strlen(dir) + 1);
	FILE *out = fopen(path, "w");
	if (!out)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	int r = fputs(text, out) < 0 ? errno : 0;
	if (fclose(out) != 0 && r == 0)
		r = errno;
	if (r)
		fail_msg("cannot write %s: %s", path, strerror(r));
}

int contains_nocase(const char *haystack, const char *needle)
{
	return strcasestr(haystack, needle) != NULL;
}

int spawn_background(char *const argv[], const char *log_path)
{
	posix_spawn_file_actions_t actions;
	pid_t pid;

	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 1, log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	posix_spawn_file_actions_adddup2(&actions, 1, 2);
	int r = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	return r ? -r : (int)pid;
}

int wait_exit(int pid, int timeout_ms)
{
	int status;

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(10000);
	}
	return -1;
}

void kill_daemon(int *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		wait_exit(*pid, 5000);
	}
	*pid = 0;
}

pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0)
		for (;;)
			pause();
	return pid;
}

#define KEPT_SLEEPERS_MAX 256

static pid_t kept_sleepers[KEPT_SLEEPERS_MAX];
static size_t kept_sleeper_count;

pid_t spawn_kept_sleeper(void)
{
	pid_t pid = spawn_sleeper();

	if (pid > 0 && kept_sleeper_count < KEPT_SLEEPERS_MAX)
		kept_sleepers[kept_sleeper_count++] = pid;
	return pid;
}

int kill_sleepers(void **state)
{
	(void)state;
	for (size_t i = 0; i < kept_sleeper_count; i++) {
		kill(kept_sleepers[i], SIGKILL);
		waitpid(kept_sleepers[i], NULL, 0);
	}
	kept_sleeper_count = 0;
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

void make_test_dir(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "/tmp/mpamd-%s-XXXXXX", name);
	assert_non_null(mkdtemp(dir));
}

int remove_tree(const char *dir)
{
	if (!dir[0])
		return 0;
	if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

int wait_for_text(const char *path, const char *text, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited += 20) {
		char *content = read_text_file(path);
		int found = content && strstr(content, text);
		free(content);
		if (found)
			return 1;
		usleep(20000);
	}
	return 0;
}

/* A mount namespace of this process's own, whose mounts nobody else sees. */
static int own_mount_namespace(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	return 0;
}

int small_disk_begin(const char *dir, unsigned long bytes)
{
	char options[32];
	int r = own_mount_namespace();

	snprintf(options, sizeof(options), "size=%lu", bytes);
	if (r == 0 && mount("tmpfs", dir, "tmpfs", 0, options) < 0)
		r = -errno;
	return r;
}

int read_only_begin(const char *dir)
{
	int r = own_mount_namespace();

	if (r < 0)
		return r;
	if (mount(dir, dir, NULL, MS_BIND, NULL) < 0)
		return -errno;
	if (mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0) {
		r = -errno;
		umount2(dir, MNT_DETACH);
	}
	return r;
}

void read_only_end(const char *dir)
{
	umount2(dir, MNT_DETACH);
}
