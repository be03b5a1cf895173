#include "layout.h"
#include "hmap.h"
#include "grow.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_GLOBAL, K_GFIELD, K_GELEM, K_FIELD, K_SIZE };

static const struct spec {
	enum kind kind;
	const char *name;   /* type or global */
	const char *paths;  /* member paths, '|'-separated alternatives */
} specs[L_COUNT] = {
#define L_GLOBAL(id, n) [id] = { K_GLOBAL, n, NULL },
#define L_GFIELD(id, g, p) [id] = { K_GFIELD, g, p },
#define L_GELEM(id, g) [id] = { K_GELEM, g, NULL },
#define L_FIELD(id, t, p) [id] = { K_FIELD, t, p },
#define L_SIZE(id, t) [id] = { K_SIZE, t, NULL },
#include "layout.def"
};
#undef L_GLOBAL
#undef L_GFIELD
#undef L_GELEM
#undef L_FIELD
#undef L_SIZE

static const char *const id_names[L_COUNT] = {
#define L_GLOBAL(id, n) [id] = #id,
#define L_GFIELD(id, g, p) [id] = #id,
#define L_GELEM(id, g) [id] = #id,
#define L_FIELD(id, t, p) [id] = #id,
#define L_SIZE(id, t) [id] = #id,
#include "layout.def"
};
#undef L_GLOBAL
#undef L_GFIELD
#undef L_GELEM
#undef L_FIELD
#undef L_SIZE

const char *layout_id_name(enum layout_id id)
{
	return id_names[id];
}

int layout_id_find(const char *name, size_t len)
{
	for (int i = 0; i < L_COUNT; i++)
		if (strlen(id_names[i]) == len && memcmp(id_names[i], name, len) == 0)
			return i;
	return -1;
}

const char *layout_global_symbol(enum layout_id id, int *is_static)
{
	if (specs[id].kind != K_GLOBAL)
		return NULL;
	*is_static = strchr(specs[id].name, ':') != NULL;
	return specs[id].name;
}

uint64_t layout_table_hash(void)
{
	uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a over every entry, terminators too */
	for (int i = 0; i < L_COUNT; i++) {
		const char *parts[3] = { id_names[i], specs[i].name, specs[i].paths ? specs[i].paths : "" };
		h = (h ^ (uint64_t)specs[i].kind) * 0x100000001b3ull;
		for (int k = 0; k < 3; k++)
			for (const char *c = parts[k];; c++) {
				h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
				if (!*c)
					break;
			}
	}
	return h;
}

int layout_same(const struct layout *a, const struct layout *b)
{
	for (int i = 0; i < L_COUNT; i++)
		if (a->e[i].found != b->e[i].found || (a->e[i].found &&
		    (a->e[i].value != b->e[i].value || a->e[i].size != b->e[i].size)))
			return 0;
	return 1;
}

uint64_t layout_sum(const struct layout *L)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int i = 0; i < L_COUNT; i++) {
		const struct layout_entry *e = &L->e[i];
		uint64_t w[3] = { (uint64_t)i, e->found ? e->value : 0, e->found ? e->size : 0 };
		for (int k = 0; e->found && k < 3; k++)
			for (int b = 0; b < 64; b += 8)
				h = (h ^ ((w[k] >> b) & 0xff)) * 0x100000001b3ull;
	}
	return h;
}

const char *layout_describe(enum layout_id id, char *buf, size_t len)
{
	const struct spec *s = &specs[id];
	switch (s->kind) {
	case K_GLOBAL: snprintf(buf, len, "global '%s'", s->name); break;
	case K_GFIELD: snprintf(buf, len, "member '%s' of global '%s'", s->paths, s->name); break;
	case K_GELEM: snprintf(buf, len, "array global '%s'", s->name); break;
	case K_FIELD: snprintf(buf, len, "member '%s' of %s", s->paths, s->name); break;
	case K_SIZE: snprintf(buf, len, "type %s", s->name); break;
	}
	return buf;
}

bc_err *layout_need(const struct layout *L, const enum layout_id *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!L->e[ids[i]].found) {
			char d[200];
			return bc_error(BC_EMISSING, "this beam.smp's DWARF has no %s: a layout "
					"beamcore does not know (a newer OTP?); this node's "
					"erl_crash.dump still reads",
					layout_describe(ids[i], d, sizeof d));
		}
	}
	return NULL;
}

/* Names wanted by the table, and the DIE found for each. */
struct want {
	const char *name;
	const char *cu;        /* "file.c:name": only in the compile unit of file.c */
	size_t cu_len;
	int is_tag;            /* "struct x" / "union x" */
	const char *full;
	Dwarf_Off typedef_off, tag_off, var_off;
	int have_typedef, have_tag, have_var;
};

