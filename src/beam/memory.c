/* erlang:memory/0 recomputed from the allocators' own statistics, as erlang.erl's
 * memory/0 does over erlang:system_info({allocator, A}) and allocated_areas, and
 * the per-instance allocator table recon_alloc users know.
 * Allocators are told apart by their erlang:system_info(allocator) names. */
#include <stdlib.h>
#include <string.h>

#include "walks.h"

#define MAX_ALLOCATORS 64
#define MAX_INSTANCES 1024
#define PROCESS_FIX_TYPES \
	"proc", "monitor", "link", "msg_ref", "ll_ptimer", "hl_ptimer", "bif_timer", "accessor_bif_timer"

struct alloc_type {
	char name[32];
	int alloc_util, enabled, thr_spec;
	uint64_t instances[MAX_INSTANCES];
	int ninstances;
};

struct mem_walk {
	struct beam *b;
	const struct layout *L;
	struct alloc_type types[MAX_ALLOCATORS];
	int ntypes;         /* indices 1..ntypes-1 are allocators (0 is invalid) */
	int failed;
};

static uint64_t rd(struct mem_walk *m, uint64_t addr, uint64_t size)
{
	uint64_t v = 0;
	if (size > 8 || core_peek(m->b->core, addr, &v, size ? size : 8) < 0)
		m->failed = 1;
	return v;
}

#define RD(m, addr, id) rd(m, addr, (m)->L->e[id].size)

static void load_types(struct mem_walk *m)
{
	struct beam *b = m->b;
	const struct layout *L = m->L;
	uint64_t info = beam_global(b, G_ALLCTRS_INFO);
	uint64_t esz = LV(L, S_ALLCTRS_INFO);
	m->ntypes = esz ? (int)(L->e[G_ALLCTRS_INFO].size / esz) : 0;
	if (m->ntypes > MAX_ALLOCATORS)
		m->ntypes = MAX_ALLOCATORS;
	for (int ai = 1; ai < m->ntypes; ai++) {
		struct alloc_type *t = &m->types[ai];
		uint64_t e = info + ai * esz, name;
		t->alloc_util = (int)RD(m, e + LV(L, AI_ALLOC_UTIL), AI_ALLOC_UTIL);
		t->enabled = (int)RD(m, e + LV(L, AI_ENABLED), AI_ENABLED);
		t->thr_spec = (int)RD(m, e + LV(L, AI_THR_SPEC), AI_THR_SPEC);
		if (beam_read_u64(b, beam_global(b, G_ALC_A2AD) + ai * 8, &name) < 0 ||
		    beam_read_cstr(b, name, t->name, sizeof t->name) < 0)
			m->failed = 1;
		if (!t->alloc_util)
			continue;
		if (t->thr_spec) {
			uint64_t ts = beam_global(b, G_ALLCTR_THR_SPEC) + ai * LV(L, S_ALLCTR_THR_SPEC);
			int n = (int)RD(m, ts + LV(L, TS_SIZE), TS_SIZE);
			uint64_t arr = RD(m, ts + LV(L, TS_ALLCTR), TS_ALLCTR);
			for (int i = 0; i < n && i < MAX_INSTANCES; i++) {
				uint64_t a = rd(m, arr + i * 8, 8);
				if (a)
					t->instances[t->ninstances++] = a;
			}
		} else {
			uint64_t a = RD(m, e + LV(L, AI_EXTRA), AI_EXTRA);
			if (a)
				t->instances[t->ninstances++] = a;
		}
	}
}

/* Sum of StatValues_t.size (and .no) over CarriersStats_t.carriers[]. */
static void carriers(struct mem_walk *m, uint64_t cs, uint64_t *no, uint64_t *size)
{
	const struct layout *L = m->L;
	uint64_t n = L->e[CS_CARRIERS].size / LV(L, S_STATVALUES);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t sv = cs + LV(L, CS_CARRIERS) + k * LV(L, S_STATVALUES);
		*no += RD(m, sv + LV(L, SV_NO), SV_NO);
		*size += RD(m, sv + LV(L, SV_SIZE), SV_SIZE);
	}
}

