/* proc_lib's identity of every process, read during the procs walk: the
 * '$initial_call' and '$ancestors' keys of its dictionary (proc_lib.erl puts
 * them there), and the keys the label rules name (labels.h: '$process_label',
 * process_name, ...). Only those keys are looked up, each by its hash bucket
 * as erl_process_dict.c finds it (an atom hashes to its index), so a process
 * costs a few reads however large its dictionary is; a label is decoded into
 * one reused arena and interned (no allocation per process). */
#include <stdlib.h>
#include <string.h>

#include "identity.h"
#include "eterm.h"
#include "terms.h"
#include "term.h"
#include "labels.h"

#define MAX_ANCESTORS (1u << 16)   /* longer is a corrupt list, not a family */
#define MAX_BUCKET (1u << 20)
#define PID_CACHE 1024             /* term -> "<0.N.S>", direct-mapped */

struct beam_ident {
	uint64_t k_initial_call, k_ancestors;  /* the key atoms' terms; 0: not in the atom table */
	uint64_t mask;                         /* pointer mask (etp_ptr_mask) */
	const char **names;                    /* one process's ancestors, reused */
	size_t names_cap;
	struct { uint64_t term; const char *s; } pids[PID_CACHE];
	struct vt_arena *arena;                /* another node's pid in a list: printed once */
	/* the label rules' dictionary keys, in rule order: the key atom's term (0:
	 * no such atom, so no process has it) */
	const struct label_rule **label_rule;
	uint64_t *label_key;
	size_t nlabel;
	struct vt_arena *label_arena;          /* one label's term, reset per use */
};

void beam_ident_free(struct beam *b)
{
	if (!b->ident)
		return;
	free(b->ident->names);
	free(b->ident->label_rule);
	free(b->ident->label_key);
	vt_arena_free(b->ident->label_arena);
	vt_arena_free(b->ident->arena);
	free(b->ident);
	b->ident = NULL;
}

/* The label rules' dictionary keys (interned, to compare by pointer); -1 OOM. */
static int label_keys(struct beam_ident *id)
{
	const struct label_rules *lr = label_rules();
	size_t n = 0;
	for (size_t i = 0; i < lr->n; i++)
		n += lr->rule[i].kind == LABEL_DICT;
	if (!n)
		return 0;
	id->label_rule = calloc(n, sizeof *id->label_rule);
	id->label_key = calloc(n, sizeof *id->label_key);
	if (!id->label_rule || !id->label_key)
		return -1;
	for (size_t i = 0; i < lr->n; i++)
		if (lr->rule[i].kind == LABEL_DICT)
			id->label_rule[id->nlabel++] = &lr->rule[i];
	return 0;
}

/* The atom table's index of each key, by walking it once from the start:
 * proc_lib's atoms come early (it is loaded at boot); a label key that is no
 * atom at all costs the whole walk (once per core, no atom kept). */
static void find_keys(struct beam *b, struct beam_ident *id)
{
	const char *names[66];
	int64_t ix[66];
	size_t nwant = id->nlabel < 64 ? id->nlabel : 64;
	names[0] = "$initial_call";
	names[1] = "$ancestors";
	for (size_t k = 0; k < nwant; k++)
		names[2 + k] = id->label_rule[k]->what;
	beam_atom_find(b, names, ix, 2 + nwant);
	id->k_initial_call = ix[0] >= 0 ? make_atom((uint64_t)ix[0]) : 0;
	id->k_ancestors = ix[1] >= 0 ? make_atom((uint64_t)ix[1]) : 0;
	for (size_t k = 0; k < nwant; k++)
		id->label_key[k] = ix[2 + k] >= 0 ? make_atom((uint64_t)ix[2 + k]) : 0;
}

int beam_ident_init(struct beam *b)
{
	const struct layout *L = &b->L;
	if (b->ident)
		return 0;
	if (!LHAS(L, PD_SIZE_MASK) || !LHAS(L, PD_USED_SLOTS) || !LHAS(L, PD_DATA))
		return -1;
	struct beam_ident *id = calloc(1, sizeof *id);
	if (!id)
		return -1;
	id->mask = ~(uint64_t)3;
	if (LHAS(L, G_PTR_MASK))
		beam_read_u64(b, beam_global(b, G_PTR_MASK), &id->mask);
	if (label_keys(id) < 0) {
		free(id->label_rule);
		free(id->label_key);
		free(id);
		return -1;
	}
	find_keys(b, id);
	b->ident = id;
	return 0;
}

