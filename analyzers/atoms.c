/* atoms: the atom table, its count against its limit and its atoms clustered
 * by pattern (numbers as <N>, hex as <HEX>, UUIDs as <UUID>), each pattern
 * with its count and its index range: an atom's index is its creation order,
 * so a range says when a pattern's atoms were made. What fills a table that
 * kills the node ("no more index entries in atom_tab") is the pattern with
 * the most atoms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "atoms.h"
#include "grow.h"
#include "hmap.h"
#include "needs.h"

static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* 8-4-4-4-12 hex digits at s (n bytes left) */
static bool is_uuid(const unsigned char *s, size_t n)
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
	if (n < sizeof shape - 1)
		return false;
	for (size_t i = 0; i < sizeof shape - 1; i++)
		if (shape[i] == '-' ? s[i] != '-' : !is_hex(s[i]))
			return false;
	return n == sizeof shape - 1 || !is_hex(s[sizeof shape - 1]);
}

/* The pattern of atom text s[0..n) into out (cap bytes; an atom is at most
 * 1020 bytes, a placeholder at most 6 for one of them): its length. A run of
 * 8 hex digits or more with a letter and a digit in it is <HEX>; of digits,
 * <N>. */
static size_t pattern_of(const char *text, size_t n, char *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t o = 0;
	for (size_t i = 0; i < n && o + 7 < cap;) {
		const char *ph = NULL;
		size_t run = 0;
		if ((i == 0 || !is_hex(s[i - 1])) && is_uuid(s + i, n - i)) {
			ph = "<UUID>", run = 36;
		} else if (is_hex(s[i]) && (i == 0 || !is_hex(s[i - 1]))) {
			size_t j = i, digits = 0;
			for (; j < n && is_hex(s[j]); j++)
				digits += is_digit(s[j]);
			if (j - i >= 8 && digits && digits < j - i)
				ph = "<HEX>", run = j - i;
		}
		if (!ph && is_digit(s[i])) {
			size_t j = i;
			while (j < n && is_digit(s[j]))
				j++;
			ph = "<N>", run = j - i;
		}
		if (ph) {
			size_t l = strlen(ph);
			memcpy(out + o, ph, l);
			o += l;
			i += run;
		} else {
			out[o++] = (char)s[i++];
		}
	}
	return o;
}

struct build {
	struct atom_pattern *all;  /* every pattern, text as an arena offset */
	size_t n, cap;
	size_t *off;               /* all[i]'s text at arena + off[i], len[i] bytes */
	uint32_t *len;
	size_t off_cap, len_cap;
	struct atom_patterns *out;
};

static uint64_t hash_pattern(const void *ctx, uint32_t item)
{
	const struct build *b = ctx;
	return hmap_hash_bytes(b->out->arena + b->off[item], b->len[item]);
}

