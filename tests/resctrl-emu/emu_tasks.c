/* See emu_tasks.h. Rules from fs/resctrl/rdtgroup.c (Linux 7.3): rdtgroup_tasks_write (one id or a
 * comma list per write, kstrtoint base 0 after strim, "Task list parsing error pid %s", "Invalid
 * pid %d", "Error while processing task %d" after a failure, earlier ids stay moved),
 * rdtgroup_move_task (find_task_by_vpid: the id names one thread, a process id its main thread
 * only; "No task %d" and ESRCH when there is none; 0 is the writing thread),
 * rdtgroup_task_write_permission (the writer's euid must be root or the thread's uid or suid),
 * __rdtgroup_move_task ("Can't move task to different control group") and show_rdt_tasks
 * (every thread of the host whose CLOSID matches a CTRL_MON group, or whose CLOSID and RMID match a
 * MON group: a CTRL_MON group lists its MON groups' threads too, and the default group lists
 * every thread not in another CTRL_MON group). */
#include "emu_tasks.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu_state.h"

#define STARTTIME_FIELD 22 /* proc_pid_stat(5) */

static void proc_path(const struct emu *e, char *buf, size_t len, pid_t tid, const char *file)
{
	snprintf(buf, len, "%s/%d%s%s", e->opt.proc_root, (int)tid, file ? "/" : "", file ? file : "");
}

/* Whether the thread exists (PROC/TID is a directory: /proc resolves any thread's id there, not
 * only a process's) and its start time, 0 when PROC/TID/stat cannot be read or parsed. */
