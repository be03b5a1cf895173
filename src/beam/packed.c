/* A beam.smp with no DWARF: its offset table from a layout pack (dwarf/pack.h),
 * routes to the file statics a stripped build does not name, and the checks
 * that the pack fits this core before anything is walked through it. */
#include "packed.h"
#include "eterm.h"
#include "pack.h"
#include "needs.h"
#include "walks.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* A build that exports no etp_* (OTP 29): the pack holding routes for its
 * build-id (layout_file's, or a compiled-in one) and its identity. */
static bc_err *pack_by_build(struct beam *b, const char *why, const struct pack *file,
			     const struct pack **p, struct pack_id *id)
{
	if ((*p = pack_routed(file, b->exe->elf, id)))
		return NULL;
	return bc_error(BC_ENODEBUG, "%s; its .dynsym exports no VM global and does not say its "
			"release (no etp_otp_release), and %s%s has routes to this build's "
			"globals (docs/layout-packs.md: testdata/stock-routes.py writes them from "
			"a DWARF build of the same source)", why,
			file ? "no BUILD line of layout pack " : "no compiled-in layout pack",
			file ? file->name : "");
}

bc_err *beam_pack_layout(struct beam *b, const char *layout_file)
{
	struct pack_id id;
	char want[128], known[512];
	/* why there is no DWARF (or none used: pack_over_dwarf) */
	const char *why = b->session->no_dwarf ? b->session->no_dwarf->msg : b->exe->path;
	struct pack file = { 0 };
	const struct pack *p = NULL;
	bc_err *err = layout_file ? pack_read(layout_file, &file) : NULL;
	bc_err *unnamed = err ? NULL : pack_identify(b->exe->elf, 0, &id);
	const char *routed = unnamed ? " with routes to this build's globals" : "";
	if (unnamed) {  /* no etp_* in .dynsym: routes by build-id, or nothing */
		bc_err_free(unnamed);
		err = pack_by_build(b, why, layout_file ? &file : NULL, &p, &id);
	} else if (!err) {
		p = layout_file ? &file : pack_builtin(&id);
	}
	if (!err && !p) {
		pack_list(known, sizeof known);
		err = bc_error(BC_ENODEBUG, "%s; beamcore has no layout pack for %s (it has %s; "
			       "docs/layout-packs.md adds one)", why,
			       pack_id_str(&id, want, sizeof want), known);
	}
	if (!err)
		err = pack_apply(p, &id, b->exe->elf, &b->L);
	if (!err && !LHAS(&b->L, G_ERTS_PROC))  /* a build whose .dynsym exports no VM global */
		err = bc_error(BC_ENODEBUG, "%s; its .dynsym exports no erts_proc, so the layout "
			       "pack of %s cannot place the VM's globals", why,
			       pack_id_str(&id, want, sizeof want));
	if (!err && layout_file)
		snprintf(b->pack_name, sizeof b->pack_name, "layout pack %s%s", layout_file, routed);
	else if (!err)
		snprintf(b->pack_name, sizeof b->pack_name, "layout pack %s (compiled in)%s", p->name,
			 routed);
	pack_free(&file);
	return err;
}

/* beam_ranges.c's r[ERTS_NUM_CODE_IX] is file static: found by its content in
 * beam.smp's writable segment, the one place where the active code index's
 * element holds a sorted, non-overlapping array of module ranges and the other
 * two elements are empty or plausible. Unique, or not at all. */
#define NUM_CODE_IX 3
static int ranges_plausible(struct beam *b, uint64_t modules, uint64_t n, int full)
{
	const struct layout *L = &b->L;
	if (!modules && !n)
		return !full;
	if (!modules || (modules & 7) || n > (1u << 16) || (full && n < 2))
		return 0;
	if (!full)
		return 1;
	uint64_t prev_end = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t s, e, r = modules + i * LV(L, S_RANGE);
		if (beam_read_u64(b, r + LV(L, RANGE_START), &s) < 0 ||
		    beam_read_u64(b, r + LV(L, RANGE_END), &e) < 0 || s >= e || s < prev_end)
			return 0;
		prev_end = e;
	}
	return 1;
}