static struct want *want_add(struct want *w, size_t *n, const char *name)
{
	int is_tag = strncmp(name, "struct ", 7) == 0 || strncmp(name, "union ", 6) == 0;
	const char *bare = is_tag ? strchr(name, ' ') + 1 : name;
	const char *colon = strchr(bare, ':');
	for (size_t i = 0; i < *n; i++)
		if (w[i].full && strcmp(w[i].full, name) == 0)
			return &w[i];
	w[*n] = (struct want){ .name = colon ? colon + 1 : bare, .is_tag = is_tag, .full = name };
	if (colon) {
		w[*n].cu = bare;
		w[*n].cu_len = (size_t)(colon - bare);
	}
	return &w[(*n)++];
}

/* Does the compile unit named cu_name (a path) match the want's file filter? */
static int cu_matches(const struct want *x, const char *cu_name)
{
	if (!x->cu)
		return 1;
	if (!cu_name)
		return 0;
	size_t l = strlen(cu_name);
	return l >= x->cu_len && strncmp(cu_name + l - x->cu_len, x->cu, x->cu_len) == 0 &&
	       (l == x->cu_len || cu_name[l - x->cu_len - 1] == '/');
}

static int is_declaration(Dwarf_Die *d)
{
	bool flag = false;
	Dwarf_Attribute a;
	if (dwarf_attr(d, DW_AT_declaration, &a))
		dwarf_formflag(&a, &flag);
	return flag;
}

/* A struct tag declared in one CU is completed in another: every complete
 * struct/union tag seen by the one scan, by name (names point into the DWARF's
 * string data, alive as long as the Dwarf). */
static struct tag_index {
	const char **name;
	Dwarf_Off *off;
	size_t n, cap;
	struct hmap index;   /* name[] by content */
} tags;

static uint64_t tag_hash(const void *t, uint32_t i)
{
	const char *s = ((const struct tag_index *)t)->name[i];
	return hmap_hash_bytes(s, strlen(s));
}

static void tag_add(const char *name, Dwarf_Off off)
{
	if (!tags.index.slot && hmap_init(&tags.index, 4096) < 0)
		return;
	size_t j = hmap_first(&tags.index, hmap_hash_bytes(name, strlen(name)));
	for (; tags.index.slot[j]; j = hmap_next(&tags.index, j))
		if (strcmp(tags.name[tags.index.slot[j] - 1], name) == 0)
			return;  /* first definition wins */
	size_t cap = tags.cap;  /* both arrays': set once both have grown */
	const char **nm = grow(tags.name, &cap, tags.n, sizeof *nm, 4096);
	if (!nm)
		return;
	tags.name = nm;
	Dwarf_Off *of = grow(tags.off, &tags.cap, tags.n, sizeof *of, 4096);
	if (!of)
		return;
	tags.off = of;
	tags.name[tags.n] = name;
	tags.off[tags.n] = off;
	if (hmap_set(&tags.index, j, (uint32_t)tags.n, tag_hash, &tags) == 0 || tags.index.slot[j])
		tags.n++;
}

static int tag_find(const char *name, Dwarf_Off *off)
{
	if (!tags.index.slot)
		return -1;
	size_t j = hmap_first(&tags.index, hmap_hash_bytes(name, strlen(name)));
	for (; tags.index.slot[j]; j = hmap_next(&tags.index, j))
		if (strcmp(tags.name[tags.index.slot[j] - 1], name) == 0) {
			*off = tags.off[tags.index.slot[j] - 1];
			return 0;
		}
	return -1;
}

static void scan(Dwarf *dw, struct want *w, size_t nw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, d;
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &d) == 0) {
			const char *cu_name = dwarf_diename(&cu);
			do {
				int tag = dwarf_tag(&d);
				if (tag != DW_TAG_variable && tag != DW_TAG_typedef &&
				    tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
					continue;
				const char *name = dwarf_diename(&d);
				if (!name)
					continue;
				if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type) &&
				    !is_declaration(&d))
					tag_add(name, dwarf_dieoffset(&d));
				for (size_t i = 0; i < nw; i++) {
				struct want *x = &w[i];
				if (x->name[0] != name[0] || strcmp(x->name, name) != 0 ||
				    !cu_matches(x, cu_name))
					continue;
				if (tag == DW_TAG_variable) {
					if (!x->have_var && dwarf_hasattr(&d, DW_AT_location)) {
						x->var_off = dwarf_dieoffset(&d);
						x->have_var = 1;
					}
				} else if (tag == DW_TAG_typedef) {
					if (!x->have_typedef) {
						x->typedef_off = dwarf_dieoffset(&d);
						x->have_typedef = 1;
					}
				} else if (!x->have_tag && !is_declaration(&d)) {
					x->tag_off = dwarf_dieoffset(&d);
					x->have_tag = 1;
				}
				}
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
}

