/* Control groups: create or adopt, schemata, tasks and CPUs. Every failed write carries the
 * kernel's own explanation from info/last_cmd_status. Each function also plans: given a
 * struct resctrl_plan it records the writes it would make instead of making them, so that what
 * `mpamctl check-config --host` shows and what mpamd does come from the same code. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "backends/shared/threads.h"
#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/base/parse.h"

static long read_hw_id(int dirfd)
{
	uint64_t id;

	return resctrl_read_uint_at(dirfd, "ctrl_hw_id", 10, &id) == 0 ? (long)id : -1;
}

/* A planned write: recorded with the file's path, its value without the newline that ends it. */
static json_t *plan_write(struct resctrl_plan *plan, const struct resctrl_group *g, const char *file, const char *text)
{
	char path[4096];
	size_t len = strlen(text);

	snprintf(path, sizeof(path), "%s/%s%s%s", plan->root, g->name, file[0] ? "/" : "", file);
	json_t *w = json_pack("{s:s,s:s}", "what", file[0] ? file : "mkdir", "path", path);
	if (!w || json_array_append_new(plan->writes, w) < 0)
		return NULL;
	if (len && json_object_set_new(w, "value", json_stringn(text, text[len - 1] == '\n' ? len - 1 : len)) < 0)
		return NULL;
	return w;
}

static void plan_note(struct resctrl_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void plan_note(struct resctrl_plan *plan, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	json_array_append_new(plan->notes, json_string(text));
}

/* One write of `text` to the group's `file`: made, or only planned. */
static int write_file(const struct resctrl_group *g, const char *file, const char *text, struct resctrl_plan *plan)
{
	if (plan)
		return plan_write(plan, g, file, text) ? 0 : -ENOMEM;
	return resctrl_write_at(g->dirfd, file, text);
}

/* The directories in `path` under rootfd (without . and ..) that hold `file` (NULL: any), each given
 * to fn when it is not NULL. */
static unsigned count_dirs(int rootfd, const char *path, const char *file,
			   void (*fn)(int rootfd, const char *name, unsigned *count), unsigned *fn_count)
{
	int fd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	char rel[2 * NAME_MAX + 32];
	unsigned count = 0;
	struct dirent *e;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(rel, sizeof(rel), "%s/%s/%s", path, e->d_name, file ? file : ".") >= (int)sizeof(rel) ||
		    !resctrl_exists_at(rootfd, rel))
			continue;
		count++;
		if (fn)
			fn(rootfd, e->d_name, fn_count);
	}
	closedir(dir);
	return count;
}

unsigned resctrl_count_groups(int rootfd)
{
	/* the default group (the root itself), and the directories with a schemata: info, mon_groups and
	 * mon_data have none */
	return 1 + count_dirs(rootfd, ".", "schemata", NULL, NULL);
}

static void add_mon_groups(int rootfd, const char *ctrl, unsigned *count)
{
	char path[NAME_MAX + 16];

	snprintf(path, sizeof(path), "%s/mon_groups", ctrl);
	*count += count_dirs(rootfd, path, NULL, NULL, NULL);
}

unsigned resctrl_count_rmid_holders(int rootfd)
{
	unsigned mon_groups = 0;
	unsigned ctrl_groups = 1 + count_dirs(rootfd, ".", "schemata", add_mon_groups, &mon_groups);

	add_mon_groups(rootfd, ".", &mon_groups);
	return ctrl_groups + mon_groups;
}

/* -ENOSPC and why when `room` has no CLOSID or no RMID left for group `name` (the kernel's answer to
 * its mkdir), else 0. */
static int no_room(int rootfd, const char *name, const struct resctrl_room *room, struct err *err)
{
	if (!room->closids_left) {
		unsigned held = resctrl_count_groups(rootfd) + room->io_alloc;
		unsigned planned = room->closids > held ? room->closids - held : 0;
		char more[64] = "";
		if (planned)
			snprintf(more, sizeof(more), " and %u new group(s) planned before this one", planned);
		return err_set(
			err, -ENOSPC,
			"cannot create resctrl group %s: no CLOSID left (resctrl has %u: the default group, %s%u "
			"existing control group(s)%s hold them)",
			name, room->closids, room->io_alloc ? "io_alloc, " : "", held - 1 - room->io_alloc, more);
	}
	if (room->rmids_counted && !room->rmids_left)
		return err_set(err, -ENOSPC,
			       "cannot create resctrl group %s: no RMID left (resctrl has %u; each control and "
			       "monitoring group holds one, and a removed group's stays in limbo until its cache "
			       "occupancy falls below info/%s_MON/max_threshold_occupancy)",
			       name, room->rmids, room->mon_res);
	return 0;
}