static int by_count(const void *x, const void *y)
{
	const struct atom_pattern *a = x, *b = y;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

bc_err *atom_patterns(const struct vm *vm, struct atom_patterns *out)
{
	*out = (struct atom_patterns){ 0 };
	struct build b = { .out = out };
	struct hmap m;
	if (hmap_init(&m, 1024) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = NULL;
	char pat[4096];
	if (!(out->of = malloc((vm->natoms ? vm->natoms : 1) * sizeof *out->of))) {
		hmap_free(&m);
		return bc_error(BC_ENOMEM, "out of memory for %zu atoms", vm->natoms);
	}
	for (size_t i = 0; i < vm->natoms && !err; i++) {
		const struct vm_atom *a = &vm->atoms[i];
		out->of[i] = UINT32_MAX;
		if (!a->text)
			continue;
		out->read++;
		size_t n = pattern_of(a->text, a->len, pat, sizeof pat);
		uint64_t h = hmap_hash_bytes(pat, n);
		size_t j;
		for (j = hmap_first(&m, h); m.slot[j]; j = hmap_next(&m, j)) {
			uint32_t k = m.slot[j] - 1;
			if (b.len[k] == n && memcmp(out->arena + b.off[k], pat, n) == 0)
				break;
		}
		if (m.slot[j]) {
			struct atom_pattern *p = &b.all[m.slot[j] - 1];
			p->count++;
			p->last = i;
			out->of[i] = m.slot[j] - 1;
			continue;
		}
		/* a new pattern: its text (NUL-terminated) in the arena */
		/* (n + 1 <= sizeof pat <= the first capacity: one doubling makes room) */
		char *ar = grow(out->arena, &out->arena_cap, out->arena_len + n, 1, sizeof pat);
		if (!ar) {
			err = bc_error(BC_ENOMEM, "out of memory after %zu patterns", b.n);
			break;
		}
		out->arena = ar;
		struct atom_pattern *all = grow(b.all, &b.cap, b.n, sizeof *all, 1024);
		size_t *off = all ? grow(b.off, &b.off_cap, b.n, sizeof *off, 1024) : NULL;
		if (off)
			b.off = off;
		uint32_t *len = off ? grow(b.len, &b.len_cap, b.n, sizeof *len, 1024) : NULL;
		if (all)
			b.all = all;
		if (!len) {
			err = bc_error(BC_ENOMEM, "out of memory after %zu patterns", b.n);
			break;
		}
		b.len = len;
		memcpy(out->arena + out->arena_len, pat, n);
		out->arena[out->arena_len + n] = 0;
		b.off[b.n] = out->arena_len;
		b.len[b.n] = (uint32_t)n;
		out->arena_len += n + 1;
		b.all[b.n] = (struct atom_pattern){ NULL, 1, i, i, (uint32_t)b.n };
		out->of[i] = (uint32_t)b.n;
		hmap_set(&m, j, (uint32_t)b.n, hash_pattern, &b);
		b.n++;
	}
	hmap_free(&m);
	/* the patterns of one atom are counted, the others kept, most atoms first */
	size_t k = 0;
	for (size_t i = 0; i < b.n; i++) {
		if (b.all[i].count < 2) {
			out->singles++;
			continue;
		}
		b.all[k] = b.all[i];
		b.all[k++].text = out->arena + b.off[i];
	}
	free(b.off);
	free(b.len);
	out->p = b.all;
	out->n = k;
	if (k)
		qsort(out->p, k, sizeof *out->p, by_count);
	/* each atom's pattern by its place in p (the build's ids, remapped) */
	uint32_t *to = err ? NULL : malloc((b.n ? b.n : 1) * sizeof *to);
	if (!to && !err)
		err = bc_error(BC_ENOMEM, "out of memory after %zu patterns", b.n);
	for (size_t i = 0; to && i < b.n; i++)
		to[i] = UINT32_MAX;
	for (size_t i = 0; to && i < k; i++)
		to[out->p[i].id] = (uint32_t)i;
	for (size_t i = 0; to && i < vm->natoms; i++)
		if (out->of[i] != UINT32_MAX)
			out->of[i] = to[out->of[i]];
	free(to);
	if (err)
		atom_patterns_free(out);
	return err;
}

void atom_patterns_free(struct atom_patterns *ap)
{
	free(ap->p);
	free(ap->of);
	free(ap->arena);
	*ap = (struct atom_patterns){ 0 };
}

enum { C_PATTERN, C_COUNT, C_SHARE, C_FIRST, C_LAST, C_NEWEST, C_MODTEXT, C_HOLDERS, C_MODULES };

static const struct rcol cols[] = {
	[C_PATTERN] = { "pattern", "PATTERN", RC_STR, RCOL_WIDE },
	[C_COUNT] = { "count", "ATOMS", RC_U64, 0 },
	[C_SHARE] = { NULL, "SHARE", RC_STR, RCOL_TEXT_ONLY },
	[C_FIRST] = { "first_index", "FIRST", RC_U64, 0 },
	[C_LAST] = { "last_index", "LAST", RC_U64, 0 },
	[C_NEWEST] = { "newest", "NEWEST", RC_STR, RCOL_WIDE },
	/* the pids of the holders table's rows of this pattern */
	[C_MODTEXT] = { NULL, "MODULES", RC_STR, RCOL_TEXT_ONLY | RCOL_WIDE },
	[C_HOLDERS] = { "holders", NULL, RC_LIST, RCOL_JSON_ONLY },
	/* the modules whose literals or function names name the pattern's atoms,
	 * or whose literals hold its leading text */
	[C_MODULES] = { "modules", NULL, RC_LIST, RCOL_JSON_ONLY },
};

/* The processes holding the most atoms of each of the largest patterns: the
 * first HOLDER_PATTERNS the table shows, the HOLDERS heaviest of each. */
#define HOLDER_PATTERNS 8
#define HOLDERS 5
struct holder {
	uint32_t proc;
	uint32_t refs;             /* references to the pattern's atoms in its live terms */
};

/* the modules whose literals or functions reference each of those patterns, the MODULES
 * heaviest: a module's current and old code as one */
#define MODULES 5
struct modref {
	const char *module;        /* NULL: its name unreadable */
	uint64_t refs;
};

struct ctx {
	const struct vm *vm;
	struct atom_patterns ap;
	bool mods_read;            /* the loader searched the literals */
	size_t mods_unscanned;     /* literal areas it could not parse */
	struct modref m[HOLDER_PATTERNS][MODULES];
	unsigned nm[HOLDER_PATTERNS];
	char lead[HOLDER_PATTERNS][64];  /* each pattern's leading text */
	unsigned k;                /* patterns whose holders were looked for */
	struct holder h[HOLDER_PATTERNS][HOLDERS];
	unsigned nh[HOLDER_PATTERNS];
	uint64_t holding[HOLDER_PATTERNS];  /* processes holding any of each */
	size_t searched;           /* processes whose heaps were searched (the largest) */
};

static void emit(void *vctx, size_t j, const uint32_t *tally)
{
	struct ctx *c = vctx;
	for (unsigned p = 0; p < c->k; p++) {
		if (!tally[p])
			continue;
		c->holding[p]++;
		struct holder *h = c->h[p];
		unsigned n = c->nh[p], at = n;
		while (at > 0 && h[at - 1].refs < tally[p])
			at--;
		if (at >= HOLDERS)
			continue;
		if (n == HOLDERS)
			n--;
		memmove(h + at + 1, h + at, (n - at) * sizeof *h);
		h[at] = (struct holder){ (uint32_t)j, tally[p] };
		c->nh[p] = n + 1;
	}
}

/* the holders table: row r is holder i of pattern p */
static bool holder_row(const struct ctx *c, size_t r, unsigned *p, unsigned *i)
{
	for (*p = 0; *p < c->k; r -= c->nh[(*p)++])
		if (r < c->nh[*p]) {
			*i = (unsigned)r;
			return true;
		}
	return false;
}

enum { H_PATTERN, H_PID, H_LABEL, H_REFS, H_SHARE };
static const struct rcol hcols[] = {
	[H_PATTERN] = { "pattern", "PATTERN", RC_STR, RCOL_WIDE },
	[H_PID] = { "pid", "PID", RC_STR, 0 },
	[H_LABEL] = { "label", "LABEL", RC_STR, RCOL_WIDE | RCOL_CUT_MIDDLE },
	[H_REFS] = { "atoms", "ATOMS HELD", RC_U64, 0 },
	[H_SHARE] = { NULL, "OF THE PATTERN", RC_STR, RCOL_TEXT_ONLY },
};

static void hcell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct ctx *c = vctx;
	unsigned p, i;
	if (!holder_row(c, row, &p, &i)) {
		out->null = true;
		return;
	}
	const struct holder *h = &c->h[p][i];
	const struct vm_proc *vp = &c->vm->procs[h->proc];
	switch (col) {
	case H_PATTERN: out->s = c->ap.p[p].text; break;
	case H_PID: out->s = vm_pid_str(vp, buf, len); break;
	case H_LABEL: out->s = vm_proc_label(vp, buf, len); out->null = !out->s; break;
	case H_REFS: out->u = h->refs; break;
	case H_SHARE:
		snprintf(buf, len, "%.1f%%", 100.0 * (double)h->refs / (double)c->ap.p[p].count);
		out->s = buf;
		break;
	}
}

static const char *item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	const struct ctx *c = vctx;
	if (col == C_MODULES)
		return c->m[row][i].module ? c->m[row][i].module : "?";
	return vm_pid_str(&c->vm->procs[c->h[row][i].proc], buf, len);
}

