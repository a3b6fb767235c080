/* libvirt's VMs in the cgroup tree: which cgroup is which VM's scope (which of its threads are vCPUs:
 * qemu_threads.h).
 *
 * The layouts (systemd escapes a unit name's '-' and other characters as \xNN):
 *   systemd-machined: machine.slice/machine-qemu\x2dN\x2dNAME.scope (libvirt before 3.x:
 *     machine-qemu\x2dNAME.scope), also in a machine-*.slice below machine.slice; newer libvirt puts
 *     the threads in libvirt/emulator and libvirt/vcpuN below the scope;
 *   libvirt without systemd: machine/NAME.libvirt-qemu and machine/qemu-N-NAME.libvirt-qemu (a name
 *     that could be taken for a cgroup file is escaped with a leading '_'), also in a *.partition
 *     below machine. */
#ifndef MPAMD_BACKENDS_CGROUP_VM_SCOPE_H
#define MPAMD_BACKENDS_CGROUP_VM_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/cgroup/cgroup_tree.h"
#include "core/config/model.h"

/* The VM whose scope a cgroup directory called `dirname` is: in a systemd slice (`systemd`) or in
 * libvirt's own machine partition. true and its name in `name`; false when it is no QEMU VM's scope.
 * Pure. */
bool vm_scope_name(const char *dirname, bool systemd, char *name, size_t len);

struct vm_found {
	char name[VM_NAME_MAX + 1];
	char *path;	  /* its scope, relative to its hierarchy's start directory */
	size_t hierarchy; /* in the cgroup_tree it was found in */
};

struct vm_list {
	struct vm_found *items; /* sorted by name, each name once */
	size_t count, cap;
};

/* Every VM scope of the tree: under machine.slice and machine of the first hierarchy that has
 * either. An empty list when there is none; -ENOMEM. */
int vm_scan(const struct cgroup_tree *t, struct vm_list *ret, struct err *err);
void vm_list_fini(struct vm_list *l);
/* The VM called `name`, or NULL. */
const struct vm_found *vm_list_find(const struct vm_list *l, const char *name);

#endif