/* -EEXIST for a group that exists; errno of a failed look. */
static int look_for(int rootfd, const char *name, const char *what, struct err *err)
{
	struct stat st;

	if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return err_set(err, -errno, "cannot %s resctrl group %s: %s", what, name, strerror(errno));
	return 0;
}

/* What mkdir would do, without it: -EEXIST for a group that exists, -ENOSPC and why when no CLOSID or
 * no RMID is left (the kernel's answer), else 0 and the mkdir is planned. */
static int plan_mkdir(int rootfd, const struct resctrl_group *g, struct resctrl_plan *plan, struct err *err)
{
	int r = look_for(rootfd, g->name, "plan", err);

	if (r == 0)
		r = no_room(rootfd, g->name, &plan->room, err);
	if (r < 0)
		return r;
	plan->room.closids_left--;
	plan->room.rmids_left -= plan->room.rmids_counted;
	return plan_write(plan, g, "", "") ? 0 : -ENOMEM;
}

/* An existing group, opened to read: it must be a control group. */
static int open_existing(int rootfd, struct resctrl_group *g, struct err *err)
{
	g->dirfd = openat(rootfd, g->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->dirfd < 0)
		return err_set(err, -errno, "cannot open resctrl group %s: %s", g->name, strerror(errno));
	if (!resctrl_exists_at(g->dirfd, "schemata")) {
		resctrl_group_close(g);
		return err_set(err, -ENOTDIR, "%s exists but is not a resctrl control group", g->name);
	}
	g->hw_id = read_hw_id(g->dirfd);
	return 0;
}

/* Whether io_alloc holds a CLOSID now (info/L3/io_alloc, info/L3CODE/io_alloc under CDP). */
static bool io_alloc_enabled(int rootfd)
{
	char text[32];

	return (resctrl_read_at(rootfd, "info/L3/io_alloc", text, sizeof(text)) == 0 ||
		resctrl_read_at(rootfd, "info/L3CODE/io_alloc", text, sizeof(text)) == 0) &&
	       !strcmp(text, "enabled\n");
}

/* mkdir refused, with the kernel's reason read at once. "Out of RMIDs" (mkdir_rdt_prepare_rmid_alloc)
 * with EBUSY means the free list is empty and some RMID is in limbo (fs/resctrl/monitor.c
 * resctrl_find_free_rmid); with ENOSPC none is free, or on MPAM none of the CLOSID resctrl chose. */
static int mkdir_failed(int rootfd, const char *name, int r, struct err *err)
{
	char what[NAME_MAX + 32], text[ERR_TEXT_MAX];

	snprintf(what, sizeof(what), "cannot create resctrl group %s", name);
	resctrl_fail_with_status(rootfd, err, r, what);
	snprintf(text, sizeof(text), "%s", err->text);
	if (strstr(text, "(last_cmd_status: Out of CLOSIDs)") && io_alloc_enabled(rootfd))
		return err_set(err, r, "%s: io_alloc is enabled and holds the highest CLOSID", text);
	if (!strstr(text, "(last_cmd_status: Out of RMIDs)"))
		return r;
	if (r == -EBUSY)
		return err_set(
			err, r,
			"%s: every free RMID is in limbo: resctrl gives a removed group's RMID again once its cache "
			"occupancy falls below max_threshold_occupancy, which it checks every second",
			text);
	return err_set(err, r,
		       "%s: each control and monitoring group holds an RMID (on Arm MPAM one of its CLOSID's, which "
		       "may be in limbo after a group was removed)",
		       text);
}

/* The mkdir, unless the group exists (-EEXIST) or no room is left for it: a mkdir bound to fail is not
 * made, so that it cannot write over last_cmd_status. */