/* Current blocks of allocator type `ai` in CarriersStats_t at cs. */
static void blocks(struct mem_walk *m, uint64_t cs, int ai, uint64_t *no, uint64_t *size)
{
	const struct layout *L = m->L;
	uint64_t sv = cs + LV(L, CS_BLOCKS) + (ai - 1) * LV(L, S_BLOCKSTATS) + LV(L, BS_CURR);
	*no += RD(m, sv + LV(L, SV_NO), SV_NO);
	*size += RD(m, sv + LV(L, SV_SIZE), SV_SIZE);
}

static int pool_enabled(struct mem_walk *m, uint64_t a)
{
	return RD(m, a + LV(m->L, ALLCTR_CPOOL_UTIL_LIMIT), ALLCTR_CPOOL_UTIL_LIMIT) != 0;
}

/* Blocks of type ai held by instance a (erts_alcu_foreign_size). */
static uint64_t instance_blocks(struct mem_walk *m, uint64_t a, int ai)
{
	const struct layout *L = m->L;
	uint64_t no = 0, size = 0;
	blocks(m, a + LV(L, ALLCTR_MBCS), ai, &no, &size);
	blocks(m, a + LV(L, ALLCTR_SBCS), ai, &no, &size);
	if (pool_enabled(m, a))
		size += rd(m, a + LV(L, ALLCTR_CPOOL_BLOCKS_SIZE) + (ai - 1) * 8, 8);
	return size;
}

/* alcu_size(): thread-specific allocators trade carriers through the pool, so
 * blocks of type ai are counted wherever they sit. */
static uint64_t alcu_size(struct mem_walk *m, int ai)
{
	if (!m->types[ai].thr_spec)
		return m->types[ai].ninstances ? instance_blocks(m, m->types[ai].instances[0], ai) : 0;
	uint64_t sum = 0;
	for (int t = 1; t < m->ntypes - 1; t++)
		if (m->types[t].thr_spec)
			for (int i = 0; i < m->types[t].ninstances; i++)
				sum += instance_blocks(m, m->types[t].instances[i], ai);
	return sum;
}

/* Index of allocation type `type` in erts_alc_n2t[], or -1. */
static int64_t type_number(struct mem_walk *m, uint64_t type)
{
	const struct layout *L = m->L;
	uint64_t esz = LV(L, S_ALC_N2T);
	uint64_t n = esz ? L->e[G_ALC_N2T].size / esz : 0;
	for (uint64_t i = 0; i < n && i < 4096; i++)
		if (rd(m, beam_global(m->b, G_ALC_N2T) + i * esz, esz) == type)
			return (int64_t)i;
	return -1;
}

static int type_name(struct mem_walk *m, int64_t n, char *buf, size_t len)
{
	uint64_t p;
	return beam_read_u64(m->b, beam_global(m->b, G_ALC_N2TD) + n * 8, &p) < 0 ||
	       beam_read_cstr(m->b, p, buf, len) < 0 ? -1 : 0;
}

/* Fixed-size types of processes (get_fix_proc in erlang.erl). fix[] has one
 * entry per fixed-size allocation type, numbered consecutively from the first:
 * the array ends where an entry's type is no longer the next type number. */
static void fix_values(struct mem_walk *m, int fix_ai, uint64_t *alloc, uint64_t *used)
{
	static const char *const proc_types[] = { PROCESS_FIX_TYPES };
	const struct layout *L = m->L;
	struct alloc_type *t = &m->types[fix_ai];
	uint64_t esz = LV(L, S_ALC_N2T);
	for (int i = 0; i < t->ninstances; i++) {
		uint64_t fix = RD(m, t->instances[i] + LV(L, ALLCTR_FIX), ALLCTR_FIX);
		if (!fix)
			continue;
		int64_t n0 = type_number(m, RD(m, fix + LV(L, FIX_TYPE), FIX_TYPE));
		for (int ix = 0; n0 >= 0 && ix < 256; ix++) {
			uint64_t e = fix + ix * LV(L, S_FIXLIST);
			uint64_t ty = RD(m, e + LV(L, FIX_TYPE), FIX_TYPE);
			if ((n0 + ix + 1) * esz > L->e[G_ALC_N2T].size ||
			    rd(m, beam_global(m->b, G_ALC_N2T) + (n0 + ix) * esz, esz) != ty)
				break;
			char name[64];
			if (type_name(m, n0 + ix, name, sizeof name) < 0)
				break;
			int match = 0;
			for (size_t k = 0; k < sizeof proc_types / sizeof proc_types[0]; k++)
				match |= strcmp(name, proc_types[k]) == 0;
			if (!match)
				continue;
			uint64_t tsz = RD(m, e + LV(L, FIX_TYPE_SIZE), FIX_TYPE_SIZE);
			int pool = pool_enabled(m, t->instances[i]);
			*alloc += tsz * (pool ? RD(m, e + LV(L, FIX_CPOOL_ALLOCATED), FIX_CPOOL_ALLOCATED)
					      : RD(m, e + LV(L, FIX_NOCPOOL_ALLOCATED), FIX_NOCPOOL_ALLOCATED));
			*used += tsz * (pool ? RD(m, e + LV(L, FIX_CPOOL_USED), FIX_CPOOL_USED)
					     : RD(m, e + LV(L, FIX_NOCPOOL_USED), FIX_NOCPOOL_USED));
		}
	}
}

