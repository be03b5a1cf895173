/* What garbage collections would free: per process (procs --garbage, the
 * browser sorted by garbage_bytes) and in sum (the summary), from the
 * loader's walk of each heap (vm->liveness). */
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"

/* procs[0..n)'s, through the loader; a walk that could not read all it
 * reached claims no figure: its live words a lower bound, its garbage would
 * be a guess */
static void liveness(const struct vm *vm, const struct vm_proc *procs, size_t n,
		     struct vm_liveness *out)
{
	if (vm->liveness)
		vm->liveness(vm->loader, procs, n, out);
	else
		memset(out, 0, n * sizeof *out);
	for (size_t i = 0; i < n; i++)
		if (out[i].cut)
			out[i].known = false;
}

void proc_liveness(const struct vm *vm, struct vm_liveness *out)
{
	liveness(vm, vm->procs, vm->nprocs, out);
}

void proc_liveness_of(const struct vm *vm, const struct vm_proc *p, struct vm_liveness *out)
{
	liveness(vm, p, 1, out);
}

/* The summary estimates garbage when the heaps are few enough to walk within
 * its time (a walk reads every live word): at most this many processes and
 * words of heap; beyond, it says so (procs --garbage walks them all). */
#define SUMMARY_MAX_PROCS 50000
#define SUMMARY_MAX_WORDS (64ull << 20)

/* The heaps' words when more than the summary walks, else 0 */
static uint64_t beyond_summary(const struct vm *vm)
{
	uint64_t words = 0;
	for (size_t i = 0; i < vm->nprocs; i++)
		words += vm->procs[i].total_heap_size;
	return vm->nprocs > SUMMARY_MAX_PROCS || words > SUMMARY_MAX_WORDS ? words : 0;
}

static const struct vm_proc *heap_sort_procs;
static int by_heap(const void *x, const void *y)
{
	const struct vm_proc *a = &heap_sort_procs[*(const uint32_t *)x], *b = &heap_sort_procs[*(const uint32_t *)y];
	uint64_t ha = a->total_heap_size + a->stack_size, hb = b->total_heap_size + b->stack_size;
	if (ha != hb)
		return ha > hb ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

uint32_t *heaps_to_walk(const struct vm *vm, size_t *n)
{
	*n = vm->nprocs;
	if (!beyond_summary(vm))
		return NULL;
	uint32_t *ix = malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *ix);
	if (!ix) {
		*n = 0;
		return NULL;
	}
	for (size_t i = 0; i < vm->nprocs; i++)
		ix[i] = (uint32_t)i;
	heap_sort_procs = vm->procs;  /* (qsort has no context argument) */
	qsort(ix, vm->nprocs, sizeof *ix, by_heap);
	uint64_t words = 0;
	size_t k = 0;
	for (; k < vm->nprocs && k < SUMMARY_MAX_PROCS; k++) {
		const struct vm_proc *p = &vm->procs[ix[k]];
		if (words + p->total_heap_size > SUMMARY_MAX_WORDS && k)
			break;
		words += p->total_heap_size;
	}
	*n = k;
	return ix;
}

struct vm_liveness *summary_liveness(const struct vm *vm, struct an_out *out, uint64_t *beyond)
{
	*beyond = vm->liveness && vm->nprocs ? beyond_summary(vm) : 0;
	if (!vm->liveness || !vm->nprocs || *beyond)
		return NULL;
	struct vm_liveness *live = an_own(out, malloc(vm->nprocs * sizeof *live), NULL);
	if (live)
		proc_liveness(vm, live);
	return live;
}

/* What the idle (waiting) processes would free, when it is worth a line:
 * at least 1 MiB and a fifth of what all processes hold. */
void garbage_findings(const struct vm *vm, const struct vm_liveness *live, uint64_t beyond,
		      struct an_out *out)
{
	uint64_t words = vm->liveness && !live ? beyond : 0;
	if (words) {
		char n[32], w[32];
		an_find(out, "garbage", "info", "garbage not estimated: %s processes, %s of heaps "
			"are more than the summary walks (procs --garbage --sort garbage_bytes "
			"does)", fmt_count(vm->nprocs, n, sizeof n), fmt_bytes(words * 8, w, sizeof w));
		return;
	}
	uint64_t garbage = 0, heaps = 0, all = 0, idle = 0, unknown = 0;
	for (size_t i = 0; live && i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		all += p->unknown & VPF_MEMORY ? 0 : p->memory;
		if (p->status != VS_WAITING)
			continue;
		idle++;
		if (!live[i].known) {
			unknown++;
			continue;
		}
		garbage += live[i].garbage_bytes;
		heaps += p->total_heap_size * 8;
	}
	if (!live || garbage < (1u << 20) || garbage * 5 < all)
		return;
	char b1[32], b2[32], n[32], u[64] = "";
	if (unknown)
		snprintf(u, sizeof u, " (%s of them could not be told)", fmt_count(unknown, n, sizeof n));
	struct an_finding *f = an_find(out, "garbage", "info",
		"idle processes hold %s of garbage: what erlang:garbage_collect/1 would free, "
		"estimated from what their roots reach; %u%% of their heaps' %s%s",
		fmt_bytes(garbage, b1, sizeof b1), (unsigned)(heaps ? garbage * 100 / heaps : 0),
		fmt_bytes(heaps, b2, sizeof b2), u);
	if (f) {
		f->has_value = true;
		f->value = garbage;
	}
}