static int ranges_at(struct beam *b, uint64_t a, uint32_t ix)
{
	const struct layout *L = &b->L;
	int ok = 1;
	for (uint64_t k = 0; k < NUM_CODE_IX && ok; k++) {
		uint64_t m, n, e = a + ((ix + k) % NUM_CODE_IX) * LV(L, S_RANGES);
		ok = beam_read_u64(b, e + LV(L, RANGES_MODULES), &m) == 0 &&
		     beam_read_u64(b, e + LV(L, RANGES_N), &n) == 0 &&
		     ranges_plausible(b, m, n, k == 0);
	}
	return ok;
}

static void route_ranges(struct beam *b)
{
	struct layout *L = &b->L;
	uint32_t ix;
	if (!LHAS(L, S_RANGES) || !LHAS(L, RANGES_MODULES) ||
	    !LHAS(L, RANGES_N) || !LHAS(L, S_RANGE) || !LHAS(L, G_ACTIVE_CODE_IX) ||
	    beam_read_u32(b, beam_global(b, G_ACTIVE_CODE_IX) + LV(L, ACTIVE_CODE_IX_VAL), &ix) < 0 ||
	    ix >= NUM_CODE_IX)
		return;
	uint64_t elem = LV(L, S_RANGES), found = 0;
	int nfound = 0;
	if (LHAS(L, G_RANGES)) {  /* the pack's anchored route, checked the same way */
		if (ranges_at(b, beam_global(b, G_RANGES), ix))
			return;
		L->e[G_RANGES].found = false;
	}
	for (int i = 0; i < b->exe->nloads; i++) {
		const struct exe_load *l = &b->exe->loads[i];
		if (!(l->flags & PF_W))
			continue;
		uint64_t lo = (l->vaddr + b->bias + 7) & ~7ull, hi = l->vaddr + b->bias + l->memsz;
		for (uint64_t a = lo; a + NUM_CODE_IX * elem <= hi && nfound < 2; a += 8) {
			if (ranges_at(b, a, ix)) {
				found = a;
				nfound++;
			}
		}
	}
	if (nfound == 1)
		L->e[G_RANGES] = (struct layout_entry){ found - b->bias, NUM_CODE_IX * elem, true };
}

/* A file static Hash (hash.h) found by its name: the one place in the
 * writable segment whose Hash.name points at that string in .rodata. */
static void route_hash(struct beam *b, enum layout_id id, const char *name)
{
	struct layout *L = &b->L;
	if (LHAS(L, id) || !LHAS(L, HASH_NAME))
		return;
	size_t len = strlen(name) + 1, fsize;
	const char *raw = elf_rawfile(b->exe->elf, &fsize);
	uint64_t str = 0;
	for (int i = 0; raw && i < b->exe->nloads && !str; i++) {  /* the string, read-only */
		const struct exe_load *l = &b->exe->loads[i];
		if ((l->flags & PF_W) || l->off + l->filesz > fsize)
			continue;
		/* the first whole string: "fun_table" also ends .dynstr's
		 * "erts_init_fun_table", in the same segment on aarch64 */
		const char *seg = raw + l->off, *p = seg;
		while ((p = memmem(p, l->filesz - (uint64_t)(p - seg), name, len)) &&
		       p != seg && p[-1] != '\0')
			p++;
		if (p)
			str = l->vaddr + (uint64_t)(p - seg) + b->bias;
	}
	uint64_t found = 0;
	int nfound = 0;
	for (int i = 0; str && i < b->exe->nloads; i++) {
		const struct exe_load *l = &b->exe->loads[i];
		if (!(l->flags & PF_W))
			continue;
		uint64_t lo = (l->vaddr + b->bias + 7) & ~7ull, hi = l->vaddr + b->bias + l->memsz, v;
		for (uint64_t a = lo; a + LV(L, HASH_NAME) + 8 <= hi; a += 8)
			if (beam_read_u64(b, a + LV(L, HASH_NAME), &v) == 0 && v == str) {
				found = a;
				nfound++;
			}
	}
	if (nfound == 1)
		L->e[id] = (struct layout_entry){ found - b->bias, LHAS(L, S_HASH) ? LV(L, S_HASH) : 0, true };
}

/* The statics a pack placed by another build's layout (A and F lines) are
 * checked by what they hold; one that fails is dropped (its cost is said). */
