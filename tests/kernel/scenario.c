/* See scenario.h. */
#include "scenario.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS    16
#define MAX_NAME     32
#define MAX_TEXT     4096
#define MAX_ENTRIES  256
#define STATUS_FILE  "info/last_cmd_status"
#define TASKS_SUFFIX "tasks"

struct task {
	char name[MAX_NAME];
	pid_t pid;
	bool alive;
};

struct run {
	const char *root;
	unsigned flags;
	struct transcript *out;
	struct task tasks[MAX_TASKS];
	unsigned ntasks;
	unsigned step; /* the scenario line */
	int error;     /* the first -ENOMEM */
};

/* One parsed line. */
struct op {
	char verb[16];
	char path[PATH_MAX / 4];
	char to[PATH_MAX / 4]; /* rename's new path */
	char quoted[MAX_TEXT]; /* the argument as written, for the key */
	char text[MAX_TEXT];   /* the argument unescaped */
	size_t text_len;
};

static void add(struct run *r, const char *verb, const char *path, const char *arg, const char *value)
{
	char key[PATH_MAX + MAX_TEXT];

	snprintf(key, sizeof(key), "%u %s %s%s%s", r->step, verb, path, arg ? " " : "", arg ? arg : "");
	if (transcript_add(r->out, key, value) < 0 && !r->error)
		r->error = -ENOMEM;
}

static void add_escaped(struct run *r, const char *verb, const char *path, const char *arg, const char *text)
{
	char *value = transcript_escape(text, strlen(text));

	if (!value) {
		r->error = -ENOMEM;
		return;
	}
	add(r, verb, path, arg, value);
	free(value);
}

static void add_result(struct run *r, const char *verb, const char *path, const char *arg, int err)
{
	char value[64];

	snprintf(value, sizeof(value), "!%s", strerrorname_np(err) ? strerrorname_np(err) : "E?");
	add(r, verb, path, arg, err ? value : "ok");
}

static void full_path(const struct run *r, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", r->root, path);
}

/* -------- process ids and their names -------- */

static const struct task *task_by_name(const struct run *r, const char *name, size_t len)
{
	for (unsigned i = 0; i < r->ntasks; i++)
		if (strlen(r->tasks[i].name) == len && strncmp(r->tasks[i].name, name, len) == 0)
			return &r->tasks[i];
	return NULL;
}