static int make_group(int rootfd, const char *name, const struct resctrl_room *room, struct err *err)
{
	int r = room ? look_for(rootfd, name, "create", err) : 0;

	if (r == 0 && room)
		r = no_room(rootfd, name, room, err);
	if (r < 0)
		return r;
	if (mkdirat(rootfd, name, 0755) == 0)
		return 0;
	r = errno == EEXIST ? -EEXIST : mkdir_failed(rootfd, name, -errno, err);
	/* Out of room where the groups showed some: what holds it cannot be seen (RMIDs in limbo, on MPAM
	 * those of the CLOSID resctrl chose) and may pass by itself, unlike a pool that is visibly full. */
	return r == -ENOSPC && room ? -EAGAIN : r;
}

int resctrl_group_open(int rootfd, const char *name, const struct resctrl_room *room, struct resctrl_group *g,
		       struct resctrl_plan *plan, struct err *err)
{
	memset(g, 0, sizeof(*g));
	g->dirfd = -1;
	g->hw_id = -1;
	snprintf(g->name, sizeof(g->name), "%s", name);
	int r = plan ? plan_mkdir(rootfd, g, plan, err) : make_group(rootfd, name, room, err);
	if (r == 0) {
		g->created = true;
		if (plan) /* it does not exist yet: there is nothing to open */
			return 0;
	} else if (r != -EEXIST) {
		return r;
	}
	if ((r = open_existing(rootfd, g, err)) < 0)
		return r;
	if (plan && g->hw_id >= 0)
		plan_note(plan, "adopt existing group %s/%s (CLOSID %ld)", plan->root, name, g->hw_id);
	else if (plan)
		plan_note(plan, "adopt existing group %s/%s", plan->root, name);
	return 0;
}

void resctrl_group_close(struct resctrl_group *g)
{
	if (g->dirfd >= 0)
		close(g->dirfd);
	g->dirfd = -1;
}

int resctrl_check_cbm(const struct resctrl_cache_res *res, uint64_t cbm, struct err *err)
{
	if (cbm & ~res->cbm_mask)
		return err_set(err, -ERANGE, "l3_cbm 0x%llx has bits outside cbm_mask 0x%llx", (unsigned long long)cbm,
			       (unsigned long long)res->cbm_mask);
	if ((unsigned)__builtin_popcountll(cbm) < res->min_cbm_bits)
		return err_set(err, -EINVAL, "l3_cbm 0x%llx has fewer than min_cbm_bits = %u bits",
			       (unsigned long long)cbm, res->min_cbm_bits);
	uint64_t shifted = cbm >> __builtin_ctzll(cbm);
	if (!res->sparse_masks && (shifted & (shifted + 1)))
		return err_set(err, -EINVAL, "l3_cbm 0x%llx is not contiguous and this cache needs contiguous masks",
			       (unsigned long long)cbm);
	return 0;
}

/* Takes the values of the MB and L3 lines `text` has into what the group holds; a resource `text`
 * has no line for keeps what the group held. */
static int merge_schemata(const struct resctrl_info *info, struct resctrl_group *g, const char *text, struct err *err)
{
	struct schemata s;
	int r = resctrl_parse_schemata(text, &s, err);

	if (r < 0)
		return r;
	const struct schemata_line *mb = schemata_find(&s, "MB");
	const struct schemata_line *l3 = schemata_find(&s, info->cdp_l3 ? "L3CODE" : "L3");
	if (mb) {
		g->mb_known = true;
		for (unsigned i = 0; i < info->mb_domain_count; i++)
			g->mb_known &= schemata_value(mb, info->mb_domain_ids[i], &g->mb[i]);
	}
	if (l3) {
		g->l3_known = true;
		for (unsigned i = 0; i < info->l3.domain_count; i++)
			g->l3_known &= schemata_value(l3, info->l3.domain_ids[i], &g->l3[i]);
	}
	return 0;
}

/* What a plan reads back of the MB values it would write: what the kernel shows for them (Linux's
 * MPAM glue shows a band as the percent nearest its top, not the percent written). */
static void shown_as_kernel(const struct resctrl_info *info, struct resctrl_group *g)
{
	uint32_t rung;

	for (unsigned i = 0; g->mb_known && i < info->mb_domain_count && info->mb_units != MB_MBPS; i++)
		if (g->mb[i] <= UINT32_MAX && ladder_of_value(&info->mb_ladder, (uint32_t)g->mb[i], &rung) == 0)
			g->mb[i] = ladder_shown(&info->mb_ladder, rung);
}

