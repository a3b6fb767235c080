/* See emu_schemata.h. The parser follows fs/resctrl/ctrlmondata.c (rdtgroup_schemata_write,
 * parse_line, parse_cbm/cbm_validate, parse_bw/bw_validate): every line is staged first and applied
 * only if all of them parse, a domain id that does not exist fails with EINVAL and no message, and
 * MB values are rounded up to bandwidth_gran before the profile converts them for the hardware. */
#include "emu_schemata.h"

#include <errno.h>
#include <string.h>

#include "emu_state.h"

enum schema {
	SCHEMA_L3,
	SCHEMA_MB,
	SCHEMA_COUNT,
};

static const char *const schema_names[SCHEMA_COUNT] = { "L3", "MB" };
#define NAME_WIDTH 2 /* max_name_width: the longest schema name */

struct staged {
	bool have[SCHEMA_COUNT][EMU_MAX_DOMAINS];
	uint32_t val[SCHEMA_COUNT][EMU_MAX_DOMAINS];
};

static uint32_t full_mask(const struct emu *e)
{
	return e->prof.cbm_len >= 32 ? UINT32_MAX : (UINT32_C(1) << e->prof.cbm_len) - 1;
}

static bool closid_exclusive(struct emu *e, unsigned closid)
{
	struct emu_group *g = emu_group_of_closid(e, closid);

	return g && g->exclusive;
}

/* rdtgroup_cbm_overlaps(): with exclusive_only, only overlap with exclusive groups counts;
 * otherwise any other group and the hardware's shareable bits do. */
static bool cbm_overlaps(struct emu *e, unsigned d, uint32_t cbm, unsigned closid, bool exclusive_only)
{
	if (!exclusive_only && (cbm & e->prof.shareable_bits))
		return true;
	for (unsigned i = 0; i < e->prof.num_closids; i++) {
		if (!emu_closid_allocated(e, i) || i == closid || !(cbm & e->l3[i][d]))
			continue;
		if (!exclusive_only || closid_exclusive(e, i))
			return true;
	}
	return false;
}

static unsigned first_set_from(uint64_t v, unsigned from, unsigned len)
{
	while (from < len && !((v >> from) & 1))
		from++;
	return from;
}

static unsigned first_zero_from(uint64_t v, unsigned from, unsigned len)
{
	while (from < len && ((v >> from) & 1))
		from++;
	return from;
}

/* cbm_validate(). */
static int validate_cbm(struct emu *e, const char *text, uint32_t *ret)
{
	unsigned long long val;
	unsigned len = e->prof.cbm_len;

	if (emu_kstrtoull(text, 16, &val)) {
		emu_status_printf(&e->status, "Non-hex character in the mask %s\n", text);
		return -EINVAL;
	}
	if ((e->prof.min_cbm_bits > 0 && val == 0) || val > full_mask(e)) {
		emu_status_printf(&e->status, "Mask out of range\n");
		return -EINVAL;
	}
	unsigned first = first_set_from(val, 0, len);
	unsigned zero = first_zero_from(val, first, len);
	if (!e->prof.sparse_masks && first_set_from(val, zero, len) < len) {
		emu_status_printf(&e->status, "The mask %llx has non-consecutive 1-bits\n", val);
		return -EINVAL;
	}
	if (zero - first < e->prof.min_cbm_bits) {
		emu_status_printf(&e->status, "Need at least %u bits in the mask\n", e->prof.min_cbm_bits);
		return -EINVAL;
	}
	*ret = (uint32_t)val;
	return 0;
}

/* parse_cbm(). */
static int parse_cbm(struct emu *e, struct emu_group *g, unsigned d, const char *text, struct staged *st)
{
	uint32_t cbm;

	if (st->have[SCHEMA_L3][d]) {
		emu_status_printf(&e->status, "Duplicate domain %u\n", d);
		return -EINVAL;
	}
	int r = validate_cbm(e, text, &cbm);
	if (r)
		return r;
	if (cbm_overlaps(e, d, cbm, g->closid, true)) {
		emu_status_printf(&e->status, "Overlaps with exclusive group\n");
		return -EINVAL;
	}
	if (g->exclusive && cbm_overlaps(e, d, cbm, g->closid, false)) {
		emu_status_printf(&e->status, "Overlaps with other group\n");
		return -EINVAL;
	}
	st->have[SCHEMA_L3][d] = true;
	st->val[SCHEMA_L3][d] = cbm;
	return 0;
}