/* "$NAME" for a pid this scenario spawned, "$self" for this process, NULL for any other. */
static const char *pid_name(const struct run *r, long pid, char *buf, size_t len)
{
	if (pid == (long)getpid())
		return "$self";
	for (unsigned i = 0; i < r->ntasks; i++) {
		if (r->tasks[i].pid == pid) {
			snprintf(buf, len, "$%s", r->tasks[i].name);
			return buf;
		}
	}
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The n lines sorted, into out, each ending in a newline. */
static void join_sorted(char **lines, size_t n, char *out, size_t len)
{
	size_t used = 0;

	qsort(lines, n, sizeof(lines[0]), cmp_str);
	out[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s\n", lines[i]);
}

/* A tasks file: one pid a line, each replaced by its name ("$other" for tasks the scenario did not
 * spawn), sorted, since the kernel lists them in its own order. */
static void normalise_tasks(const struct run *r, char *text, char *out, size_t len)
{
	char *lines[MAX_ENTRIES], names[MAX_ENTRIES][MAX_NAME + 2], *save = NULL;
	size_t n = 0;

	for (char *tok = strtok_r(text, "\n", &save); tok && n < MAX_ENTRIES; tok = strtok_r(NULL, "\n", &save)) {
		char buf[MAX_NAME + 2];
		const char *name = pid_name(r, strtol(tok, NULL, 10), buf, sizeof(buf));
		snprintf(names[n], sizeof(names[n]), "%s", name ? name : "$other");
		lines[n] = names[n];
		n++;
	}
	join_sorted(lines, n, out, len);
}

/* The kernel's messages name a pid after "task " or "pid " ("No task 123"): that number becomes
 * the pid's name. */
static void normalise_messages(const struct run *r, const char *text, char *out, size_t len)
{
	size_t used = 0;

	for (const char *s = text; *s && used + 1 < len;) {
		bool after_word = (s - text >= 5 && strncmp(s - 5, "task ", 5) == 0) ||
				  (s - text >= 4 && strncmp(s - 4, "pid ", 4) == 0);
		char buf[MAX_NAME + 2], *end;
		const char *name = NULL;
		long pid = after_word && isdigit((unsigned char)*s) ? strtol(s, &end, 10) : -1;
		if (pid >= 0)
			name = pid_name(r, pid, buf, sizeof(buf));
		if (name) {
			used += (size_t)snprintf(out + used, len - used, "%s", name);
			s = end;
		} else {
			out[used++] = *s++;
		}
	}
	out[used < len ? used : len - 1] = '\0';
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* -------- operations -------- */

/* The whole file in buf (NUL-terminated): 0 or -errno. */
static int slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t used = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (used + 1 < len && (n = read(fd, buf + used, len - 1 - used)) > 0)
		used += (size_t)n;
	int err = n < 0 ? -errno : 0;
	close(fd);
	buf[used] = '\0';
	return err;
}

/* The lines of text (MAX_TEXT bytes) in sorted order, in place. */
static void sort_lines(char *text)
{
	char *lines[MAX_ENTRIES], copy[MAX_TEXT], *save = NULL;
	size_t n = 0;

	snprintf(copy, sizeof(copy), "%s", text);
	for (char *tok = strtok_r(copy, "\n", &save); tok && n < MAX_ENTRIES; tok = strtok_r(NULL, "\n", &save))
		lines[n++] = tok;
	join_sorted(lines, n, text, MAX_TEXT);
}

/* read, or with `sorted` the same with the file's lines in sorted order. */
static void do_read(struct run *r, const char *path, bool sorted)
{
	const char *verb = sorted ? "sorted" : "read";
	char full[PATH_MAX], text[MAX_TEXT], norm[MAX_TEXT];

	full_path(r, path, full, sizeof(full));
	int err = slurp(full, text, sizeof(text));
	if (err) {
		add_result(r, verb, path, NULL, -err);
		return;
	}
	if (ends_with(path, TASKS_SUFFIX))
		normalise_tasks(r, text, norm, sizeof(norm));
	else
		normalise_messages(r, text, norm, sizeof(norm));
	if (sorted)
		sort_lines(norm);
	add_escaped(r, verb, path, NULL, norm);
}

/* last_cmd_status after an operation on path; arg: the text written, or which directory operation. */
static void do_status(struct run *r, const char *path, const char *arg)
{
	char full[PATH_MAX], text[MAX_TEXT], norm[MAX_TEXT];

	full_path(r, STATUS_FILE, full, sizeof(full));
	int err = slurp(full, text, sizeof(text));
	if (err) {
		add_result(r, "status", path, arg, -err);
		return;
	}
	normalise_messages(r, text, norm, sizeof(norm));
	add_escaped(r, "status", path, arg, norm);
}

struct entry {
	char name[NAME_MAX + 2];
	bool dir;
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* The sorted entries of a directory, without dot files (resctrl has none; resctrl-emu's control
 * file is one): the count, or -errno. */
static int list_dir(const char *path, struct entry *entries, size_t max)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.')
			continue;
		char full[PATH_MAX + NAME_MAX + 2];
		struct stat st;
		snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
		snprintf(entries[n].name, sizeof(entries[n].name), "%s", de->d_name);
		entries[n].dir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
		n++;
	}
	closedir(d);
	qsort(entries, n, sizeof(entries[0]), cmp_entry);
	return (int)n;
}

static void join(const char *dir, const char *name, char *buf, size_t len)
{
	if (strcmp(dir, ".") == 0)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s/%s", dir, name);
}

/* ls PATH, and with `deep` every directory below it and read of every file. */
static void do_ls(struct run *r, const char *path, bool deep)
{
	struct entry *entries = malloc(MAX_ENTRIES * sizeof(*entries));
	char full[PATH_MAX], value[MAX_TEXT] = "";
	size_t used = 0;

	if (!entries) {
		r->error = -ENOMEM;
		return;
	}
	full_path(r, path, full, sizeof(full));
	int n = list_dir(full, entries, MAX_ENTRIES);
	if (n < 0)
		add_result(r, "ls", path, NULL, -n);
	for (int i = 0; i < n && used < sizeof(value); i++)
		used += (size_t)snprintf(value + used, sizeof(value) - used, "%s%s%s", i ? " " : "", entries[i].name,
					 entries[i].dir ? "/" : "");
	if (n >= 0)
		add(r, "ls", path, NULL, value);
	for (int i = 0; deep && i < n; i++) {
		char sub[PATH_MAX / 2];
		join(path, entries[i].name, sub, sizeof(sub));
		if (entries[i].dir)
			do_ls(r, sub, true);
		else
			do_read(r, sub, false);
	}
	free(entries);
}

/* $NAME in `text` replaced by the pid of the task spawned as NAME. */
static int expand_pids(const struct run *r, const char *text, size_t len, char *out, size_t out_len, size_t *ret)
{
	size_t used = 0;

	for (size_t i = 0; i < len; i++) {
		size_t n = 0;
		while (text[i] == '$' && i + 1 + n < len &&
		       (isalnum((unsigned char)text[i + 1 + n]) || text[i + 1 + n] == '_'))
			n++;
		const struct task *t = n ? task_by_name(r, text + i + 1, n) : NULL;
		if (text[i] == '$' && !t)
			return -ENOENT;
		if (t) {
			used += (size_t)snprintf(out + used, out_len - used, "%ld", (long)t->pid);
			i += n;
		} else if (used + 1 < out_len) {
			out[used++] = text[i];
		}
		if (used + 1 >= out_len)
			return -E2BIG;
	}
	*ret = used;
	return 0;
}

static int do_write(struct run *r, const struct op *op)
{
	char full[PATH_MAX], text[MAX_TEXT];
	size_t len;

	if (expand_pids(r, op->text, op->text_len, text, sizeof(text), &len) < 0)
		return -ENOENT;
	full_path(r, op->path, full, sizeof(full));
	int err = 0, fd = open(full, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else {
		ssize_t n = write(fd, text, len);
		err = n < 0 ? errno : (size_t)n != len ? EIO : 0;
		close(fd);
	}
	add_result(r, "write", op->path, op->quoted, err);
	do_status(r, op->path, op->quoted);
	return 0;
}

static void do_dir(struct run *r, const struct op *op, bool make)
{
	char full[PATH_MAX];

	full_path(r, op->path, full, sizeof(full));
	int err = (make ? mkdir(full, 0755) : rmdir(full)) < 0 ? errno : 0;
	add_result(r, op->verb, op->path, NULL, err);
	do_status(r, op->path, make ? "(mkdir)" : "(rmdir)");
}

/* rename(2) of op->path to op->to (a path in the same tree), then last_cmd_status. */
static void do_rename(struct run *r, const struct op *op)
{
	char from[PATH_MAX], to[PATH_MAX];

	full_path(r, op->path, from, sizeof(from));
	full_path(r, op->to, to, sizeof(to));
	int err = rename(from, to) < 0 ? errno : 0;
	add_result(r, "rename", op->path, op->to, err);
	do_status(r, op->path, op->to);
}

static int do_spawn(struct run *r, const char *name)
{
	if (r->ntasks == MAX_TASKS || task_by_name(r, name, strlen(name)) || strlen(name) >= MAX_NAME)
		return -EINVAL;
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	struct task *t = &r->tasks[r->ntasks++];
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->pid = pid;
	t->alive = true;
	return 0;
}

static void reap(struct task *t)
{
	if (!t->alive)
		return;
	kill(t->pid, SIGKILL);
	waitpid(t->pid, NULL, 0);
	t->alive = false;
}

/* Lets the kernel's own timers run (the RMID limbo worker checks every 1000 ms). */
static int do_sleep(const char *ms_text, bool sleep)
{
	char *end;
	long ms = strtol(ms_text, &end, 10);

	if (*end || ms < 0 || ms > 60000)
		return -EINVAL;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	if (sleep)
		nanosleep(&ts, NULL);
	return 0;
}

static int do_reap(struct run *r, const char *name)
{
	struct task *t = (struct task *)task_by_name(r, name, strlen(name));

	if (!t)
		return -ENOENT;
	reap(t);
	return 0;
}

/* -------- parsing -------- */

/* The next space-separated word of *s into buf: false when there is none or it does not fit. */
static bool next_word(const char **s, char *buf, size_t len)
{
	size_t n = 0;

	while (isspace((unsigned char)**s))
		(*s)++;
	while (**s && !isspace((unsigned char)**s)) {
		if (n + 1 >= len)
			return false;
		buf[n++] = *(*s)++;
	}
	buf[n] = '\0';
	return n > 0;
}

static char unescape_char(char c)
{
	return c == 'n' ? '\n' : c == 't' ? '\t' : c;
}

/* A double-quoted argument: its text as written and unescaped. */
static bool parse_quoted(const char *s, struct op *op)
{
	while (isspace((unsigned char)*s))
		s++;
	const char *start = s;
	if (*s++ != '"')
		return false;
	op->text_len = 0;
	for (; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1])
			s++, op->text[op->text_len++] = unescape_char(*s);
		else
			op->text[op->text_len++] = *s;
		if (op->text_len + 1 >= sizeof(op->text))
			return false;
	}
	if (*s != '"')
		return false;
	op->text[op->text_len] = '\0';
	snprintf(op->quoted, sizeof(op->quoted), "%.*s", (int)(s + 1 - start), start);
	for (s++; isspace((unsigned char)*s); s++)
		;
	return *s == '\0';
}