/* Seeds what the group holds from its schemata: an adopted group may already be right. */
static int read_group_schemata(const struct resctrl_info *info, struct resctrl_group *g, struct err *err)
{
	char text[RESCTRL_TEXT_MAX];
	int r = resctrl_read_at(g->dirfd, "schemata", text, sizeof(text));

	if (r < 0)
		return err_set(err, r, "cannot read %s/schemata: %s", g->name, strerror(-r));
	g->mb_known = g->l3_known = false;
	return merge_schemata(info, g, text, err);
}

/* A group that is only planned holds what resctrl gives a new one: MB at its maximum (the kernel's
 * default control), and a cache mask that is resctrl's to choose (so an l3_cbm is always written). */
static void new_group_schemata(const struct resctrl_info *info, struct resctrl_group *g)
{
	g->mb_known = info->mb_present && info->mb_units != MB_MBPS;
	for (unsigned i = 0; i < info->mb_domain_count; i++)
		g->mb[i] = info->mb_max_value;
	g->l3_known = false;
}

static bool all_equal(const uint64_t *have, unsigned count, uint64_t want)
{
	for (unsigned i = 0; i < count; i++)
		if (have[i] != want)
			return false;
	return true;
}

/* Whether an MB value the group shows is what writing `wanted` gives: the same rung. The kernel may
 * show a value other than the one written (Linux's MPAM glue shows the percent nearest the band's top:
 * 34% at BWA_WD 7 reads back as 34, 40% at BWA_WD 5 as 41); under mba_MBps the value itself. */
static bool mb_shows(const struct resctrl_info *info, uint64_t shown, uint64_t wanted)
{
	const struct ladder *l = &info->mb_ladder;
	uint32_t have, want;

	if (info->mb_units == MB_MBPS || !ladder_exists(l) || shown > UINT32_MAX || wanted > UINT32_MAX)
		return shown == wanted;
	if (ladder_of_shown(l, (uint32_t)shown, &have) < 0 || ladder_of_value(l, (uint32_t)wanted, &want) < 0)
		return false;
	return have == want;
}

/* Percent (or AMD's units) from domain d's mb_max; under mba_MBps the MB/s ceiling the kernel's
 * controller holds, or its "no limit". */
static uint64_t mb_to_write(const struct resctrl_info *info, const struct partition_limits *want, unsigned d)
{
	if (info->mb_units == MB_MBPS)
		return want->mb_mbps ? want->mb_mbps : RESCTRL_MBA_MAX_MBPS;
	return resctrl_mb_value(info, limits_max_at(want, d));
}

/* The MB value of each domain, in info->mb_domain_ids' order. */
static void mb_values(const struct resctrl_info *info, const struct partition_limits *want, uint64_t *ret)
{
	for (unsigned i = 0; i < info->mb_domain_count; i++)
		ret[i] = mb_to_write(info, want, i);
}

static bool mb_all_show(const struct resctrl_info *info, const uint64_t *have, const uint64_t *wanted)
{
	for (unsigned i = 0; i < info->mb_domain_count; i++)
		if (!mb_shows(info, have[i], wanted[i]))
			return false;
	return true;
}

/* "NAME:id=v;id=v\n": one value per domain. */
static void append_values(char *buf, size_t len, const char *resource, const unsigned *ids, unsigned count,
			  const uint64_t *values, bool hex)
{
	size_t used = strlen(buf);

	used += (size_t)snprintf(buf + used, len - used, "%s:", resource);
	for (unsigned i = 0; i < count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, hex ? "%s%u=%llx" : "%s%u=%llu", i ? ";" : "", ids[i],
					 (unsigned long long)values[i]);
	if (used < len)
		snprintf(buf + used, len - used, "\n");
}

/* Whether the lines fit in one write (a cut one ends without its newline, or fills the buffer). */
static bool changes_fit(const char *buf, size_t len)
{
	size_t used = strlen(buf);

	return used + 1 < len && (!used || buf[used - 1] == '\n');
}

/* "NAME:id=v;id=v\n" with one value for every domain of a resource. */
static void append_line(char *buf, size_t len, const char *resource, const unsigned *ids, unsigned count,
			uint64_t value, bool hex)
{
	uint64_t values[RESCTRL_MAX_DOMAINS];

	for (unsigned i = 0; i < count; i++)
		values[i] = value;
	append_values(buf, len, resource, ids, count, values, hex);
}