static void emit_module(void *vctx, const char *module, const uint32_t *tally)
{
	struct ctx *c = vctx;
	for (unsigned p = 0; p < c->k; p++) {
		if (!tally[p])
			continue;
		struct modref *m = c->m[p];
		unsigned n = c->nm[p], at;
		for (at = 0; at < n && !(m[at].module == module ||
					 (m[at].module && module && strcmp(m[at].module, module) == 0)); at++)
			;
		struct modref r = { module, tally[p] };
		if (at < n) {  /* its other code's literals */
			r.refs += m[at].refs;
			memmove(m + at, m + at + 1, (n - at - 1) * sizeof *m);
			n--;
		}
		for (at = n; at > 0 && m[at - 1].refs < r.refs; at--)
			;
		if (at >= MODULES)
			continue;
		if (n == MODULES)
			n--;
		memmove(m + at + 1, m + at, (n - at) * sizeof *m);
		m[at] = r;
		c->nm[p] = n + 1;
	}
}

/* A pattern's text before its first placeholder, when 3 bytes or more:
 * the string a module that makes the atoms holds ("user_" ++ ...). */
static void lead_of(const char *text, char *out, size_t cap)
{
	static const char *const ph[] = { "<N>", "<HEX>", "<UUID>" };
	size_t n = strlen(text);
	for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++) {
		const char *at = strstr(text, ph[i]);
		if (at && (size_t)(at - text) < n)
			n = (size_t)(at - text);
	}
	if (n < 3 || n >= cap || n == strlen(text))
		n = 0;
	memcpy(out, text, n);
	out[n] = 0;
}

