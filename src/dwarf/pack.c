/* Layout packs: parse, pick, apply and write (pack.h). */
#include "pack.h"
#include "arch.h"
#include "debuginfo.h"
#include "stores.h"

#include <ctype.h>
#include <errno.h>
#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* The compiled-in packs: pack-RELEASE-FLAVOR[-ARCH].def (no ARCH: x86_64), in the
 * syntax --layout FILE reads. */
#define PACK(r, e, f, a) { PL_ID, 0, 0, 0, { r, e, f, a } },
#define E(id, v, s) { PL_ENTRY, id, v, s, { 0 } },
#define G(id, s) { PL_GLOBAL, id, 0, s, { 0 } },
#define S(id, s) { PL_STATIC, id, 0, s, { 0 } },
#define A(id, s, anchor, d) { PL_ANCHORED, id, (uint64_t)(d), s, { #anchor } },
#define F(id, s, fn, k) { PL_STORED, id, k, s, { #fn } },
#define BUILD(bid) { PL_BUILD, -1, 0, 0, { bid } },
#define V(id, s, a) { PL_AT, id, a, s, { 0 } },
static const struct pack_line otp25_jit[] = {
#include "pack-25.2.3-jit.def"
};
static const struct pack_line otp25_emu[] = {
#include "pack-25.2.3-emu.def"
};
static const struct pack_line otp27_jit[] = {
#include "pack-27.3.4.1-jit.def"
};
static const struct pack_line otp27_emu[] = {
#include "pack-27.3.4.1-emu.def"
};
static const struct pack_line otp27_jit_aarch64[] = {
#include "pack-27.3.4.1-jit-aarch64.def"
};
static const struct pack_line otp29_jit[] = {
#include "pack-29.1.1-jit.def"
#include "routes-29.1.1-jit-debian.def"
};
static const struct pack_line otp29_emu[] = {
#include "pack-29.1.1-emu.def"
};
#undef PACK
#undef E
#undef G
#undef S
#undef A
#undef F
#undef BUILD
#undef V
#define BUILTIN(name, a) { name, a, sizeof a / sizeof a[0], NULL, NULL }
static const struct pack builtins[] = {
	BUILTIN("otp-25.2.3-jit", otp25_jit),
	BUILTIN("otp-25.2.3-emu", otp25_emu),
	BUILTIN("otp-27.3.4.1-jit", otp27_jit),
	BUILTIN("otp-27.3.4.1-emu", otp27_emu),
	BUILTIN("otp-27.3.4.1-jit-aarch64", otp27_jit_aarch64),
	BUILTIN("otp-29.1.1-jit", otp29_jit),
	BUILTIN("otp-29.1.1-emu", otp29_emu),
};
#define NBUILTIN (sizeof builtins / sizeof builtins[0])

static const struct pack_line *pack_head(const struct pack *p)
{
	return p->n && p->lines[0].kind == PL_ID ? &p->lines[0] : NULL;
}

static int same_id(const struct pack_line *h, const struct pack_id *id)
{
	return strcmp(h->s[0], id->release) == 0 && strcmp(h->s[1], id->erts) == 0 &&
	       strcmp(h->s[2], id->flavor) == 0 && strcmp(h->s[3], id->arch) == 0;
}

const char *pack_id_str(const struct pack_id *id, char *buf, size_t len)
{
	snprintf(buf, len, "OTP %s (erts %s, %s, %s)", id->release, id->erts, id->flavor, id->arch);
	return buf;
}

static void head_id(const struct pack_line *h, struct pack_id *id)
{
	snprintf(id->release, sizeof id->release, "%s", h->s[0]);
	snprintf(id->erts, sizeof id->erts, "%s", h->s[1]);
	snprintf(id->flavor, sizeof id->flavor, "%s", h->s[2]);
	snprintf(id->arch, sizeof id->arch, "%s", h->s[3]);
}

const struct pack *pack_builtin(const struct pack_id *id)
{
	for (size_t i = 0; i < NBUILTIN; i++)
		if (same_id(pack_head(&builtins[i]), id))
			return &builtins[i];
	return NULL;
}

