#include "backends/shared/threads.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/config/model.h"

static int append(pid_t **list, size_t *count, size_t *cap, pid_t tid)
{
	if (*count == *cap) {
		size_t bigger = *cap ? *cap * 2 : 16;
		pid_t *grown = realloc(*list, bigger * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		*list = grown;
		*cap = bigger;
	}
	(*list)[(*count)++] = tid;
	return 0;
}

/* A directory entry that is a thread id: decimal digits only, within pid_t. */
static pid_t tid_of(const char *name)
{
	char *end;
	long v;

	if (name[0] < '0' || name[0] > '9')
		return 0;
	errno = 0;
	v = strtol(name, &end, 10);
	return *end || errno || v <= 0 || v > PID_LIMIT ? 0 : (pid_t)v;
}

int process_threads(const char *proc_root, pid_t pid, pid_t **ret, size_t *ret_count, struct err *err)
{
	char path[4200];
	pid_t *list = NULL;
	size_t count = 0, cap = 0;
	int r = 0;

	snprintf(path, sizeof(path), "%s/%d/task", proc_root ? proc_root : "/proc", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return err_set(err, errno == ENOENT ? -ESRCH : -errno, "process %d: cannot list %s: %s", (int)pid, path,
			       strerror(errno));
	for (struct dirent *d; r == 0 && (d = readdir(dir)) != NULL;) {
		pid_t tid = tid_of(d->d_name);
		if (tid)
			r = append(&list, &count, &cap, tid);
	}
	closedir(dir);
	if (r == 0 && count == 0)
		r = err_set(err, -ESRCH, "process %d has no threads left", (int)pid);
	else if (r < 0)
		err_set(err, r, "out of memory");
	if (r < 0) {
		free(list);
		return r;
	}
	*ret = list;
	*ret_count = count;
	return 0;
}

int task_file_read(int dirfd, const char *file, pid_t **ids, size_t *count, size_t *cap)
{
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	FILE *in = fd >= 0 ? fdopen(fd, "re") : NULL;
	long id;
	int r = 0;

	if (!in) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	while (r == 0 && fscanf(in, "%ld", &id) == 1) {
		if (id <= 0 || id > PID_LIMIT)
			continue;
		r = array_grow((void **)ids, cap, *count + 1, sizeof(**ids), NULL);
		if (r == 0)
			(*ids)[(*count)++] = (pid_t)id;
	}
	if (r == 0 && ferror(in))
		r = -EIO;
	fclose(in);
	return r;
}

static int by_id(const void *x, const void *y)
{
	pid_t a = *(const pid_t *)x, b = *(const pid_t *)y;

	return (a > b) - (a < b);
}

void thread_ids_sort(pid_t *ids, size_t count)
{
	if (count > 1)
		qsort(ids, count, sizeof(*ids), by_id);
}

bool thread_ids_have(const pid_t *sorted, size_t count, pid_t tid)
{
	return count && bsearch(&tid, sorted, count, sizeof(tid), by_id);
}
