/* See emu_tasks.h. Rules from fs/resctrl/rdtgroup.c: rdtgroup_tasks_write, rdtgroup_move_task,
 * __rdtgroup_move_task and show_rdt_tasks (a CTRL_MON group lists the tasks of its MON groups too,
 * because it matches on the CLOSID). */
#include "emu_tasks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_state.h"

static struct emu_task *task_find(struct emu *e, pid_t pid)
{
	for (size_t i = 0; i < e->task_count; i++)
		if (e->tasks[i].pid == pid)
			return &e->tasks[i];
	return NULL;
}

static struct emu_group *group_of_task(struct emu *e, pid_t pid)
{
	struct emu_task *t = task_find(e, pid);

	return t ? t->group : emu_default_group(e);
}

/* kill(pid, 0) finds any task the kernel's find_task_by_vpid would, threads included. */
static bool task_exists(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

static bool uid_owns_task(pid_t pid, uid_t uid)
{
	char path[64], line[256];
	unsigned real, eff, saved;
	bool owns = false;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u %u", &real, &eff, &saved) == 3)
			owns = uid == real || uid == saved;
	fclose(f);
	return owns;
}

static int remember(struct emu *e, pid_t pid, struct emu_group *g)
{
	struct emu_task *t = task_find(e, pid);

	if (t) {
		t->group = g;
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
	e->tasks[e->task_count++] = (struct emu_task){ .pid = pid, .group = g };
	return 0;
}

static int move_task(struct emu *e, pid_t pid, struct emu_group *g, const struct emu_caller *who)
{
	if (pid == 0) {
		pid = who->pid;
	} else if (!task_exists(pid)) {
		emu_status_printf(&e->status, "No task %d\n", (int)pid);
		return -ESRCH;
	}
	if (who->uid != 0 && !uid_owns_task(pid, who->uid)) {
		emu_status_printf(&e->status, "No permission to move task %d\n", (int)pid);
		return -EPERM;
	}
	struct emu_group *from = group_of_task(e, pid);
	if (from == g)
		return 0;
	if (g->is_mon && emu_ctrl_of(from) != g->parent) {
		emu_status_printf(&e->status, "Can't move task to different control group\n");
		return -EINVAL;
	}
	return remember(e, pid, g);
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
			return r; /* the pids before this one stay moved */
		}
	}
	return 0;
}

static void forget_exited(struct emu *e)
{
	size_t kept = 0;

	for (size_t i = 0; i < e->task_count; i++)
		if (task_exists(e->tasks[i].pid))
			e->tasks[kept++] = e->tasks[i];
	e->task_count = kept;
}

int emu_tasks_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	const struct emu_group *g = n->group;

	forget_exited(e);
	for (size_t i = 0; i < e->task_count; i++) {
		const struct emu_task *t = &e->tasks[i];
		if (g->is_mon ? t->group == g : emu_ctrl_of(t->group) == g)
			emu_buf_printf(out, "%d\n", (int)t->pid);
	}
	return 0;
}

void emu_tasks_regroup(struct emu *e, struct emu_group *g, struct emu_group *dest)
{
	for (size_t i = 0; i < e->task_count; i++) {
		struct emu_task *t = &e->tasks[i];
		if (t->group == g || (!g->is_mon && t->group->parent == g))
			t->group = dest;
	}
}

void emu_tasks_fini(struct emu *e)
{
	free(e->tasks);
	e->tasks = NULL;
	e->task_count = e->task_cap = 0;
}