void pack_list(char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NBUILTIN && o < len; i++) {
		const struct pack_line *h = pack_head(&builtins[i]);
		int n = snprintf(buf + o, len - o, "%s%s (erts %s) %s", i ? ", " : "", h->s[0], h->s[1],
				 h->s[2]);
		o += n > 0 ? (size_t)n : 0;
	}
}

/* The symbols of the table of that type (SHT_DYNSYM, SHT_SYMTAB), one at a
 * time: fn returns non-zero to stop. */
static void each_sym(Elf *elf, unsigned type, int (*fn)(const char *name, const GElf_Sym *s, void *arg),
		     void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;
			if (gelf_getsym(d, (int)i, &s) && s.st_shndx != SHN_UNDEF &&
			    (name = elf_strptr(elf, sh.sh_link, s.st_name)) && fn(name, &s, arg))
				return;
		}
	}
}

/* The file's bytes at a link-time address (a constant in .rodata). */
static int file_bytes(Elf *elf, uint64_t addr, void *buf, size_t len)
{
	size_t fsize;
	const char *raw = elf_rawfile(elf, &fsize);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (raw && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr ||
		    addr + len > sh.sh_addr + sh.sh_size)
			continue;
		uint64_t off = sh.sh_offset + (addr - sh.sh_addr);
		if (off + len > fsize)
			return -1;
		memcpy(buf, raw + off, len);
		return 0;
	}
	return -1;
}

struct ident_syms {
	GElf_Sym rel, erts, asm_;
	int have;  /* bits 1, 2, 4 */
};

static int ident_sym(const char *name, const GElf_Sym *s, void *arg)
{
	struct ident_syms *y = arg;
	if (strcmp(name, "etp_otp_release") == 0) {
		y->rel = *s;
		y->have |= 1;
	} else if (strcmp(name, "etp_erts_version") == 0) {
		y->erts = *s;
		y->have |= 2;
	} else if (strcmp(name, "etp_beamasm") == 0) {
		y->asm_ = *s;
		y->have |= 4;
	}
	return y->have == 7;
}

static int read_cstr(Elf *elf, uint64_t addr, uint64_t size, char *buf, size_t len)
{
	size_t n = size && size < len ? size : len - 1;
	if (file_bytes(elf, addr, buf, n) < 0)
		return -1;
	buf[n] = '\0';
	return memchr(buf, '\0', n + 1) && buf[0] ? 0 : -1;
}

static bc_err *arch_of(Elf *elf, struct pack_id *out)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh))
		return bc_error(BC_EFORMAT, "no ELF header");
	const struct core_arch *a = core_arch_of(eh.e_machine, eh.e_ident[EI_CLASS]);
	snprintf(out->arch, sizeof out->arch, "%s", a ? a->name : "other");
	return NULL;
}

bc_err *pack_identify(Elf *elf, int symtab, struct pack_id *out)
{
	memset(out, 0, sizeof *out);
	struct ident_syms y = { 0 };
	each_sym(elf, SHT_DYNSYM, ident_sym, &y);
	if ((y.have & 3) != 3 && symtab)  /* a build that exports none (beamcore layout) */
		each_sym(elf, SHT_SYMTAB, ident_sym, &y);
	int32_t jit = 0;
	if (!(y.have & 1) || !(y.have & 2) ||
	    read_cstr(elf, y.rel.st_value, y.rel.st_size, out->release, sizeof out->release) ||
	    read_cstr(elf, y.erts.st_value, y.erts.st_size, out->erts, sizeof out->erts) ||
	    ((y.have & 4) && file_bytes(elf, y.asm_.st_value, &jit, 4) < 0))
		return bc_error(BC_ENODEBUG, "no etp_otp_release/etp_erts_version in its symbols: "
				"its release cannot be told");
	snprintf(out->flavor, sizeof out->flavor, "%s", jit ? "jit" : "emu");
	return arch_of(elf, out);
}

/* The lines of p's BUILD section for the binary's build-id: [*first, *end),
 * 0 if p holds none for it. */
