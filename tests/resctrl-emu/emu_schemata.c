/* See emu_schemata.h. The parser follows fs/resctrl/ctrlmondata.c (rdtgroup_schemata_write,
 * parse_line, parse_cbm/cbm_validate, parse_bw/bw_validate): every line is staged first and applied
 * only if all of them parse, a domain id that does not exist fails with EINVAL and no message, and
 * MB values are rounded up to bandwidth_gran before the profile converts them for the hardware. Under
 * CDP (rdtgroup.c schemata_list_create) the L3 is two schemata, L3CODE and L3DATA, each with its own
 * CBMs, and an overlap is checked against both (rdtgroup_cbm_overlaps checks the peer type too). */
#include "emu_schemata.h"

#include <errno.h>
#include <string.h>

#include "emu_state.h"

enum schema_kind {
	KIND_CBM,
	KIND_MB,
};

struct schema {
	const char *name;
	enum schema_kind kind;
	bool code; /* KIND_CBM under CDP: the code CBMs */
};

#define MAX_SCHEMAS 3

/* resctrl_schema_all, in the kernel's order: schemata_list_create() takes the resources in their
 * order (L3, then MB) and under CDP L3CODE before L3DATA, but schemata_list_add() puts each at the
 * head of the list (list_add()), so schemata, size and every walk of the list go MB, then L3 (or
 * L3DATA, L3CODE), as Documentation/filesystems/resctrl.rst shows them. */
static size_t schemas_of(const struct emu *e, struct schema *out)
{
	size_t n = 0;

	if (emu_has_mb(e))
		out[n++] = (struct schema){ "MB", KIND_MB, false };
	if (e->prof.cdp) {
		out[n++] = (struct schema){ "L3DATA", KIND_CBM, false };
		out[n++] = (struct schema){ "L3CODE", KIND_CBM, true };
	} else {
		out[n++] = (struct schema){ "L3", KIND_CBM, false };
	}
	return n;
}

/* max_name_width: the longest schema name. */
static int name_width(const struct schema *schemas, size_t n)
{
	size_t width = 0;

	for (size_t i = 0; i < n; i++)
		width = strlen(schemas[i].name) > width ? strlen(schemas[i].name) : width;
	return (int)width;
}