static int hash_named(struct beam *b, uint64_t at, const char *name)
{
	uint64_t p;
	char buf[32];
	return LHAS(&b->L, HASH_NAME) && beam_read_u64(b, at + LV(&b->L, HASH_NAME), &p) == 0 &&
	       beam_read_cstr(b, p, buf, sizeof buf) == 0 && strcmp(buf, name) == 0;
}

static void drop(struct layout *L, enum layout_id id)
{
	L->e[id].found = false;
}

static void check_routed(struct beam *b)
{
	struct layout *L = &b->L;
	uint64_t v, w;
	uint32_t u;
	if (LHAS(L, G_FLXCTR_GROUPS) &&  /* decentralized_counter_groups + 1, at most 65 */
	    (beam_read_u32(b, beam_global(b, G_FLXCTR_GROUPS), &u) < 0 || u < 2 || u > 1025))
		drop(L, G_FLXCTR_GROUPS);
	if (LHAS(L, G_ATOM_SPACE) && LHAS(L, G_RESERVED_ATOM_SPACE) &&
	    (beam_read_u64(b, beam_global(b, G_ATOM_SPACE), &v) < 0 ||
	     beam_read_u64(b, beam_global(b, G_RESERVED_ATOM_SPACE), &w) < 0 || !v || v > w ||
	     w > (1ull << 40))) {
		drop(L, G_ATOM_SPACE);
		drop(L, G_RESERVED_ATOM_SPACE);
	}
	if (LHAS(L, G_TOT_MODULE_BYTES) &&
	    (beam_read_u64(b, beam_global(b, G_TOT_MODULE_BYTES), &v) < 0 || !v || v > (1ull << 40)))
		drop(L, G_TOT_MODULE_BYTES);
	if (LHAS(L, G_EXPORT_TABLES) &&  /* 29's tables are erl_code_staged.h's */
	    !hash_named(b, beam_global(b, G_EXPORT_TABLES), "export_list") &&
	    !hash_named(b, beam_global(b, G_EXPORT_TABLES), "export_staged_index"))
		drop(L, G_EXPORT_TABLES);
	if (LHAS(L, G_FUN_TABLES) && !hash_named(b, beam_global(b, G_FUN_TABLES), "fun_staged_index"))
		drop(L, G_FUN_TABLES);
	if (LHAS(L, G_MODULE_TABLES) && !hash_named(b, beam_global(b, G_MODULE_TABLES), "module_code"))
		drop(L, G_MODULE_TABLES);
	if (LHAS(L, G_HEAP_SIZES) && (beam_read_u64(b, beam_global(b, G_HEAP_SIZES), &v) < 0 ||
				      beam_read_u64(b, beam_global(b, G_HEAP_SIZES) + 8, &w) < 0 ||
				      v != 12 || w != 38))  /* erl_gc.c: the Fibonacci start */
		drop(L, G_HEAP_SIZES);
}

/* What a file static with no route costs, said as a gap when the command
 * read what needs it (the walks of these NEED_* parts). */
static const struct {
	enum layout_id id;
	unsigned parts;
	const char *cost;
} costs[] = {
	{ G_RANGES, NEED_PROCS | NEED_STACKS | NEED_STACK_TOPS,
	  "code addresses are not named (current functions, stack frames)" },
	{ G_TOT_MODULE_BYTES, NEED_MEMORY, "erlang:memory(code) unknown" },
	{ G_ATOM_SPACE, NEED_MEMORY, "erlang:memory(atom) unknown" },
	{ G_FLXCTR_GROUPS, NEED_ETS,
	  "size and memory of ETS tables with decentralized counters unknown" },
};

void beam_pack_costs(struct beam *b, unsigned parts)
{
	for (size_t i = 0; b->pack_name[0] && i < sizeof costs / sizeof costs[0]; i++) {
		int st;
		if (!LHAS(&b->L, costs[i].id) && (costs[i].parts & parts))
			vm_gap(b->vm, "%s: %s is a file static this stripped beam.smp does not name: %s",
			       b->pack_name, layout_global_symbol(costs[i].id, &st), costs[i].cost);
	}
}

/* The checks: a pack of another build that slipped past its identity fails
 * here, before any walk trusts it. */