static int build_section(const struct pack *p, Elf *elf, size_t *first, size_t *end)
{
	uint8_t id[64];
	char hex[129];
	int len = elf_build_id(elf, id);
	if (len <= 0)
		return 0;
	build_id_hex(id, len, hex);
	for (size_t i = 0; i < p->n; i++) {
		if (p->lines[i].kind != PL_BUILD || strcasecmp(p->lines[i].s[0], hex) != 0)
			continue;
		*first = i + 1;
		for (*end = i + 1; *end < p->n && p->lines[*end].kind != PL_BUILD; ++*end)
			;
		return 1;
	}
	return 0;
}

/* The routed address of id in [first, end), 0 if none. */
static const struct pack_line *routed_line(const struct pack *p, size_t first, size_t end, int id)
{
	for (size_t i = first; i < end; i++)
		if (p->lines[i].kind == PL_AT && p->lines[i].id == id)
			return &p->lines[i];
	return NULL;
}

const struct pack *pack_routed(const struct pack *p, Elf *elf, struct pack_id *out)
{
	memset(out, 0, sizeof *out);
	for (size_t k = 0; k < (p ? 1 : NBUILTIN); k++) {
		const struct pack *c = p ? p : &builtins[k];
		size_t first, end;
		if (!build_section(c, elf, &first, &end))
			continue;
		const struct pack_line *rel = routed_line(c, first, end, G_OTP_RELEASE),
				       *erts = routed_line(c, first, end, G_ERTS_VERSION),
				       *asm_ = routed_line(c, first, end, G_BEAMASM);
		int32_t jit = 0;
		/* what is not there, or not a string, is an identity no pack has */
		if (!rel || read_cstr(elf, rel->value, rel->size, out->release, sizeof out->release))
			snprintf(out->release, sizeof out->release, "?");
		if (!erts || read_cstr(elf, erts->value, erts->size, out->erts, sizeof out->erts))
			snprintf(out->erts, sizeof out->erts, "?");
		if (asm_)
			file_bytes(elf, asm_->value, &jit, 4);
		snprintf(out->flavor, sizeof out->flavor, "%s", jit ? "jit" : "emu");
		bc_err_free(arch_of(elf, out));
		return c;
	}
	return NULL;
}

/* The targets (link-time) of the stores in the function at addr (stores.c). */
static int fn_stores(Elf *elf, uint64_t addr, uint64_t len, uint64_t *targets, int max)
{
	uint8_t code[512];
	GElf_Ehdr eh;
	if (len > sizeof code)
		len = sizeof code;
	if (!gelf_getehdr(elf, &eh) || len < 4 || file_bytes(elf, addr, code, len) < 0)
		return 0;
	return code_stores(eh.e_machine, addr, code, len, targets, max);
}

struct want_globals {
	Elf *elf;
	const struct pack *p;
	struct layout *L;
	bc_err *err;
};

static int take_global(const char *name, const GElf_Sym *s, void *arg)
{
	struct want_globals *w = arg;
	for (size_t i = 0; i < w->p->n; i++) {
		const struct pack_line *l = &w->p->lines[i];
		int st;
		const char *g;
		uint64_t t[16];
		if (l->kind == PL_STORED && strcmp(l->s[0], name) == 0 &&
		    ELF64_ST_TYPE(s->st_info) == STT_FUNC &&
		    fn_stores(w->elf, s->st_value, s->st_size, t, 16) > (int)l->value) {
			w->L->e[l->id] = (struct layout_entry){ t[l->value], l->size, true };
			continue;
		}
		if (l->kind == PL_ANCHORED && strcmp(l->s[0], name) == 0) {
			w->L->e[l->id] = (struct layout_entry){ s->st_value + l->value, l->size, true };
			continue;
		}
		if (l->kind != PL_GLOBAL || !(g = layout_global_symbol(l->id, &st)) ||
		    g[0] != name[0] || strcmp(g, name) != 0)
			continue;
		if (l->size && s->st_size && l->size != s->st_size) {
			w->err = bc_error(BC_EMISMATCH, "layout pack %s does not fit this beam.smp: "
					  "global %s is %llu bytes here, %llu in the pack", w->p->name,
					  name, (unsigned long long)s->st_size,
					  (unsigned long long)l->size);
			return 1;
		}
		w->L->e[l->id] = (struct layout_entry){ s->st_value, s->st_size ? s->st_size : l->size, true };
	}
	return 0;
}