struct staged {
	bool have[MAX_SCHEMAS][EMU_MAX_DOMAINS];
	uint32_t val[MAX_SCHEMAS][EMU_MAX_DOMAINS];
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

/* A CLOSID no group holds (io_alloc's) is allocated but neither shareable nor exclusive. */
static bool closid_shareable(struct emu *e, unsigned closid)
{
	struct emu_group *g = emu_group_of_closid(e, closid);

	return g && !g->exclusive;
}

/* __rdtgroup_cbm_overlaps() for one type: with exclusive_only, only overlap with exclusive groups
 * counts; otherwise any other allocated CLOSID and the hardware's shareable bits do. */
static bool type_overlaps(struct emu *e, bool code, unsigned d, uint32_t cbm, unsigned closid, bool exclusive_only)
{
	if (!exclusive_only && (cbm & e->prof.shareable_bits))
		return true;
	for (unsigned i = 0; i < emu_closids(e); i++) {
		if (!emu_closid_allocated(e, i) || i == closid || !(cbm & *emu_cbm(e, code, i, d)))
			continue;
		if (!exclusive_only || closid_exclusive(e, i))
			return true;
	}
	return false;
}

/* rdtgroup_cbm_overlaps(): the schema's own type, and under CDP its peer's. */
static bool cbm_overlaps(struct emu *e, bool code, unsigned d, uint32_t cbm, unsigned closid, bool exclusive_only)
{
	return type_overlaps(e, code, d, cbm, closid, exclusive_only) ||
	       (e->prof.cdp && type_overlaps(e, !code, d, cbm, closid, exclusive_only));
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

/* parse_cbm() for a CLOSID of mode shareable (exclusive: also no overlap with any other). */
static int check_cbm(struct emu *e, bool code, unsigned closid, bool exclusive, unsigned d, const char *text,
		     uint32_t *ret)
{
	uint32_t cbm;
	int r = validate_cbm(e, text, &cbm);

	if (r)
		return r;
	if (cbm_overlaps(e, code, d, cbm, closid, true)) {
		emu_status_printf(&e->status, "Overlaps with exclusive group\n");
		return -EINVAL;
	}
	if (exclusive && cbm_overlaps(e, code, d, cbm, closid, false)) {
		emu_status_printf(&e->status, "Overlaps with other group\n");
		return -EINVAL;
	}
	*ret = cbm;
	return 0;
}

int emu_schemata_check_cbm(struct emu *e, bool code, unsigned closid, unsigned d, const char *text, uint32_t *ret)
{
	return check_cbm(e, code, closid, false, d, text, ret);
}

static int parse_cbm(struct emu *e, struct emu_group *g, const struct schema *sc, size_t s, unsigned d,
		     const char *text, struct staged *st)
{
	if (st->have[s][d]) {
		emu_status_printf(&e->status, "Duplicate domain %u\n", d);
		return -EINVAL;
	}
	int r = check_cbm(e, sc->code, g->closid, g->exclusive, d, text, &st->val[s][d]);
	if (r)
		return r;
	st->have[s][d] = true;
	return 0;
}

/* parse_bw() and bw_validate(). */
static int parse_bw(struct emu *e, size_t s, unsigned d, const char *text, struct staged *st)
{
	const struct emu_profile *p = &e->prof;
	uint32_t bw;

	if (st->have[s][d]) {
		emu_status_printf(&e->status, "Duplicate domain %u\n", d);
		return -EINVAL;
	}
	if (emu_kstrtou32(text, 10, &bw)) {
		emu_status_printf(&e->status, "Invalid MB value %s\n", text);
		return -EINVAL;
	}
	/* Nothing else to do if software controller is enabled. */
	if (p->mba_sc) {
		st->have[s][d] = true;
		st->val[s][d] = bw;
		return 0;
	}
	if (bw < p->mb_min || bw > p->mb_max) {
		emu_status_printf(&e->status, "MB value %u out of range [%u,%u]\n", bw, p->mb_min, p->mb_max);
		return -EINVAL;
	}
	st->have[s][d] = true;
	st->val[s][d] = (bw + p->mb_gran - 1) / p->mb_gran * p->mb_gran;
	return 0;
}

/* parse_line(): "id=val;id=val". */
static int parse_domains(struct emu *e, struct emu_group *g, const struct schema *sc, size_t s, char *line,
			 struct staged *st)
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
			return -EINVAL; /* 7.2 and 7.3 record no message */
		int r = sc->kind == KIND_CBM ? parse_cbm(e, g, sc, s, (unsigned)dom_id, dom, st)
					     : parse_bw(e, s, (unsigned)dom_id, dom, st);
		if (r)
			return r;
	}
	return 0;
}

static int parse_schema_line(struct emu *e, struct emu_group *g, char *line, struct staged *st)
{
	struct schema schemas[MAX_SCHEMAS];
	size_t n = schemas_of(e, schemas);
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
	for (size_t s = 0; s < n; s++)
		if (strcmp(name, schemas[s].name) == 0)
			return parse_domains(e, g, &schemas[s], s, tok, st);
	emu_status_printf(&e->status, "Unknown or unsupported resource name '%s'\n", name);
	return -EINVAL;
}