static uint64_t hash_table_sz(struct mem_walk *m, uint64_t h)
{
	const struct layout *L = m->L;
	char name[256];
	uint64_t np = RD(m, h + LV(L, HASH_NAME), HASH_NAME);
	int32_t shift = (int32_t)RD(m, h + LV(L, HASH_SHIFT), HASH_SHIFT);
	if (beam_read_cstr(m->b, np, name, sizeof name) < 0 || shift < 0 || shift > 64) {
		m->failed = 1;
		return 0;
	}
	return LV(L, S_HASH) + (1ull << (64 - shift)) * 8 + strlen(name) + 1;
}

static uint64_t index_table_sz(struct mem_walk *m, uint64_t t)
{
	const struct layout *L = m->L;
	int32_t size = (int32_t)RD(m, t + LV(L, IT_SIZE), IT_SIZE);
	return LV(L, S_INDEXTABLE) - LV(L, S_HASH) + (uint64_t)size * 8 +
	       hash_table_sz(m, t + LV(L, IT_HTABLE));
}

static int find_type(struct mem_walk *m, const char *name)
{
	for (int ai = 1; ai < m->ntypes; ai++)
		if (strcmp(m->types[ai].name, name) == 0)
			return ai;
	return 0;
}

static void allocator_table(struct mem_walk *m)
{
	const struct layout *L = m->L;
	size_t n = 0;
	for (int ai = 1; ai < m->ntypes; ai++)
		n += m->types[ai].ninstances;
	struct vm_alloc *va = calloc(n ? n : 1, sizeof *va);
	if (!va)
		return;
	for (int ai = 1; ai < m->ntypes; ai++) {
		struct alloc_type *t = &m->types[ai];
		for (int i = 0; i < t->ninstances; i++) {
			uint64_t a = t->instances[i];
			struct vm_alloc *v = &va[m->b->vm->nallocs++];
			v->name = vm_intern(m->b->vm, t->name, strlen(t->name));
			/* instance 0 of a thread-specific allocator is the shared one */
			v->instance = t->thr_spec ? i : 0;
			carriers(m, a + LV(L, ALLCTR_MBCS), &v->mbcs_carriers, &v->mbcs_carriers_size);
			carriers(m, a + LV(L, ALLCTR_SBCS), &v->sbcs_carriers, &v->sbcs_carriers_size);
			blocks(m, a + LV(L, ALLCTR_MBCS), ai, &v->mbcs_blocks, &v->mbcs_blocks_size);
			blocks(m, a + LV(L, ALLCTR_SBCS), ai, &v->sbcs_blocks, &v->sbcs_blocks_size);
			if (pool_enabled(m, a)) {
				v->mbcs_carriers += RD(m, a + LV(L, ALLCTR_CPOOL_NO_CARRIERS),
						       ALLCTR_CPOOL_NO_CARRIERS);
				v->mbcs_carriers_size += RD(m, a + LV(L, ALLCTR_CPOOL_CARRIERS_SIZE),
							    ALLCTR_CPOOL_CARRIERS_SIZE);
				v->mbcs_blocks += rd(m, a + LV(L, ALLCTR_CPOOL_NO_BLOCKS) + (ai - 1) * 8, 8);
				v->mbcs_blocks_size += rd(m, a + LV(L, ALLCTR_CPOOL_BLOCKS_SIZE) +
								     (ai - 1) * 8, 8);
			}
		}
	}
	m->b->vm->allocs = va;
}