bc_err *pack_apply(const struct pack *p, const struct pack_id *bin, Elf *elf, struct layout *L)
{
	memset(L, 0, sizeof *L);
	const struct pack_line *h = pack_head(p);
	char a[128], b[128];
	if (!h)
		return bc_error(BC_EFORMAT, "layout pack %s: no PACK(...) line first", p->name);
	if (bin && !same_id(h, bin)) {
		struct pack_id pid;
		head_id(h, &pid);
		return bc_error(BC_EMISMATCH, "layout pack %s is for %s, but this beam.smp is %s",
				p->name, pack_id_str(&pid, a, sizeof a), pack_id_str(bin, b, sizeof b));
	}
	int by_symbol = 0;  /* (a layout cache has no line .dynsym places) */
	for (size_t i = 0; i < p->n; i++) {
		const struct pack_line *l = &p->lines[i];
		if (l->kind == PL_ENTRY)
			L->e[l->id] = (struct layout_entry){ l->value, l->size, true };
		by_symbol |= l->kind == PL_GLOBAL || l->kind == PL_ANCHORED || l->kind == PL_STORED;
	}
	struct want_globals w = { elf, p, L, NULL };
	if (by_symbol)
		each_sym(elf, SHT_DYNSYM, take_global, &w);
	if (w.err)
		return w.err;
	size_t first = 0, end = 0;  /* this build's routes: what .dynsym did not place */
	if (build_section(p, elf, &first, &end))
		for (size_t i = first; i < end; i++)
			if (p->lines[i].kind == PL_AT && !L->e[p->lines[i].id].found)
				L->e[p->lines[i].id] = (struct layout_entry){ p->lines[i].value,
									      p->lines[i].size, true };
	for (int i = 0; i < L_COUNT; i++)
		L->nfound += L->e[i].found;
	return NULL;
}

/* An argument trimmed, its quotes taken off (in place). */
static char *unquote(char *a)
{
	while (isspace((unsigned char)*a))
		a++;
	char *e = a + strlen(a);
	while (e > a && isspace((unsigned char)e[-1]))
		*--e = '\0';
	if (a[0] == '"' && e > a + 1 && e[-1] == '"') {
		e[-1] = '\0';
		a++;
	}
	return a;
}

/* CACHE(FINGERPRINT, SUM, SOURCE): the source, a path, is the rest of the
 * line (commas and all). */
static bc_err *parse_cache(char *args, const char *path, int lineno, struct pack_line *out)
{
	memset(out, 0, sizeof *out);
	out->kind = PL_CACHE;
	out->id = -1;
	for (int i = 0; i < 2; i++) {
		char *c = strchr(args, ',');
		if (!c)
			return bc_error(BC_EFORMAT, "layout pack %s:%d: expected CACHE(FINGERPRINT, "
					"SUM, SOURCE)", path, lineno);
		*c = '\0';
		out->s[i] = unquote(args);
		args = c + 1;
	}
	out->s[2] = unquote(args);
	return NULL;
}

