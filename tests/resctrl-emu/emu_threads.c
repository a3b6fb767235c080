/* See emu_threads.h. What the table holds: every thread of a "tracked" process, one with a thread moved
 * out of the default group (or made by one), in whatever group each is; a thread of any other process
 * is in the default group. So a look at the host costs one listing of the proc root and a stat file per
 * process not seen before (its parent tells whether it inherits a group), plus the thread list of each
 * tracked process; only the default group's tasks file lists every thread. A thread is known by its id
 * and its start time, so that a reused id is a new thread; a process by its id. */
#include "emu_threads.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/grow.h"
#include "emu_state.h"

#define PPID_FIELD	4 /* proc_pid_stat(5) */
#define STARTTIME_FIELD 22

/* A process the last look did not know: its parent and start time, so that it is placed after its
 * parent. */
struct fresh {
	pid_t pid, ppid;
	unsigned long long start;
};

static void proc_path(const struct emu *e, char *buf, size_t len, pid_t pid, const char *file)
{
	snprintf(buf, len, "%s/%d%s%s", e->opt.proc_root, (int)pid, file ? "/" : "", file ? file : "");
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

/* PROC/ID/stat's start time and parent process; 0 for what cannot be read (a fake proc tree may have
 * no stat files). */
static void thread_stat(const struct emu *e, pid_t id, unsigned long long *start, pid_t *ppid)
{
	char path[4096], line[1024];

	*start = 0;
	*ppid = 0;
	proc_path(e, path, sizeof(path), id, "stat");
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

static int by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int append_pid(pid_t **list, size_t *count, size_t *cap, pid_t id)
{
	if (array_grow((void **)list, cap, *count + 1, sizeof(**list), NULL) < 0)
		return -ENOMEM;
	(*list)[(*count)++] = id;
	return 0;
}

/* What a list that was being gathered comes to: with r 0, *ret and *ret_count hold it sorted; else
 * it is freed and r returned. */
static int pids_sorted(pid_t *list, size_t count, int r, pid_t **ret, size_t *ret_count)
{
	if (r) { /* *ret NULL: a caller that frees it on failure (emu_threads_all) frees nothing */
		free(list);
		*ret = NULL;
		*ret_count = 0;
		return r;
	}
	if (count)
		qsort(list, count, sizeof(list[0]), by_pid);
	*ret = list;
	*ret_count = count;
	return 0;
}

/* The numeric entries of PROC/path (NULL: the proc root itself), sorted. A directory that is gone (a
 * process that exited) has none. */
static int list_ids(const struct emu *e, pid_t pid, pid_t **ret, size_t *ret_count)
{
	char path[4096];
	pid_t *list = NULL, id;
	size_t count = 0, cap = 0;
	int r = 0;

	if (pid)
		proc_path(e, path, sizeof(path), pid, "task");
	DIR *dir = opendir(pid ? path : e->opt.proc_root);
	for (struct dirent *d; dir && r == 0 && (d = readdir(dir)) != NULL;)
		if (numeric(d->d_name, &id))
			r = append_pid(&list, &count, &cap, id);
	if (dir)
		closedir(dir);
	return pids_sorted(list, count, r, ret, ret_count);
}

static bool has_id(const pid_t *sorted, size_t count, pid_t id)
{
	return count && bsearch(&id, sorted, count, sizeof(id), by_pid);
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

static int insert(struct emu *e, const struct emu_task *t)
{
	if (array_grow((void **)&e->tasks, &e->task_cap, e->task_count + 1, sizeof(*e->tasks), NULL) < 0)
		return -ENOMEM;
	size_t at = e->task_count;
	while (at > 0 && e->tasks[at - 1].tid > t->tid)
		at--;
	memmove(&e->tasks[at + 1], &e->tasks[at], (e->task_count - at) * sizeof(*t));
	e->tasks[at] = *t;
	e->task_count++;
	return 0;
}

/* Adds the threads of process `pid` the table does not hold: its main thread in `main_group`, the
 * others in their creator's, taken to be the main thread's (see emu_threads.h). */
static int track(struct emu *e, pid_t pid, struct emu_group *main_group)
{
	pid_t *tids;
	size_t count;
	int r = list_ids(e, pid, &tids, &count);

	for (size_t i = 0; r == 0 && i < count; i++) {
		if (emu_threads_find(e, tids[i]))
			continue;
		const struct emu_task *main = emu_threads_find(e, pid);
		struct emu_task t = { .tid = tids[i], .tgid = pid };
		pid_t ppid;
		thread_stat(e, t.tid, &t.start, &ppid);
		t.group = tids[i] == pid ? main_group : main ? main->group : emu_default_group(e);
		r = insert(e, &t);
	}
	free(tids);
	return r;
}

/* Drops the threads that have exited, and those whose id names another thread now (a thread outside
 * the default group is checked by its start time); then the processes none of whose threads is outside
 * the default group, which need no tracking. */
static int forget_exited(struct emu *e, const pid_t *procs, size_t proc_count)
{
	struct emu_group *root = emu_default_group(e);
	pid_t *outside = NULL;
	size_t kept = 0, outside_count = 0, outside_cap = 0;

	for (size_t i = 0; i < e->task_count; i++) {
		struct emu_task *t = &e->tasks[i];
		unsigned long long start;
		pid_t ppid;
		if (!has_id(procs, proc_count, t->tgid) || !emu_thread_exists(e, t->tid))
			continue;
		if (t->group != root) {
			thread_stat(e, t->tid, &start, &ppid);
			if (start != t->start)
				continue;
			if (append_pid(&outside, &outside_count, &outside_cap, t->tgid)) {
				free(outside);
				return -ENOMEM;
			}
		}
		e->tasks[kept++] = *t;
	}
	if (outside_count)
		qsort(outside, outside_count, sizeof(outside[0]), by_pid);
	e->task_count = kept;
	kept = 0;
	for (size_t i = 0; i < e->task_count; i++)
		if (has_id(outside, outside_count, e->tasks[i].tgid))
			e->tasks[kept++] = e->tasks[i];
	e->task_count = kept;
	free(outside);
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct fresh *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Processes the last look did not know, in the order they started. */
static int find_fresh(struct emu *e, const pid_t *procs, size_t count, struct fresh **ret, size_t *ret_count)
{
	struct fresh *fresh = NULL;
	size_t n = 0;

	for (size_t i = 0; i < count; i++) {
		if (has_id(e->procs, e->proc_count, procs[i]))
			continue;
		if (!fresh && !(fresh = calloc(count, sizeof(*fresh))))
			return -ENOMEM;
		struct fresh *f = &fresh[n++];
		f->pid = procs[i];
		thread_stat(e, f->pid, &f->start, &f->ppid);
	}
	if (n)
		qsort(fresh, n, sizeof(fresh[0]), by_start);
	*ret = fresh;
	*ret_count = n;
	return 0;
}

/* The tracked processes, each once. */
static int tracked_processes(const struct emu *e, pid_t **ret, size_t *ret_count)
{
	pid_t *list = NULL;
	size_t count = 0, cap = 0;

	for (size_t i = 0; i < e->task_count; i++)
		if (!has_id(list, count, e->tasks[i].tgid)) {
			if (append_pid(&list, &count, &cap, e->tasks[i].tgid))
				return -ENOMEM;
			qsort(list, count, sizeof(list[0]), by_pid);
		}
	*ret = list;
	*ret_count = count;
	return 0;
}

int emu_threads_sync(struct emu *e)
{
	pid_t *procs = NULL, *tracked = NULL;
	struct fresh *fresh = NULL;
	size_t proc_count = 0, tracked_count = 0, n = 0;
	int r = list_ids(e, 0, &procs, &proc_count);

	if (r == 0)
		r = forget_exited(e, procs, proc_count);
	/* New threads of tracked processes, then new processes of tracked parents, oldest first. */
	if (r == 0)
		r = tracked_processes(e, &tracked, &tracked_count);
	for (size_t i = 0; r == 0 && i < tracked_count; i++) {
		const struct emu_task *main = emu_threads_find(e, tracked[i]);
		r = track(e, tracked[i], main ? main->group : emu_default_group(e));
	}
	if (r == 0)
		r = find_fresh(e, procs, proc_count, &fresh, &n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		const struct emu_task *parent = fresh[i].ppid > 0 ? emu_threads_find(e, fresh[i].ppid) : NULL;
		if (parent && parent->group != emu_default_group(e))
			r = track(e, fresh[i].pid, parent->group);
	}
	if (r == 0) {
		free(e->procs);
		e->procs = procs;
		e->proc_count = proc_count;
		procs = NULL;
	}
	free(procs);
	free(tracked);
	free(fresh);
	return r;
}

/* The process of thread `tid`: PROC/TID/status says (Tgid); in a fake tree without it, the process
 * whose task directory lists the thread, else the thread itself. */
static pid_t process_of(const struct emu *e, pid_t tid)
{
	char path[4096], line[256];
	pid_t tgid = 0, *procs;
	size_t count;
	struct stat st;

	proc_path(e, path, sizeof(path), tid, "status");
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	if (tgid > 0 || list_ids(e, 0, &procs, &count))
		return tgid > 0 ? tgid : tid;
	for (size_t i = 0; i < count && tgid <= 0; i++) {
		snprintf(path, sizeof(path), "%s/%d/task/%d", e->opt.proc_root, (int)procs[i], (int)tid);
		if (stat(path, &st) == 0)
			tgid = procs[i];
	}
	free(procs);
	return tgid > 0 ? tgid : tid;
}

int emu_threads_adopt(struct emu *e, pid_t tid, struct emu_task **ret)
{
	*ret = emu_threads_find(e, tid);
	if (*ret || !emu_thread_exists(e, tid))
		return 0;
	pid_t tgid = process_of(e, tid);
	int r = track(e, tgid, emu_default_group(e));
	if (r == 0 && !emu_threads_find(e, tid)) {
		/* Listed nowhere under PROC/TGID/task (a fake tree may lack it): the thread alone. */
		struct emu_task t = { .tid = tid, .tgid = tgid, .group = emu_default_group(e) };
		pid_t ppid;
		thread_stat(e, tid, &t.start, &ppid);
		r = insert(e, &t);
	}
	*ret = emu_threads_find(e, tid);
	return r;
}

int emu_threads_all(const struct emu *e, pid_t **ret, size_t *ret_count)
{
	pid_t *procs, *all = NULL;
	size_t proc_count, count = 0, cap = 0;
	int r = list_ids(e, 0, &procs, &proc_count);

	for (size_t i = 0; r == 0 && i < proc_count; i++) {
		pid_t *tids;
		size_t n;
		if ((r = list_ids(e, procs[i], &tids, &n)) != 0)
			break;
		for (size_t j = 0; r == 0 && j < n; j++)
			r = append_pid(&all, &count, &cap, tids[j]);
		free(tids);
	}
	free(procs);
	return pids_sorted(all, count, r, ret, ret_count);
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
	free(e->procs);
	e->tasks = NULL;
	e->procs = NULL;
	e->task_count = e->task_cap = e->proc_count = 0;
}