/* The modules of the first k patterns (find_holders set k), through the
 * loader's parse of every loaded module's literals and function names. */
static void find_modules(struct ctx *c, const uint8_t *cls)
{
	const struct vm *vm = c->vm;
	if (!vm->atom_modules || !c->k)
		return;
	struct vm_atom lead[HOLDER_PATTERNS];
	for (unsigned p = 0; p < c->k; p++) {
		lead_of(c->ap.p[p].text, c->lead[p], sizeof c->lead[p]);
		lead[p] = (struct vm_atom){ c->lead[p], (uint32_t)strlen(c->lead[p]) };
	}
	size_t bad = vm->atom_modules(vm->loader, cls, vm->natoms, c->k, lead, emit_module, c);
	c->mods_read = bad != SIZE_MAX;
	c->mods_unscanned = c->mods_read ? bad : 0;
}

/* The holders of the first k patterns, through the loader's walk of every
 * process's live terms; false: the loader has none. */
static bool find_holders(struct ctx *c, size_t shown, bool modules)
{
	const struct vm *vm = c->vm;
	if (shown > c->ap.n)  /* (the summary asks for one: there may be none) */
		shown = c->ap.n;
	c->k = shown < HOLDER_PATTERNS ? (unsigned)shown : HOLDER_PATTERNS;
	if (!c->k)
		return true;
	if (!vm->atom_refs)
		return false;
	uint8_t *cls = calloc(vm->natoms ? vm->natoms : 1, 1);
	if (!cls)
		return false;
	for (size_t i = 0; i < vm->natoms; i++)
		if (c->ap.of[i] < c->k)
			cls[i] = (uint8_t)(c->ap.of[i] + 1);
	/* (on a million processes, the largest heaps within the summary's
	 * budget: a process holding many atoms holds as many words) */
	uint32_t *which = heaps_to_walk(vm, &c->searched);
	vm->atom_refs(vm->loader, vm->procs, which, c->searched, cls, vm->natoms, c->k, emit, c);
	free(which);
	if (modules)
		find_modules(c, cls);
	free(cls);
	return true;
}

/* An atom table over half full (a full one kills the node: "no more index
 * entries in atom_tab"): what fills it, the pattern of the most atoms, when
 * they were made (an atom's index is its creation order) and who holds the
 * most of them (c: the patterns, their holders looked for). */