/* One line of a pack file: NAME(ARG, ...); its strings are cut in place. */
static bc_err *parse_line(char *s, const char *path, int lineno, struct pack_line *out, int *empty)
{
	while (isspace((unsigned char)*s))
		s++;
	*empty = !*s || strncmp(s, "/*", 2) == 0 || *s == '*' || strncmp(s, "//", 2) == 0;
	if (*empty)
		return NULL;
	char *comment = strstr(s, "/*");  /* a comment after the line: its evidence */
	if (comment)
		*comment = '\0';
	char *open = strchr(s, '('), *close = strrchr(s, ')');
	if (!open || !close || close < open)
		return bc_error(BC_EFORMAT, "layout pack %s:%d: not NAME(ARGS)", path, lineno);
	*close = '\0';
	size_t nlen = (size_t)(open - s);
	if (nlen == 5 && strncmp(s, "CACHE", 5) == 0)
		return parse_cache(open + 1, path, lineno, out);
	char *arg[4];
	int n = 0;
	for (char *p = open + 1; n < 4;) {
		while (isspace((unsigned char)*p))
			p++;
		arg[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = '\0';
		p = c + 1;
	}
	for (int i = 0; i < n; i++)
		arg[i] = unquote(arg[i]);
	memset(out, 0, sizeof *out);
	if (nlen == 4 && strncmp(s, "PACK", 4) == 0 && n == 4) {
		out->kind = PL_ID;
		for (int i = 0; i < 4; i++)
			out->s[i] = arg[i];
		return NULL;
	}
	if (nlen == 5 && strncmp(s, "BUILD", 5) == 0 && n == 1 && arg[0][0]) {
		out->kind = PL_BUILD;
		out->id = -1;
		out->s[0] = arg[0];
		return NULL;
	}
	int want = nlen != 1 ? 0 : *s == 'E' || *s == 'V' ? 3 : *s == 'G' || *s == 'S' ? 2
		 : *s == 'A' || *s == 'F' ? 4 : 0;
	if (!want || n != want)
		return bc_error(BC_EFORMAT, "layout pack %s:%d: expected PACK(4 strings), "
				"E(ID, VALUE, SIZE), G(ID, SIZE), S(ID, SIZE), A(ID, SIZE, "
				"VARIABLE, DISTANCE), F(ID, SIZE, FUNCTION, N), BUILD(\"BUILD-ID\"), "
				"V(ID, SIZE, ADDRESS) or CACHE(FINGERPRINT, SUM, SOURCE)", path, lineno);
	out->kind = *s == 'E' ? PL_ENTRY : *s == 'G' ? PL_GLOBAL : *s == 'S' ? PL_STATIC
		  : *s == 'A' ? PL_ANCHORED : *s == 'V' ? PL_AT : PL_STORED;
	out->id = layout_id_find(arg[0], strlen(arg[0]));
	if (out->id < 0)
		return bc_error(BC_EFORMAT, "layout pack %s:%d: unknown entry %s (a pack of another "
				"beamcore?)", path, lineno, arg[0]);
	int st;
	if ((out->kind == PL_ENTRY) == (layout_global_symbol(out->id, &st) != NULL))
		return bc_error(BC_EFORMAT, "layout pack %s:%d: %s is %s", path, lineno, arg[0],
				out->kind == PL_ENTRY ? "a global (G or S)" : "no global (E)");
	char *end;
	int sz_arg = out->kind == PL_ENTRY ? 2 : 1;
	out->size = strtoull(arg[sz_arg], &end, 0);
	if (*end || !*arg[sz_arg])
		return bc_error(BC_EFORMAT, "layout pack %s:%d: bad number %s", path, lineno,
				arg[sz_arg]);
	const char *v = out->kind == PL_ENTRY ? arg[1] : out->kind == PL_AT ? arg[2]
		      : want == 4 ? arg[3] : "0";
	out->value = want == 4 ? (uint64_t)strtoll(v, &end, 0) : strtoull(v, &end, 0);
	if (*end || !*v)
		return bc_error(BC_EFORMAT, "layout pack %s:%d: bad number %s", path, lineno, v);
	if (want == 4)
		out->s[0] = arg[2];
	return NULL;
}

bc_err *pack_read(const char *path, struct pack *out)
{
	memset(out, 0, sizeof *out);
	out->name = path;
	FILE *f = fopen(path, "r");
	if (!f)
		return bc_error(BC_EIO, "--layout %s: %s", path, strerror(errno));
	size_t cap = 0, len = 0;
	char buf[4096];
	size_t r;
	while ((r = fread(buf, 1, sizeof buf, f)) > 0 && len < (16u << 20)) {
		char *t = realloc(out->text, len + r + 1);
		if (!t) {
			fclose(f);
			return bc_error(BC_ENOMEM, "out of memory");
		}
		out->text = t;
		memcpy(t + len, buf, r);
		len += r;
	}
	fclose(f);
	(void)cap;
	if (!out->text)
		return bc_error(BC_EFORMAT, "--layout %s: empty", path);
	out->text[len] = '\0';
	size_t nl = 1;
	for (size_t i = 0; i < len; i++)
		nl += out->text[i] == '\n';
	out->owned = calloc(nl, sizeof *out->owned);
	if (!out->owned)
		return bc_error(BC_ENOMEM, "out of memory");
	int lineno = 0, seen_build = 0;
	for (char *s = out->text; s; lineno++) {
		char *e = strchr(s, '\n');
		if (e)
			*e = '\0';
		int empty;
		bc_err *err = parse_line(s, path, lineno + 1, &out->owned[out->n], &empty);
		if (err)
			return err;
		if (!empty) {
			enum pack_kind k = out->owned[out->n].kind;
			seen_build |= k == PL_BUILD;
			if (k == PL_AT && !seen_build)
				return bc_error(BC_EFORMAT, "layout pack %s:%d: V(...) before any "
						"BUILD(...): for which binary?", path, lineno + 1);
			if ((k == PL_ID) != (out->n == 0))
				return bc_error(BC_EFORMAT, "layout pack %s:%d: PACK(...) must be the "
						"first line, and only it", path, lineno + 1);
			if (k == PL_CACHE && out->n != 1)
				return bc_error(BC_EFORMAT, "layout pack %s:%d: CACHE(...) must be the "
						"second line", path, lineno + 1);
			out->n++;
		}
		s = e ? e + 1 : NULL;
	}
	out->lines = out->owned;
	return out->n ? NULL : bc_error(BC_EFORMAT, "--layout %s: no PACK(...) line", path);
}

void pack_free(struct pack *p)
{
	free(p->owned);
	free(p->text);
	memset(p, 0, sizeof *p);
}

/* A line per entry of L: globals by symbol or route (anchors NULL: none);
 * cache: globals left for the build's V lines (write_routes). */
static void write_entries(FILE *f, const struct layout *L, const struct pack_anchor *anchors,
			  int cache)
{
	for (int i = 0; i < L_COUNT; i++) {
		const struct layout_entry *e = &L->e[i];
		int st = 0;
		const char *g = layout_global_symbol(i, &st);
		if (!e->found)
			fprintf(f, "/* not in this build: %s */\n", layout_id_name(i));
		else if (g && cache)
			continue;
		else if (g && st && anchors && anchors[i].name && anchors[i].stored)
			fprintf(f, "F(%s, %llu, %s, %lld)\n", layout_id_name(i),
				(unsigned long long)e->size, anchors[i].name,
				(long long)anchors[i].delta);
		else if (g && st && anchors && anchors[i].name)
			fprintf(f, "A(%s, %llu, %s, %s0x%llx)\n", layout_id_name(i),
				(unsigned long long)e->size, anchors[i].name,
				anchors[i].delta < 0 ? "-" : "", (unsigned long long)
				(anchors[i].delta < 0 ? -anchors[i].delta : anchors[i].delta));
		else if (g)
			fprintf(f, "%s(%s, %llu)\n", st ? "S" : "G", layout_id_name(i),
				(unsigned long long)e->size);
		else
			fprintf(f, "E(%s, 0x%llx, %llu)\n", layout_id_name(i),
				(unsigned long long)e->value, (unsigned long long)e->size);
	}
}

static void write_id(FILE *f, const struct pack_id *id)
{
	fprintf(f, "PACK(\"%s\", \"%s\", \"%s\", \"%s\")\n", id->release, id->erts, id->flavor,
		id->arch);
}

int pack_write(FILE *f, const struct pack_id *id, const struct layout *L,
	       const struct pack_anchor *anchors, const char *source)
{
	fprintf(f, "/* beamcore layout pack (docs/layout-packs.md): written by `beamcore layout` */\n"
		   "/* from %s */\n", source);
	write_id(f, id);
	write_entries(f, L, anchors, 0);
	return ferror(f) ? -1 : 0;
}

const struct pack_line *pack_cache(const struct pack *p)
{
	return p->n > 1 && p->lines[1].kind == PL_CACHE ? &p->lines[1] : NULL;
}

int pack_write_cache(FILE *f, const struct pack_id *id, const struct layout *L,
		     const char *build_hex, const char *fingerprint, const char *source)
{
	if (strpbrk(source, "\n\r") || strstr(source, "/*"))  /* one line, no comment */
		return -1;
	fprintf(f, "/* beamcore layout cache (docs/layout-packs.md): the offset table of one "
		   "build, from its DWARF */\n");
	write_id(f, id);
	fprintf(f, "CACHE(\"%s\", \"%016llx\", \"%s\")\n", fingerprint,
		(unsigned long long)layout_sum(L), source);
	write_entries(f, L, NULL, 1);
	fprintf(f, "BUILD(\"%s\")\n", build_hex);
	for (int i = 0; i < L_COUNT; i++) {
		int st;
		if (L->e[i].found && layout_global_symbol(i, &st))
			fprintf(f, "V(%s, %llu, 0x%llx)\n", layout_id_name(i),
				(unsigned long long)L->e[i].size, (unsigned long long)L->e[i].value);
	}
	return ferror(f) ? -1 : 0;
}

/* The section holding a link-time address (SHT_NOBITS too), 0 if none. */
static size_t section_of(Elf *elf, uint64_t addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && addr >= sh.sh_addr &&
		    addr < sh.sh_addr + sh.sh_size)
			return elf_ndxscn(scn);
	return 0;
}

