/* What a resctrl mount offers, read from info/ and the default group. Nothing is assumed to
 * exist: a missing file is a capability the kernel does not have. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "core/base/log.h"

#define RDTGROUP_SUPER_MAGIC 0x7655821

static void read_uint(int rootfd, const char *res, const char *file, unsigned base, uint64_t *ret)
{
	char path[96];

	snprintf(path, sizeof(path), "info/%s/%s", res, file);
	if (resctrl_read_uint_at(rootfd, path, base, ret) < 0)
		*ret = 0;
}

static unsigned read_u(int rootfd, const char *res, const char *file)
{
	uint64_t v;

	read_uint(rootfd, res, file, 10, &v);
	return (unsigned)v;
}

static void domains_of(const struct schemata *s, const char *res, unsigned *ids, unsigned *count)
{
	const struct schemata_line *line = schemata_find(s, res);

	*count = 0;
	for (unsigned i = 0; line && i < line->count; i++)
		ids[(*count)++] = line->domains[i].id;
}

static void probe_cache(int rootfd, const char *name, const char *cdp_name, const struct schemata *root,
			struct resctrl_cache_res *res, bool *cdp)
{
	char dir[32];
	const char *use = name;

	snprintf(dir, sizeof(dir), "info/%s", name);
	*cdp = false;
	if (!resctrl_exists_at(rootfd, dir)) {
		snprintf(dir, sizeof(dir), "info/%s", cdp_name);
		if (!resctrl_exists_at(rootfd, dir))
			return;
		use = cdp_name; /* with CDP the code and data halves share one description */
		*cdp = true;
	}
	res->present = true;
	snprintf(res->name, sizeof(res->name), "%s", use);
	res->num_closids = read_u(rootfd, use, "num_closids");
	read_uint(rootfd, use, "cbm_mask", 16, &res->cbm_mask);
	read_uint(rootfd, use, "shareable_bits", 16, &res->shareable_bits);
	res->cbm_bits = (unsigned)__builtin_popcountll(res->cbm_mask);
	res->min_cbm_bits = read_u(rootfd, use, "min_cbm_bits");
	res->sparse_masks = read_u(rootfd, use, "sparse_masks") != 0;
	domains_of(root, use, res->domain_ids, &res->domain_count);
}

static void probe_mb(int rootfd, const struct schemata *root, struct resctrl_info *info)
{
	if (!resctrl_exists_at(rootfd, "info/MB"))
		return;
	char mode[RESCTRL_NAME_MAX] = "";
	info->mb_present = true;
	info->mb_num_closids = read_u(rootfd, "MB", "num_closids");
	info->min_bandwidth = read_u(rootfd, "MB", "min_bandwidth");
	info->bandwidth_gran = read_u(rootfd, "MB", "bandwidth_gran");
	info->delay_linear = read_u(rootfd, "MB", "delay_linear") != 0;
	if (resctrl_read_at(rootfd, "info/MB/thread_throttle_mode", mode, sizeof(mode)) == 0)
		mode[strcspn(mode, "\n")] = '\0';
	snprintf(info->thread_throttle_mode, sizeof(info->thread_throttle_mode), "%s", mode);
	domains_of(root, "MB", info->mb_domain_ids, &info->mb_domain_count);
	/* The default group holds the unthrottled value: 100 (percent) or the maximum absolute units. */
	uint64_t max = 100;
	schemata_value(schemata_find(root, "MB"), info->mb_domain_count ? info->mb_domain_ids[0] : 0, &max);
	if (resctrl_exists_at(rootfd, "mba_MBps_event")) {
		info->mb_units = MB_MBPS;
		info->mb_max_value = RESCTRL_MBA_MAX_MBPS;
	} else if (info->delay_linear) {
		info->mb_units = MB_PERCENT;
		info->mb_max_value = 100;
	} else {
		info->mb_units = MB_ABSOLUTE;
		info->mb_max_value = max;
	}
}

/* mon_data/mon_RES_NN, sorted by id; -E2BIG for more than mpamd measures (a host it would measure
 * only in part). */
