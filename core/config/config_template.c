/* [vm-template "NAME"]: which keys a template may not hold, which template a VM falls under, and the
 * desired set of partitions the file and the running VMs make together. Pure: the VMs come in as
 * names, found elsewhere. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config_internal.h"

/* Keys that would be the same in every VM's partition where each needs its own, and why. */
static const struct {
	const char *key;
	const char *why;
} refused[] = {
	{ "partid", "every VM's partition needs a PARTID of its own (resctrl gives each group one)" },
	{ "cgroup", "each VM's partition holds that VM's scope" },
	{ "vm", "each VM's partition is that VM's" },
	{ "pids", "each VM's partition holds that VM's threads" },
	{ "cpus", "a CPU belongs to one group at a time" },
};

const char *config_template_refuses(const char *key)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(refused[i].key, key))
			return refused[i].why;
	return NULL;
}

const struct vm_template *config_template_for(const struct config *c, const char *vm)
{
	for (size_t i = 0; i < c->template_count; i++)
		if (c->templates[i].match && fnmatch(c->templates[i].match, vm, 0) == 0)
			return &c->templates[i];
	return NULL;
}

/* Why VM `vm` gets no partition of its own although template `t` matches it, or NULL. */
static const char *instance_refused(const struct config *c, const char *vm, char *why, size_t len)
{
	struct err err = { "" };

	if (name_check(vm, &err) < 0) {
		snprintf(why, len, "its name is not a partition name: %s", err.text);
		return why;
	}
	for (size_t i = 0; i < c->partition_count; i++) {
		const struct partition_config *p = &c->partitions[i];
		if (!strcmp(p->name, vm)) {
			snprintf(why, len, "the file has a partition of that name (line %u)", p->origin.line);
			return why;
		}
		if (p->vm && !strcmp(p->vm, vm)) {
			snprintf(why, len, "partition \"%s\" (line %u) has it as its vm", p->name, p->origin.line);
			return why;
		}
	}
	return NULL;
}

/* Partition `vm` from template `t`, in slot `p` of `c` (whose extensions it shares). */
static int instantiate(struct config *c, struct partition_config *p, const struct vm_template *t, const char *vm,
		       struct err *err)
{
	size_t lines = config_partition_key_count(c) + config_template_section.key_count;
	int r = config_partition_copy(c, p, &t->partition, lines, err);

	if (r < 0)
		return r;
	snprintf(p->name, sizeof(p->name), "%s", vm);
	if (!(p->vm = strdup(vm))) {
		partition_config_fini(c, p);
		return err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int config_instantiate(const struct config *file, const char *const *vms, size_t vm_count, struct config_instances *ret,
		       struct err *err)
{
	struct config *c = NULL;
	const char **origins = NULL;
	char why[256];
	int r = config_clone(file, vm_count, &c, err);

	if (r < 0)
		return r;
	origins = calloc(c->partition_count + vm_count + 1, sizeof(*origins));
	if (!origins) {
		config_free(c);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < vm_count; i++) {
		const struct vm_template *t = config_template_for(c, vms[i]);
		if (!t)
			continue;
		if (instance_refused(file, vms[i], why, sizeof(why))) {
			if (ret->skipped)
				ret->skipped(ret->ctx, vms[i], t->name, why);
			continue;
		}
		if ((r = instantiate(c, &c->partitions[c->partition_count], t, vms[i], err)) < 0)
			break;
		origins[c->partition_count++] = t->name;
	}
	if (r < 0) {
		free(origins);
		config_free(c);
		return r;
	}
	ret->config = c;
	ret->origins = origins;
	return 0;
}
