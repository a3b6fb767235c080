/* The pure parts of placement, table-tested: VM names from scope directories (machined's and
 * libvirt's layouts, systemd's escapes), the cgroup hierarchies from mountinfo and their search
 * order, a task's cgroup from /proc/PID/cgroup; then the same code on a fake tree of directories: a
 * cgroup's threads with those below it, and the VMs of a tree. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/cgroup/cgroup_tree.h"
#include "backends/cgroup/vm_scope.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static void test_scope_names(void **state)
{
	static const struct {
		const char *dir;
		bool systemd;
		const char *vm; /* NULL: not a VM's scope */
	} cases[] = {
		{ "machine-qemu\\x2d1\\x2dweb.scope", true, "web" },
		{ "machine-qemu\\x2d12\\x2dtenant\\x2d1.scope", true, "tenant-1" },
		{ "machine-qemu\\x2d3\\x2dmy\\x2dvm\\x2d01.scope", true, "my-vm-01" },
		{ "machine-qemu\\x2dweb.scope", true, "web" }, /* libvirt before 3: no number */
		{ "machine-qemu\\x2d2\\x2ddb\\x5fmain.scope", true, "db_main" },
		{ "machine-qemu\\x2d2\\x2dDB.scope", true, "DB" },
		{ "machine-lxc\\x2d1\\x2dct.scope", true, NULL },     /* a container */
		{ "machine-qemu\\x2d1\\x2dweb.service", true, NULL }, /* not a scope */
		{ "machine-tenants.slice", true, NULL },
		{ "machine-qemu\\x2d1\\x2dw\\x2fb.scope", true, NULL }, /* an escaped '/' names nothing */
		{ "machine-qemu\\x2d1\\x2dweb\\x2.scope", true, NULL }, /* a cut escape */
		{ "machine-qemu\\x2d1\\x2dweb\\xzz.scope", true, NULL },
		{ "machine-.scope", true, NULL },
		{ "machine-qemu\\x2d.scope", true, NULL },
		{ "web.libvirt-qemu", true, NULL }, /* libvirt's layout is not in a slice */
		{ "web.libvirt-qemu", false, "web" },
		{ "qemu-3-web.libvirt-qemu", false, "web" },
		{ "qemu-3-my-vm.libvirt-qemu", false, "my-vm" },
		{ "_cpu.x.libvirt-qemu", false, "cpu.x" }, /* libvirt's escape of a controller-like name */
		{ "__x.libvirt-qemu", false, "_x" },
		{ "web.libvirt-lxc", false, NULL },
		{ ".libvirt-qemu", false, NULL },
		{ "emulator", false, NULL },
		{ "machine-qemu\\x2d1\\x2dweb.scope", false, NULL },
	};
	char name[VM_NAME_MAX + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool is = vm_scope_name(cases[i].dir, cases[i].systemd, name, sizeof(name));
		if (is != (cases[i].vm != NULL) || (is && strcmp(name, cases[i].vm)))
			fail_msg("%s (%s): got %s, expected %s", cases[i].dir, cases[i].systemd ? "slice" : "machine",
				 is ? name : "no VM", cases[i].vm ? cases[i].vm : "no VM");
	}
	/* A name too long for the buffer is no name, not a cut one. */
	assert_false(vm_scope_name("machine-qemu\\x2d1\\x2dabcdefgh.scope", true, name, 4));
	assert_false(vm_scope_name("abcdefgh.libvirt-qemu", false, name, 4));
}

/* This host's hybrid layout (v1 controllers, name=systemd, v2 at unified), written out of order. */
static const char hybrid[] =
	"30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	"41 30 0:38 / /sys/fs/cgroup/net_cls rw,relatime - cgroup cgroup rw,net_cls,net_prio\n"
	"31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
	"39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime shared:9 - cgroup cgroup rw,xattr,name=systemd\n"
	"40 30 0:37 / /sys/fs/cgroup/unified rw,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate\n"
	"25 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n";

static struct cgroup_tree *parse(const char *text)
{
	struct cgroup_tree *t = calloc(1, sizeof(*t));
	struct err err = { "" };
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(t);
	assert_non_null(in);
	int r = cgroup_tree_parse(in, t, &err);
	fclose(in);
	if (r < 0) {
		free(t);
		return NULL;
	}
	return t;
}

