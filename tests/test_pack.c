/* Layout packs (src/dwarf/pack.c): a table written by pack_write reads back
 * line for line (entries, globals, anchored and stored statics with negative
 * distances); the compiled-in packs are found by their identity, 29's with
 * the routes of a build (BUILD, V) and they read back too; malformed
 * files are one error each, never a crash. The layout cache
 * (src/dwarf/layoutcache.c), for this test's own ELF file and build-id in a
 * private XDG_CACHE_HOME: stored and loaded whole; another beamcore's, another
 * build's, a cut or changed one and garbage are misses, each for its reason;
 * an unwritable directory is no cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#include "layoutcache.h"
#include "pack.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL " __VA_ARGS__); printf("\n"); } } while (0)

static const struct pack_line *line_of(const struct pack *p, int id)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->lines[i].kind != PL_ID && p->lines[i].id == id)
			return &p->lines[i];
	return NULL;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The cache file with its first `from` replaced by `to`. */
static int spoil(const char *path, const char *from, const char *to)
{
	static char text[65536], out[65536];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = '\0';
	char *at = strstr(text, from);
	if (!at || n + strlen(to) >= sizeof out)
		return -1;
	snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	write_file(path, out);
	return 0;
}

static void layout_cache(const struct layout *L)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	elf_version(EV_CURRENT);
	struct exe x = { 0 };
	x.elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	x.build_id_len = x.elf ? elf_build_id(x.elf, x.build_id) : 0;
	char dir[] = "/tmp/beamcore-cache-XXXXXX", path[4096], hex[129];
	if (!x.build_id_len || !mkdtemp(dir)) {
		printf("note: no build-id (or no temporary directory): the layout cache not checked\n");
		return;
	}
	setenv("XDG_CACHE_HOME", dir, 1);
	const char *source = "/debug, with a comma/beam.smp";
	static struct layout got;
	char *src = NULL;
	const char *why = "";
	CHECK(layout_cache_load(&x, &got, &src, &why) < 0 && strcmp(why, "no cache file") == 0,
	      "no cache file yet: a miss (%s)", why);
	CHECK(layout_cache_store(&x, L, source) == 0, "layout_cache_store");
	CHECK(layout_cache_path(&x, path, sizeof path) == 0 && access(path, R_OK) == 0,
	      "the cache file %s", path);
	int rc = layout_cache_load(&x, &got, &src, &why);
	CHECK(rc == 0 && layout_same(L, &got) && src && strcmp(src, source) == 0,
	      "the cache loads whole, its source (commas kept): %s", why ? why : "");
	free(src);
	char sub[4200];
	snprintf(sub, sizeof sub, "%s/beamcore", dir);
	DIR *d = opendir(sub);
	int files = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		files += e->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK(files == 1, "one file in the cache directory, no temporary (%d)", files);

	build_id_hex(x.build_id, x.build_id_len, hex);
	char other[140];
	snprintf(other, sizeof other, "BUILD(\"0%s\")", hex + 1);
	other[7] = hex[0] == '0' ? '1' : '0';
	char mine[140];
	snprintf(mine, sizeof mine, "BUILD(\"%s\")", hex);
	static const struct { const char *from, *to, *why; } bad[] = {
		{ "CACHE(\"", "CACHE(\"0", "written by another beamcore" },
		{ NULL, NULL, "of another build" },
		{ "E(P_ID, 0x48, 8)\n", "", "damaged" },
		{ "E(P_ID, 0x48, 8)", "E(P_ID, 0x50, 8)", "damaged" },
		{ "V(G_ERTS_PROC, 320, 0x3fbfc0)", "V(G_ERTS_PROC, 320, 0x3fbfc8)", "damaged" },
		{ "PACK(", "garbage(", "unreadable" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		layout_cache_store(&x, L, source);
		int s = bad[i].from ? spoil(path, bad[i].from, bad[i].to) : spoil(path, mine, other);
		src = NULL;
		rc = layout_cache_load(&x, &got, &src, &why);
		CHECK(s == 0 && rc < 0 && why && strcmp(why, bad[i].why) == 0 && !src,
		      "a cache %s: a miss (%s)", bad[i].why, why ? why : "a hit");
	}
	unlink(path);
	rmdir(sub);
	/* a file where the directory would be: no cache, no crash */
	CHECK(layout_cache_store(&x, L, source) == 0, "the directory made again");
	unlink(path);
	rmdir(sub);
	write_file(sub, "");
	CHECK(layout_cache_store(&x, L, source) < 0, "an unwritable cache directory: not stored");
	unlink(sub);
	rmdir(dir);
	elf_end(x.elf);
	close(fd);
}