static bool thread_lookup(const struct emu *e, pid_t tid, unsigned long long *start)
{
	char path[4096], line[1024];
	struct stat st;

	*start = 0;
	proc_path(e, path, sizeof(path), tid, NULL);
	if (tid <= 0 || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	proc_path(e, path, sizeof(path), tid, "stat");
	FILE *f = fopen(path, "re");
	if (!f)
		return true;
	size_t n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	char *p = strrchr(line, ')'); /* the command name may hold spaces and parentheses */
	for (int field = 2; p && field < STARTTIME_FIELD; field++)
		p = strchr(p + 1, ' ');
	if (p)
		*start = strtoull(p + 1, NULL, 10);
	return true;
}

static bool uid_owns_task(const struct emu *e, pid_t tid, uid_t uid)
{
	char path[4096], line[256];
	unsigned real, eff, saved;
	bool owns = false;

	proc_path(e, path, sizeof(path), tid, "status");
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u %u", &real, &eff, &saved) == 3)
			owns = uid == real || uid == saved;
	fclose(f);
	return owns;
}

static struct emu_task *task_find(struct emu *e, pid_t tid, unsigned long long start)
{
	for (size_t i = 0; i < e->task_count; i++)
		if (e->tasks[i].tid == tid && e->tasks[i].start == start)
			return &e->tasks[i];
	return NULL;
}

/* Drops the entries of threads that have exited, or whose id now names another thread. */
static void forget_exited(struct emu *e)
{
	size_t kept = 0;

	for (size_t i = 0; i < e->task_count; i++) {
		unsigned long long start;
		if (thread_lookup(e, e->tasks[i].tid, &start) && start == e->tasks[i].start)
			e->tasks[kept++] = e->tasks[i];
	}
	e->task_count = kept;
}

/* The table holds only threads outside the default group itself. */
static int place(struct emu *e, pid_t tid, unsigned long long start, struct emu_group *g)
{
	struct emu_task *t = task_find(e, tid, start);

	if (g == emu_default_group(e)) {
		if (t)
			*t = e->tasks[--e->task_count];
		return 0;
	}
	if (t) {
		t->group = g;
		return 0;
	}
	for (size_t i = 0; i < e->task_count; i++)
		if (e->tasks[i].tid == tid) { /* an exited thread's id, reused */
			e->tasks[i] = (struct emu_task){ .tid = tid, .start = start, .group = g };
			return 0;
		}
	if (e->task_count == e->task_cap) {
		size_t cap = e->task_cap ? 2 * e->task_cap : 16;
		struct emu_task *grown = realloc(e->tasks, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		e->tasks = grown;
		e->task_cap = cap;
	}
	e->tasks[e->task_count++] = (struct emu_task){ .tid = tid, .start = start, .group = g };
	return 0;
}

static int move_task(struct emu *e, pid_t tid, struct emu_group *g, const struct emu_caller *who)
{
	unsigned long long start;

	if (tid == 0)
		tid = who->pid; /* FUSE reports the writing thread's id */
	if (!thread_lookup(e, tid, &start)) {
		emu_status_printf(&e->status, "No task %d\n", (int)tid);
		return -ESRCH;
	}
	if (who->uid != 0 && !uid_owns_task(e, tid, who->uid)) {
		emu_status_printf(&e->status, "No permission to move task %d\n", (int)tid);
		return -EPERM;
	}
	struct emu_task *t = task_find(e, tid, start);
	struct emu_group *from = t ? t->group : emu_default_group(e);
	if (from == g)
		return 0;
	if (g->is_mon && emu_ctrl_of(from) != g->parent) {
		emu_status_printf(&e->status, "Can't move task to different control group\n");
		return -EINVAL;
	}
	return place(e, tid, start, g);
}

int emu_tasks_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	(void)len;
	emu_status_clear(&e->status);
	while (buf && buf[0] != '\0' && buf[0] != '\n') {
		char *text = emu_strim(strsep(&buf, ","));
		int pid;
		if (emu_kstrtoint(text, 0, &pid)) {
			emu_status_printf(&e->status, "Task list parsing error pid %s\n", text);
			return -EINVAL;
		}
		if (pid < 0) {
			emu_status_printf(&e->status, "Invalid pid %d\n", pid);
			return -EINVAL;
		}
		int r = move_task(e, (pid_t)pid, n->group, who);
		if (r) {
			emu_status_printf(&e->status, "Error while processing task %d\n", pid);
			return r; /* the ids before this one stay moved */
		}
	}
	return 0;
}

static bool listed_in(const struct emu_group *t, const struct emu_group *g)
{
	return g->is_mon ? t == g : emu_ctrl_of((struct emu_group *)t) == g;
}

static int by_tid(const void *a, const void *b)
{
	pid_t x = ((const struct emu_task *)a)->tid, y = ((const struct emu_task *)b)->tid;

	return (x > y) - (x < y);
}

static bool numeric(const char *name, pid_t *ret)
{
	int v;

	if (!isdigit((unsigned char)name[0]) || emu_kstrtoint(name, 10, &v) || v <= 0)
		return false;
	*ret = (pid_t)v;
	return true;
}

/* Every thread of every process under the proc root that is not in a table entry outside g
 * (entries are sorted by id). A thread that appeared since forget_exited() reads as in the default
 * group, as the table would have it. */
static void show_default(struct emu *e, const struct emu_group *g, struct emu_buf *out)
{
	char path[4096];
	DIR *procs = opendir(e->opt.proc_root);

	if (!procs)
		return;
	for (struct dirent *p; (p = readdir(procs)) != NULL;) {
		pid_t pid, tid;
		if (!numeric(p->d_name, &pid))
			continue;
		proc_path(e, path, sizeof(path), pid, "task");
		DIR *threads = opendir(path);
		if (!threads)
			continue; /* it exited meanwhile */
		for (struct dirent *t; (t = readdir(threads)) != NULL;) {
			if (!numeric(t->d_name, &tid))
				continue;
			struct emu_task key = { .tid = tid };
			const struct emu_task *found =
				e->task_count ? bsearch(&key, e->tasks, e->task_count, sizeof(key), by_tid) : NULL;
			if (!found || listed_in(found->group, g))
				emu_buf_printf(out, "%d\n", (int)tid);
		}
		closedir(threads);
	}
	closedir(procs);
}

int emu_tasks_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	const struct emu_group *g = n->group;

	forget_exited(e);
	if (g == emu_default_group(e)) {
		if (e->task_count)
			qsort(e->tasks, e->task_count, sizeof(e->tasks[0]), by_tid);
		show_default(e, g, out);
		return 0;
	}
	for (size_t i = 0; i < e->task_count; i++)
		if (listed_in(e->tasks[i].group, g))
			emu_buf_printf(out, "%d\n", (int)e->tasks[i].tid);
	return 0;
}

void emu_tasks_regroup(struct emu *e, struct emu_group *g, struct emu_group *dest)
{
	size_t kept = 0;

	for (size_t i = 0; i < e->task_count; i++) {
		struct emu_task *t = &e->tasks[i];
		if (t->group == g || (!g->is_mon && t->group->parent == g))
			t->group = dest;
		if (t->group != emu_default_group(e))
			e->tasks[kept++] = *t;
	}
	e->task_count = kept;
}

void emu_tasks_fini(struct emu *e)
{
	free(e->tasks);
	e->tasks = NULL;
	e->task_count = e->task_cap = 0;
}