/* Key's value in the dictionary: 1 found, 0 absent, -1 unreadable. */
static int lookup(struct beam *b, uint64_t dict, uint64_t key, uint64_t *val)
{
	const struct layout *L = &b->L;
	const struct beam_ident *id = b->ident;
	uint32_t mask, used;
	if (beam_read_u32(b, dict + LV(L, PD_SIZE_MASK), &mask) < 0 ||
	    beam_read_u32(b, dict + LV(L, PD_USED_SLOTS), &used) < 0)
		return -1;
	/* pd_hash_value_to_ix: linear hashing over usedSlots buckets */
	uint64_t hx = (uint32_t)atom_val(key);  /* an atom hashes to its index */
	uint64_t ix = hx & mask;
	if (ix >= used)
		ix = hx & (mask >> 1);
	if (ix >= used)
		return -1;
	uint64_t slot, kv[3];
	if (beam_read_u64(b, dict + LV(L, PD_DATA) + 8 * ix, &slot) < 0)
		return -1;
	struct cycle cy = CYCLE_INIT;
	for (unsigned n = 0; slot != NIL; n++) {
		uint64_t tuple = slot, cell[2] = { 0, NIL };
		if (is_list(slot)) {  /* a bucket of several: a list of {K,V} */
			if (n > MAX_BUCKET || cycle_seen(&cy, slot) ||
			    core_peek(b->core, slot & id->mask, cell, 16) < 0)
				return -1;
			tuple = cell[0];
		}
		if (!is_boxed(tuple) || core_peek(b->core, tuple & id->mask, kv, 24) < 0 ||
		    kv[0] != make_arityval(2))
			return -1;
		if (kv[1] == key) {
			*val = kv[2];
			return 1;
		}
		if (!is_list(slot))
			return 0;
		slot = cell[1];
	}
	return 0;
}

/* {M, F, Arity}: 0, or 1 when the value is something else (no initial call
 * to show), -1 unreadable. */
static int mfa(struct beam *b, uint64_t v, struct vm_mfa *out)
{
	uint64_t t[4];
	if (!is_boxed(v))
		return 1;
	if (core_peek(b->core, v & b->ident->mask, t, 8) < 0)
		return -1;
	if (t[0] != make_arityval(3))
		return 1;
	if (core_peek(b->core, v & b->ident->mask, t, 32) < 0)
		return -1;
	if (!is_atom(t[1]) || !is_atom(t[2]) || !is_small(t[3]))
		return 1;
	out->module = beam_atom(b, t[1]);
	out->function = beam_atom(b, t[2]);
	out->arity = (int)signed_val(t[3]);
	return out->module && out->function ? 0 : -1;
}

/* An ancestor as the ground truth prints it: a name plain, a pid as <0.N.S>. */
static const char *ancestor(struct beam *b, uint64_t t)
{
	struct beam_ident *id = b->ident;
	if (is_atom(t))
		return beam_atom(b, t);
	size_t slot = (size_t)(t >> _TAG_IMMED1_SIZE) % PID_CACHE;
	if (t && id->pids[slot].term == t)
		return id->pids[slot].s;
	char buf[512];
	if (is_internal_pid(t)) {
		struct vm_pid pid;
		beam_decode_pid(b, t, &pid);
		vm_pid2str(pid, buf, sizeof buf);
	} else {  /* another node's pid, or not what proc_lib puts there: as printed */
		if (!id->arena && !(id->arena = vt_arena_new()))
			return NULL;
		static const struct vt_limits lim = { 4, 16, 64 };
		struct vt *v = beam_decode_term(b, id->arena, t, 16, 64);
		if (!v || v->kind == VT_UNREADABLE)
			return NULL;
		vt_print(v, &lim, buf, sizeof buf);
	}
	const char *s = vm_intern(b->vm, buf, strlen(buf));
	if (s) {
		id->pids[slot].term = t;
		id->pids[slot].s = s;
	}
	return s;
}

static int ancestors(struct beam *b, uint64_t v, struct vm_proc *vp)
{
	struct beam_ident *id = b->ident;
	size_t n = 0;
	while (v != NIL) {
		uint64_t cell[2];
		if (!is_list(v) || n >= MAX_ANCESTORS || core_peek(b->core, v & id->mask, cell, 16) < 0)
			return -1;
		const char **a = grow(id->names, &id->names_cap, n, sizeof *a, 16);
		if (!a)
			return -1;
		id->names = a;
		if (!(id->names[n++] = ancestor(b, cell[0])))
			return -1;
		v = cell[1];
	}
	return vm_set_ancestors(b->vm, vp, id->names, n);
}

