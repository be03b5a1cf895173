/* The layout cache (layoutcache.h): one pack file per build-id. */
#include "layoutcache.h"
#include "pack.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ${XDG_CACHE_HOME:-$HOME/.cache}/beamcore (a relative value is ignored, as
 * the XDG spec says); *base_len: the length of the part before /beamcore. */
static int cache_dir(char *buf, size_t len, int *base_len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s%n/beamcore", xdg, base_len);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.cache%n/beamcore", home, base_len);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int layout_cache_path(const struct exe *x, char *buf, size_t len)
{
	char hex[129];
	int base_len, n = cache_dir(buf, len, &base_len);
	if (n < 0 || !x->build_id_len)
		return -1;
	build_id_hex(x->build_id, x->build_id_len, hex);
	int m = snprintf(buf + n, len - (size_t)n, "/layout-%s.pack", hex);
	return m < 0 || (size_t)m >= len - (size_t)n ? -1 : 0;
}

/* What a cache must have been written by: this beamcore (its build-id) with
 * this layout.def (its entries' hash). */
static void fingerprint(char *buf, size_t len)
{
	uint8_t self[64];
	char hex[129];
	build_id_hex(self, self_build_id(self), hex);
	snprintf(buf, len, "%016llx-%s", (unsigned long long)layout_table_hash(), hex);
}

/* The pack's BUILD section is for build hex (and only it). */
static int for_build(const struct pack *p, const char *hex)
{
	int n = 0, ours = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->lines[i].kind == PL_BUILD) {
			n++;
			ours |= strcmp(p->lines[i].s[0], hex) == 0;
		}
	return n == 1 && ours;
}

int layout_cache_load(const struct exe *x, struct layout *L, char **source, const char **why)
{
	char path[4096], fp[160], hex[129];
	struct pack p;
	*source = NULL;
	*why = "no cache file";
	if (layout_cache_path(x, path, sizeof path) < 0 || access(path, R_OK) != 0)
		return -1;
	build_id_hex(x->build_id, x->build_id_len, hex);
	bc_err *err = pack_read(path, &p);
	const struct pack_line *c = err ? NULL : pack_cache(&p);
	fingerprint(fp, sizeof fp);
	if (!c)
		*why = "unreadable";
	else if (strcmp(c->s[0], fp) != 0)
		*why = "written by another beamcore";
	else if (!for_build(&p, hex))
		*why = "of another build";
	else if ((err = pack_apply(&p, NULL, x->elf, L)) ||
		 strtoull(c->s[1], NULL, 16) != layout_sum(L))
		*why = "damaged";  /* (entries cut or changed) */
	else if (!(*source = strdup(c->s[2])))
		*why = "out of memory";
	else
		*why = NULL;
	bc_err_free(err);
	pack_free(&p);
	return *why ? -1 : 0;
}

/* The cache directory made where missing: the base's last component
 * (~/.cache, $XDG_CACHE_HOME) and beamcore/ in it, never the base's parents. */
static int make_dirs(char *dir, int base_len)
{
	char *s = dir + base_len;
	while (s > dir && s[-1] != '/')
		s--;
	for (;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		int rc = mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
		*s = c;
		if (rc < 0)
			return -1;
		if (!c)
			return 0;
	}
}

int layout_cache_store(const struct exe *x, const struct layout *L, const char *source)
{
	char dir[4096], path[4096], tmp[4200], hex[129], fp[160];
	int base_len;
	if (cache_dir(dir, sizeof dir, &base_len) < 0 || layout_cache_path(x, path, sizeof path) < 0 ||
	    make_dirs(dir, base_len) < 0)
		return -1;
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	struct pack_id id;
	bc_err *err = pack_identify(x->elf, 1, &id);
	if (err)  /* the build-id says which build it is; the identity is for people */
		id = (struct pack_id){ "unknown", "unknown", "unknown", "unknown" };
	bc_err_free(err);
	build_id_hex(x->build_id, x->build_id_len, hex);
	fingerprint(fp, sizeof fp);
	int rc = pack_write_cache(f, &id, L, hex, fp, source);
	if (fclose(f) != 0 || rc < 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}