/* parse_bw() and bw_validate(). */
static int parse_bw(struct emu *e, unsigned d, const char *text, struct staged *st)
{
	const struct emu_profile *p = &e->prof;
	uint32_t bw;

	if (st->have[SCHEMA_MB][d]) {
		emu_status_printf(&e->status, "Duplicate domain %u\n", d);
		return -EINVAL;
	}
	if (emu_kstrtou32(text, 10, &bw)) {
		emu_status_printf(&e->status, "Invalid MB value %s\n", text);
		return -EINVAL;
	}
	/* Nothing else to do if software controller is enabled. */
	if (p->mba_sc) {
		st->have[SCHEMA_MB][d] = true;
		st->val[SCHEMA_MB][d] = bw;
		return 0;
	}
	if (bw < p->mb_min || bw > p->mb_max) {
		emu_status_printf(&e->status, "MB value %u out of range [%u,%u]\n", bw, p->mb_min, p->mb_max);
		return -EINVAL;
	}
	st->have[SCHEMA_MB][d] = true;
	st->val[SCHEMA_MB][d] = (bw + p->mb_gran - 1) / p->mb_gran * p->mb_gran;
	return 0;
}

/* parse_line(): "id=val;id=val". */
static int parse_domains(struct emu *e, struct emu_group *g, enum schema s, char *line, struct staged *st)
{
	while (line && line[0] != '\0') {
		char *dom = strsep(&line, ";");
		char *id = strsep(&dom, "=");
		unsigned long long dom_id;
		if (!dom || emu_kstrtoull(id, 10, &dom_id)) {
			emu_status_printf(&e->status, "Missing '=' or non-numeric domain\n");
			return -EINVAL;
		}
		dom = emu_strim(dom);
		if (dom_id >= e->prof.domains)
			return -EINVAL; /* this kernel version records no message */
		int r = s == SCHEMA_L3 ? parse_cbm(e, g, (unsigned)dom_id, dom, st)
				       : parse_bw(e, (unsigned)dom_id, dom, st);
		if (r)
			return r;
	}
	return 0;
}

static int parse_schema_line(struct emu *e, struct emu_group *g, char *line, struct staged *st)
{
	char *tok = line;
	char *name = emu_strim(strsep(&tok, ":"));

	if (!tok) {
		emu_status_printf(&e->status, "Missing ':'\n");
		return -EINVAL;
	}
	if (tok[0] == '\0') {
		emu_status_printf(&e->status, "Missing '%s' value\n", name);
		return -EINVAL;
	}
	for (int s = 0; s < SCHEMA_COUNT; s++)
		if (strcmp(name, schema_names[s]) == 0)
			return parse_domains(e, g, (enum schema)s, tok, st);
	emu_status_printf(&e->status, "Unknown or unsupported resource name '%s'\n", name);
	return -EINVAL;
}

static void apply(struct emu *e, unsigned closid, const struct staged *st)
{
	for (unsigned d = 0; d < e->prof.domains; d++) {
		if (st->have[SCHEMA_L3][d])
			e->l3[closid][d] = st->val[SCHEMA_L3][d];
		if (st->have[SCHEMA_MB][d])
			e->mb[closid][d] = emu_mb_to_hw(&e->prof, st->val[SCHEMA_MB][d]);
	}
}

int emu_schemata_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	struct staged st;
	char *line;

	(void)who;
	if (len == 0 || buf[len - 1] != '\n')
		return emu_missing_newline(e, "schemata");
	buf[len - 1] = '\0';
	emu_status_clear(&e->status);
	memset(&st, 0, sizeof(st));
	while ((line = strsep(&buf, "\n")) != NULL) {
		int r = parse_schema_line(e, n->group, line, &st);
		if (r)
			return r;
	}
	apply(e, n->group->closid, &st);
	return 0;
}

/* The values as schemata (size = false) or size (size = true) shows them. */
static void show_lines(struct emu *e, unsigned closid, bool size, struct emu_buf *out)
{
	uint64_t bytes_per_bit = e->prof.l3_bytes / e->prof.cbm_len;

	for (int s = 0; s < SCHEMA_COUNT; s++) {
		emu_buf_printf(out, "%*s:", NAME_WIDTH, schema_names[s]);
		for (unsigned d = 0; d < e->prof.domains; d++) {
			const char *sep = d ? ";" : "";
			uint32_t cbm = e->l3[closid][d];
			uint32_t mb = emu_mb_from_hw(&e->prof, e->mb[closid][d]);
			if (s == SCHEMA_MB)
				emu_buf_printf(out, "%s%u=%u", sep, d, mb);
			else if (size)
				emu_buf_printf(out, "%s%u=%u", sep, d,
					       (unsigned)(bytes_per_bit * (uint64_t)__builtin_popcount(cbm)));
			else
				emu_buf_printf(out, "%s%u=%x", sep, d, cbm);
		}
		emu_buf_putc(out, '\n');
	}
}

int emu_schemata_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	show_lines(e, n->group->closid, false, out);
	return 0;
}

int emu_size_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	show_lines(e, n->group->closid, true, out);
	return 0;
}

int emu_mode_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)e;
	emu_buf_printf(out, "%s\n", n->group->exclusive ? "exclusive" : "shareable");
	return 0;
}

/* rdtgroup_mba_mbps_event_show(): the event the software controller follows. */
int emu_mba_mbps_event_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	enum emu_event ev = n->group->mba_mbps_event;

	if (!emu_profile_has_event(&e->prof, ev))
		ev = EMU_EVT_TOTAL;
	emu_buf_printf(out, "%s\n", emu_event_name(ev));
	return 0;
}