static int check_l3(const struct resctrl_info *info, uint64_t cbm, struct err *err)
{
	if (!info->l3.present)
		return err_set(err, -EOPNOTSUPP, "l3_cbm is set but resctrl has no L3 cache allocation");
	return resctrl_check_cbm(&info->l3, cbm, err);
}

int resctrl_check_limits(const struct resctrl_info *info, const struct partition_limits *want, struct err *err)
{
	if (limits_any_min(want))
		return err_set(err, -EOPNOTSUPP,
			       "mb_min: resctrl has no minimum-bandwidth control; guarantee_mbps is held without it");
	double lowest = limits_lowest_max(want);
	if (!info->mb_present && lowest < 100)
		return err_set(err, -EOPNOTSUPP,
			       "mb_max = %g%%: resctrl has no MB resource here (no info/MB; Arm MPAM mounted with cdp "
			       "offers none, as MBW_MAX is per PARTID and a group then has two)",
			       lowest);
	if (info->mb_units == MB_MBPS && lowest < 100)
		return err_set(err, -EOPNOTSUPP,
			       "mb_max = %g%%: resctrl is mounted with mba_MBps, where MB limits are MB/s that the "
			       "kernel's own controller holds; give target_mbps (each domain's ceiling), or remount "
			       "without mba_MBps",
			       lowest);
	return want->l3_cbm ? check_l3(info, want->l3_cbm, err) : 0;
}

/* The lines of `want` that differ from what the group holds. */
static int build_changes(const struct resctrl_info *info, const struct resctrl_group *g,
			 const struct partition_limits *want, char *buf, size_t len, struct err *err)
{
	buf[0] = '\0';
	if (info->mb_present) {
		uint64_t mb[RESCTRL_MAX_DOMAINS];
		mb_values(info, want, mb);
		if (!g->mb_known || !mb_all_show(info, g->mb, mb))
			append_values(buf, len, "MB", info->mb_domain_ids, info->mb_domain_count, mb, false);
	}
	if (want->l3_cbm) {
		int r = check_l3(info, want->l3_cbm, err);
		if (r < 0)
			return r;
		if (!g->l3_known || !all_equal(g->l3, info->l3.domain_count, want->l3_cbm)) {
			const char *first = info->cdp_l3 ? "L3CODE" : "L3";
			append_line(buf, len, first, info->l3.domain_ids, info->l3.domain_count, want->l3_cbm, true);
			if (info->cdp_l3)
				append_line(buf, len, "L3DATA", info->l3.domain_ids, info->l3.domain_count,
					    want->l3_cbm, true);
		}
	}
	if (!changes_fit(buf, len))
		return err_set(err, -E2BIG,
			       "%s: the schemata lines for %u MB and %u L3 domains exceed one write (%zu bytes)",
			       g->name, info->mb_domain_count, info->l3.domain_count, len);
	return 0;
}

/* The MB limits the group holds on each domain, as a limit (with mba_MBps, the first domain's MB/s). */
static void mb_in_force(const struct resctrl_info *info, const struct resctrl_group *g, struct partition_limits *eff)
{
	*eff = limits_unlimited(info->mb_domain_count);
	if (info->mb_present && g->mb_known && info->mb_domain_count) {
		bool mbps = info->mb_units == MB_MBPS;
		eff->mb_mbps = mbps && g->mb[0] != RESCTRL_MBA_MAX_MBPS ? (unsigned)g->mb[0] : 0;
		for (unsigned i = 0; i < info->mb_domain_count; i++)
			eff->mb_max_at[i] = mbps ? 100 : resctrl_mb_percent(info, g->mb[i]);
		limits_summarise(eff);
	}
}

/* What is in force after the write: read back, and check the kernel kept what was written. MB may
 * show as the hardware's band (Linux's MPAM glue rounds to the nearest one), so a value within one
 * step of the request is accepted and reported as what is in force. */
