#include "backends/cgroup/vm_scope.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/parse.h"

#define MACHINED_PREFIX "machine-"
#define MACHINED_SUFFIX ".scope"
#define LIBVIRT_SUFFIX	".libvirt-qemu"
#define QEMU_PREFIX	"qemu-"

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* systemd's unit name escapes (\xNN) undone; false for an escape that makes no name ('/', NUL). */
static bool unescape_unit(const char *s, size_t len, char *out, size_t out_len)
{
	size_t used = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '\\') {
			if (i + 3 >= len || s[i + 1] != 'x' || hex_digit_value(s[i + 2]) < 0 ||
			    hex_digit_value(s[i + 3]) < 0)
				return false;
			c = (char)(hex_digit_value(s[i + 2]) * 16 + hex_digit_value(s[i + 3]));
			i += 3;
			if (c == '/' || c == '\0')
				return false;
		}
		if (used + 1 >= out_len)
			return false;
		out[used++] = c;
	}
	out[used] = '\0';
	return true;
}

/* libvirt's machine name "qemu-N-NAME" (and "qemu-NAME" before libvirt 3): the VM's name. */
static bool qemu_machine(const char *machine, char *name, size_t len)
{
	if (strncmp(machine, QEMU_PREFIX, strlen(QEMU_PREFIX)))
		return false;
	const char *rest = machine + strlen(QEMU_PREFIX);
	size_t digits = strspn(rest, "0123456789");
	if (digits && rest[digits] == '-' && rest[digits + 1])
		rest += digits + 1;
	if (!*rest || strlen(rest) >= len)
		return false;
	snprintf(name, len, "%s", rest);
	return true;
}

static bool machined_scope(const char *dirname, char *name, size_t len)
{
	size_t n = strlen(dirname), pre = strlen(MACHINED_PREFIX), suf = strlen(MACHINED_SUFFIX);
	char machine[VM_NAME_MAX + 16];

	if (n <= pre + suf || strncmp(dirname, MACHINED_PREFIX, pre) || !ends_with(dirname, n, MACHINED_SUFFIX))
		return false;
	return unescape_unit(dirname + pre, n - pre - suf, machine, sizeof(machine)) &&
	       qemu_machine(machine, name, len);
}

static bool libvirt_scope(const char *dirname, char *name, size_t len)
{
	size_t n = strlen(dirname);
	char base[VM_NAME_MAX + 16];

	if (!ends_with(dirname, n, LIBVIRT_SUFFIX))
		return false;
	n -= strlen(LIBVIRT_SUFFIX);
	/* libvirt escapes a name that could pass for a cgroup file ("cpu.x", "_x") with a leading '_'. */
	if (n && dirname[0] == '_') {
		dirname++;
		n--;
	}
	if (!n || n >= sizeof(base))
		return false;
	memcpy(base, dirname, n);
	base[n] = '\0';
	if (qemu_machine(base, name, len))
		return true;
	if (n >= len)
		return false;
	memcpy(name, base, n + 1);
	return true;
}

bool vm_scope_name(const char *dirname, bool systemd, char *name, size_t len)
{
	return systemd ? machined_scope(dirname, name, len) : libvirt_scope(dirname, name, len);
}

static int add_vm(struct vm_list *l, const char *name, const char *path, size_t hierarchy)
{
	if (array_grow((void **)&l->items, &l->cap, l->count + 1, sizeof(*l->items), NULL) < 0)
		return -ENOMEM;
	struct vm_found *v = &l->items[l->count];
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->hierarchy = hierarchy;
	if (!(v->path = strdup(path)))
		return -ENOMEM;
	l->count++;
	return 0;
}

/* The scopes in `path` and in the slices (systemd) or partitions (libvirt) below it. */
static int scan_dir(const struct cgroup_tree *t, size_t h, const char *path, bool systemd, unsigned depth,
		    struct vm_list *l)
{
	char dir[2 * CGROUP_PATH_MAX], child[CGROUP_PATH_MAX], name[VM_NAME_MAX + 1];
	int r = 0;

	snprintf(dir, sizeof(dir), "%s/%s", t->hierarchies[h].dir, path);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	for (struct dirent *e; r == 0 && (e = readdir(d)) != NULL;) {
		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", path, e->d_name) >= (int)sizeof(child))
			continue;
		size_t n = strlen(e->d_name);
		if (vm_scope_name(e->d_name, systemd, name, sizeof(name)))
			r = add_vm(l, name, child, h);
		else if (depth < 4 && ends_with(e->d_name, n, systemd ? ".slice" : ".partition"))
			r = scan_dir(t, h, child, systemd, depth + 1, l);
	}
	closedir(d);
	return r;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct vm_found *)a)->name, ((const struct vm_found *)b)->name);
}

/* Sorted, each name once (a VM has one scope; should two carry one name, one of them is kept). */
static void sort_unique(struct vm_list *l)
{
	size_t kept = 0;

	if (l->count > 1)
		qsort(l->items, l->count, sizeof(*l->items), by_name);
	for (size_t i = 0; i < l->count; i++) {
		if (kept && !strcmp(l->items[kept - 1].name, l->items[i].name)) {
			free(l->items[i].path);
			continue;
		}
		l->items[kept++] = l->items[i];
	}
	l->count = kept;
}

int vm_scan(const struct cgroup_tree *t, struct vm_list *l, struct err *err)
{
	int r = 0;

	l->count = 0;
	for (size_t h = 0; h < t->count; h++) {
		bool machined = cgroup_tree_has(t, h, "machine.slice"), libvirt = cgroup_tree_has(t, h, "machine");
		if (!machined && !libvirt)
			continue;
		if (machined)
			r = scan_dir(t, h, "machine.slice", true, 0, l);
		if (r == 0 && libvirt)
			r = scan_dir(t, h, "machine", false, 0, l);
		break;
	}
	if (r < 0)
		return err_set(err, r, "out of memory listing VMs");
	sort_unique(l);
	return 0;
}

void vm_list_fini(struct vm_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		free(l->items[i].path);
	free(l->items);
	*l = (struct vm_list){ 0 };
}

const struct vm_found *vm_list_find(const struct vm_list *l, const char *name)
{
	struct vm_found key;

	snprintf(key.name, sizeof(key.name), "%s", name);
	return l->count ? bsearch(&key, l->items, l->count, sizeof(key), by_name) : NULL;
}