static void table_finding(const struct ctx *c, struct an_out *out)
{
	const struct vm *vm = c->vm;
	if (!vm->atom_limit || vm->atom_count * 2 < vm->atom_limit)
		return;
	char a[32], b[32], d[32], e[32], g[32], what[1400] = "", lb[256];
	const struct vm_proc *holder = NULL;
	if (c->ap.n) {
		const struct atom_pattern *p = &c->ap.p[0];
		const struct vm_atom *n = &vm->atoms[p->last];
		int o = snprintf(what, sizeof what, "; %s of them are %s, made from index %s to %s (the "
				 "newest %.*s)", fmt_count(p->count, a, sizeof a), p->text,
				 fmt_count(p->first, b, sizeof b), fmt_count(p->last, d, sizeof d),
				 (int)(n->len < 200 ? n->len : 200), n->text);
		if (c->k && c->nm[0] && o > 0 && (size_t)o < sizeof what) {
			const struct modref *m = &c->m[0][0];
			int q = c->lead[0][0]
				? snprintf(what + o, sizeof what - (size_t)o, "; module %s names them "
					   "(its literals, functions) or holds their leading text \"%s\"",
					   m->module ? m->module : "?", c->lead[0])
				: snprintf(what + o, sizeof what - (size_t)o, "; module %s names them "
					   "(its literals, functions)", m->module ? m->module : "?");
			if (q > 0)
				o += q;
		}
		if (c->k && c->nh[0] && o > 0 && (size_t)o < sizeof what) {
			holder = &vm->procs[c->h[0][0].proc];
			const char *l = vm_proc_label(holder, lb, sizeof lb);
			snprintf(what + o, sizeof what - (size_t)o, "; %s%s%s holds %s of them",
				 vm_pid_str(holder, g, sizeof g), l ? " " : "", l ? l : "",
				 fmt_count(c->h[0][0].refs, e, sizeof e));
		}
	}
	bool full = vm->atom_count * 10 >= vm->atom_limit * 8;
	struct an_finding *f = full
		? an_find(out, "atom_limit", "critical", "atoms: %s of the limit %s are used: the atom "
			  "table is %s%s", fmt_count(vm->atom_count, a, sizeof a),
			  fmt_count(vm->atom_limit, b, sizeof b),
			  vm->atom_count >= vm->atom_limit ? "full" : "nearly full", what)
		: an_find(out, "atom_limit", "warning", "atoms: the atom table is %.0f%% full (%s of %s)%s",
			  100.0 * (double)vm->atom_count / (double)vm->atom_limit,
			  fmt_count(vm->atom_count, a, sizeof a), fmt_count(vm->atom_limit, b, sizeof b), what);
	if (f) {
		f->has_value = true;
		f->value = vm->atom_count;
		if (holder)
			an_find_proc(f, holder);
		if (c->ap.n)  /* (what it is about: the pattern, not the holder's name) */
			f->name = an_keep(out, c->ap.p[0].text);
	}
}

bc_err *atoms_finding(const struct vm *vm, struct an_out *out)
{
	if (!vm->atom_limit || vm->atom_count * 2 < vm->atom_limit)
		return NULL;
	struct ctx *c = calloc(1, sizeof *c);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	c->vm = vm;
	bc_err *err = atom_patterns(vm, &c->ap);
	if (!err) {
		find_holders(c, 1, true);  /* (none: the finding names no holder) */
		table_finding(c, out);
	}
	atom_patterns_free(&c->ap);
	free(c);
	return err;
}

static void cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct ctx *c = vctx;
	const struct atom_pattern *p = &c->ap.p[row];
	const struct vm_atom *a = &c->vm->atoms[p->last];
	switch (col) {
	case C_PATTERN: out->s = p->text; break;
	case C_COUNT: out->u = p->count; break;
	case C_SHARE:
		snprintf(buf, len, "%.1f%%", c->ap.read ? 100.0 * (double)p->count / (double)c->ap.read : 0.0);
		out->s = buf;
		break;
	case C_FIRST: out->u = p->first; break;
	case C_LAST: out->u = p->last; break;
	case C_NEWEST:
		snprintf(buf, len, "%.*s", (int)a->len, a->text);
		out->s = buf;
		break;
	case C_HOLDERS: out->u = row < c->k ? c->nh[row] : 0; break;
	case C_MODULES:
		out->null = !c->mods_read || row >= c->k;
		out->u = out->null ? 0 : c->nm[row];
		break;
	case C_MODTEXT:
		if (!c->mods_read || row >= c->k) {
			out->s = "?";
		} else if (!c->nm[row]) {
			out->s = "-";
		} else {
			const struct modref *m = c->m[row];
			int o = snprintf(buf, len, "%s", m[0].module ? m[0].module : "?");
			for (unsigned i = 1; i < c->nm[row] && i < 3 && o > 0 && (size_t)o < len; i++)
				o += snprintf(buf + o, len - (size_t)o, ", %s", m[i].module ? m[i].module : "?");
			if (c->nm[row] > 3 && o > 0 && (size_t)o < len)
				snprintf(buf + o, len - (size_t)o, " +%u", c->nm[row] - 3);
			out->s = buf;
		}
		break;
	}
}

