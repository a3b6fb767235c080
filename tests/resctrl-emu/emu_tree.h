/* The directory tree: what a path names, and what a directory lists.
 *
 *   /                 the default group: its files, info/, mon_groups/, mon_data/, user CTRL_MON
 *                     groups and .emu_ctl
 *   /G                a CTRL_MON group: its files, mon_groups/, mon_data/
 *   /G/mon_groups/M   a MON group: its files, mon_data/
 *   .../mon_data/mon_L3_XX/EVENT
 *   /info/{last_cmd_status, L3/, MB/, L3_MON/} */
#ifndef MPAMD_TESTS_RESCTRL_EMU_TREE_H
#define MPAMD_TESTS_RESCTRL_EMU_TREE_H

#include <stdbool.h>

#include "emu_node.h"

/* 0, -ENOENT, -ENOTDIR or -ENAMETOOLONG. */
int emu_resolve(struct emu *e, const char *path, struct emu_node *ret);

typedef void emu_list_fn(void *ctx, const char *name, bool is_dir);
/* Calls fn for each entry of a directory node; -ENOTDIR for a file. */
int emu_list(struct emu *e, const struct emu_node *dir, emu_list_fn *fn, void *ctx);

#endif