static int probe_mon_domains(int rootfd, struct resctrl_info *info, struct err *err)
{
	int fd = openat(rootfd, "mon_data", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	unsigned found = 0;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((e = readdir(dir))) {
		unsigned id;
		char tail;
		size_t n = strlen(info->mon_res);
		if (strncmp(e->d_name, "mon_", 4) || strncmp(e->d_name + 4, info->mon_res, n) ||
		    e->d_name[4 + n] != '_' || sscanf(e->d_name + 5 + n, "%u%c", &id, &tail) != 1)
			continue;
		if (found++ < RESCTRL_MAX_DOMAINS)
			info->mon_domain_ids[info->mon_domain_count++] = id;
	}
	closedir(dir);
	if (found > RESCTRL_MAX_DOMAINS)
		return err_set(err, -E2BIG,
			       "resctrl has %u monitoring domains (mon_data/mon_%s_NN); mpamd measures at most %d",
			       found, info->mon_res, RESCTRL_MAX_DOMAINS);
	/* readdir order is arbitrary: keep the ids sorted so domain indices are stable. */
	for (unsigned i = 1; i < info->mon_domain_count; i++)
		for (unsigned j = i; j > 0 && info->mon_domain_ids[j - 1] > info->mon_domain_ids[j]; j--) {
			unsigned t = info->mon_domain_ids[j];
			info->mon_domain_ids[j] = info->mon_domain_ids[j - 1];
			info->mon_domain_ids[j - 1] = t;
		}
	return 0;
}

/* The monitoring resource: info/L3_MON where it exists (every x86 host, MPAM with L3 monitors),
 * else the first other info/RES_MON (MB_MON where counters sit at the memory controllers). */
static bool find_mon_res(int rootfd, struct resctrl_info *info)
{
	if (resctrl_exists_at(rootfd, "info/L3_MON")) {
		snprintf(info->mon_res, sizeof(info->mon_res), "L3");
		return true;
	}
	int fd = openat(rootfd, "info", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while ((e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		if (n > 4 && n - 4 < sizeof(info->mon_res) && !strcmp(e->d_name + n - 4, "_MON")) {
			snprintf(info->mon_res, sizeof(info->mon_res), "%.*s", (int)(n - 4), e->d_name);
			break;
		}
	}
	closedir(dir);
	return info->mon_res[0] != '\0';
}

/* Reads info/RES_MON/NAME into buf. */
static int read_mon_file(int rootfd, const struct resctrl_info *info, const char *name, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "info/%s_MON/%s", info->mon_res, name);
	return resctrl_read_at(rootfd, path, buf, len);
}

static int probe_mon(int rootfd, struct resctrl_info *info, struct err *err)
{
	char text[RESCTRL_TEXT_MAX], dir[32];

	if (!find_mon_res(rootfd, info))
		return 0;
	snprintf(dir, sizeof(dir), "%s_MON", info->mon_res);
	info->mon_present = true;
	info->num_rmids = read_u(rootfd, dir, "num_rmids");
	read_uint(rootfd, dir, "max_threshold_occupancy", 10, &info->max_threshold_occupancy);
	if (read_mon_file(rootfd, info, "mon_features", text, sizeof(text)) == 0) {
		for (char *save = NULL, *f = strtok_r(text, "\n", &save); f; f = strtok_r(NULL, "\n", &save)) {
			info->mbm_total |= !strcmp(f, "mbm_total_bytes");
			info->mbm_local |= !strcmp(f, "mbm_local_bytes");
			info->llc_occupancy |= !strcmp(f, "llc_occupancy");
		}
	}
	if (read_mon_file(rootfd, info, "mbm_assign_mode", text, sizeof(text)) == 0 &&
	    resctrl_parse_assign_mode(text, info->assign_mode, sizeof(info->assign_mode)) == 0)
		info->assign_supported = true;
	info->assign_on_mkdir = read_u(rootfd, dir, "mbm_assign_on_mkdir") != 0;
	if (read_mon_file(rootfd, info, "num_mbm_cntrs", text, sizeof(text)) == 0)
		resctrl_parse_id_values(text, info->num_mbm_cntrs, RESCTRL_MAX_DOMAINS, &info->num_mbm_cntrs_count);
	return probe_mon_domains(rootfd, info, err);
}

/* io_alloc (fs/resctrl/ctrlmondata.c resctrl_io_alloc_write): once enabled it holds the highest CLOSID
 * (num_closids - 1, of the halved count under CDP), which no group can then take. */
static void probe_io_alloc(int rootfd, struct resctrl_info *info)
{
	char path[64], text[32];

	if (!info->l3.present)
		return;
	snprintf(path, sizeof(path), "info/%s/io_alloc", info->l3.name);
	if (resctrl_read_at(rootfd, path, text, sizeof(text)) < 0)
		return;
	info->io_alloc_capable = true;
	info->io_alloc = !strcmp(text, "enabled\n");
}

static int check_mount(int rootfd, const char *root, bool explicit_root, struct resctrl_info *info, struct err *err)
{
	struct statfs fs;

	if (fstatfs(rootfd, &fs) == 0 && fs.f_type == RDTGROUP_SUPER_MAGIC) {
		info->is_resctrl_mount = true;
		return 0;
	}
	if (!explicit_root)
		return err_set(err, -ENODEV,
			       "%s is not a resctrl mount; mount it with 'mount -t resctrl resctrl %s' (the kernel "
			       "needs resctrl support: Intel RDT, AMD PQoS or Arm MPAM)",
			       root, root);
	log_warning("%s is not a resctrl mount (an emulator or a copy?); using it as one", root);
	return 0;
}

static unsigned smallest_nonzero(unsigned a, unsigned b)
{
	return !a ? b : (b && b < a ? b : a);
}

int resctrl_probe(int rootfd, const char *root, bool explicit_root, struct resctrl_info *ret, struct err *err)
{
	struct resctrl_info info = { 0 };
	struct schemata schemata = { 0 };
	char text[RESCTRL_TEXT_MAX];
	int r = check_mount(rootfd, root, explicit_root, &info, err);

	if (r < 0)
		return r;
	if (!resctrl_exists_at(rootfd, "info"))
		return err_set(err, -ENOENT, "%s has no info/ directory: not a resctrl tree", root);
	if ((r = resctrl_read_at(rootfd, "schemata", text, sizeof(text))) == 0)
		r = resctrl_parse_schemata(text, &schemata, err);
	else
		err_set(err, r, "cannot read %s/schemata: %s", root, strerror(-r));
	if (r < 0)
		return r;
	probe_cache(rootfd, "L3", "L3CODE", &schemata, &info.l3, &info.cdp_l3);
	probe_cache(rootfd, "L2", "L2CODE", &schemata, &info.l2, &info.cdp_l2);
	probe_mb(rootfd, &schemata, &info);
	if ((r = probe_mon(rootfd, &info, err)) < 0)
		return r;
	info.debug = resctrl_exists_at(rootfd, "ctrl_hw_id");
	probe_io_alloc(rootfd, &info);
	info.num_closids =
		smallest_nonzero(smallest_nonzero(info.l3.num_closids, info.l2.num_closids), info.mb_num_closids);
	*ret = info;
	return 0;
}

static json_t *cache_to_json(const struct resctrl_cache_res *c, bool cdp)
{
	char mask[24], shareable[24];

	if (!c->present)
		return json_null();
	snprintf(mask, sizeof(mask), "%llx", (unsigned long long)c->cbm_mask);
	snprintf(shareable, sizeof(shareable), "%llx", (unsigned long long)c->shareable_bits);
	return json_pack("{s:s,s:I,s:s,s:I,s:I,s:s,s:b,s:b,s:I}", "name", c->name, "num_closids",
			 (json_int_t)c->num_closids, "cbm_mask", mask, "cbm_bits", (json_int_t)c->cbm_bits,
			 "min_cbm_bits", (json_int_t)c->min_cbm_bits, "shareable_bits", shareable, "sparse_masks",
			 c->sparse_masks, "cdp", cdp, "domains", (json_int_t)c->domain_count);
}

json_t *resctrl_info_to_json(const struct resctrl_info *info, const char *root)
{
	static const char *const units[] = { "none", "percent", "absolute", "MBps" };
	json_t *mon_domains = json_array(), *mb = json_null(), *mon = json_null();

	for (unsigned i = 0; i < info->mon_domain_count; i++)
		json_array_append_new(mon_domains, json_integer(info->mon_domain_ids[i]));
	if (info->mb_present)
		mb = json_pack("{s:s,s:I,s:I,s:I,s:b,s:s,s:I,s:I}", "units", units[info->mb_units], "num_closids",
			       (json_int_t)info->mb_num_closids, "bandwidth_gran", (json_int_t)info->bandwidth_gran,
			       "min_bandwidth", (json_int_t)info->min_bandwidth, "delay_linear", info->delay_linear,
			       "thread_throttle_mode", info->thread_throttle_mode, "max_value",
			       (json_int_t)info->mb_max_value, "domains", (json_int_t)info->mb_domain_count);
	if (info->mon_present) {
		json_t *cntrs = json_object();
		for (unsigned i = 0; i < info->num_mbm_cntrs_count; i++) {
			char id[12];
			snprintf(id, sizeof(id), "%u", info->num_mbm_cntrs[i].id);
			json_object_set_new(cntrs, id, json_integer((json_int_t)info->num_mbm_cntrs[i].value));
		}
		mon = json_pack("{s:s,s:I,s:b,s:b,s:b,s:s,s:b,s:o,s:o}", "resource", info->mon_res, "num_rmids",
				(json_int_t)info->num_rmids, "mbm_total_bytes", info->mbm_total, "mbm_local_bytes",
				info->mbm_local, "llc_occupancy", info->llc_occupancy, "mbm_assign_mode",
				info->assign_supported ? info->assign_mode : "", "mbm_assign_on_mkdir",
				info->assign_on_mkdir, "num_mbm_cntrs", cntrs, "domains", mon_domains);
	} else {
		json_decref(mon_domains);
	}
	return json_pack("{s:s,s:b,s:I,s:o,s:o,s:o,s:o,s:b,s:o}", "root", root, "resctrl_mount", info->is_resctrl_mount,
			 "num_closids", (json_int_t)info->num_closids, "L3", cache_to_json(&info->l3, info->cdp_l3),
			 "L2", cache_to_json(&info->l2, info->cdp_l2), "MB", mb, "monitoring", mon, "debug",
			 info->debug, "io_alloc",
			 info->io_alloc_capable ? json_string(info->io_alloc ? "enabled" : "disabled") : json_null());
}
