/* See emu_tasks.h. Rules from fs/resctrl/rdtgroup.c (Linux 7.3): rdtgroup_tasks_write (one id or a
 * comma list per write, kstrtoint base 0 after strim, "Task list parsing error pid %s", "Invalid
 * pid %d", "Error while processing task %d" after a failure, earlier ids stay moved),
 * rdtgroup_move_task (find_task_by_vpid: the id names one thread, a process id its main thread
 * only; "No task %d" and ESRCH when there is none; 0 is the writing thread),
 * rdtgroup_task_write_permission (the writer's euid must be root or the thread's uid or suid),
 * __rdtgroup_move_task ("Can't move task to different control group") and show_rdt_tasks
 * (every thread of the host whose CLOSID matches a CTRL_MON group, or whose CLOSID and RMID match a
 * MON group: a CTRL_MON group lists its MON groups' threads too, and the default group lists
 * every thread not in another CTRL_MON group). Which thread is where: emu_threads.h. */
#include "emu_tasks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_state.h"
#include "emu_threads.h"

static bool uid_owns_task(const struct emu *e, pid_t tid, uid_t uid)
{
	char path[4096], line[256];
	unsigned real, eff, saved;
	bool owns = false;

	snprintf(path, sizeof(path), "%s/%d/status", e->opt.proc_root, (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u %u", &real, &eff, &saved) == 3)
			owns = uid == real || uid == saved;
	fclose(f);
	return owns;
}

/* The thread `tid` is now: threads created since the last look are placed first, in their creators'
 * groups, so that this move cannot carry them along. */
static int thread_now(struct emu *e, pid_t tid, struct emu_task **ret)
{
	int r = emu_threads_sync(e);

	return r ? r : emu_threads_adopt(e, tid, ret);
}

static int move_task(struct emu *e, pid_t tid, struct emu_group *g, const struct emu_caller *who)
{
	struct emu_task *t;

	if (tid == 0)
		tid = who->pid; /* FUSE reports the writing thread's id */
	int r = thread_now(e, tid, &t);
	if (r)
		return r;
	if (!t) {
		emu_status_printf(&e->status, "No task %d\n", (int)tid);
		return -ESRCH;
	}
	if (who->uid != 0 && !uid_owns_task(e, tid, who->uid)) {
		emu_status_printf(&e->status, "No permission to move task %d\n", (int)tid);
		return -EPERM;
	}
	if (t->group == g)
		return 0;
	if (g->is_mon && emu_ctrl_of(t->group) != g->parent) {
		emu_status_printf(&e->status, "Can't move task to different control group\n");
		return -EINVAL;
	}
	t->group = g;
	return 0;
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

static bool listed_in(struct emu_group *t, const struct emu_group *g)
{
	return g->is_mon ? t == g : emu_ctrl_of(t) == g;
}

/* The default group lists every thread of the host but those followed into another CTRL_MON group. */
static int show_default(struct emu *e, const struct emu_group *root, struct emu_buf *out)
{
	pid_t *all;
	size_t count;
	int r = emu_threads_all(e, &all, &count);

	if (r)
		return r;
	for (size_t i = 0; i < count; i++) {
		const struct emu_task *t = emu_threads_find(e, all[i]);
		if (!t || listed_in(t->group, root))
			emu_buf_printf(out, "%d\n", (int)all[i]);
	}
	free(all);
	return 0;
}

int emu_tasks_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	int r = emu_threads_sync(e);

	if (r)
		return r;
	if (n->group == emu_default_group(e))
		return show_default(e, n->group, out);
	for (size_t i = 0; i < e->task_count; i++)
		if (listed_in(e->tasks[i].group, n->group))
			emu_buf_printf(out, "%d\n", (int)e->tasks[i].tid);
	return 0;
}
