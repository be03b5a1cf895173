/* Layout packs (src/dwarf/pack.c): a table written by pack_write reads back
 * line for line (entries, globals, anchored and stored statics with negative
 * distances); the compiled-in packs are found by their identity, 29's with
 * the routes of a build (BUILD, V) and they read back too; malformed
 * files are one error each, never a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
