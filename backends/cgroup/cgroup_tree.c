#include "backends/cgroup/cgroup_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/shared/threads.h"
#include "core/base/parse.h"

/* The v1 controllers in the order their hierarchies are searched: libvirt's own first. */
static const char *const controller_order[] = { "cpu",	"cpuacct", "memory",  "cpuset",
						"pids", "blkio",   "devices", "freezer" };

#define ORDER_COUNT (sizeof(controller_order) / sizeof(controller_order[0]))

/* Where a hierarchy comes in the search: v2 first, name=systemd next, then by controller. */
static unsigned rank_of(const struct cgroup_hierarchy *h)
{
	if (h->v2)
		return 0;
	if (word_list_has(h->options, "name=systemd", strlen("name=systemd")))
		return 1;
	for (unsigned i = 0; i < ORDER_COUNT; i++)
		if (word_list_has(h->options, controller_order[i], strlen(controller_order[i])))
			return 2 + i;
	return 2 + ORDER_COUNT;
}

/* mountinfo escapes blanks, tabs, newlines and backslashes in paths as \ooo. */
static void unescape_octal(char *s)
{
	char *out = s;

	for (const char *in = s; *in; in++) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' && in[3] >= '0' &&
		    in[3] <= '7') {
			*out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
			in += 3;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
}

/* One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS".
 * Fills *h for a cgroup or cgroup2 mount; false for any other. */
static bool parse_line(char *line, struct cgroup_hierarchy *h)
{
	char *fields[6], *save = NULL, *tok = strtok_r(line, " \n", &save);
	size_t n = 0;

	for (; tok && n < 6; tok = strtok_r(NULL, " \n", &save))
		fields[n++] = tok;
	while (tok && strcmp(tok, "-"))
		tok = strtok_r(NULL, " \n", &save);
	char *type = tok ? strtok_r(NULL, " \n", &save) : NULL;
	char *source = type ? strtok_r(NULL, " \n", &save) : NULL;
	char *super = source ? strtok_r(NULL, " \n", &save) : NULL;
	if (n < 6 || !super || (strcmp(type, "cgroup") && strcmp(type, "cgroup2")))
		return false;
	memset(h, 0, sizeof(*h));
	h->v2 = !strcmp(type, "cgroup2");
	unescape_octal(fields[3]);
	unescape_octal(fields[4]);
	snprintf(h->dir, sizeof(h->dir), "%s", fields[4]);
	snprintf(h->prefix, sizeof(h->prefix), "%s", strcmp(fields[3], "/") ? fields[3] : "");
	snprintf(h->options, sizeof(h->options), "%s", super);
	return true;
}

int cgroup_tree_parse(FILE *in, struct cgroup_tree *t, struct err *err)
{
	char *line = NULL;
	size_t cap = 0;

	t->count = 0;
	while (getline(&line, &cap, in) > 0 && t->count < CGROUP_HIERARCHIES) {
		struct cgroup_hierarchy h;
		if (!parse_line(line, &h))
			continue;
		/* Insertion by rank keeps the mount table's order among equals. */
		size_t at = t->count;
		while (at > 0 && rank_of(&t->hierarchies[at - 1]) > rank_of(&h)) {
			t->hierarchies[at] = t->hierarchies[at - 1];
			at--;
		}
		t->hierarchies[at] = h;
		t->count++;
	}
	free(line);
	if (t->count == 0)
		return err_set(err, -ENOENT, "no cgroup hierarchy is mounted");
	return 0;
}

/* `root` within hierarchy `h`: the longest mount point that holds it decides. */
static size_t mount_covers(const struct cgroup_hierarchy *h, const char *root)
{
	size_t len = strlen(h->dir);

	if (len == 1 && h->dir[0] == '/')
		return 1;
	return !strncmp(root, h->dir, len) && (root[len] == '/' || root[len] == '\0') ? len : 0;
}

static int tree_at_root(struct cgroup_tree *t, const char *root, struct err *err)
{
	size_t best = 0, best_len = 0;
	struct stat st;

	for (size_t i = 0; i < t->count; i++) {
		size_t len = mount_covers(&t->hierarchies[i], root);
		if (len > best_len) {
			best = i;
			best_len = len;
		}
	}
	if (!best_len)
		return err_set(err, -ENOENT, "cgroup_root %s is not in a mounted cgroup hierarchy", root);
	if (stat(root, &st) < 0)
		return err_set(err, -ENOENT, "cgroup_root %s: %s", root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, -ENOENT, "cgroup_root %s is not a directory", root);
	struct cgroup_hierarchy h = t->hierarchies[best];
	char prefix[CGROUP_PATH_MAX];
	snprintf(prefix, sizeof(prefix), "%s%s", h.prefix, root + best_len);
	snprintf(h.prefix, sizeof(h.prefix), "%s", prefix);
	snprintf(h.dir, sizeof(h.dir), "%s", root);
	t->hierarchies[0] = h;
	t->count = 1;
	return 0;
}

