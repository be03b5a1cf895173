/* The crash dump writer's terms and heap lines (dumpheap.c), and the state
 * dumpout.c (the sections, vm->dump_ops) keeps for them. */
#ifndef BEAMCORE_BEAM_DUMPHEAP_H
#define BEAMCORE_BEAM_DUMPHEAP_H
#include <stdint.h>
#include <stdio.h>
#include "addrset.h"
#include "eterm.h"
#include "hmap.h"
#include "outbuf.h"

#define MAX_STACK_WORDS (1u << 26)   /* more is a corrupt process */

/* a code address and what a dump writes for it (print_function_from_pc) */
struct pcent { uint64_t pc; const char *text; };

/* The writer's state: vm->dump_ops' st. */
struct dout {
	struct beam *b;
	struct eterm_ctx c;
	/* per process: heap objects written (addresses) and the work stack */
	struct addrset seen;
	uint64_t *work;
	size_t nwork, work_cap;
	/* across processes: refc binaries (Binary addresses) for =binary */
	uint64_t *bins;
	size_t nbins, bins_cap;
	struct hmap bins_ix;
	/* the literal range, and the literals the heaps point to (for =literals) */
	uint64_t lit_lo, lit_hi;
	uint64_t *lits;
	size_t nlits, lits_cap;
	struct hmap lits_ix;
	int in_literals;             /* writing =literals: literals are written */
	/* code addresses -> function (stack frames repeat) */
	struct pcent *pcs;
	size_t npcs, pcs_cap;
	struct hmap pcs_ix;
	struct strtab *texts;        /* the pcs' texts */
	struct vt_arena *arena;      /* leaf terms printed through the tree decoder */
	long bad;
	char why[200];
	struct outbuf *f;
};

/* One more thing left out (counted; why says the last). */
void dout_bad(struct dout *o, const char *what, uint64_t addr);
/* A word of the core; -1 (and dout_bad) when unreadable. */
int dout_read(struct dout *o, uint64_t a, uint64_t *v);
/* A term as erts_print's %T prints it (pids, refs, bignums). */
void dout_print_term(struct dout *o, uint64_t term);
/* Upper-case hex without leading zeros (PTR_FMT), then after (if not 0). */
void dout_hex(struct outbuf *f, uint64_t v, char after);
/* One element (H<addr>, A<len>:<name>, I<int>, P<pid>, p<port>, N); lists
 * and boxed terms go on the work stack. */
void dout_element(struct dout *o, uint64_t x);
/* Every heap object reachable from term, each written once. */
void dout_heap(struct dout *o, uint64_t term);
/* Base64 of n bytes at addr in the core; -1 when unreadable. */
int dout_base64(struct dout *o, uint64_t addr, uint64_t n);

#endif
