/* Partitions that follow VMs: the running VMs are listed from the cgroup tree at every reconcile (and
 * at a reload), and when the set a [vm-template] takes has changed, the desired set of partitions —
 * the file's, and one per such VM (config_instantiate) — is applied with engine_apply_desired, which
 * opens the new VMs' partitions and removes the gone ones' (their groups with them). The file's
 * configuration is kept apart from the one in force (which holds the VMs' partitions too), so that a
 * VM starting or stopping never rereads the file, and a reload keeps the VMs' partitions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cgroup/vm_scope.h"
#include "core/base/log.h"
#include "core/engine/engine_internal.h"

static void names_free(char **names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

static void running_clear(struct engine_vms *v)
{
	names_free(v->running, v->running_count);
	v->running = NULL;
	v->running_count = 0;
}

void engine_vms_fini(struct engine *e)
{
	struct engine_vms *v = &e->vms;

	running_clear(v);
	free(v->tree);
	v->tree = NULL;
	if (v->file)
		engine_gen_drop(&e->gens, v->file);
	v->file = NULL;
}

/* The tree VMs are looked for in, opened at the first need; when it cannot be, that is said once. */
static const struct cgroup_tree *tree_of(struct engine *e)
{
	struct engine_vms *v = &e->vms;
	struct err err = { "" };

	if (v->tree || v->told_no_tree)
		return v->tree;
	v->tree = calloc(1, sizeof(*v->tree));
	if (v->tree && cgroup_tree_open(e->gens.config->global.cgroup_root, NULL, v->tree, &err) == 0)
		return v->tree;
	free(v->tree);
	v->tree = NULL;
	v->told_no_tree = true;
	log_error("VMs cannot be listed, so no [vm-template] makes a partition: %s",
		  err.text[0] ? err.text : "out of memory");
	return NULL;
}

/* The names of the running VMs some template of `file` takes, sorted (the scan sorts them). */
static int matching_vms(struct engine *e, const struct config *file, char ***ret, size_t *ret_count)
{
	const struct cgroup_tree *t = tree_of(e);
	struct vm_list list = { 0 };
	struct err err = { "" };
	char **names = NULL;
	size_t count = 0;

	*ret = NULL;
	*ret_count = 0;
	if (!t)
		return 0;
	if (vm_scan(t, &list, &err) < 0) {
		log_error("listing VMs: %s", err.text);
		return -ENOMEM;
	}
	names = calloc(list.count + 1, sizeof(*names));
	bool oom = !names;
	for (size_t i = 0; !oom && i < list.count; i++) {
		if (!config_template_for(file, list.items[i].name))
			continue;
		if ((names[count] = strdup(list.items[i].name)))
			count++;
		else
			oom = true;
	}
	vm_list_fini(&list);
	if (oom) {
		names_free(names, count);
		return -ENOMEM;
	}
	*ret = names;
	*ret_count = count;
	return 0;
}

static bool same_names(char *const *a, size_t na, char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

static void note_skipped(void *ctx, const char *vm, const char *template_name, const char *why)
{
	(void)ctx;
	log_warning("VM %s matches vm-template %s but gets no partition of its own: %s", vm, template_name, why);
}

/* The file's partitions with one per VM in `names`, applied: 0 or the refusal. */
static int apply(struct engine *e, const struct config *file, char **names, size_t count, json_t **ret_report,
		 struct err *err)
{
	struct config_instances out = { .skipped = note_skipped, .ctx = e };
	int r = config_instantiate(file, (const char *const *)names, count, &out, err);

	if (r < 0)
		return r;
	r = engine_apply_desired(e, out.config, out.origins, ret_report, err);
	free(out.origins);
	return r;
}

void engine_vms_sync(struct engine *e)
{
	struct engine_vms *v = &e->vms;
	struct err err = { "" };
	char **names;
	size_t count;

	if (!v->file || matching_vms(e, v->file->config, &names, &count) < 0)
		return;
	if (same_names(names, count, v->running, v->running_count)) {
		names_free(names, count);
		return;
	}
	if (apply(e, v->file->config, names, count, NULL, &err) < 0) {
		if (strcmp(v->error, err.text)) /* tried at every reconcile, said once per reason */
			log_error("the partitions of the running VMs cannot be made: %s", err.text);
		snprintf(v->error, sizeof(v->error), "%s", err.text);
		names_free(names, count);
		return;
	}
	v->error[0] = '\0';
	running_clear(v);
	v->running = names;
	v->running_count = count;
}

void engine_vms_start(struct engine *e)
{
	if (!e->gens.config->template_count)
		return;
	e->vms.file = e->gens.current;
	engine_gen_hold(e->vms.file);
	engine_vms_sync(e);
}

int engine_vms_reload(struct engine *e, struct config *fresh, json_t **ret_report, struct err *err)
{
	struct engine_vms *v = &e->vms;
	char **names = NULL;
	size_t count = 0;

	if (!fresh->template_count) {
		int r = engine_apply_desired(e, fresh, NULL, ret_report, err);
		if (r == 0) {
			if (v->file)
				engine_gen_drop(&e->gens, v->file);
			v->file = NULL;
			running_clear(v);
		}
		return r;
	}
	struct engine_gen *g = engine_gen_new(&e->gens, fresh);
	if (!g)
		return err_set(err, -ENOMEM, "out of memory");
	engine_gen_hold(g);
	int r = matching_vms(e, fresh, &names, &count);
	if (r < 0)
		err_set(err, r, "out of memory listing VMs");
	if (r == 0)
		r = apply(e, fresh, names, count, ret_report, err);
	if (r < 0) {
		names_free(names, count);
		engine_gen_drop(&e->gens, g);
		return r;
	}
	if (v->file)
		engine_gen_drop(&e->gens, v->file);
	v->file = g;
	running_clear(v);
	v->running = names;
	v->running_count = count;
	return 0;
}
