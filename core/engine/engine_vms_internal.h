/* Partitions that follow VMs (engine_vms.c). */
#ifndef MPAMD_CORE_ENGINE_ENGINE_VMS_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_VMS_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

struct cgroup_tree;
struct config;
struct engine;
struct engine_gen;

struct engine_vms {
	struct engine_gen *file;  /* the file's configuration, while it has [vm-template]s; NULL: none */
	struct cgroup_tree *tree; /* where VMs are listed, opened at the first need */
	bool told_no_tree;
	char **running; /* the VMs a template took at the last sync, sorted */
	size_t running_count;
	char error[ERR_TEXT_MAX]; /* why the last sync could not apply them ("": it could) */
};

/* At the start: the file's templates make their VMs' partitions. */
void engine_vms_start(struct engine *e);
/* The running VMs are listed again; the partitions follow when the set a template takes changed. */
void engine_vms_sync(struct engine *e);
/* A reload: `fresh` (owned) and one partition per running VM its templates take, applied with
 * engine_apply_desired (its report in *ret_report). */
int engine_vms_reload(struct engine *e, struct config *fresh, json_t **ret_report, struct err *err);
void engine_vms_fini(struct engine *e);

#endif