static bc_err *check_atoms(struct beam *b, const char *name)
{
	static const char *const first[] = { "false", "true", "_", "nonode@nohost" };
	for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
		const char *a = beam_atom(b, make_atom(i));
		if (!a)  /* unreadable: the atom table, or the core, is cut */
			return bc_error(BC_EFAULT, "%s cannot be checked: atom %zu is not readable in "
					"this core", name, i);
		if (strcmp(a, first[i]) != 0)
			return bc_error(BC_EMISMATCH, "%s does not fit this core: atom %zu reads as "
					"'%s', not '%s'", name, i, a, first[i]);
	}
	return NULL;
}

static bc_err *check_ptab(struct beam *b, const char *name)
{
	const struct layout *L = &b->L;
	uint64_t ptab = beam_global(b, G_ERTS_PROC), tab, pix_mask = 0, invalid = 0;
	uint32_t max;
	if (beam_read_u64(b, ptab + LV(L, PTAB_TAB), &tab) < 0 ||
	    beam_read_u32(b, ptab + LV(L, PTAB_MAX), &max) < 0 || max == 0 || max > BEAM_PTAB_MAX_SIZE)
		return bc_error(BC_EMISMATCH, "%s does not fit this core: no process table where "
				"it says erts_proc holds one", name);
	if (LHAS(L, PTAB_PIX_MASK))
		beam_read_u64(b, ptab + LV(L, PTAB_PIX_MASK), &pix_mask);
	if (LHAS(L, PTAB_INVALID))
		beam_read_u64(b, ptab + LV(L, PTAB_INVALID), &invalid);
	int seen = 0, bad_heap = 0, unread = 0;
	uint64_t bad_at = 0;
	for (uint32_t ix = 0; ix < max && ix < 65536 && seen < 64; ix++) {
		uint64_t p, id, heap, htop, stop, hend, sz;
		if (beam_read_u64(b, tab + ix * 8ull, &p) < 0) {
			unread++;
			continue;
		}
		if (!p || p == invalid)
			continue;
		if (beam_read_u64(b, p + LV(L, P_ID), &id) < 0) {  /* not in the core: no verdict */
			unread++;
			continue;
		}
		if ((id & 0xf) != 0x3 ||
		    ((id >> 32) != ix && ((id >> 4) & pix_mask) != ix))
			return bc_error(BC_EMISMATCH, "%s does not fit this core: process table slot "
					"%u holds no pid of that slot (Process.common.id reads "
					"0x%llx)", name, ix, (unsigned long long)id);
		/* heap <= htop <= stop <= hend = heap + heap_sz: the members that
		 * move between releases land elsewhere in another's Process */
		if (beam_read_u64(b, p + LV(L, P_HEAP), &heap) < 0 ||
		    beam_read_u64(b, p + LV(L, P_HTOP), &htop) < 0 ||
		    beam_read_u64(b, p + LV(L, P_STOP), &stop) < 0 ||
		    beam_read_u64(b, p + LV(L, P_HEND), &hend) < 0 ||
		    beam_read_field(b, p, P_HEAP_SZ, &sz) < 0 || !(heap <= htop && htop <= stop &&
		    stop <= hend && hend - heap == sz * 8)) {
			bad_heap++;
			bad_at = bad_at ? bad_at : ix + 1;
		}
		seen++;
	}
	if (bad_heap * 4 > seen)
		return bc_error(BC_EMISMATCH, "%s does not fit this core: %d of %d processes "
				"(the first in slot %llu) have no heap where it says (heap <= htop "
				"<= stop <= hend = heap + heap_sz)", name, bad_heap, seen,
				(unsigned long long)bad_at - 1);
	if (!seen && unread)  /* a cut core: what the pack would be checked on is not there */
		return bc_error(BC_EFAULT, "%s cannot be checked: the process table is not in this "
				"core%s", name, b->core->truncated ? " (the core file is "
				"truncated)" : "");
	if (!seen)
		return bc_error(BC_EMISMATCH, "%s does not fit this core: no process in the first "
				"slots of the process table", name);
	return NULL;
}

/* Each thread-specific allocator has an instance per scheduler and one more
 * (erl_alloc.c: erts_no_schedulers + 1). */
