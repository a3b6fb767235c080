#include "backends/mmio/soc_id.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Four hex digits at `text`, or -1. */
static long hex4(const char *text)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		const char *digit = strchr("0123456789abcdef", text[i] | 0x20);
		if (!text[i] || !digit || !*digit)
			return -1;
		v = v << 4 | (digit - "0123456789abcdef");
	}
	return v;
}

bool soc_id_parse(const char *text, uint32_t *ret)
{
	static const char prefix[] = "jep106:";
	const char *p = text + sizeof(prefix) - 1;

	if (strncmp(text, prefix, sizeof(prefix) - 1))
		return false;
	long maker = hex4(p), soc = maker < 0 || p[4] != ':' ? -1 : hex4(p + 5);
	if (soc < 0 || (p[9] && strcmp(p + 9, "\n")))
		return false;
	*ret = (uint32_t)(maker << 16 | soc);
	return true;
}

static bool read_one(const char *path, uint32_t *ret)
{
	char text[64] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	bool ok = fgets(text, sizeof(text), f) && soc_id_parse(text, ret);
	fclose(f);
	return ok;
}

void soc_id_read(const char *sysfs_root, struct soc_id *ret)
{
	char dir[4096], path[4096 + 300];
	struct dirent *e;

	*ret = (struct soc_id){ 0 };
	snprintf(dir, sizeof(dir), "%s/bus/soc/devices", sysfs_root);
	DIR *d = opendir(dir);
	if (!d)
		return;
	while (!ret->known && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/soc_id", dir, e->d_name);
		ret->known = read_one(path, &ret->id);
	}
	closedir(d);
}

void soc_id_format(const struct soc_id *soc, char *buf, size_t len)
{
	if (!soc->known)
		snprintf(buf, len, "unknown");
	else if (!soc->id)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%04x:%04x", soc->id >> 16, soc->id & 0xffff);
}