bc_err *beam_load_memory(struct beam *b)
{
	static const enum layout_id need[] = {
		G_ALLCTRS_INFO, S_ALLCTRS_INFO, AI_ENABLED, AI_ALLOC_UTIL, AI_THR_SPEC, AI_EXTRA,
		G_ALLCTR_THR_SPEC, S_ALLCTR_THR_SPEC, TS_SIZE, TS_ALLCTR, G_ALC_A2AD, G_ALC_N2T,
		S_ALC_N2T, G_ALC_N2TD, ALLCTR_MBCS, ALLCTR_SBCS, ALLCTR_CPOOL_UTIL_LIMIT,
		ALLCTR_CPOOL_BLOCKS_SIZE, ALLCTR_CPOOL_NO_BLOCKS, ALLCTR_CPOOL_CARRIERS_SIZE,
		ALLCTR_CPOOL_NO_CARRIERS, ALLCTR_FIX, CS_CARRIERS, CS_BLOCKS, S_STATVALUES,
		S_BLOCKSTATS, SV_NO, SV_SIZE, BS_CURR, S_FIXLIST, FIX_TYPE_SIZE, FIX_TYPE,
		FIX_CPOOL_ALLOCATED, FIX_CPOOL_USED, FIX_NOCPOOL_ALLOCATED, FIX_NOCPOOL_USED,
	};
	bc_err *err = layout_need(&b->L, need, sizeof need / sizeof need[0]);
	if (err)
		return err;
	struct mem_walk *m = calloc(1, sizeof *m);
	if (!m)
		return bc_error(BC_ENOMEM, "out of memory");
	m->b = b;
	m->L = &b->L;
	const struct layout *L = m->L;
	struct vm_memory *mem = &b->vm->memory;
	load_types(m);
	allocator_table(m);
	if (m->failed) {
		vm_gap(b->vm, "allocator state partly unreadable: erlang:memory figures omitted");
		free(m);
		return NULL;
	}

	int test = find_type(m, "test_alloc");
	int eheap = find_type(m, "eheap_alloc"), ets = find_type(m, "ets_alloc");
	int binary = find_type(m, "binary_alloc"), fix = find_type(m, "fix_alloc");
	uint64_t total = 0, v[VM_MEM_COUNT] = { 0 };
	for (int ai = 1; ai < m->ntypes; ai++) {
		if (!m->types[ai].alloc_util || ai == test)
			continue;
		uint64_t s = alcu_size(m, ai);
		total += s;
		if (ai == eheap)
			v[VM_MEM_PROCESSES] = s;
		else if (ai == ets)
			v[VM_MEM_ETS] = s;
		else if (ai == binary)
			v[VM_MEM_BINARY] = s;
	}
	uint32_t known = 1u << VM_MEM_BINARY;
	/* processes: eheap + the process table (allocated_areas' process_table) +
	 * fixed-size process structures */
	uint64_t ptab = beam_global(b, G_ERTS_PROC), max = 0, free_id = 0;
	max = rd(m, ptab + LV(L, PTAB_MAX), 4);
	if (LHAS(L, PTAB_FREE_ID_DATA))
		free_id = rd(m, ptab + LV(L, PTAB_FREE_ID_DATA), 8);
	uint64_t procs = v[VM_MEM_PROCESSES] + max * 8 + (free_id ? max * 4 : 0);
	uint64_t fa = 0, fu = 0;
	if (fix)
		fix_values(m, fix, &fa, &fu);
	v[VM_MEM_PROCESSES] = procs + fa;
	v[VM_MEM_PROCESSES_USED] = procs + fu;
	known |= 1u << VM_MEM_PROCESSES | 1u << VM_MEM_PROCESSES_USED;

	/* the JIT allocates its code outside the allocators (allocated_areas'
	 * external_alloc) */
	uint64_t code_size = LHAS(L, G_TOTAL_CODE_SIZE) ? rd(m, beam_global(b, G_TOTAL_CODE_SIZE), 8) : 0;
	if (b->vm->jit)
		total += code_size;
	v[VM_MEM_TOTAL] = total;
	v[VM_MEM_SYSTEM] = total - v[VM_MEM_PROCESSES];
	known |= 1u << VM_MEM_TOTAL | 1u << VM_MEM_SYSTEM;

	int f = m->failed;
	if (LHAS(L, G_ATOM_TABLE) && LHAS(L, G_ATOM_SPACE)) {
		uint64_t it = index_table_sz(m, beam_global(b, G_ATOM_TABLE));
		uint64_t used = RD(m, beam_global(b, G_ATOM_SPACE), G_ATOM_SPACE);
		v[VM_MEM_ATOM] = it + (LHAS(L, G_RESERVED_ATOM_SPACE)
			? RD(m, beam_global(b, G_RESERVED_ATOM_SPACE), G_RESERVED_ATOM_SPACE) : used);
		v[VM_MEM_ATOM_USED] = it + used;
		known |= 1u << VM_MEM_ATOM | 1u << VM_MEM_ATOM_USED;
	}
	/* erts_memory's code: modules, exports, funs, code ranges and the code */
	int old_funs = LHAS(L, TOTAL_ENTRIES_BYTES_VAL) && LHAS(L, G_FUN_TABLE);
	int staged_funs = LHAS(L, EXPORT_ENTRIES_BYTES_VAL) && LHAS(L, G_FUN_TABLES) &&
			  LHAS(L, S_FUN_TABLES) && LHAS(L, FUN_ENTRIES_BYTES_VAL);
	if (LHAS(L, TOT_MODULE_BYTES_VAL) && LHAS(L, G_EXPORT_TABLES) && LHAS(L, S_EXPORT_TABLES) &&
	    (old_funs || staged_funs) && LHAS(L, RANGES_MEM_USED_VAL) && LHAS(L, S_RANGE)) {
		uint64_t c = rd(m, beam_global(b, G_TOT_MODULE_BYTES) + LV(L, TOT_MODULE_BYTES_VAL), 8);
		uint64_t n = L->e[G_EXPORT_TABLES].size / LV(L, S_EXPORT_TABLES);
		for (uint64_t i = 0; i < n && i < 8; i++)
			c += index_table_sz(m, beam_global(b, G_EXPORT_TABLES) + i * LV(L, S_EXPORT_TABLES));
		if (old_funs) {
			c += rd(m, beam_global(b, G_TOTAL_ENTRIES_BYTES) + LV(L, TOTAL_ENTRIES_BYTES_VAL), 8);
			c += hash_table_sz(m, beam_global(b, G_FUN_TABLE));
		} else {
			c += rd(m, beam_global(b, G_EXPORT_ENTRIES_BYTES) + LV(L, EXPORT_ENTRIES_BYTES_VAL), 8);
			n = L->e[G_FUN_TABLES].size / LV(L, S_FUN_TABLES);
			for (uint64_t i = 0; i < n && i < 8; i++)
				c += index_table_sz(m, beam_global(b, G_FUN_TABLES) + i * LV(L, S_FUN_TABLES));
			c += rd(m, beam_global(b, G_FUN_ENTRIES_BYTES) + LV(L, FUN_ENTRIES_BYTES_VAL), 8);
		}
		c += rd(m, beam_global(b, G_RANGES_MEM_USED) + LV(L, RANGES_MEM_USED_VAL), 8) *
		     LV(L, S_RANGE);
		c += code_size;
		v[VM_MEM_CODE] = c;
		known |= 1u << VM_MEM_CODE;
	}
	if (LHAS(L, ETS_MISC_MEM_VAL)) {
		v[VM_MEM_ETS] += rd(m, beam_global(b, G_ETS_MISC_MEM) + LV(L, ETS_MISC_MEM_VAL), 8);
		known |= 1u << VM_MEM_ETS;
	}
	if (m->failed && !f) {
		vm_gap(b->vm, "atom/code/ets tables partly unreadable: those erlang:memory figures omitted");
		known &= ~(1u << VM_MEM_ATOM | 1u << VM_MEM_ATOM_USED | 1u << VM_MEM_CODE | 1u << VM_MEM_ETS);
	}
	memcpy(mem->v, v, sizeof v);
	mem->known = known;
	free(m);
	return NULL;
}