int main(void)
{
	char path[] = "/tmp/beamcore-pack-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);

	static struct layout L;
	static struct pack_anchor anchors[L_COUNT];
	L.e[P_ID] = (struct layout_entry){ 0x48, 8, true };
	L.e[G_ERTS_PROC] = (struct layout_entry){ 0x3fbfc0, 320, true };
	L.e[G_ATOM_SPACE] = (struct layout_entry){ 0x1000, 8, true };
	L.e[G_RANGES] = (struct layout_entry){ 0x2000, 96, true };
	L.e[G_FLXCTR_GROUPS] = (struct layout_entry){ 0x3000, 4, true };
	anchors[G_ATOM_SPACE] = (struct pack_anchor){ "erts_atom_table", -0x10, 0 };
	anchors[G_FLXCTR_GROUPS] = (struct pack_anchor){ "erts_flxctr_setup", 1, 1 };
	struct pack_id id = { "25", "13.1.5", "jit", "x86_64" };
	FILE *f = fopen(path, "w");
	CHECK(pack_write(f, &id, &L, anchors, "test") == 0, "pack_write");
	fclose(f);

	struct pack p;
	bc_err *e = pack_read(path, &p);
	CHECK(!e, "pack_read: %s", e ? e->msg : "");
	if (!e) {
		const struct pack_line *l;
		CHECK(p.n && p.lines[0].kind == PL_ID && strcmp(p.lines[0].s[1], "13.1.5") == 0 &&
		      strcmp(p.lines[0].s[2], "jit") == 0, "PACK line");
		CHECK((l = line_of(&p, P_ID)) && l->kind == PL_ENTRY && l->value == 0x48 && l->size == 8,
		      "E(P_ID)");
		CHECK((l = line_of(&p, G_ERTS_PROC)) && l->kind == PL_GLOBAL && l->size == 320,
		      "G(G_ERTS_PROC)");
		CHECK((l = line_of(&p, G_ATOM_SPACE)) && l->kind == PL_ANCHORED &&
		      strcmp(l->s[0], "erts_atom_table") == 0 && (int64_t)l->value == -0x10,
		      "A(G_ATOM_SPACE)");
		CHECK((l = line_of(&p, G_RANGES)) && l->kind == PL_STATIC && l->size == 96,
		      "S(G_RANGES)");
		CHECK((l = line_of(&p, G_FLXCTR_GROUPS)) && l->kind == PL_STORED && l->value == 1 &&
		      strcmp(l->s[0], "erts_flxctr_setup") == 0, "F(G_FLXCTR_GROUPS)");
		CHECK(!line_of(&p, P_REG), "an entry not found is no line");
	}
	bc_err_free(e);
	pack_free(&p);

	/* the compiled-in packs, by identity; none for another erts */
	static const struct pack_id known[] = {
		{ "25", "13.1.5", "jit", "x86_64" }, { "25", "13.1.5", "emu", "x86_64" },
		{ "27", "15.2.7", "jit", "x86_64" }, { "27", "15.2.7", "emu", "x86_64" },
		{ "29", "17.1", "jit", "x86_64" }, { "29", "17.1", "emu", "x86_64" },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		const struct pack *b = pack_builtin(&known[i]);
		CHECK(b && line_of(b, P_ID) && line_of(b, G_ERTS_PROC), "compiled-in pack %s %s",
		      known[i].release, known[i].flavor);
	}
	/* CI builds every jit flavor and 29's emu, and the e2e tests layout-* hold
	 * those packs to their DWARF; 25's and 27's emu packs come from builds CI
	 * does not make. A layout.def entry added since shows here: each emu pack
	 * has an entry exactly where its release's jit pack has one (the jit's
	 * frame layout aside). */
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strcmp(known[i].flavor, "emu") != 0)
			continue;
		struct pack_id jid = known[i];
		snprintf(jid.flavor, sizeof jid.flavor, "jit");
		const struct pack *emu = pack_builtin(&known[i]), *jit = pack_builtin(&jid);
		for (int id = 0; emu && jit && id < L_COUNT; id++)
			CHECK(id == G_FRAME_LAYOUT || !line_of(emu, id) == !line_of(jit, id),
			      "%s has %s, %s has not: regenerate the one out of step "
			      "(docs/layout-packs.md)", line_of(emu, id) ? emu->name : jit->name,
			      layout_id_name(id), line_of(emu, id) ? jit->name : emu->name);
	}
	/* 29's exports no VM global: the compiled-in pack holds routes to Debian
	 * forky's build (BUILD, then V lines), after its entries */
	const struct pack *p29 = pack_builtin(&(struct pack_id){ "29", "17.1", "jit", "x86_64" });
	size_t build = 0, at = 0;
	for (size_t i = 0; p29 && i < p29->n; i++) {
		if (p29->lines[i].kind == PL_BUILD && !build)
			build = i;
		if (p29->lines[i].kind == PL_AT && p29->lines[i].id == G_ERTS_PROC)
			at = i;
	}
	CHECK(build && strcmp(p29->lines[build].s[0], "a1a858f879ccf28e7871c290914b693182006115") == 0 &&
	      at > build && p29->lines[at].value == 0xc17ec0 && p29->lines[at].size == 320,
	      "routes of forky's 29.1.1 in the compiled-in pack");

	/* BUILD and V read back, a comment after a line is its evidence */
	write_file(path, "PACK(\"29\", \"17.1\", \"jit\", \"x86_64\")\nE(P_ID, 0x48, 8)\n"
			 "BUILD(\"00ff\")\nV(G_ERTS_PROC, 320, 0xc17ec0)  /* code: 49 references */\n");
	e = pack_read(path, &p);
	CHECK(!e && p.n == 4 && p.lines[2].kind == PL_BUILD && strcmp(p.lines[2].s[0], "00ff") == 0 &&
	      p.lines[3].kind == PL_AT && p.lines[3].id == G_ERTS_PROC && p.lines[3].value == 0xc17ec0 &&
	      p.lines[3].size == 320, "BUILD and V read back: %s", e ? e->msg : "");
	bc_err_free(e);
	pack_free(&p);

	struct pack_id other = { "25", "13.1.4", "jit", "x86_64" };
	CHECK(!pack_builtin(&other), "no pack for erts 13.1.4");

	static const char *const bad[] = {
		"", "garbage\n", "E(P_ID, 1, 8)\nPACK(\"25\", \"1\", \"jit\", \"x86_64\")\n",
		"PACK(\"25\", \"1\", \"jit\", \"x86_64\")\nE(P_ID, zz, 8)\n",
		"PACK(\"25\", \"1\", \"jit\", \"x86_64\")\nE(NOPE, 1, 8)\n",
		"PACK(\"25\", \"1\", \"jit\", \"x86_64\")\nE(G_ERTS_PROC, 1, 8)\n",
		"PACK(\"25\", \"1\", \"jit\", \"x86_64\")\nG(P_ID, 8)\n",
		"PACK(\"25\", \"1\", \"jit\", \"x86_64\")\nA(G_ATOM_SPACE, 8, x)\n",
		"PACK(\"25\", \"1\", \"jit\", \"x86_64\")\nPACK(\"25\", \"1\", \"jit\", \"x86_64\")\n",
		"PACK(\"25\", \"1\"\n", "PACK(\"25\", \"1\", \"jit\", \"x86_64\")\nE(P_ID, 1, 8, 9, 10)\n",
		"PACK(\"29\", \"1\", \"jit\", \"x86_64\")\nV(G_ERTS_PROC, 320, 0x10)\n",  /* no BUILD */
		"PACK(\"29\", \"1\", \"jit\", \"x86_64\")\nBUILD(\"00\")\nV(P_ID, 8, 0x10)\n",
		"PACK(\"29\", \"1\", \"jit\", \"x86_64\")\nBUILD()\n",
		"PACK(\"29\", \"1\", \"jit\", \"x86_64\")\nBUILD(\"00\")\nV(G_ERTS_PROC, 320)\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		write_file(path, bad[i]);
		e = pack_read(path, &p);
		CHECK(e && !strchr(e->msg, '\n'), "bad pack %zu refused in one line", i);
		bc_err_free(e);
		pack_free(&p);
	}
	unlink(path);
	layout_cache(&L);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