static void test_hierarchy_order(void **state)
{
	static const char *const expected[] = { "/sys/fs/cgroup/unified",     "/sys/fs/cgroup/systemd",
						"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/memory",
						"/sys/fs/cgroup/pids",	      "/sys/fs/cgroup/net_cls" };
	struct cgroup_tree *t = parse(hybrid);

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->count, 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(t->hierarchies[i].dir, expected[i]);
	assert_true(t->hierarchies[0].v2);
	assert_false(t->hierarchies[1].v2);
	assert_string_equal(t->hierarchies[1].prefix, "");
	free(t);

	/* A mount of a part of a hierarchy (a container's view), and a blank in a path (\040). */
	t = parse("50 1 0:40 /lxc/c1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
		  "51 1 0:41 / /mnt/my\\040cgroups rw - cgroup cgroup rw,name=systemd\n");
	assert_non_null(t);
	assert_string_equal(t->hierarchies[0].prefix, "/lxc/c1");
	assert_string_equal(t->hierarchies[1].dir, "/mnt/my cgroups");
	free(t);

	assert_null(parse("25 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"));
	assert_null(parse("garbage\n40 30 0:37 / /x rw\n"));
}

static void test_task_cgroup(void **state)
{
	static const char proc[] = "12:net_cls,net_prio:/\n"
				   "4:memory:/machine.slice/machine-qemu\\x2d1\\x2dweb.scope\n"
				   "3:cpu,cpuacct:/machine/web.libvirt-qemu/vcpu0\n"
				   "1:name=systemd:/machine.slice/machine-qemu\\x2d1\\x2dweb.scope\n"
				   "0::/mpamd-t/app/libvirt/vcpu1\n";
	static const struct {
		bool v2;
		const char *options, *prefix;
		int r;
		const char *path;
	} cases[] = {
		{ true, "rw", "", 0, "mpamd-t/app/libvirt/vcpu1" },
		{ true, "rw", "/mpamd-t", 0, "app/libvirt/vcpu1" },
		{ true, "rw", "/mpamd-t/app", 0, "libvirt/vcpu1" },
		{ true, "rw", "/mpamd-t/app/libvirt/vcpu1", 0, "" },
		{ true, "rw", "/mpamd", -ENOENT, NULL }, /* a prefix of a name is not a parent */
		{ true, "rw", "/other", -ENOENT, NULL },
		{ false, "rw,cpuacct,cpu", "", 0, "machine/web.libvirt-qemu/vcpu0" },
		{ false, "rw,cpu", "/machine", 0, "web.libvirt-qemu/vcpu0" },
		{ false, "rw,xattr,name=systemd", "", 0, "machine.slice/machine-qemu\\x2d1\\x2dweb.scope" },
		{ false, "rw,memory", "/machine.slice", 0, "machine-qemu\\x2d1\\x2dweb.scope" },
		{ false, "rw,pids", "", -ENOENT, NULL }, /* no line for it */
		{ false, "rw,net_prio,net_cls", "", 0, "" },
	};
	char path[CGROUP_PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cgroup_hierarchy h = { .v2 = cases[i].v2 };
		snprintf(h.options, sizeof(h.options), "%s", cases[i].options);
		snprintf(h.prefix, sizeof(h.prefix), "%s", cases[i].prefix);
		int r = cgroup_path_in(&h, proc, path, sizeof(path));
		if (r != cases[i].r || (r == 0 && strcmp(path, cases[i].path)))
			fail_msg("%s %s: %d '%s', expected %d '%s'", cases[i].options, cases[i].prefix, r,
				 r == 0 ? path : "", cases[i].r, cases[i].path ? cases[i].path : "");
	}
	/* v2 only: a host without v1 lines has no v1 place for a task. */
	struct cgroup_hierarchy cpu = { .v2 = false, .options = "rw,cpu" };
	assert_int_equal(cgroup_path_in(&cpu, "0::/a\n", path, sizeof(path)), -ENOENT);
}

/* ---- the same code over a tree of directories standing in for a cgroup v2 mount ---- */

static char fake[64];

/* The file `rel` below the fake tree holding `text`, or the directory `rel` when `text` is NULL. */
static void put(const char *rel, const char *text)
{
	if (text)
		write_file_below(fake, rel, text);
	else
		make_dirs_below(fake, rel);
}

static struct cgroup_tree *fake_tree(const char *root)
{
	char mountinfo[256], line[256];
	struct cgroup_tree *t = calloc(1, sizeof(*t));
	struct err err = { "" };

