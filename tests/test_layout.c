/* Every entry of src/dwarf/layout.def resolves in the DWARF of each supported
 * release's beam.smp, and sizes agree with what the walks assume (pointers and
 * atomics 8 bytes). Usage: test_layout FIXTURE (beam.smp.path under
 * $BEAMCORE_FIXTURES; 77 = skip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skip.h"
#include "session.h"
#include "layout.h"
#include "pack.h"

static const struct pack_line *line_of(const struct pack *p, int id)
{
	for (size_t k = 1; k < p->n; k++)
		if (p->lines[k].id == id)
			return &p->lines[k];
	return NULL;
}

int main(int argc, char **argv)
{
	char beam[4096] = "";
	if (fixture_files(argc, argv, NULL, 0, beam, sizeof beam) < 0)
		return skip_code(); /* 1 under CI=true */
	struct session *s;
	struct session_opts so = { .exe_path = beam };
	bc_err *e = session_open(NULL, &so, &s);
	struct layout L;
	if (!e)
		e = layout_resolve(s->exe->dw, &L);
	if (e) {
		fprintf(stderr, "%s: %s\n", beam, e->msg);
		return 1;
	}
	int missing = 0;
	/* Per-release alternatives: each release has every entry of one side.
	 * Bitstrings: ProcBin & co (to OTP 26) or BinRef & co (27+); the time
	 * trace return was renamed in 27. */
	static const enum layout_id old_bits[] = { S_PROCBIN, PROCBIN_VAL, PROCBIN_SIZE,
		PROCBIN_BYTES, PROCBIN_FLAGS, HEAPBIN_SIZE, HEAPBIN_DATA, SUBBIN_SIZE, SUBBIN_OFFS,
		SUBBIN_BITSIZE, SUBBIN_BITOFFS, SUBBIN_ORIG, FUN_CREATOR };
	static const enum layout_id new_bits[] = { S_BINREF, BINREF_VAL, HEAPBITS_SIZE,
		HEAPBITS_DATA, SUBBITS_BASE, SUBBITS_START, SUBBITS_END };
	static const enum layout_id old_trace[] = { G_RETURN_TIME_TRACE };
	static const enum layout_id new_trace[] = { G_CALL_TRACE_RETURN };
	/* ErtsMonLnkNode: a 'type' beside 16-bit flags (to OTP 27), or none (28+) */
	static const enum layout_id old_ml[] = { ML_TYPE };
	/* OTP 29: atom names in binaries, no reserved atom space, staged fun tables */
	static const enum layout_id new_atom[] = { ATOM_BIN };
	static const enum layout_id old_atom[] = { G_RESERVED_ATOM_SPACE };
	static const enum layout_id old_code[] = { G_TOTAL_ENTRIES_BYTES, TOTAL_ENTRIES_BYTES_VAL,
		G_FUN_TABLE };
	static const enum layout_id new_code[] = { G_EXPORT_ENTRIES_BYTES, EXPORT_ENTRIES_BYTES_VAL,
		G_FUN_TABLES, S_FUN_TABLES, G_FUN_ENTRIES_BYTES, FUN_ENTRIES_BYTES_VAL };
	static const enum layout_id jit_only[] = { G_FRAME_LAYOUT };
	/* OTP 27+ keep a fun's free-variable count in its header word */
	static const enum layout_id old_fun[] = { FUN_NUM_FREE };