int cgroup_tree_open(const char *root, const char *mountinfo, struct cgroup_tree *t, struct err *err)
{
	const char *path = mountinfo ? mountinfo : CGROUP_MOUNTINFO;
	FILE *in = fopen(path, "re");

	if (!in)
		return err_set(err, -errno, "%s: %s", path, strerror(errno));
	int r = cgroup_tree_parse(in, t, err);
	fclose(in);
	if (r == 0 && root)
		r = tree_at_root(t, root, err);
	return r;
}

static void join(char *buf, size_t len, const char *dir, const char *path)
{
	snprintf(buf, len, "%s%s%s", dir, path[0] ? "/" : "", path);
}

bool cgroup_tree_has(const struct cgroup_tree *t, size_t h, const char *path)
{
	char dir[2 * CGROUP_PATH_MAX];
	struct stat st;

	join(dir, sizeof(dir), t->hierarchies[h].dir, path);
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

int cgroup_tree_find(const struct cgroup_tree *t, const char *path)
{
	for (size_t i = 0; i < t->count; i++)
		if (cgroup_tree_has(t, i, path))
			return (int)i;
	return -ENOENT;
}

struct walk {
	const struct cgroup_tree *t;
	size_t h;
	cgroup_skip_fn skip;
	void *ctx;
	pid_t **ids;
	size_t *count, *cap;
	char path[CGROUP_PATH_MAX];
};

static int walk_dir(struct walk *w, int dirfd, unsigned depth)
{
	const char *file = w->t->hierarchies[w->h].v2 ? "cgroup.threads" : "tasks";
	int r = task_file_read(dirfd, file, w->ids, w->count, w->cap);

	if (r == -ENOMEM || depth > 64)
		return r == -ENOMEM ? r : 0;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0; /* it went meanwhile */
	}
	size_t base = strlen(w->path);
	for (struct dirent *e; r != -ENOMEM && (e = readdir(dir)) != NULL;) {
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) || e->d_name[0] == '.')
			continue;
		snprintf(w->path + base, sizeof(w->path) - base, "%s%s", base ? "/" : "", e->d_name);
		if (w->skip && w->skip(w->ctx, w->h, w->path))
			continue;
		int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;
		r = walk_dir(w, sub, depth + 1);
		close(sub);
	}
	w->path[base] = '\0';
	closedir(dir);
	return r == -ENOMEM ? r : 0;
}

int cgroup_tree_threads(const struct cgroup_tree *t, size_t h, const char *path, cgroup_skip_fn skip, void *ctx,
			pid_t **ids, size_t *count, size_t *cap, struct err *err)
{
	char dir[2 * CGROUP_PATH_MAX];
	struct walk w = { .t = t, .h = h, .skip = skip, .ctx = ctx, .ids = ids, .count = count, .cap = cap };

	join(dir, sizeof(dir), t->hierarchies[h].dir, path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, errno == ENOTDIR ? -ENOENT : -errno, "cgroup %s: %s", dir, strerror(errno));
	snprintf(w.path, sizeof(w.path), "%s", path);
	int r = walk_dir(&w, fd, 0);
	close(fd);
	return r < 0 ? err_set(err, r, "out of memory listing cgroup %s", dir) : 0;
}

/* Whether a /proc/PID/cgroup line's hierarchy field ("cpu,cpuacct", "name=systemd", "" for v2) is h's:
 * each controller and name is in one hierarchy only, so one shared item decides. */
static bool line_is(const struct cgroup_hierarchy *h, const char *field, size_t len)
{
	if (h->v2)
		return len == 0;
	for (size_t at = 0; at < len;) {
		size_t n = 0;
		while (at + n < len && field[at + n] != ',')
			n++;
		if (n && word_list_has(h->options, field + at, n))
			return true;
		at += n + 1;
	}
	return false;
}

int cgroup_path_in(const struct cgroup_hierarchy *h, const char *text, char *buf, size_t len)
{
	size_t plen = strlen(h->prefix);

	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *field = strchr(line, ':');
		const char *path = field ? strchr(field + 1, ':') : NULL;
		if (!path || !line_is(h, field + 1, (size_t)(path - field - 1)))
			continue;
		path++;
		size_t n = strcspn(path, "\n");
		/* Below the start directory: its path, then '/' or the end. */
		if (n < plen || strncmp(path, h->prefix, plen) || (n > plen && path[plen] != '/'))
			return -ENOENT;
		const char *rel = path + plen;
		size_t rel_len = n - plen;
		while (rel_len && *rel == '/') {
			rel++;
			rel_len--;
		}
		if (rel_len >= len)
			return -ENOENT;
		memcpy(buf, rel, rel_len);
		buf[rel_len] = '\0';
		return 0;
	}
	return -ENOENT;
}

int cgroup_read_task(const char *proc_root, pid_t tid, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root ? proc_root : "/proc", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	ssize_t n = read(fd, buf, len - 1);
	int saved = errno;
	close(fd);
	if (n < 0)
		return saved == ESRCH ? -ESRCH : -saved;
	buf[n] = '\0';
	return 0;
}