static void release(void *p)
{
	struct ctx *c = p;
	atom_patterns_free(&c->ap);
	free(c);
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	struct ctx *c = calloc(1, sizeof *c);
	if (!c || !an_own(out, c, release)) {
		free(c);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	c->vm = vm;
	bc_err *err = atom_patterns(vm, &c->ap);
	if (err)
		return err;
	size_t shown = o->top && o->top < c->ap.n ? o->top : c->ap.n;
	bool holders = find_holders(c, shown, true);
	out->fields_key = "atoms";
	an_field_u64(out, "count", vm->atom_count, false);
	an_field_u64(out, "limit", vm->atom_limit, !vm->atom_limit);
	an_field_u64(out, "read", c->ap.read, false);
	an_field_u64(out, "patterns_total", c->ap.n, false);
	an_field_u64(out, "singles", c->ap.singles, false);
	/* the holders were looked for in these processes' heaps: every one, or
	 * the largest within the summary's walk (a cut, said) */
	an_field_u64(out, "holders_searched", c->searched, !holders || !c->k);
	/* literal areas whose layout the parse did not follow: their modules unsaid */
	an_field_u64(out, "modules_unscanned", c->mods_unscanned, !c->mods_read);
	char title[256], n1[32], n2[32], n3[32], htitle[256];
	/* (a crash dump records no literals: its MODULES are unknown, not none) */
	snprintf(title, sizeof title, "Patterns of 2 atoms or more (%s of %s shown; %s atoms of a "
		 "pattern of their own%s)", fmt_count(shown, n1, sizeof n1),
		 fmt_count(c->ap.n, n2, sizeof n2), fmt_count(c->ap.singles, n3, sizeof n3),
		 vm->atom_modules ? "" : "; MODULES: this input records no code literals");
	if (!an_table(out, (struct rtable){
		.json_key = "patterns", .cols = cols, .ncols = sizeof cols / sizeof cols[0],
		.nrows = shown, .total = c->ap.n, .ctx = c, .cell = cell, .item = item,
	}, an_keep(out, title)))
		return bc_error(BC_ENOMEM, "out of memory");
	size_t nh = 0;
	for (unsigned p = 0; p < c->k; p++)
		nh += c->nh[p];
	if (vm->atom_modules && !c->mods_read && c->k)
		an_gap(out, "atoms: the modules naming each pattern: the literal areas of loaded code "
		       "are not readable through this beam.smp's layout");
	else if (c->mods_unscanned)
		an_gap(out, "atoms: %zu literal areas of loaded code could not be parsed: the modules "
		       "they belong to are not among each pattern's modules", c->mods_unscanned);
	if (!holders)
		an_gap(out, "atoms: the processes holding each pattern's atoms are found in a core's "
		       "heaps; this input's are not searched");
	snprintf(htitle, sizeof htitle, "\nProcesses holding the most atoms of each (references in "
		 "their live terms; the first 5 of each of the first 8 patterns; %s%s of %s processes' "
		 "heaps searched)", c->searched < vm->nprocs ? "the largest " : "",
		 fmt_count(c->searched, n1, sizeof n1), fmt_count(vm->nprocs, n2, sizeof n2));
	if (holders && !an_table(out, (struct rtable){
		.json_key = "holders", .cols = hcols, .ncols = sizeof hcols / sizeof hcols[0],
		.nrows = nh, .ctx = c, .cell = hcell, .hide_empty = 1,
	}, an_keep(out, htitle)))
		return bc_error(BC_ENOMEM, "out of memory");
	table_finding(c, out);
	return NULL;
}

const struct analyzer analyzer_atoms = {
	.name = "atoms",
	.kind = CMD_MODEL,
	.options = an_rows_options,
	.summary = "the atom table: its count and limit, its atoms by pattern (user_<N>) with when each was made",
	.needs = NEED_ATOMS | NEED_PROCS,
	.header = 1,
	.run = run,
};