static void apply(struct emu *e, unsigned closid, const struct staged *st)
{
	struct schema schemas[MAX_SCHEMAS];
	size_t n = schemas_of(e, schemas);

	for (size_t s = 0; s < n; s++)
		for (unsigned d = 0; d < e->prof.domains; d++) {
			if (!st->have[s][d])
				continue;
			if (schemas[s].kind == KIND_CBM)
				*emu_cbm(e, schemas[s].code, closid, d) = st->val[s][d];
			else
				e->mb[closid][d] = emu_mb_to_hw(&e->prof, st->val[s][d]);
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
	struct schema schemas[MAX_SCHEMAS];
	size_t n = schemas_of(e, schemas);
	uint64_t bytes_per_bit = e->prof.l3_bytes / e->prof.cbm_len;

	for (size_t s = 0; s < n; s++) {
		emu_buf_printf(out, "%*s:", name_width(schemas, n), schemas[s].name);
		for (unsigned d = 0; d < e->prof.domains; d++) {
			const char *sep = d ? ";" : "";
			uint32_t cbm = *emu_cbm(e, schemas[s].code, closid, d);
			if (schemas[s].kind == KIND_MB)
				emu_buf_printf(out, "%s%u=%u", sep, d, emu_mb_from_hw(&e->prof, e->mb[closid][d]));
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

/* rdtgroup_mode_test_exclusive(): no CBM of the group, of any type, overlaps another's. */
static bool can_be_exclusive(struct emu *e, const struct emu_group *g)
{
	for (int code = 0; code <= (int)e->prof.cdp; code++)
		for (unsigned d = 0; d < e->prof.domains; d++) {
			if (cbm_overlaps(e, code, d, *emu_cbm(e, code, g->closid, d), g->closid, false)) {
				emu_status_printf(&e->status, "Schemata overlaps\n");
				return false;
			}
		}
	return true;
}

/* rdtgroup_locksetup_enter() on a CPU that cannot pseudo-lock: its checks before the CPU's. */
static int locksetup_refused(struct emu *e, const struct emu_group *g)
{
	if (g == emu_default_group(e))
		emu_status_printf(&e->status, "Cannot pseudo-lock default group\n");
	else if (e->prof.cdp)
		emu_status_printf(&e->status, "CDP enabled\n");
	else
		emu_status_printf(&e->status, "Pseudo-locking not supported\n");
	return -EINVAL;
}

/* rdtgroup_mode_write(): shareable and exclusive; pseudo-locksetup where the kernel has
 * pseudo-locking (x86), always refused, as no emulated CPU can pseudo-lock. */
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
	} else if (e->prof.pseudo_lock && strcmp(buf, "pseudo-locksetup") == 0) {
		return locksetup_refused(e, g);
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

/* rdt_bit_usage_show() for the info directory's schema: the io_alloc CLOSID's CBM is the hardware's. */
int emu_bit_usage_show(struct emu *e, const struct emu_node *n, struct emu_buf *out)
{
	bool code = e->prof.cdp && n->res == EMU_INFO_L3;

	for (unsigned d = 0; d < e->prof.domains; d++) {
		uint32_t hw = e->prof.shareable_bits, sw = 0, excl = 0;
		for (unsigned c = 0; c < emu_closids(e); c++) {
			if (!emu_closid_allocated(e, c))
				continue;
			if (closid_shareable(e, c))
				sw |= *emu_cbm(e, code, c, d);
			else if (closid_exclusive(e, c))
				excl |= *emu_cbm(e, code, c, d);
			else if (e->io_alloc)
				hw |= *emu_cbm(e, code, c, d);
		}
		emu_buf_printf(out, "%s%u=", d ? ";" : "", d);
		for (int bit = (int)e->prof.cbm_len - 1; bit >= 0; bit--)
			emu_buf_putc(out, usage_char((hw >> bit) & 1, (sw >> bit) & 1, (excl >> bit) & 1));
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

/* __init_one_rdt_domain(): the hardware's shareable bits, every shareable group's bits (under CDP of
 * both types) and every bit no CLOSID uses; made valid, and with at least min_cbm_bits. */
int emu_schemata_init_cbm(struct emu *e, bool code, unsigned closid, unsigned d, uint32_t *ret)
{
	uint32_t used = e->prof.shareable_bits, cbm = e->prof.shareable_bits;

	for (unsigned c = 0; c < emu_closids(e); c++) {
		if (!emu_closid_allocated(e, c) || c == closid)
			continue;
		uint32_t ctrl = *emu_cbm(e, code, c, d) | (e->prof.cdp ? *emu_cbm(e, !code, c, d) : 0);
		used |= ctrl;
		if (closid_shareable(e, c))
			cbm |= ctrl;
	}
	cbm = ensure_valid(e, cbm | (~used & full_mask(e)));
	if ((unsigned)__builtin_popcount(cbm) < e->prof.min_cbm_bits) {
		emu_status_printf(&e->status, "No space on %s:%u\n", e->prof.cdp ? (code ? "L3CODE" : "L3DATA") : "L3",
				  d);
		return -ENOSPC;
	}
	*ret = cbm;
	return 0;
}

int emu_schemata_init_group(struct emu *e, struct emu_group *g)
{
	struct schema schemas[MAX_SCHEMAS];
	size_t n = schemas_of(e, schemas);
	struct staged st;

	memset(&st, 0, sizeof(st));
	for (size_t s = 0; s < n; s++)
		for (unsigned d = 0; d < e->prof.domains; d++) {
			st.have[s][d] = true;
			st.val[s][d] = e->prof.mb_max;
			if (schemas[s].kind != KIND_CBM)
				continue;
			int r = emu_schemata_init_cbm(e, schemas[s].code, g->closid, d, &st.val[s][d]);
			if (r)
				return r;
		}
	g->exclusive = false;
	apply(e, g->closid, &st);
	return 0;
}
