/* libFuzzer target: the core loader's walks over a real core whose VM memory
 * each input changes. The core ($BEAMCORE_FUZZ_CORE, its beam.smp
 * $BEAMCORE_FUZZ_BEAM; tests/fuzz.sh sets both from a fixture) is opened
 * twice, once through beam.smp's DWARF and once through the compiled-in
 * layout pack of its release (as a stripped build would be read). An input is
 * a list of patches to the memory the walks read; each is applied to both
 * cores' private mappings (map_file maps a core MAP_PRIVATE, writable), the
 * VM is read again (beam_reread: the pack's checks too), every part loaded,
 * every analyzer run and its output printed (text, JSON, export's formats:
 * to /dev/null), and the bytes put back.
 *
 * A patch, all numbers little-endian:
 *   op:u8 root:u8 index:u16 hops:u8 [hop:u16]*(hops%3) at:u16 payload
 * root picks a kind of object the walks read (a global of the layout, a
 * Process, its heap, stack or old heap, an Atom, an ETS table, a port) and
 * index one of them (modulo how many the unpatched core has); each hop reads
 * the word at 8*hop (modulo the object's size) and goes where it points (a
 * 64 KiB window there); at is the offset in the last window. op % 4:
 *   0 raw    n:u8, then 1 + n%16 bytes
 *   1 add    delta:i16 added to the word there
 *   2 ptr    root:u8 index:u16 at:u16 tag:u8: the word becomes that object's
 *            address + at (masked to its size), with tag%4 as its low bits
 *            (a boxed term, a list cell)
 *   3 const  k:u8: the word becomes one of a few values walks trip on (0, ~0,
 *            1 << 63, sizes just past a limit, the end of the object...)
 * Up to 32 patches; the rest of the input is ignored. The threads walk (native
 * unwinding, symbols: 8 times the rest's time) runs when the first byte has
 * bit 7 set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "beam.h"
#include "read.h"
#include "walks.h"
#include "common.h"
#include "layout.h"

enum { R_GLOBAL, R_PROC, R_HEAP, R_STACK, R_OLD_HEAP, R_ATOM, R_ETS, R_PORT, R_N };

struct obj {
	uint64_t addr, size;
};
static struct obj *objs[R_N];
static size_t nobjs[R_N];

static struct beam *beams[2];         /* through DWARF, through the pack */
static struct layout opened[2];       /* each one's table as the open made it */

#define ALL_NEEDS (NEED_PROCS | NEED_ETS | NEED_BINARIES | NEED_BINARY_HOLDERS | NEED_MEMORY | \
		   NEED_STACKS | NEED_THREADS | NEED_NODES | NEED_PORTS | NEED_ATOMS | NEED_RESOURCES)