/* Whether a "[a,b]" prefix (if any) names the profile: 1 yes (or no prefix), 0 no, -EINVAL when the
 * bracket is not closed; *s moves past it. */
static int for_profile(const char **s, const char *profile)
{
	while (isspace((unsigned char)**s))
		(*s)++;
	if (**s != '[')
		return 1;
	const char *end = strchr(*s, ']');
	bool match = false;
	if (!end)
		return -EINVAL;
	for (const char *p = *s + 1; p < end;) {
		size_t n = strcspn(p, ",]");
		match |= strlen(profile) == n && strncmp(p, profile, n) == 0;
		p += n + (p[n] == ',');
	}
	*s = end + 1;
	return match;
}

static bool parse_op(const char *line, struct op *op)
{
	*op = (struct op){ 0 };
	if (!next_word(&line, op->verb, sizeof(op->verb)) || !next_word(&line, op->path, sizeof(op->path)))
		return false;
	if (strcmp(op->verb, "write") == 0)
		return parse_quoted(line, op);
	if (strcmp(op->verb, "rename") == 0 && !next_word(&line, op->to, sizeof(op->to)))
		return false;
	while (isspace((unsigned char)*line))
		line++;
	return *line == '\0';
}

/* 0, or -EINVAL for a verb it does not know or an argument it cannot use. */
static int execute(struct run *r, const struct op *op)
{
	if (strcmp(op->verb, "read") == 0 || strcmp(op->verb, "sorted") == 0)
		do_read(r, op->path, op->verb[0] == 's');
	else if (strcmp(op->verb, "ls") == 0 || strcmp(op->verb, "readall") == 0)
		do_ls(r, op->path, op->verb[1] == 'e');
	else if (strcmp(op->verb, "write") == 0)
		return do_write(r, op) < 0 ? -EINVAL : 0;
	else if (strcmp(op->verb, "mkdir") == 0 || strcmp(op->verb, "rmdir") == 0)
		do_dir(r, op, op->verb[0] == 'm');
	else if (strcmp(op->verb, "rename") == 0)
		do_rename(r, op);
	else if (strcmp(op->verb, "spawn") == 0)
		return do_spawn(r, op->path) < 0 ? -EINVAL : 0;
	else if (strcmp(op->verb, "reap") == 0)
		return do_reap(r, op->path) < 0 ? -EINVAL : 0;
	else if (strcmp(op->verb, "sleep") == 0)
		return do_sleep(op->path, !(r->flags & SCENARIO_NO_SLEEP));
	else
		return -EINVAL;
	return 0;
}

static bool blank_or_comment(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return *s == '\0' || *s == '#';
}

int scenario_run(FILE *in, const char *name, const char *root, const char *profile, unsigned flags,
		 struct transcript *out, FILE *errors)
{
	struct run r = { .root = root, .flags = flags, .out = out };
	static struct op op;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	while (ret == 0 && !r.error && (n = getline(&line, &cap, in)) >= 0) {
		r.step++;
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		const char *s = line;
		int wanted = blank_or_comment(s) ? 0 : for_profile(&s, profile);
		if (wanted == 0)
			continue;
		if (wanted < 0 || !parse_op(s, &op) || execute(&r, &op) < 0) {
			fprintf(errors, "%s:%u: cannot run: %s\n", name, r.step, line);
			ret = -EINVAL;
		}
	}
	for (unsigned i = 0; i < r.ntasks; i++)
		reap(&r.tasks[i]);
	free(line);
	return ret ? ret : r.error;
}