static int verify(const struct resctrl_info *info, struct resctrl_group *g, const struct partition_limits *want,
		  bool written, struct partition_limits *eff, struct err *err)
{
	/* Without a write, what was just read is still what the group holds. */
	int r = written ? read_group_schemata(info, g, err) : 0;

	if (r < 0)
		return r;
	mb_in_force(info, g, eff);
	if (info->mb_present && g->mb_known && info->mb_domain_count) {
		for (unsigned i = 0; i < info->mb_domain_count; i++) {
			uint64_t wanted = mb_to_write(info, want, i);
			if (!mb_shows(info, g->mb[i], wanted))
				return err_set(err, -EIO, "%s: MB of domain %u reads back %llu after writing %llu",
					       g->name, info->mb_domain_ids[i], (unsigned long long)g->mb[i],
					       (unsigned long long)wanted);
		}
	}
	if (want->l3_cbm) {
		if (!g->l3_known || !all_equal(g->l3, info->l3.domain_count, want->l3_cbm))
			return err_set(err, -EIO, "%s: L3 reads back other than 0x%llx", g->name,
				       (unsigned long long)want->l3_cbm);
		eff->l3_cbm = want->l3_cbm;
	}
	return 0;
}

int resctrl_group_apply(int rootfd, const struct resctrl_info *info, struct resctrl_group *g,
			const struct partition_limits *want, struct partition_limits *eff, struct resctrl_plan *plan,
			struct err *err)
{
	char changes[RESCTRL_WRITE_MAX];
	struct resctrl_group before = *g;
	int r;

	/* Always from what the group holds now, so that a change made behind mpamd's back is seen and
	 * undone, not hidden by what mpamd remembers writing. */
	if (plan && g->dirfd < 0)
		new_group_schemata(info, g);
	else if ((r = read_group_schemata(info, g, err)) < 0)
		return r;
	bool outside = (before.mb_known && memcmp(before.mb, g->mb, info->mb_domain_count * sizeof(g->mb[0]))) ||
		       (before.l3_known && memcmp(before.l3, g->l3, info->l3.domain_count * sizeof(g->l3[0])));
	if ((r = build_changes(info, g, want, changes, sizeof(changes), err)) < 0)
		return r;
	if (changes[0]) {
		r = write_file(g, "schemata", changes, plan);
		if (r < 0 && plan)
			return err_set(err, r, "%s: planning schemata: %s", g->name, strerror(-r));
		if (r < 0) {
			changes[strcspn(changes, "\n")] = '\0';
			char what[sizeof(g->name) + 64];
			snprintf(what, sizeof(what), "%s: writing schemata '%.40s'", g->name, changes);
			/* The kernel changed nothing: what another tool wrote stays in force. */
			mb_in_force(info, g, eff);
			eff->changed_outside = outside;
			return resctrl_fail_with_status(rootfd, err, r, what);
		}
		/* A plan reads back what it would have written, as the kernel keeps it. */
		if (plan && (r = merge_schemata(info, g, changes, err)) < 0)
			return r;
		if (plan)
			shown_as_kernel(info, g);
	}
	r = verify(info, g, want, changes[0] != '\0' && !plan, eff, err);
	eff->changed_outside = outside && changes[0];
	return r;
}

int resctrl_group_place(int rootfd, struct resctrl_group *g, pid_t tid, struct err *err)
{
	char line[24];

	snprintf(line, sizeof(line), "%d\n", (int)tid);
	/* Into a monitoring group through its control group (once there, a second write is harmless). */
	int r = g->has_parent ? resctrl_write_at(g->parent_dirfd, "tasks", line) : 0;
	if (r == 0)
		r = resctrl_write_at(g->dirfd, "tasks", line);
	if (r == -ESRCH || r == 0)
		return r;
	char what[sizeof(g->name) + 64];
	snprintf(what, sizeof(what), "%s: moving thread %d", g->name, (int)tid);
	return resctrl_fail_with_status(rootfd, err, r, what);
}

/* Moves one thread; a thread that has exited meanwhile is skipped quietly. */
static int move_thread(int rootfd, struct resctrl_group *g, pid_t pid, pid_t tid, struct resctrl_plan *plan,
		       struct err *err)
{
	char line[24];

	if (plan) {
		snprintf(line, sizeof(line), "%d\n", (int)tid);
		json_t *w = plan_write(plan, g, "tasks", line);
		/* Which process the thread belongs to, so a reader can tell what is moved. */
		if (!w || json_object_set_new(w, "pid", json_integer(pid)) < 0)
			return err_set(err, -ENOMEM, "out of memory");
		return 0;
	}
	struct err why = { "" };
	int r = resctrl_group_place(rootfd, g, tid, &why);
	if (r == -ESRCH) {
		log_debug("%s: thread %d of task %d has exited; skipped", g->name, (int)tid, (int)pid);
		return 0;
	}
	return r < 0 ? err_set(err, r, "%s (of task %d)", why.text, (int)pid) : 0;
}