static void die(const char *what, bc_err *e)
{
	fprintf(stderr, "fuzz_vm: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
	exit(1);
}

static void add_obj(int kind, uint64_t addr, uint64_t size)
{
	if (!addr || !size)
		return;
	struct obj *o = realloc(objs[kind], (nobjs[kind] + 1) * sizeof *o);
	if (!o)
		die("out of memory", NULL);
	objs[kind] = o;
	o[nobjs[kind]++] = (struct obj){ addr, size };
}

/* The objects of the unpatched core, found through its DWARF and the model. */
static void find_objects(struct beam *b)
{
	const struct layout *L = &b->L;
	for (int id = 0; id < L_COUNT; id++) {
		int st;
		if (LHAS(L, id) && layout_global_symbol(id, &st))
			add_obj(R_GLOBAL, beam_global(b, id), L->e[id].size ? L->e[id].size : 8);
	}
	const struct vm *vm = b->vm;
	for (size_t i = 0; i < vm->nprocs; i++) {
		uint64_t p = vm->procs[i].addr, heap, hend, stop, old, old_end;
		add_obj(R_PROC, p, LV(L, S_PROCESS));
		if (beam_read_u64(b, p + LV(L, P_HEAP), &heap) == 0 &&
		    beam_read_u64(b, p + LV(L, P_HEND), &hend) == 0 &&
		    beam_read_u64(b, p + LV(L, P_STOP), &stop) == 0 && heap < stop && stop <= hend) {
			add_obj(R_HEAP, heap, hend - heap);
			add_obj(R_STACK, stop, hend - stop);
		}
		if (beam_read_u64(b, p + LV(L, P_OLD_HEAP), &old) == 0 &&
		    beam_read_u64(b, p + LV(L, P_OLD_HEND), &old_end) == 0 && old < old_end)
			add_obj(R_OLD_HEAP, old, old_end - old);
	}
	uint64_t seg, atom;
	for (uint64_t ix = 0; (int64_t)ix < b->atom_entries; ix++)
		if (beam_read_u64(b, b->atom_seg_table + (ix >> 10) * 8, &seg) == 0 &&
		    beam_read_u64(b, seg + (ix & 0x3ff) * 8, &atom) == 0)
			add_obj(R_ATOM, atom, 32);
	for (size_t i = 0; i < vm->nets; i++)
		add_obj(R_ETS, vm->ets[i].addr, 1024);
	for (size_t i = 0; i < vm->nports; i++)
		add_obj(R_PORT, vm->ports[i].addr, LHAS(L, S_PORT) ? LV(L, S_PORT) : 512);
}

static const char *env(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v)
		die(name, bc_error(BC_EUSAGE, "not set (tests/fuzz.sh sets it from a fixture)"));
	return v;
}

/* The parts this input loads (the threads walk with its first byte's bit 7). */
static unsigned parts;

static int load_parts(unsigned needs, void *arg)
{
	/* (without the threads: as on an input that records none) */
	bc_err *e = beam_load(arg, needs & parts);
	int rc = e ? -1 : 0;
	bc_err_free(e);
	return rc;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (!freopen("/dev/null", "w", stdout))  /* what the analyzers print */
		die("/dev/null", NULL);
	const char *core = env("BEAMCORE_FUZZ_CORE"), *exe = env("BEAMCORE_FUZZ_BEAM");
	for (int k = 0; k < 2; k++) {
		struct beam_open_opts o = { .core_path = core, .exe_path = exe, .pack_over_dwarf = k,
					     .no_cache = 1 };
		bc_err *e = beam_open(&o, &beams[k]);
		if (e)
			die(k ? "the core through its layout pack" : "the core", e);
		opened[k] = beams[k]->L;
		if ((e = beam_load(beams[k], ALL_NEEDS)))
			die("the walks on the unpatched core", e);
	}
	if (!beams[0]->exe->dw)
		die(exe, bc_error(BC_ENODEBUG, "no DWARF: give the debug build's beam.smp"));
	beam_atom(beams[0], 0);  /* the atom table's segments (atom_seg_table) */
	find_objects(beams[0]);
	fprintf(stderr, "fuzz_vm: %s: %zu globals, %zu processes (%zu heaps), %zu atoms, %zu ETS "
		"tables, %zu ports; %s\n", core, nobjs[R_GLOBAL], nobjs[R_PROC], nobjs[R_HEAP],
		nobjs[R_ATOM], nobjs[R_ETS], nobjs[R_PORT], beams[1]->pack_name);
	return 0;
}

/* The input, read from the front; zeros past its end. */
struct in {
	const uint8_t *p, *end;
};
static uint64_t take(struct in *in, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n && in->p < in->end; i++)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

static const struct obj *pick(int kind, uint64_t index)
{
	kind %= R_N;
	return nobjs[kind] ? &objs[kind][index % nobjs[kind]] : NULL;
}

