/* See emu_io_alloc.h. */
#include "emu_io_alloc.h"

#include <errno.h>
#include <string.h>

#include "emu_ids.h"
#include "emu_schemata.h"
#include "emu_state.h"

unsigned emu_io_alloc_closid(const struct emu *e)
{
	return emu_closids(e) - 1;
}

/* The info directory's schema name, as the kernel's messages give it (s->name). */
static const char *schema_name(const struct emu *e, const struct emu_node *n)
{
	return emu_info_res_name(e, n->res);
}

int emu_io_alloc_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	emu_buf_printf(out, "%s\n", e->io_alloc ? "enabled" : "disabled");
	return 0;
}

/* resctrl_io_alloc_init_cbm(): the CBM a new group would start with, code and data alike. */
static int init_cbm(struct emu *e, unsigned closid)
{
	for (unsigned d = 0; d < e->prof.domains; d++) {
		uint32_t cbm;
		int r = emu_schemata_init_cbm(e, false, closid, d, &cbm);
		if (r)
			return r;
		*emu_cbm(e, false, closid, d) = *emu_cbm(e, true, closid, d) = cbm;
	}
	return 0;
}

/* resctrl_io_alloc_write(). */
int emu_io_alloc_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	unsigned closid = emu_io_alloc_closid(e);
	bool enable;

	(void)len;
	(void)who;
	emu_status_clear(&e->status);
	if (emu_kstrtobool(buf, &enable)) {
		emu_status_printf(&e->status, "io_alloc: Invalid input\n");
		return -EINVAL;
	}
	if (enable == e->io_alloc)
		return 0;
	if (!enable) {
		emu_closid_free(e, closid);
		e->io_alloc = false;
		return 0;
	}
	struct emu_group *holder = emu_group_of_closid(e, closid);
	if (holder || !emu_closid_take(e, closid)) {
		emu_status_printf(&e->status, "CLOSID (ctrl_hw_id) %u for io_alloc is used by %s group\n", closid,
				  holder && holder->name[0] ? holder->name : "another");
		return -ENOSPC;
	}
	if (init_cbm(e, closid)) {
		emu_status_printf(&e->status, "Failed to initialize io_alloc allocations\n");
		emu_closid_free(e, closid);
		return -ENOSPC;
	}
	(void)n;
	e->io_alloc = true;
	return 0;
}

static int need_enabled(struct emu *e, const struct emu_node *n)
{
	if (e->io_alloc)
		return 0;
	emu_status_printf(&e->status, "io_alloc is not enabled on %s\n", schema_name(e, n));
	return -EINVAL;
}

/* resctrl_io_alloc_cbm_show(): show_doms() without a name. */
int emu_io_alloc_cbm_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	emu_status_clear(&e->status);
	int r = need_enabled(e, n);
	if (r)
		return r;
	for (unsigned d = 0; d < e->prof.domains; d++)
		emu_buf_printf(out, "%s%u=%x", d ? ";" : "", d, *emu_cbm(e, false, emu_io_alloc_closid(e), d));
	emu_buf_putc(out, '\n');
	return 0;
}

/* resctrl_io_alloc_parse_line(): "id=cbm;id=cbm" or "*=cbm", applied as it goes. */
static int parse_line(struct emu *e, const struct emu_node *n, char *line)
{
	unsigned closid = emu_io_alloc_closid(e);
	bool update_all = false;

	while (line && line[0] != '\0') {
		if (update_all) {
			emu_status_printf(&e->status, "Configurations after global '*'\n");
			return -EINVAL;
		}
		char *dom = strsep(&line, ";");
		char *id = strsep(&dom, "=");
		unsigned long long dom_id = 0;
		if (dom && !strcmp(id, "*")) {
			update_all = true;
		} else if (!dom || emu_kstrtoull(id, 10, &dom_id)) {
			emu_status_printf(&e->status, "Missing '=' or non-numeric domain\n");
			return -EINVAL;
		}
		dom = emu_strim(dom);
		bool found = false;
		for (unsigned d = 0; d < e->prof.domains; d++) {
			uint32_t cbm;
			if (!update_all && d != dom_id)
				continue;
			int r = emu_schemata_check_cbm(e, n->res == EMU_INFO_L3 && e->prof.cdp, closid, d, dom, &cbm);
			if (r)
				return r;
			*emu_cbm(e, false, closid, d) = *emu_cbm(e, true, closid, d) = cbm;
			found = true;
		}
		if (!found) {
			emu_status_printf(&e->status, "Invalid domain %llu\n", dom_id);
			return -EINVAL;
		}
	}
	return 0;
}

/* resctrl_io_alloc_cbm_write(). */
int emu_io_alloc_cbm_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	(void)who;
	if (emu_status_one_line(&e->status, "io_alloc_cbm", buf, len) < 0)
		return -EINVAL;
	int r = need_enabled(e, n);
	return r ? r : parse_line(e, n, buf);
}