#define N(a) (sizeof a / sizeof a[0])
	static const struct { const enum layout_id *a, *b; size_t na, nb; } alts[] = {
		{ old_bits, new_bits, N(old_bits), N(new_bits) },
		{ old_trace, new_trace, 1, 1 },
		{ old_ml, NULL, 1, 0 },
		{ NULL, new_atom, 0, 1 },
		{ old_atom, NULL, 1, 0 },
		{ old_code, new_code, N(old_code), N(new_code) },
		{ jit_only, NULL, 1, 0 },  /* the emulator flavor has no frame layout */
		{ old_fun, NULL, 1, 0 },
	};
	char skip[L_COUNT] = { 0 };
	int binref = 0;
	for (size_t g = 0; g < sizeof alts / sizeof alts[0]; g++) {
		int has_a = 1, has_b = 1;
		for (size_t i = 0; i < alts[g].na; i++)
			has_a &= L.e[alts[g].a[i]].found;
		for (size_t i = 0; i < alts[g].nb; i++)
			has_b &= L.e[alts[g].b[i]].found;
		if (!has_a && !has_b)
			fprintf(stderr, "alternative group %zu: neither side complete\n", g), missing++;
		if (g == 0)
			binref = has_b;
		const enum layout_id *other = has_a ? alts[g].b : alts[g].a;
		size_t n = has_a ? alts[g].nb : alts[g].na;
		for (size_t i = 0; i < n; i++)
			skip[other[i]] = 1;
	}
	for (int i = 0; i < L_COUNT; i++) {
		if (skip[i])
			continue;
		if (!L.e[i].found) {
			char d[200];
			fprintf(stderr, "missing: %s\n", layout_describe(i, d, sizeof d));
			missing++;
		}
	}
	/* A release without one of them (OTP 28+ has no ErtsMonLnkNode 'type'):
	 * the error names what is missing and points at the crash dump. */
	if (!L.e[ML_TYPE].found) {
		static const enum layout_id t[] = { ML_TYPE };
		bc_err *me = layout_need(&L, t, 1);
		if (!me || !strstr(me->msg, "member 'type' of ErtsMonLnkNode") ||
		    !strstr(me->msg, "erl_crash.dump still reads"))
			fprintf(stderr, "layout_need message: %s\n", me ? me->msg : "(none)"), missing++;
		bc_err_free(me);
	}
	/* The walks read these as 8-byte words. */
	/* (every member procs.c reads with f64; Process.arity, a byte from 27, is
	 * read at its DWARF size) */
	static const enum layout_id words[] = { P_ID, P_HEAP_SZ, P_STOP, P_HEND, P_REDS, P_I,
						P_CURRENT, P_PSD, MSG_NEXT, HF_USED, PTAB_TAB,
						P_ABANDONED_HEAP, P_ARG_REG, P_DICTIONARY, P_HEAP,
						P_LINKS, P_LT_MONITORS, P_MBUF_SZ, P_MONITORS,
						P_OLD_HEAP, P_OLD_HEND, P_REG, P_SIGINQ_BUFFERS,
						P_SIGINQ_FIRST, P_SIGQ_CONT, P_SIGQ_FIRST };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (L.e[words[i]].size != 8) {
			char d[200];
			fprintf(stderr, "%s is %llu bytes, expected 8\n", layout_describe(words[i], d, sizeof d),
				(unsigned long long)L.e[words[i]].size);
			missing++;
		}
	if (L.e[P_STATE].size != 4 || L.e[PTAB_MAX].size != 4 || L.e[P_SIGQ_FLAGS].size != 4)
		fprintf(stderr, "state/max not 32-bit\n"), missing++;
	/* The compiled-in layout pack of this release and flavor (src/dwarf/pack-*.def)
	 * holds this very table: a layout.def entry added or changed since the
	 * pack was written shows here. CI builds 25, 27 and 29 JIT and 29 emu, so
	 * those packs are checked here; test_pack holds 25's and 27's emu packs
	 * to their JIT ones. */
	struct pack_id id;
	const struct pack *pk = NULL;
	bc_err *pe = pack_identify(s->exe->elf, 1, &id);
	if (pe || !(pk = pack_builtin(&id)))
		fprintf(stderr, "no compiled-in layout pack for %s %s: %s\n", id.erts, id.flavor,
			pe ? pe->msg : "add one (docs/layout-packs.md)"), missing++;
	bc_err_free(pe);
	/* ... and what `beamcore layout` writes from it now, routes to the file
	 * statics included (A/F/S lines), line for line. */
	struct pack fresh = { 0 };
	char tmp[] = "/tmp/beamcore-layout-XXXXXX";
	int fd = pk ? mkstemp(tmp) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	static struct pack_anchor anchors[L_COUNT];
	if (f) {
		pack_anchors(s->exe->dw, s->exe->elf, &L, anchors);
		int w = pack_write(f, &id, &L, anchors, beam);
		bc_err *re = fclose(f) || w < 0 ? bc_error(BC_EIO, "writing %s failed", tmp)
						 : pack_read(tmp, &fresh);
		if (re)
			fprintf(stderr, "%s\n", re->msg), missing++;
		bc_err_free(re);
	}
	if (fd >= 0)
		unlink(tmp);
	int stale = 0;
	for (int i = 0; pk && i < L_COUNT; i++) {
		const struct pack_line *l = line_of(pk, i), *n = line_of(&fresh, i);
		int st, global = layout_global_symbol(i, &st) != NULL;
		int differs = L.e[i].found != (l != NULL) ||
			(l && (l->size != L.e[i].size || (!global && l->value != L.e[i].value)));
		differs |= !l != !n || (l && (l->kind != n->kind || l->value != n->value ||
					      l->size != n->size ||
					      strcmp(l->s[0] ? l->s[0] : "", n->s[0] ? n->s[0] : "")));
		if (differs) {
			fprintf(stderr, "layout pack %s: %s differs from the DWARF\n", pk->name,
				layout_id_name(i));
			stale++;
		}
	}
	pack_free(&fresh);
	if (stale)
		fprintf(stderr, "regenerate it: beamcore layout %s > src/dwarf/pack-....def\n", beam),
			missing++;
	printf("%s: %zu of %d layout entries resolved (%s), sizeof(Process) %llu\n", beam, L.nfound,
	       L_COUNT, binref ? "BinRef" : "ProcBin", (unsigned long long)L.e[S_PROCESS].value);
	session_close(s);
	return missing ? 1 : 0;
}