struct anchoring {
	Elf *elf;
	const struct layout *L;
	struct pack_anchor *out;
	const char *exported;  /* found by exported_sym */
	uint64_t addr;
	uint64_t best[L_COUNT];  /* the size of the storing function chosen */
};

static int exported_sym(const char *name, const GElf_Sym *s, void *arg)
{
	struct anchoring *a = arg;
	if (strcmp(name, a->exported) != 0 || s->st_value != a->addr)
		return 0;
	a->exported = NULL;
	return 1;
}

static void consider(enum layout_id id, const char *name, uint64_t addr, void *arg)
{
	struct anchoring *a = arg;
	const struct layout_entry *e = &a->L->e[id];
	int64_t d = (int64_t)(e->value - addr);
	if (!e->found || section_of(a->elf, addr) != section_of(a->elf, e->value) ||
	    (a->out[id].name && (d < 0 ? -d : d) >= (a->out[id].delta < 0 ? -a->out[id].delta
									 : a->out[id].delta)))
		return;
	a->exported = name;
	a->addr = addr;
	each_sym(a->elf, SHT_DYNSYM, exported_sym, a);
	if (!a->exported)  /* in .dynsym at that address */
		a->out[id] = (struct pack_anchor){ name, d, 0 };
}

/* A file static with no anchor: the smallest exported function storing to it. */
static int storing_function(const char *name, const GElf_Sym *s, void *arg)
{
	struct anchoring *a = arg;
	uint64_t t[16];
	if (ELF64_ST_TYPE(s->st_info) != STT_FUNC)
		return 0;
	int n = fn_stores(a->elf, s->st_value, s->st_size, t, 16);
	for (int k = 0; k < n; k++)
		for (int i = 0; i < L_COUNT; i++) {
			int st;
			if (!a->L->e[i].found || !layout_global_symbol(i, &st) || !st ||
			    t[k] != a->L->e[i].value || (a->out[i].name && !a->out[i].stored) ||
			    (a->out[i].name && a->best[i] <= s->st_size))
				continue;
			a->out[i] = (struct pack_anchor){ name, k, 1 };
			a->best[i] = s->st_size;
		}
	return 0;
}

void pack_anchors(Dwarf *dw, Elf *elf, const struct layout *L, struct pack_anchor *out)
{
	memset(out, 0, L_COUNT * sizeof *out);
	static struct anchoring a;
	a = (struct anchoring){ elf, L, out, NULL, 0, { 0 } };
	layout_cu_exports(dw, consider, &a);
	each_sym(elf, SHT_DYNSYM, storing_function, &a);
}
