/* binaries --audit: every refc binary's reference count against the
 * references found to it (process heaps and heap fragments, queued messages,
 * ETS objects, port queues and inet buffers, literals: what binaries reads).
 * A count above them: something holds it that was not searched (native code:
 * a NIF's environment, a driver; timers' messages, distribution buffers), by
 * size and first bytes. Below them: corrupt. NIF resources (magic binaries)
 * are not audited here. The bytes reconcile with erlang:memory(binary):
 * explained + held outside + magic + binaries no reference was found to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "grow.h"
#include "hmap.h"
#include "units.h"

#define FIRST 4  /* bytes a group is told by */

struct group {
	uint64_t size;
	const char *type;            /* its allocator type (static); NULL: unknown */
	uint8_t first[FIRST];
	uint8_t nfirst;              /* FIRST, or fewer (a short binary, unreadable) */
	uint64_t count, bytes, excess;
};

struct audit {
	struct group *g;
	size_t n, cap;
	const struct audit_bin **corrupt;
	size_t ncorrupt, corrupt_cap;
};

static uint64_t group_hash(const struct group *g)
{
	uint64_t h = g->size * 0x9e3779b97f4a7c15ull ^ g->nfirst ^ (g->type ? g->type[0] : 0);
	for (unsigned i = 0; i < g->nfirst; i++)
		h = (h ^ g->first[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_item(const void *ctx, uint32_t item)
{
	return group_hash(&((const struct audit *)ctx)->g[item]);
}

static int by_bytes(const void *x, const void *y)
{
	const struct group *a = x, *b = y;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->size > b->size ? -1 : a->size < b->size;
}

/* The group of binary b (made on first sight); NULL: out of memory. */
static struct group *group_of(const struct vm *vm, struct audit *a, struct hmap *m,
			      const struct audit_bin *b)
{
	struct group key = { .size = b->size,
			     .type = vm->binary_alloc_type ? vm->binary_alloc_type(vm->loader, b->addr) : NULL };
	if (vm->binary_bytes) {
		size_t n = b->size < FIRST ? (size_t)b->size : FIRST;
		if (vm->binary_bytes(vm->loader, b->addr, key.first, n) == 0)
			key.nfirst = (uint8_t)n;
	}
	uint64_t h = group_hash(&key);
	size_t j;
	for (j = hmap_first(m, h); m->slot[j]; j = hmap_next(m, j)) {
		struct group *g = &a->g[m->slot[j] - 1];
		if (g->size == key.size && g->nfirst == key.nfirst && g->type == key.type &&
		    memcmp(g->first, key.first, key.nfirst) == 0)
			return g;
	}
	struct group *g = grow(a->g, &a->cap, a->n, sizeof *g, 64);
	if (!g)
		return NULL;
	a->g = g;
	a->g[a->n] = key;
	if (hmap_set(m, j, (uint32_t)a->n, hash_item, a) < 0 && !m->slot[j])
		return NULL;
	return &a->g[a->n++];
}

enum { G_SIZE, G_TYPE, G_COUNT, G_BYTES, G_EXCESS, G_FIRST, G_FIRST_TEXT };
static const struct rcol group_cols[] = {
	[G_SIZE] = { "size", "SIZE", RC_BYTES, 0 },
	[G_TYPE] = { "alloc_type", "TYPE", RC_STR, 0 },
	[G_COUNT] = { "count", "BINARIES", RC_U64, 0 },
	[G_BYTES] = { "bytes", "BYTES", RC_BYTES, 0 },
	[G_EXCESS] = { "references_not_found", "REFS NOT FOUND", RC_U64, 0 },
	[G_FIRST] = { "first_bytes", NULL, RC_STR, RCOL_JSON_ONLY },  /* hex; null: unread */
	[G_FIRST_TEXT] = { NULL, "FIRST BYTES", RC_STR, RCOL_TEXT_ONLY },
};

static void group_cell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct audit *a = ctx;
	const struct group *g = &a->g[row];
	switch (col) {
	case G_SIZE: out->u = g->size; break;
	case G_TYPE: out->s = g->type; out->null = !g->type; break;
	case G_COUNT: out->u = g->count; break;
	case G_BYTES: out->u = g->bytes; break;
	case G_EXCESS: out->u = g->excess; break;
	case G_FIRST: case G_FIRST_TEXT: {
		size_t o = 0;
		for (unsigned i = 0; i < g->nfirst && o + 5 < len; i++) {
			unsigned char ch = g->first[i];
			if (col == G_FIRST)
				o += (size_t)snprintf(buf + o, len - o, "%02x", ch);
			else if (ch >= 0x20 && ch < 0x7f && ch != '\\')
				buf[o++] = (char)ch, buf[o] = 0;
			else
				o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
		}
		if (len)
			buf[o < len ? o : len - 1] = 0;
		out->s = buf;
		out->null = col == G_FIRST && !g->nfirst && g->size;
		break;
	}
	}
}

enum { X_ADDR, X_SIZE, X_REFC, X_FOUND };
static const struct rcol corrupt_cols[] = {
	[X_ADDR] = { "address", "ADDRESS", RC_STR, 0 },
	[X_SIZE] = { "size", "SIZE", RC_BYTES, 0 },
	[X_REFC] = { "refc", "REFC", RC_U64, 0 },
	[X_FOUND] = { "references", "FOUND", RC_U64, 0 },
};

static void corrupt_cell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct audit *a = ctx;
	const struct audit_bin *b = a->corrupt[row];
	switch (col) {
	case X_ADDR:
		snprintf(buf, len, "0x%llx", (unsigned long long)b->addr);
		out->s = buf;
		break;
	case X_SIZE: out->u = b->size; break;
	case X_REFC: out->u = b->refc; break;
	case X_FOUND: out->u = b->found; break;
	}
}

static void release(void *p)
{
	struct audit *a = p;
	free(a->g);
	free(a->corrupt);
	free(a);
}

static uint64_t bytes_of(const struct audit_bin *b)
{
	return b->alloc ? b->alloc : b->size;
}

/* The summary's line on the binaries held outside, when worth it: 256 KiB
 * or more and a hundredth of erlang:memory(binary), the largest group named. */
static void summary_finding(const struct vm *vm, const struct audit *a, uint64_t out_n,
			    uint64_t out_b, uint64_t out_refs, struct an_out *out)
{
	bool have = vm->memory.known & (1u << VM_MEM_BINARY);
	uint64_t total = vm->memory.v[VM_MEM_BINARY];
	if (!out_n || out_b < (256u << 10) || (have && out_b * 100 < total))
		return;
	char x[32], y[32], z[32], g[400] = "";
	if (a->n) {
		const struct group *t = &a->g[0];
		char c[32], sz[32], first[64];
		struct rcell cell = { 0 };
		group_cell((void *)a, 0, G_FIRST_TEXT, &cell, first, sizeof first);
		snprintf(g, sizeof g, "; the most: %s binaries of %s%s%s%s%s", fmt_count(t->count, c, sizeof c),
			 fmt_bytes(t->size, sz, sizeof sz), t->type ? " (" : "", t->type ? t->type : "",
			 t->type ? ")" : "", t->nfirst ? ", first bytes " : "");
		if (t->nfirst)
			snprintf(g + strlen(g), sizeof g - strlen(g), "\"%s\"", cell.s ? cell.s : "");
	}
	struct an_finding *f = an_find(out, "binary_held_outside", "warning",
		"%s refc binaries (%s) are counted above the references found in processes, ports, "
		"ETS and literals: %s references held outside them (native code: a NIF or a driver; "
		"timers' messages, distribution buffers)%s (binaries --audit)",
		fmt_count(out_n, x, sizeof x), fmt_bytes(out_b, y, sizeof y),
		fmt_count(out_refs, z, sizeof z), g);
	if (f) {
		f->has_value = true;
		f->value = out_b;
	}
}

bc_err *binaries_audit(const struct vm *vm, const struct audit_bin *bins, size_t n, size_t top,
		       bool summary, struct an_out *out)
{
	struct audit *a = an_own(out, calloc(1, sizeof(struct audit)), release);
	struct hmap m = { 0 };
	if (!a || hmap_init(&m, 64) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	uint64_t ok_n = 0, ok_b = 0, out_n = 0, out_b = 0, out_refs = 0, magic_n = 0, magic_b = 0, seen = 0;
	for (size_t i = 0; i < n; i++) {
		const struct audit_bin *b = &bins[i];
		seen += bytes_of(b);
		if (b->magic) {
			magic_n++;
			magic_b += bytes_of(b);
		} else if (b->refc == b->found) {
			ok_n++;
			ok_b += bytes_of(b);
		} else if (b->refc > b->found) {
			struct group *g = group_of(vm, a, &m, b);
			if (!g) {
				hmap_free(&m);
				return bc_error(BC_ENOMEM, "out of memory");
			}
			g->count++;
			g->bytes += bytes_of(b);
			g->excess += b->refc - b->found;
			out_n++;
			out_b += bytes_of(b);
			out_refs += b->refc - b->found;
		} else {
			const struct audit_bin **c = grow(a->corrupt, &a->corrupt_cap, a->ncorrupt,
							  sizeof *c, 16);
			if (!c) {
				hmap_free(&m);
				return bc_error(BC_ENOMEM, "out of memory");
			}
			a->corrupt = c;
			a->corrupt[a->ncorrupt++] = b;
		}
	}
	hmap_free(&m);
	if (a->n)
		qsort(a->g, a->n, sizeof *a->g, by_bytes);
	if (summary) {
		summary_finding(vm, a, out_n, out_b, out_refs, out);
		return NULL;
	}
	bool have = vm->memory.known & (1u << VM_MEM_BINARY);
	uint64_t total = vm->memory.v[VM_MEM_BINARY];
	out->fields_key = "audit";
	/* (JSON: audit.explained.count, ...; text: explained_count) */
	an_field_u64(out, "binaries", n, false);
	an_field_u64(out, "explained.count", ok_n, false);
	an_field_u64(out, "explained.bytes", ok_b, false);
	an_field_u64(out, "held_outside.count", out_n, false);
	an_field_u64(out, "held_outside.bytes", out_b, false);
	an_field_u64(out, "held_outside.references", out_refs, false);
	an_field_u64(out, "corrupt_count", a->ncorrupt, false);
	an_field_u64(out, "magic.count", magic_n, false);
	an_field_u64(out, "magic.bytes", magic_b, false);
	/* erlang:memory(binary) less every binary a reference was found to */
	an_field_u64(out, "no_reference_found_bytes", have && total > seen ? total - seen : 0, !have);
	static const char *unsearched[] = {
		"native code (a NIF's own environment, a driver)", "timers' messages",
		"distribution buffers", "binaries being built (a process's heap fragments not yet attached)" };
	an_field_list(out, "not_searched", "Not searched for references", unsearched, 4);
	char x[32], y[32], z[32], w[32], v[32];
	struct an_finding *f = an_find(out, out_n ? "binary_held_outside" : NULL, out_n ? "warning" : NULL,
		"audit: %s refc binaries' reference counts against the references found: %s explained; "
		"%s held outside what was searched (%s, %s references not found: native code, timers' "
		"messages or distribution buffers); %zu corrupt (fewer counted than found); NIF "
		"resources apart",
		fmt_count(n - magic_n, x, sizeof x), fmt_count(ok_n, y, sizeof y),
		fmt_count(out_n, z, sizeof z), fmt_bytes(out_b, w, sizeof w),
		fmt_count(out_refs, v, sizeof v), a->ncorrupt);
	if (f && out_n) {
		f->has_value = true;
		f->value = out_b;
	}
	if (a->ncorrupt)
		an_find(out, "binary_corrupt", "critical", "%zu refc binaries have fewer references "
			"counted than found: corrupt (or read from a core taken mid-update)", a->ncorrupt);
	if (!an_table(out, (struct rtable){
		.json_key = "groups", .cols = group_cols,
		.ncols = sizeof group_cols / sizeof group_cols[0],
		.nrows = top && top < a->n ? top : a->n, .total = a->n, .ctx = a, .cell = group_cell,
		.in_fields = 1,
	}, "\nRefc binaries held outside what was searched (refc above the references found), by "
	   "size, allocator type (drv_binary: a driver's) and first bytes") ||
	    !an_table(out, (struct rtable){
		.json_key = "corrupt", .cols = corrupt_cols,
		.ncols = sizeof corrupt_cols / sizeof corrupt_cols[0],
		.nrows = top && top < a->ncorrupt ? top : a->ncorrupt, .total = a->ncorrupt,
		.ctx = a, .cell = corrupt_cell, .hide_empty = 1, .in_fields = 1,
	}, "\nCorrupt refc binaries (fewer references counted than found)"))
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}