/* Where a core's file bytes at addr lie in its private mapping, when all n are there. */
static uint8_t *mapped(const struct core *c, uint64_t addr, size_t n)
{
	const struct core_seg *s = core_seg_at(c, addr);
	if (!s || addr - s->vaddr > s->filesz || s->filesz - (addr - s->vaddr) < n)
		return NULL;
	return (uint8_t *)c->map + s->off + (addr - s->vaddr);
}

/* What each patch replaced, put back after the run, last first. */
static struct undo {
	uint64_t addr;
	uint8_t n, old[16];
} undo[32];
static size_t nundo;

static void poke(uint64_t addr, const uint8_t *bytes, size_t n)
{
	uint8_t *at[2];
	for (int k = 0; k < 2; k++)
		if (!(at[k] = mapped(beams[k]->core, addr, n)))
			return;
	struct undo *u = &undo[nundo++];
	u->addr = addr;
	u->n = (uint8_t)n;
	memcpy(u->old, at[0], n);
	for (int k = 0; k < 2; k++)
		memcpy(at[k], bytes, n);
}

static void unpoke(void)
{
	while (nundo) {
		struct undo *u = &undo[--nundo];
		for (int k = 0; k < 2; k++)
			memcpy(mapped(beams[k]->core, u->addr, u->n), u->old, u->n);
	}
}

static void apply(struct in *in)
{
	int op = (int)(take(in, 1) % 4);
	const struct obj *o = pick((int)take(in, 1), take(in, 2));
	int hops = (int)(take(in, 1) % 3);
	uint64_t base = o ? o->addr : 0, size = o ? o->size : 0;
	for (int h = 0; h < hops; h++) {
		uint64_t off = (take(in, 2) * 8) % (size ? size : 1), next = 0;
		if (!o || core_peek(beams[0]->core, base + off, &next, 8) < 0)
			o = NULL;
		base = next;
		size = 1 << 16;
	}
	uint64_t addr = base + take(in, 2) % (size ? size : 1), word = 0;
	uint8_t bytes[16];
	size_t n = 8;
	if (o && core_peek(beams[0]->core, addr, &word, 8) < 0)
		word = 0;
	switch (op) {
	case 0:
		n = 1 + take(in, 1) % 16;
		for (size_t i = 0; i < n; i++)
			bytes[i] = (uint8_t)take(in, 1);
		break;
	case 1:
		word += (uint64_t)(int64_t)(int16_t)take(in, 2);
		memcpy(bytes, &word, 8);
		break;
	case 2: {
		const struct obj *to = pick((int)take(in, 1), take(in, 2));
		uint64_t at = take(in, 2), tag = take(in, 1) % 4;
		word = to ? ((to->addr + at % to->size) & ~3ull) | tag : tag;
		memcpy(bytes, &word, 8);
		break;
	}
	default: {
		const uint64_t consts[] = { 0, ~0ull, 1ull << 63, (1ull << 63) - 1, 0xffffffff,
					    1ull << 32, 1ull << 28, (1ull << 30) + 1, 0x3b /* [] */,
					    o ? o->addr + o->size : 0, word + 8, word - 8, addr,
					    word << 1, word >> 1, 0x7fff };
		word = consts[take(in, 1) % (sizeof consts / sizeof consts[0])];
		memcpy(bytes, &word, 8);
		break;
	}
	}
	if (o)
		poke(addr, bytes, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct in in = { data, data + n };
	parts = ALL_NEEDS & ~(unsigned)(n && data[0] & 0x80 ? 0 : NEED_THREADS);
	while (in.p < in.end && nundo < sizeof undo / sizeof undo[0])
		apply(&in);
	for (int k = 0; k < 2; k++) {
		struct beam *b = beams[k];
		b->L = opened[k];
		bc_err *e = beam_reread(b);
		if (e) {  /* refused: the pack's checks, or what every command reads first */
			bc_err_free(e);
			continue;
		}
		fuzz_analyzers(b->vm, 1, load_parts, b);
		fuzz_details(b->vm, b->vm->nprocs);
	}
	unpoke();
	return 0;
}
