/* What a path in the mount means: a node (directory or file) and, for files, the handlers that
 * produce its text and take its writes. Handlers return 0 or -errno, as the kernel's do. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_NODE_H
#define MPAMD_TESTS_RESCTRL_EMU_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "emu_text.h"

struct emu;
struct emu_group;
struct emu_node;

/* Who wrote: the writer's thread id and fs uid, from the FUSE request. */
struct emu_caller {
	pid_t pid;
	uid_t uid;
};

typedef int emu_show_fn(struct emu *e, const struct emu_node *n, struct emu_buf *out);
/* buf holds len bytes and a terminating NUL (handlers may modify it, as kernfs allows). */
typedef int emu_write_fn(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who);

enum emu_file_flag {
	EMU_F_CTRL = 1 << 0,	     /* in CTRL_MON group directories, the default group included */
	EMU_F_MON = 1 << 1,	     /* in MON group directories */
	EMU_F_DEBUG = 1 << 2,	     /* only when mounted with -o debug */
	EMU_F_ASSIGN = 1 << 3,	     /* only with assignable MBM counters */
	EMU_F_THROTTLE = 1 << 4,     /* only when the MB throttle mode is defined */
	EMU_F_EVENT = 1 << 5,	     /* mon_data: only when the profile has the event */
	EMU_F_RESNAME = 1 << 6,	     /* the name holds %s for the monitoring resource (mbm_%s_assignments) */
	EMU_F_MBA_SC = 1 << 7,	     /* only when mounted with -o mba_MBps */
	EMU_F_IO_ALLOC = 1 << 8,     /* only where the L3 is io_alloc capable */
	EMU_F_CONFIGURABLE = 1 << 9, /* writable (0644) where the counters are configurable */
};

struct emu_file {
	const char *name;
	unsigned mode;
	emu_show_fn *show;
	emu_write_fn *write; /* NULL: read-only */
	unsigned flags;
	int event; /* mon_data files: enum emu_event */
};

enum emu_node_kind {
	EMU_N_GROUP,	     /* a CTRL_MON or MON group directory (the mount root is the default group) */
	EMU_N_MON_GROUPS,    /* a CTRL_MON group's mon_groups */
	EMU_N_MON_DATA,	     /* a group's mon_data */
	EMU_N_MON_DOMAIN,    /* mon_data/mon_L3_XX */
	EMU_N_INFO,	     /* info */
	EMU_N_INFO_RES,	     /* info/L3, info/MB, info/L3_MON */
	EMU_N_EVENT_CONFIGS, /* info/L3_MON/event_configs */
	EMU_N_EVENT_CONFIG,  /* info/L3_MON/event_configs/EVENT */
	EMU_N_FILE,
};

enum emu_info_res {
	EMU_INFO_TOP,	 /* files directly in info */
	EMU_INFO_L3,	 /* L3, or L3CODE under CDP */
	EMU_INFO_L3DATA, /* L3DATA: only under CDP */
	EMU_INFO_MB,	 /* MB, where it is a schema (emu_has_mb) */
	EMU_INFO_L3_MON,
	EMU_INFO_COUNT,
};

struct emu_node {
	enum emu_node_kind kind;
	enum emu_node_kind dir;	 /* files: the kind of directory holding them */
	struct emu_group *group; /* group directories and everything inside them */
	unsigned domain;	 /* mon_data/mon_L3_XX and its files */
	enum emu_info_res res;	 /* info directories and their files */
	int event;		 /* event_configs/EVENT and its files: enum emu_event */
	const struct emu_file *file;
};

/* The files a directory can hold (some may be absent, see emu_file_present); *count entries. */
const struct emu_file *emu_files_of(enum emu_node_kind dir, enum emu_info_res res, size_t *count);
bool emu_file_present(const struct emu *e, const struct emu_node *dir, const struct emu_file *f);
/* Its mode as stat shows it. */
unsigned emu_file_mode(const struct emu *e, const struct emu_file *f);
/* The control file at the mount root. */
const struct emu_file *emu_ctl_file(void);
/* An info directory's name: L3 (L3CODE, L3DATA under CDP), MB, or <RES>_MON for the profile's
 * monitoring resource. */
const char *emu_info_res_name(const struct emu *e, enum emu_info_res res);
/* Whether the info directory exists. */
bool emu_info_res_present(const struct emu *e, enum emu_info_res res);
/* A file's name in the mount (EMU_F_RESNAME names filled in). */
const char *emu_file_name(const struct emu *e, const struct emu_file *f, char *buf, size_t len);
/* A monitoring domain directory's name: mon_<RES>_NN. */
void emu_domain_name(const struct emu *e, unsigned domain, char *buf, size_t len);

#endif