int resctrl_group_tasks(const struct resctrl_group *g, pid_t **ret, size_t *ret_count, struct err *err)
{
	pid_t *ids = NULL;
	size_t count = 0, cap = 0;
	int r = task_file_read(g->dirfd, "tasks", &ids, &count, &cap);

	if (r < 0) {
		free(ids);
		return err_set(err, r, "%s: cannot read tasks: %s", g->name, strerror(-r));
	}
	thread_ids_sort(ids, count);
	*ret = ids;
	*ret_count = count;
	return 0;
}

/* One pass over the process's threads as /proc lists them now: each one not in `in` is moved; *moved
 * counts them. */
static int move_pass(int rootfd, struct resctrl_group *g, const pid_t *in, size_t in_count, pid_t pid,
		     struct resctrl_plan *plan, size_t *moved, struct err *err)
{
	pid_t *tids;
	size_t count;
	struct err why = { "" };
	int r = process_threads(NULL, pid, &tids, &count, &why);

	*moved = 0;
	if (r == -ESRCH) {
		log_debug("%s: task %d has exited; skipped", g->name, (int)pid);
		if (plan)
			plan_note(plan, "pid %d: no such process; skipped", (int)pid);
		return 0;
	}
	if (r < 0)
		return err_set(err, r, "%s: %s", g->name, why.text);
	for (size_t t = 0; t < count && r == 0; t++)
		if (!thread_ids_have(in, in_count, tids[t]) &&
		    (r = move_thread(rootfd, g, pid, tids[t], plan, err)) == 0)
			(*moved)++;
	if (plan && r == 0 && *moved < count)
		plan_note(plan, "pid %d: %zu of its %zu threads are in the group already", (int)pid, count - *moved,
			  count);
	free(tids);
	return r;
}

/* The group's threads, sorted, into *in (grown); a list that cannot be read (a group that is only
 * planned has none) is empty: that only costs writes of threads already there. */
static void read_members(const struct resctrl_group *g, pid_t **in, size_t *count, size_t *cap)
{
	*count = 0;
	if (task_file_read(g->dirfd, "tasks", in, count, cap) < 0)
		*count = 0;
	thread_ids_sort(*in, *count);
}

/* The tasks file takes one thread per write: every thread of the process goes in. A thread made by one
 * not moved yet starts where its maker is, not in the group (the kernel copies the maker's CLOSID and
 * RMID at clone: kernel/fork.c dup_task_struct), while what a moved thread makes lands in the group by
 * itself. So the threads are listed again after each pass that moved some, until a pass finds them all
 * in the group; a process that keeps making threads from threads outside it is left after
 * MOVE_PASSES, with a warning. */
#define MOVE_PASSES 8

static int move_process(int rootfd, struct resctrl_group *g, pid_t **in, size_t *in_count, size_t *in_cap, pid_t pid,
			struct resctrl_plan *plan, struct err *err)
{
	size_t moved = 0;
	int r = 0;

	for (unsigned pass = 0; pass < MOVE_PASSES && r == 0; pass++) {
		if (pass > 0)
			read_members(g, in, in_count, in_cap);
		r = move_pass(rootfd, g, *in, *in_count, pid, plan, &moved, err);
		if (plan || moved == 0)
			return r;
	}
	if (r == 0)
		log_warning("%s: process %d still made threads outside the group after %d passes; they are moved "
			    "when it is opened again",
			    g->name, (int)pid, MOVE_PASSES);
	return r;
}

int resctrl_group_add_tasks(int rootfd, struct resctrl_group *g, const pid_t *pids, size_t count,
			    struct resctrl_plan *plan, struct err *err)
{
	pid_t *in = NULL;
	size_t in_count = 0, in_cap = 0;
	int first_error = 0;

	read_members(g, &in, &in_count, &in_cap);
	for (size_t i = 0; i < count; i++) {
		struct err one = { "" };
		int r = move_process(rootfd, g, &in, &in_count, &in_cap, pids[i], plan, &one);
		if (r < 0 && !first_error) {
			first_error = r;
			err_set(err, r, "%s", one.text);
		}
	}
	free(in);
	return first_error;
}

int resctrl_group_set_cpus(int rootfd, struct resctrl_group *g, const struct cpu_set *cpus, struct resctrl_plan *plan,
			   struct err *err)
{
	char have[CPU_LIMIT * 6], want[CPU_LIMIT * 6];
	struct cpu_set current = { 0 };
	struct err perr;