/* The first label rule whose key the dictionary holds: vp->label. An
 * unreadable value is no label (the next rule may give one). */
static void proc_label(struct beam *b, uint64_t dict, struct vm_proc *vp)
{
	struct beam_ident *id = b->ident;
	for (size_t k = 0; k < id->nlabel; k++) {
		uint64_t v;
		if (!id->label_key[k] || lookup(b, dict, id->label_key[k], &v) <= 0)
			continue;
		if (!id->label_arena && !(id->label_arena = vt_arena_new()))
			return;
		vt_arena_reset(id->label_arena);
		struct vt *t = beam_decode_term(b, id->label_arena, v, 32, 200);
		if (!t || t->kind == VT_UNREADABLE)
			continue;
		vm_set_label(b->vm, vp, id->label_rule[k], t, NULL, NULL);
		return;
	}
}

void beam_proc_identity(struct beam *b, uint64_t dict, struct vm_proc *vp)
{
	const struct beam_ident *id = b->ident;
	if (!id) {
		vp->unknown |= VPF_IDENTITY;
		return;
	}
	if (!dict)
		return;  /* an empty dictionary: neither key */
	uint64_t v;
	int r = id->k_initial_call ? lookup(b, dict, id->k_initial_call, &v) : 0;
	if (r > 0) {
		struct vm_mfa m;
		const struct vm_mfa *ref = NULL;
		if ((r = mfa(b, v, &m)) == 0 && !(ref = vm_mfa_intern(b->vm, &m)))
			r = -1;  /* out of memory: unread */
		vp->proc_lib_initial_call = ref ? ref : &vm_mfa_none;
	}
	if (r < 0)
		vp->unknown |= VPF_IDENTITY;
	r = id->k_ancestors ? lookup(b, dict, id->k_ancestors, &v) : 0;
	if (r < 0 || (r > 0 && ancestors(b, v, vp) < 0)) {
		vp->has_ancestors = false;
		vp->unknown |= VPF_IDENTITY;
	}
	if (id->nlabel)
		proc_label(b, dict, vp);
}

/* The length of the proper list v (-1: not one, or longer than MAX_REG, 1024),
 * its first nhead elements into head. */
static int arg_list(struct beam *b, uint64_t mask, uint64_t v, uint64_t *head, int nhead)
{
	int n = 0;
	for (; v != NIL; n++) {
		uint64_t cell[2];
		if (!is_list(v) || n >= 1024 || core_peek(b->core, v & mask, cell, 16) < 0)
			return -1;
		if (n < nhead)
			head[n] = cell[0];
		v = cell[1];
	}
	return n;
}

/* erts_hibernate leaves Module, Function, Args in arg_reg[0..2]; proc_lib's
 * hibernate/3 calls erlang:hibernate(proc_lib, wake_up, [M, F, A]), so its
 * callers (gen_server, gen_statem, RabbitMQ's gen_server2) are one level in. */
void beam_proc_wake_up(struct beam *b, uint64_t regs, struct vm_proc *vp)
{
	uint64_t mask = b->ident ? b->ident->mask : ~(uint64_t)3, r[3], a[3];
	if (!regs || core_peek(b->core, regs, r, sizeof r) < 0 || !is_atom(r[0]) || !is_atom(r[1]))
		return;
	int n = arg_list(b, mask, r[2], a, 3);
	struct vm_mfa m = { beam_atom(b, r[0]), beam_atom(b, r[1]), n };
	if (n < 0 || !m.module || !m.function)
		return;
	if (n == 3 && strcmp(m.module, "proc_lib") == 0 && strcmp(m.function, "wake_up") == 0 &&
	    is_atom(a[0]) && is_atom(a[1])) {
		int k = arg_list(b, mask, a[2], NULL, 0);
		struct vm_mfa inner = { beam_atom(b, a[0]), beam_atom(b, a[1]), k };
		if (k >= 0 && inner.module && inner.function)
			m = inner;
	}
	int64_t id = vm_mfa_id(b->vm, &m);
	if (id >= 0 && id < UINT32_MAX)
		vp->wake_up = (uint32_t)id + 1;
}