static bc_err *check_allocators(struct beam *b, const char *name)
{
	const struct layout *L = &b->L;
	uint64_t nsched;
	if (!LHAS(L, G_ALLCTR_THR_SPEC) || !LHAS(L, S_ALLCTR_THR_SPEC) || !LHAS(L, TS_ENABLED) ||
	    !LHAS(L, TS_SIZE) || !LHAS(L, G_NO_SCHEDULERS) ||
	    beam_read_u64(b, beam_global(b, G_NO_SCHEDULERS), &nsched) < 0)
		return NULL;
	uint64_t n = L->e[G_ALLCTR_THR_SPEC].size / LV(L, S_ALLCTR_THR_SPEC);
	for (uint64_t i = 0; i < n && i < 64; i++) {
		uint64_t ts = beam_global(b, G_ALLCTR_THR_SPEC) + i * LV(L, S_ALLCTR_THR_SPEC);
		uint32_t enabled, size;
		if (beam_read_u32(b, ts + LV(L, TS_ENABLED), &enabled) < 0 || !enabled ||
		    beam_read_u32(b, ts + LV(L, TS_SIZE), &size) < 0)
			continue;
		if (size != nsched + 1)
			return bc_error(BC_EMISMATCH, "%s does not fit this core: allocator %llu has "
					"%u instances for %llu schedulers (expected %llu)", name,
					(unsigned long long)i, size, (unsigned long long)nsched,
					(unsigned long long)nsched + 1);
	}
	return NULL;
}

/* Each scheduler's data holds its own number (ErtsSchedulerData.no, 1..n),
 * and erts_this_node's name is an atom: what places erts_no_schedulers,
 * erts_aligned_scheduler_data and erts_this_node (.dynsym, or a build's
 * routes) is checked by what they hold. */
static bc_err *check_schedulers(struct beam *b, const char *what)
{
	const struct layout *L = &b->L;
	uint64_t n, asd, node, name;
	if (LHAS(L, G_THIS_NODE) && LHAS(L, NODE_SYSNAME) &&
	    beam_read_u64(b, beam_global(b, G_THIS_NODE), &node) == 0 &&
	    beam_read_u64(b, node + LV(L, NODE_SYSNAME), &name) == 0 && !beam_atom(b, name))
		return bc_error(BC_EMISMATCH, "%s does not fit this core: erts_this_node's name "
				"reads 0x%llx, no atom", what, (unsigned long long)name);
	if (!LHAS(L, G_SCHED_DATA) || !LHAS(L, G_NO_SCHEDULERS) || !LHAS(L, S_ALIGNED_SCHED_DATA) ||
	    !LHAS(L, ASD_NO) || beam_read_u64(b, beam_global(b, G_NO_SCHEDULERS), &n) < 0 ||
	    beam_read_u64(b, beam_global(b, G_SCHED_DATA), &asd) < 0)
		return NULL;
	if (n == 0 || n > 1024)
		return bc_error(BC_EMISMATCH, "%s does not fit this core: erts_no_schedulers reads "
				"%llu", what, (unsigned long long)n);
	for (uint64_t i = 0; i < n && i < 64; i++) {
		uint64_t no;
		if (beam_read_u64(b, asd + i * LV(L, S_ALIGNED_SCHED_DATA) + LV(L, ASD_NO), &no) == 0 &&
		    no != i + 1)
			return bc_error(BC_EMISMATCH, "%s does not fit this core: scheduler %llu's "
					"data says it is number %llu", what,
					(unsigned long long)i + 1, (unsigned long long)no);
	}
	return NULL;
}

bc_err *beam_layout_check(struct beam *b, const char *name)
{
	static const enum layout_id need[] = { G_ERTS_PROC, PTAB_TAB, PTAB_MAX, P_ID, P_HEAP, P_HTOP,
					       P_STOP, P_HEND, P_HEAP_SZ, G_ATOM_TABLE, IT_ENTRIES,
					       IT_SEG_TABLE, ATOM_LEN };
	bc_err *err;
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
		char d[200];
		if (!LHAS(&b->L, need[i]))
			return bc_error(BC_EMISSING, "%s has no %s, which every walk needs",
					name, layout_describe(need[i], d, sizeof d));
	}
	if ((err = check_ptab(b, name)) || (err = check_atoms(b, name)) ||
	    (err = check_allocators(b, name)) || (err = check_schedulers(b, name)))
		return err;
	return NULL;
}

bc_err *beam_pack_verify(struct beam *b)
{
	bc_err *err = beam_layout_check(b, b->pack_name);
	if (err)
		return err;
	check_routed(b);
	route_ranges(b);
	route_hash(b, G_FUN_TABLE, "fun_table");
	return NULL;
}