	cpu_set_format(cpus, want, sizeof(want));
	if (resctrl_read_at(g->dirfd, "cpus_list", have, sizeof(have)) == 0) {
		have[strcspn(have, "\n")] = '\0';
		if ((!have[0] || parse_cpu_list(have, CPU_LIMIT, current.bits, &current.count, &perr) == 0) &&
		    !memcmp(current.bits, cpus->bits, sizeof(current.bits))) {
			if (plan)
				plan_note(plan, "cpus_list holds %s already", want);
			return 0;
		}
	}
	strcat(want, "\n");
	int r = write_file(g, "cpus_list", want, plan);
	if (r < 0 && plan)
		return err_set(err, r, "%s: planning cpus_list: %s", g->name, strerror(-r));
	if (r < 0) {
		char what[sizeof(g->name) + 32];
		snprintf(what, sizeof(what), "%s: writing cpus_list", g->name);
		return resctrl_fail_with_status(rootfd, err, r, what);
	}
	return 0;
}

/* An existing monitoring group, opened: it has a tasks file and no schemata. */
static int open_existing_mon(int rootfd, struct resctrl_group *g, struct err *err)
{
	g->dirfd = openat(rootfd, g->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->dirfd < 0)
		return err_set(err, -errno, "cannot open resctrl group %s: %s", g->name, strerror(errno));
	if (resctrl_exists_at(g->dirfd, "schemata") || !resctrl_exists_at(g->dirfd, "tasks")) {
		resctrl_group_close(g);
		return err_set(err, -ENOTDIR, "%s exists but is not a resctrl monitoring group", g->name);
	}
	return 0;
}

int resctrl_mon_group_open(int rootfd, const char *path, int parent_dirfd, const struct resctrl_room *room,
			   struct resctrl_group *g, struct err *err)
{
	struct resctrl_room mon_room;

	memset(g, 0, sizeof(*g));
	g->dirfd = -1;
	g->hw_id = -1;
	g->has_parent = true;
	g->parent_dirfd = parent_dirfd;
	snprintf(g->name, sizeof(g->name), "%s", path);
	if (room) {
		mon_room = *room;
		mon_room.closids_left = 1; /* a monitoring group takes its parent's CLOSID */
	}
	int r = make_group(rootfd, path, room ? &mon_room : NULL, err);
	if (r == 0)
		g->created = true;
	else if (r != -EEXIST)
		return r;
	return open_existing_mon(rootfd, g, err);
}

int resctrl_mon_group_rename(int rootfd, struct resctrl_group *g, const char *path, int parent_dirfd, struct err *err)
{
	if (renameat(rootfd, g->name, rootfd, path) < 0) {
		char what[2 * RESCTRL_GROUP_PATH_MAX + 32];
		snprintf(what, sizeof(what), "cannot move resctrl group %s to %s", g->name, path);
		return resctrl_fail_with_status(rootfd, err, -errno, what);
	}
	snprintf(g->name, sizeof(g->name), "%s", path);
	g->parent_dirfd = parent_dirfd;
	return 0;
}

/* One pass: every thread `from` lists now into `to`; *moved counts them. */
static int move_listed(int rootfd, const struct resctrl_group *from, struct resctrl_group *to, size_t *moved,
		       struct err *err)
{
	pid_t *tids = NULL;
	size_t count = 0;
	int r = resctrl_group_tasks(from, &tids, &count, err);

	*moved = 0;
	if (r < 0)
		return r;
	for (size_t t = 0; r == 0 && t < count; t++) {
		struct err why = { "" };
		int one = resctrl_group_place(rootfd, to, tids[t], &why);
		if (one == 0)
			(*moved)++;
		else if (one != -ESRCH)
			r = err_set(err, one, "%s", why.text);
	}
	free(tids);
	return r;
}

int resctrl_group_move_tasks(int rootfd, const struct resctrl_group *from, struct resctrl_group *to, struct err *err)
{
	size_t moved = 1;
	int r = 0;

	/* A thread made by one not moved yet starts in `from`: listed again until a pass finds none. */
	for (unsigned pass = 0; pass < MOVE_PASSES && moved && r == 0; pass++)
		r = move_listed(rootfd, from, to, &moved, err);
	return r;
}