	assert_non_null(t);
	snprintf(mountinfo, sizeof(mountinfo), "%s/mountinfo", fake);
	snprintf(line, sizeof(line), "40 30 0:37 / %s rw - cgroup2 cgroup2 rw\n", fake);
	put("mountinfo", line);
	if (cgroup_tree_open(root, mountinfo, t, &err) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

static int setup_fake(void **state)
{
	(void)state;
	snprintf(fake, sizeof(fake), "/tmp/mpamd-cgtree-XXXXXX");
	return mkdtemp(fake) ? 0 : -1;
}

static int teardown_fake(void **state)
{
	(void)state;
	return remove_tree(fake);
}

static bool skip_other(void *ctx, size_t h, const char *path)
{
	(void)h;
	return !strcmp(path, ctx);
}

static int by_id(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

static void test_threads_below(void **state)
{
	char root[96];
	pid_t *ids = NULL;
	size_t count = 0, cap = 0;
	struct err err = { "" };

	(void)state;
	put("t/app/cgroup.threads", "100\n101\n");
	put("t/app/libvirt/cgroup.threads", "");
	put("t/app/libvirt/vcpu0/cgroup.threads", "102\n");
	put("t/app/libvirt/emulator/cgroup.threads", "103\n104\n");
	put("t/app/other/cgroup.threads", "200\n"); /* another partition's */
	snprintf(root, sizeof(root), "%s/t", fake);
	struct cgroup_tree *t = fake_tree(root);
	assert_non_null(t);
	assert_int_equal(t->count, 1);
	assert_string_equal(t->hierarchies[0].prefix, "/t");
	assert_int_equal(cgroup_tree_find(t, "app/libvirt"), 0);
	assert_int_equal(cgroup_tree_find(t, "app/nothing"), -ENOENT);
	assert_int_equal(cgroup_tree_threads(t, 0, "app", skip_other, "app/other", &ids, &count, &cap, &err), 0);
	qsort(ids, count, sizeof(*ids), by_id);
	assert_int_equal(count, 5);
	for (size_t i = 0; i < count; i++)
		assert_int_equal(ids[i], 100 + (pid_t)i);
	assert_int_equal(cgroup_tree_threads(t, 0, "gone", NULL, NULL, &ids, &count, &cap, &err), -ENOENT);
	assert_non_null(strstr(err.text, "gone"));
	free(ids);
	free(t);

	/* A root outside every mount, or not a directory: said. */
	assert_null(fake_tree("/proc/self"));
	snprintf(root, sizeof(root), "%s/t/app/cgroup.threads", fake);
	assert_null(fake_tree(root));
}

static void test_vm_scan(void **state)
{
	char root[96];
	struct vm_list vms = { 0 };
	struct err err = { "" };

	(void)state;
	put("v/machine.slice/machine-qemu\\x2d4\\x2dweb.scope/libvirt/vcpu0", NULL);
	put("v/machine.slice/machine-qemu\\x2d9\\x2dtenant\\x2d1.scope", NULL);
	put("v/machine.slice/machine-tenants.slice/machine-qemu\\x2d5\\x2dtenant\\x2d2.scope", NULL);
	put("v/machine.slice/machine-lxc\\x2d1\\x2dct.scope", NULL);
	put("v/machine.slice/not-a-vm", NULL);
	snprintf(root, sizeof(root), "%s/v", fake);
	struct cgroup_tree *t = fake_tree(root);
	assert_non_null(t);
	assert_int_equal(vm_scan(t, &vms, &err), 0);
	assert_int_equal(vms.count, 3);
	assert_string_equal(vms.items[0].name, "tenant-1");
	assert_string_equal(vms.items[1].name, "tenant-2");
	assert_string_equal(vms.items[1].path,
			    "machine.slice/machine-tenants.slice/machine-qemu\\x2d5\\x2dtenant\\x2d2.scope");
	assert_string_equal(vms.items[2].name, "web");
	assert_non_null(vm_list_find(&vms, "web"));
	assert_null(vm_list_find(&vms, "ct"));
	vm_list_fini(&vms);
	free(t);

	/* libvirt without systemd, and a custom partition below machine */
	put("l/machine/qemu-2-db.libvirt-qemu/vcpu0", NULL);
	put("l/machine/old.libvirt-qemu", NULL);
	put("l/machine/tenants.partition/_cpu.libvirt-qemu", NULL);
	snprintf(root, sizeof(root), "%s/l", fake);
	t = fake_tree(root);
	assert_int_equal(vm_scan(t, &vms, &err), 0);
	assert_int_equal(vms.count, 3);
	assert_string_equal(vms.items[0].name, "cpu");
	assert_string_equal(vms.items[0].path, "machine/tenants.partition/_cpu.libvirt-qemu");
	assert_string_equal(vms.items[1].name, "db");
	assert_string_equal(vms.items[2].name, "old");
	vm_list_fini(&vms);
	free(t);

	/* No machine slice at all: no VM, no error. */
	put("e/system.slice", NULL);
	snprintf(root, sizeof(root), "%s/e", fake);
	t = fake_tree(root);
	assert_int_equal(vm_scan(t, &vms, &err), 0);
	assert_int_equal(vms.count, 0);
	vm_list_fini(&vms);
	free(t);
}

TEST_MAIN({
	cmocka_unit_test(test_scope_names),
	cmocka_unit_test(test_hierarchy_order),
	cmocka_unit_test(test_task_cgroup),
	cmocka_unit_test_setup_teardown(test_threads_below, setup_fake, teardown_fake),
	cmocka_unit_test_setup_teardown(test_vm_scan, setup_fake, teardown_fake),
})
