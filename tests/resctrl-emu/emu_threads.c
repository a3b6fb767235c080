/* See emu_threads.h. */
#include "emu_threads.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu_state.h"

#define PPID_FIELD	4 /* proc_pid_stat(5) */
#define STARTTIME_FIELD 22

/* A thread found under the proc root. */
struct listed {
	pid_t tid, tgid;
};

/* A thread not in the table yet, with what placing it needs. */
struct fresh {
	pid_t tid, tgid, ppid;
	unsigned long long start;
};

static void proc_path(const struct emu *e, char *buf, size_t len, pid_t tid, const char *file)
{
	snprintf(buf, len, "%s/%d%s%s", e->opt.proc_root, (int)tid, file ? "/" : "", file ? file : "");
}

static bool numeric(const char *name, pid_t *ret)
{
	int v;

	if (!isdigit((unsigned char)name[0]) || emu_kstrtoint(name, 10, &v) || v <= 0)
		return false;
	*ret = (pid_t)v;
	return true;
}

/* The start of field `field` (numbered from 1) of a stat line, or NULL. The command name (field 2)
 * may hold spaces and parentheses: counting starts after its last ')'. */
static const char *stat_field(const char *line, unsigned field)
{
	const char *p = strrchr(line, ')');

	for (unsigned f = 2; p && f < field; f++)
		p = strchr(p + 1, ' ');
	return p ? p + 1 : NULL;
}

/* PROC/TID/stat's start time and parent process; 0 for what cannot be read (a fake proc tree may have
 * no stat files). */
static void thread_stat(const struct emu *e, pid_t tid, unsigned long long *start, pid_t *ppid)
{
	char path[4096], line[1024];

	*start = 0;
	*ppid = 0;
	proc_path(e, path, sizeof(path), tid, "stat");
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	const char *p = stat_field(line, PPID_FIELD);
	if (p)
		*ppid = (pid_t)strtol(p, NULL, 10);
	p = stat_field(line, STARTTIME_FIELD);
	if (p)
		*start = strtoull(p, NULL, 10);
}