/* rdtgroup_mba_mbps_event_write(): one of the MBM events the profile has. */
int emu_mba_mbps_event_write(struct emu *e, const struct emu_node *n, char *buf, size_t len,
			     const struct emu_caller *who)
{
	(void)who;
	if (len == 0 || buf[len - 1] != '\n')
		return emu_missing_newline(e, "mba_MBps_event");
	buf[len - 1] = '\0';
	emu_status_clear(&e->status);
	int ev = emu_event_by_name(&e->prof, buf);
	if (ev != EMU_EVT_TOTAL && ev != EMU_EVT_LOCAL) {
		emu_status_printf(&e->status, "mba_MBps_event: Invalid input\n");
		return -EINVAL;
	}
	n->group->mba_mbps_event = (enum emu_event)ev;
	return 0;
}

/* rdtgroup_mode_test_exclusive(). */
static bool can_be_exclusive(struct emu *e, const struct emu_group *g)
{
	for (unsigned d = 0; d < e->prof.domains; d++) {
		if (cbm_overlaps(e, d, e->l3[g->closid][d], g->closid, false)) {
			emu_status_printf(&e->status, "Schemata overlaps\n");
			return false;
		}
	}
	return true;
}

/* rdtgroup_mode_write(), without pseudo-locking (as a kernel without CONFIG_RESCTRL_FS_PSEUDO_LOCK). */
int emu_mode_write(struct emu *e, const struct emu_node *n, char *buf, size_t len, const struct emu_caller *who)
{
	struct emu_group *g = n->group;

	(void)who;
	if (len == 0 || buf[len - 1] != '\n')
		return emu_missing_newline(e, "mode");
	buf[len - 1] = '\0';
	emu_status_clear(&e->status);
	if (strcmp(buf, "shareable") == 0) {
		g->exclusive = false;
	} else if (strcmp(buf, "exclusive") == 0) {
		if (!g->exclusive && !can_be_exclusive(e, g))
			return -EINVAL;
		g->exclusive = true;
	} else {
		emu_status_printf(&e->status, "Unknown or unsupported mode\n");
		return -EINVAL;
	}
	return 0;
}

static char usage_char(bool hw, bool sw, bool excl)
{
	if (hw)
		return sw ? 'X' : 'H';
	if (sw)
		return 'S';
	return excl ? 'E' : '0';
}

int emu_bit_usage_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	(void)n;
	for (unsigned d = 0; d < e->prof.domains; d++) {
		uint32_t sw = 0, excl = 0;
		for (unsigned c = 0; c < e->prof.num_closids; c++) {
			if (!emu_closid_allocated(e, c))
				continue;
			if (closid_exclusive(e, c))
				excl |= e->l3[c][d];
			else
				sw |= e->l3[c][d];
		}
		emu_buf_printf(out, "%s%u=", d ? ";" : "", d);
		for (int bit = (int)e->prof.cbm_len - 1; bit >= 0; bit--)
			emu_buf_putc(out, usage_char((e->prof.shareable_bits >> bit) & 1, (sw >> bit) & 1,
						     (excl >> bit) & 1));
	}
	emu_buf_putc(out, '\n');
	return 0;
}

/* cbm_ensure_valid(): without sparse masks, keep only the lowest run of set bits. */
static uint32_t ensure_valid(const struct emu *e, uint32_t cbm)
{
	if (!cbm || e->prof.sparse_masks)
		return cbm;
	unsigned first = first_set_from(cbm, 0, e->prof.cbm_len);
	unsigned zero = first_zero_from(cbm, first, e->prof.cbm_len);
	return cbm & ((UINT32_C(1) << zero) - 1);
}

int emu_schemata_init_group(struct emu *e, struct emu_group *g)
{
	struct staged st;

	memset(&st, 0, sizeof(st));
	for (unsigned d = 0; d < e->prof.domains; d++) {
		uint32_t used = e->prof.shareable_bits, cbm = e->prof.shareable_bits;
		for (unsigned c = 0; c < e->prof.num_closids; c++) {
			if (!emu_closid_allocated(e, c) || c == g->closid)
				continue;
			used |= e->l3[c][d];
			if (!closid_exclusive(e, c))
				cbm |= e->l3[c][d];
		}
		cbm = ensure_valid(e, cbm | (~used & full_mask(e)));
		if ((unsigned)__builtin_popcount(cbm) < e->prof.min_cbm_bits) {
			emu_status_printf(&e->status, "No space on L3:%u\n", d);
			return -ENOSPC;
		}
		st.have[SCHEMA_L3][d] = st.have[SCHEMA_MB][d] = true;
		st.val[SCHEMA_L3][d] = cbm;
		st.val[SCHEMA_MB][d] = e->prof.mb_max;
	}
	g->exclusive = false;
	apply(e, g->closid, &st);
	return 0;
}