/* Strip typedefs and qualifiers. */
static int peel(Dwarf_Die *t)
{
	for (int i = 0; i < 32; i++) {
		int tag = dwarf_tag(t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_atomic_type &&
		    tag != DW_TAG_restrict_type)
			return 0;
		Dwarf_Attribute a;
		if (!dwarf_attr_integrate(t, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
			return -1;
	}
	return -1;
}

static int complete(Dwarf *dw, Dwarf_Die *t, struct want *w, size_t nw)
{
	(void)w;
	(void)nw;
	if (!is_declaration(t))
		return 0;
	const char *name = dwarf_diename(t);
	Dwarf_Off off;
	return name && tag_find(name, &off) == 0 && dwarf_offdie(dw, off, t) ? 0 : -1;
}

static int member_offset(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	if (!dwarf_attr(m, DW_AT_data_member_location, &a)) {
		*off = 0;  /* union members */
		return 0;
	}
	if (dwarf_formudata(&a, &v) == 0) {
		*off = v;
		return 0;
	}
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return 0;
	}
	return -1;
}

/* Find member `name` in struct/union t, descending into anonymous members. */
static int find_member(Dwarf_Die *t, const char *name, size_t len, uint64_t *off, Dwarf_Die *mtype)
{
	Dwarf_Die m;
	if (dwarf_child(t, &m) != 0)
		return -1;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		const char *n = dwarf_diename(&m);
		uint64_t moff;
		if (member_offset(&m, &moff) < 0)
			continue;
		Dwarf_Attribute a;
		Dwarf_Die ty;
		if (!dwarf_attr_integrate(&m, DW_AT_type, &a) || !dwarf_formref_die(&a, &ty))
			continue;
		if (n && strlen(n) == len && strncmp(n, name, len) == 0) {
			*off = moff;
			*mtype = ty;
			return 0;
		}
		if (!n) {
			Dwarf_Die inner = ty;
			uint64_t ioff;
			if (peel(&inner) == 0 && find_member(&inner, name, len, &ioff, mtype) == 0) {
				*off = moff + ioff;
				return 0;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return -1;
}

static int resolve_path(Dwarf *dw, Dwarf_Die type, const char *path, size_t plen,
			struct want *w, size_t nw, uint64_t *off, uint64_t *size)
{
	uint64_t total = 0;
	const char *p = path, *end = path + plen;
	while (p < end) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		size_t len = dot ? (size_t)(dot - p) : (size_t)(end - p);
		if (peel(&type) < 0)
			return -1;
		if (dwarf_tag(&type) == DW_TAG_array_type) {  /* into element 0 */
			Dwarf_Attribute a;
			if (!dwarf_attr_integrate(&type, DW_AT_type, &a) || !dwarf_formref_die(&a, &type) ||
			    peel(&type) < 0)
				return -1;
		}
		if (complete(dw, &type, w, nw) < 0)
			return -1;
		int tag = dwarf_tag(&type);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			return -1;
		uint64_t moff;
		Dwarf_Die mt;
		if (find_member(&type, p, len, &moff, &mt) < 0)
			return -1;
		total += moff;
		type = mt;
		p += len + (dot ? 1 : 0);
	}
	Dwarf_Word sz = 0;
	Dwarf_Die t = type;
	if (peel(&t) == 0)
		complete(dw, &t, w, nw);
	if (dwarf_tag(&t) == DW_TAG_array_type) {
		dwarf_aggregate_size(&t, &sz);  /* flexible arrays report 0 */
	} else {
		dwarf_aggregate_size(&t, &sz);
	}
	*off = total;
	*size = sz;
	return 0;
}

static int type_die(Dwarf *dw, struct want *x, struct want *w, size_t nw, Dwarf_Die *out)
{
	if (!x->is_tag && x->have_typedef)
		return dwarf_offdie(dw, x->typedef_off, out) ? 0 : -1;
	if (x->have_tag)
		return dwarf_offdie(dw, x->tag_off, out) ? 0 : -1;
	(void)w;
	(void)nw;
	return -1;
}

static int global_type(Dwarf *dw, struct want *x, Dwarf_Die *out, uint64_t *addr)
{
	Dwarf_Die v;
	if (!x->have_var || !dwarf_offdie(dw, x->var_off, &v))
		return -1;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (addr) {
		if (!dwarf_attr(&v, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &n) != 0 ||
		    n < 1 || ops[0].atom != DW_OP_addr)
			return -1;
		*addr = ops[0].number;
	}
	if (!dwarf_attr_integrate(&v, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
		return -1;
	return 0;
}

static int resolve_alternatives(Dwarf *dw, Dwarf_Die type, const char *paths, struct want *w,
				size_t nw, struct layout_entry *e)
{
	const char *p = paths;
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (resolve_path(dw, type, p, len, w, nw, &e->value, &e->size) == 0) {
			e->found = true;
			return 0;
		}
		if (!bar)
			break;
		p = bar + 1;
	}
	return -1;
}

bc_err *layout_resolve(Dwarf *dw, struct layout *L)
{
	struct want w[L_COUNT];
	size_t nw = 0;
	struct want *ix[L_COUNT];
	memset(L, 0, sizeof *L);
	for (int i = 0; i < L_COUNT; i++)
		ix[i] = want_add(w, &nw, specs[i].name);
	/* struct tags reached through members (declared elsewhere) are completed lazily
	 * via the same table; tags named only there are not needed. */
	scan(dw, w, nw);

	for (int i = 0; i < L_COUNT; i++) {
		const struct spec *s = &specs[i];
		struct layout_entry *e = &L->e[i];
		Dwarf_Die t;
		switch (s->kind) {
		case K_GLOBAL: {
			uint64_t addr;
			if (global_type(dw, ix[i], &t, &addr) == 0) {
				Dwarf_Word sz = 0;
				Dwarf_Die p = t;
				if (peel(&p) == 0)
					dwarf_aggregate_size(&p, &sz);
				e->value = addr;
				e->size = sz;
				e->found = true;
			}
			break;
		}
		case K_GFIELD:
			if (global_type(dw, ix[i], &t, NULL) == 0)
				resolve_alternatives(dw, t, s->paths, w, nw, e);
			break;
		case K_GELEM: {
			Dwarf_Attribute a;
			Dwarf_Word sz;
			if (global_type(dw, ix[i], &t, NULL) == 0 && peel(&t) == 0 &&
			    dwarf_tag(&t) == DW_TAG_array_type &&
			    dwarf_attr_integrate(&t, DW_AT_type, &a) && dwarf_formref_die(&a, &t) &&
			    peel(&t) == 0 && complete(dw, &t, w, nw) == 0 &&
			    dwarf_aggregate_size(&t, &sz) == 0) {
				e->value = sz;
				e->found = true;
			}
			break;
		}
		case K_FIELD:
			if (type_die(dw, ix[i], w, nw, &t) == 0)
				resolve_alternatives(dw, t, s->paths, w, nw, e);
			break;
		case K_SIZE:
			if (type_die(dw, ix[i], w, nw, &t) == 0 && peel(&t) == 0 &&
			    complete(dw, &t, w, nw) == 0) {
				Dwarf_Word sz;
				if (dwarf_aggregate_size(&t, &sz) == 0) {
					e->value = sz;
					e->found = true;
				}
			}
			break;
		}
		if (e->found)
			L->nfound++;
		else  /* (an alternative that failed half-way) */
			*e = (struct layout_entry){ 0, 0, false };
	}
	free(tags.name);
	free(tags.off);
	hmap_free(&tags.index);
	memset(&tags, 0, sizeof tags);
	if (L->nfound == 0)
		return bc_error(BC_ENODEBUG, "no beam.smp symbols in the DWARF (is this a beam.smp?)");
	return NULL;
}

void layout_cu_exports(Dwarf *dw, void (*fn)(enum layout_id id, const char *name, uint64_t addr,
					     void *arg), void *arg)
{
	struct want w[L_COUNT];
	enum layout_id ids[L_COUNT];
	size_t nw = 0;
	for (int i = 0; i < L_COUNT; i++) {
		if (specs[i].kind != K_GLOBAL || !strchr(specs[i].name, ':'))
			continue;
		size_t n = nw;
		want_add(w, &nw, specs[i].name);
		if (nw > n)
			ids[n] = (enum layout_id)i;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, d;
		const char *cu_name;
		if (dwarf_offdie(dw, off + hsize, &cu) && (cu_name = dwarf_diename(&cu)) &&
		    dwarf_child(&cu, &d) == 0) {
			size_t k = 0;
			while (k < nw && !cu_matches(&w[k], cu_name))
				k++;
			do {
				Dwarf_Attribute a;
				Dwarf_Op *ops;
				size_t n;
				bool ext = false;
				const char *name = dwarf_diename(&d);
				if (k == nw || dwarf_tag(&d) != DW_TAG_variable || !name ||
				    !dwarf_attr_integrate(&d, DW_AT_external, &a) || dwarf_formflag(&a, &ext) ||
				    !ext || !dwarf_attr(&d, DW_AT_location, &a) ||
				    dwarf_getlocation(&a, &ops, &n) != 0 || n < 1 || ops[0].atom != DW_OP_addr)
					continue;
				for (size_t j = k; j < nw; j++)
					if (cu_matches(&w[j], cu_name))
						fn(ids[j], name, ops[0].number, arg);
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
}