bool emu_thread_exists(const struct emu *e, pid_t tid)
{
	char path[4096];
	struct stat st;

	proc_path(e, path, sizeof(path), tid, NULL);
	return tid > 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_listed_tid(const void *a, const void *b)
{
	pid_t x = ((const struct listed *)a)->tid, y = ((const struct listed *)b)->tid;

	return (x > y) - (x < y);
}

static int append_listed(struct listed **list, size_t *count, size_t *cap, pid_t tid, pid_t tgid)
{
	if (*count == *cap) {
		size_t grown_cap = *cap ? 2 * *cap : 256;
		struct listed *grown = realloc(*list, grown_cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		*list = grown;
		*cap = grown_cap;
	}
	(*list)[(*count)++] = (struct listed){ tid, tgid };
	return 0;
}

/* Every thread under PROC/<pid>/task/, sorted by id. */
static int list_threads(const struct emu *e, struct listed **ret, size_t *ret_count)
{
	char path[4096];
	struct listed *list = NULL;
	size_t count = 0, cap = 0;
	int r = 0;
	DIR *procs = opendir(e->opt.proc_root);

	for (struct dirent *p; procs && r == 0 && (p = readdir(procs)) != NULL;) {
		pid_t pid, tid;
		if (!numeric(p->d_name, &pid))
			continue;
		proc_path(e, path, sizeof(path), pid, "task");
		DIR *threads = opendir(path);
		for (struct dirent *t; threads && r == 0 && (t = readdir(threads)) != NULL;)
			if (numeric(t->d_name, &tid))
				r = append_listed(&list, &count, &cap, tid, pid);
		if (threads)
			closedir(threads); /* a process that exited meanwhile has none */
	}
	if (procs)
		closedir(procs);
	if (r) {
		free(list);
		return r;
	}
	if (count)
		qsort(list, count, sizeof(list[0]), by_listed_tid);
	*ret = list;
	*ret_count = count;
	return 0;
}

static int by_task_tid(const void *a, const void *b)
{
	pid_t x = ((const struct emu_task *)a)->tid, y = ((const struct emu_task *)b)->tid;

	return (x > y) - (x < y);
}

struct emu_task *emu_threads_find(struct emu *e, pid_t tid)
{
	struct emu_task key = { .tid = tid };

	return e->task_count ? bsearch(&key, e->tasks, e->task_count, sizeof(key), by_task_tid) : NULL;
}

static bool listed(const struct listed *now, size_t count, pid_t tid)
{
	struct listed key = { .tid = tid };

	return count && bsearch(&key, now, count, sizeof(key), by_listed_tid);
}

/* Keeps the threads still there; a thread moved out of the default group is also checked for a reused
 * id (its start time), as before the table held every thread. Order is kept. */
static void forget_exited(struct emu *e, const struct listed *now, size_t count)
{
	struct emu_group *root = emu_default_group(e);
	size_t kept = 0;

	for (size_t i = 0; i < e->task_count; i++) {
		struct emu_task *t = &e->tasks[i];
		unsigned long long start;
		pid_t ppid;
		if (!listed(now, count, t->tid))
			continue;
		if (t->group != root) {
			thread_stat(e, t->tid, &start, &ppid);
			if (start != t->start)
				continue; /* the id now names another thread */
		}
		e->tasks[kept++] = *t;
	}
	e->task_count = kept;
}

static int by_start(const void *a, const void *b)
{
	const struct fresh *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The threads under the proc root the table does not hold, in the order they started. */
static int find_fresh(struct emu *e, const struct listed *now, size_t count, struct fresh **ret, size_t *ret_count)
{
	struct fresh *fresh = NULL;
	size_t n = 0;

	for (size_t i = 0; i < count; i++) {
		if (emu_threads_find(e, now[i].tid))
			continue;
		if (!fresh && !(fresh = calloc(count, sizeof(*fresh))))
			return -ENOMEM;
		struct fresh *f = &fresh[n++];
		f->tid = now[i].tid;
		f->tgid = now[i].tgid;
		thread_stat(e, f->tid, &f->start, &f->ppid);
	}
	if (n)
		qsort(fresh, n, sizeof(fresh[0]), by_start);
	*ret = fresh;
	*ret_count = n;
	return 0;
}

/* The group a new thread starts in: its creator's (see emu_threads.h for who that is taken to be). */
static struct emu_group *creator_group(struct emu *e, const struct fresh *f)
{
	pid_t creator = f->tid != f->tgid ? f->tgid : f->ppid;
	const struct emu_task *c = creator > 0 ? emu_threads_find(e, creator) : NULL;

	return c ? c->group : emu_default_group(e);
}

static int insert(struct emu *e, const struct emu_task *t)
{
	if (e->task_count == e->task_cap) {
		size_t cap = e->task_cap ? 2 * e->task_cap : 256;
		struct emu_task *grown = realloc(e->tasks, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		e->tasks = grown;
		e->task_cap = cap;
	}
	size_t at = e->task_count;
	while (at > 0 && e->tasks[at - 1].tid > t->tid)
		at--;
	memmove(&e->tasks[at + 1], &e->tasks[at], (e->task_count - at) * sizeof(*t));
	e->tasks[at] = *t;
	e->task_count++;
	return 0;
}

int emu_threads_sync(struct emu *e)
{
	struct listed *now = NULL;
	struct fresh *fresh = NULL;
	size_t count = 0, n = 0;
	int r = list_threads(e, &now, &count);

	if (r)
		return r;
	forget_exited(e, now, count);
	r = find_fresh(e, now, count, &fresh, &n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct emu_task t = { .tid = fresh[i].tid,
				      .tgid = fresh[i].tgid,
				      .start = fresh[i].start,
				      .group = creator_group(e, &fresh[i]) };
		r = insert(e, &t);
	}
	free(fresh);
	free(now);
	return r;
}

void emu_threads_regroup(struct emu *e, struct emu_group *g, struct emu_group *dest)
{
	for (size_t i = 0; i < e->task_count; i++) {
		struct emu_task *t = &e->tasks[i];
		if (t->group == g || (!g->is_mon && t->group->is_mon && t->group->parent == g))
			t->group = dest;
	}
}

void emu_threads_fini(struct emu *e)
{
	free(e->tasks);
	e->tasks = NULL;
	e->task_count = e->task_cap = 0;
}
