/* One process in full from a crash dump (beamcore proc): links and monitors
 * from its =proc section's Link list, its dictionary and messages decoded
 * through the heap term decoder (terms.c), largest_terms and message_shapes
 * (termsize.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "internal.h"
#include "deep.h"
#include "loads.h"
#include "needs.h"
#include "term.h"

#define ENTRY_NODES 20000  /* tree nodes one dictionary entry or message may take */

/* The target of a monitor: a pid, a port, or {Name, Node} (by name). */
static struct vt *monitor_target(struct heap *h, const char **p, const char *end)
{
	if (*p >= end || **p != '{')
		return heap_link_target(h, p, end);
	const char *q = *p + 1;
	struct vt *t = vt_new(h->a, VT_TUPLE), *name = vt_new(h->a, VT_ATOM),
		  *node = vt_new(h->a, VT_ATOM);
	if (!t || !name || !node || !(t->elems = vt_alloc(h->a, 2 * sizeof *t->elems)))
		return NULL;
	if (!(name->text = parse_atom(h->d->vm, &q, end, ",}")) || q >= end || *q++ != ',')
		return NULL;
	while (q < end && *q == ' ')
		q++;
	if (!(node->text = parse_atom(h->d->vm, &q, end, ",}")) || q >= end || *q++ != '}')
		return NULL;
	t->elems[0] = name;
	t->elems[1] = node;
	t->n = 2;
	*p = q;
	return t;
}

/* "Link list: [<0.1.0>, #Port<0.5>, {to,<0.2.0>,#Ref<..>}, {from,<0.3.0>,#Ref<..>}]"
 * of the =proc section (break.c): links, and the other end of the monitors
 * this process set up ({to,...}). */
static void links(struct heap *h, const struct vm_proc *vp, struct vm_proc_detail *out,
		  const char ***refs)
{
	const char *s, *e;
	if (dump_proc_body(h->d, vp, &s, &e) < 0)
		return;
	const char *key = "\nLink list: [";
	const char *l = memmem(s - 1, (size_t)(e - s + 1), key, strlen(key));
	out->no_links = false;
	if (!l)
		return;  /* no line: no links, no monitors */
	const char *p = l + strlen(key);
	const char *le = memchr(p, '\n', (size_t)(e - p));
	le = le ? le : e;
	size_t cl = 0, cm = 0, cr = 0;
	while (p < le && *p != ']') {
		struct vt *t = NULL;
		const char *ref = NULL;
		int monitor = 0;
		if (*p == '{') {
			monitor = strncmp(p, "{to,", 4) == 0;
			const char *q = p + (monitor ? 4 : 0);
			if (monitor)
				t = monitor_target(h, &q, le);
			if (t && q + 6 < le && q[0] == ',' && strncmp(q + 1, "#Ref<", 5) == 0) {
				const char *re = memchr(q + 1, '>', (size_t)(le - q - 1));
				ref = re ? vt_strdup(out->arena, q + 1, (size_t)(re + 1 - (q + 1))) : NULL;
			}
			int depth = 0;  /* skip to the end of the tuple */
			for (; p < le; p++) {
				depth += *p == '{';
				depth -= *p == '}';
				if (*p == '}' && depth == 0) {
					p++;
					break;
				}
			}
		} else {
			t = heap_link_target(h, &p, le);
			if (!t)
				break;  /* something this parser does not know: stop, keep what it has */
		}
		if (t && monitor) {
			size_t k = out->nmonitors;
			if (cr <= k) {  /* the references, beside the monitors */
				size_t nc = cr ? 2 * cr : 16;
				const char **r = vt_alloc(out->arena, nc * sizeof *r);
				if (r && *refs)
					memcpy(r, *refs, cr * sizeof *r);
				*refs = r;
				cr = r ? nc : 0;
			}
			if (*refs)
				(*refs)[k] = ref;
			if ((out->monitors = vt_grow(out->arena, out->monitors, out->nmonitors, &cm)))
				out->monitors[out->nmonitors++] = t;
		} else if (t && !monitor) {
			if ((out->links = vt_grow(out->arena, out->links, out->nlinks, &cl)))
				out->links[out->nlinks++] = t;
		}
		while (p < le && (*p == ',' || *p == ' '))
			p++;
	}
}

/* Of several monitors, the one a pending call made: its reference is held by
 * the waiting frame (=proc_stack's y slots up to the first return address). */
static void call_by_stack(struct heap *h, const struct vm_proc *p, struct vm_proc_detail *out,
			  const char **refs)
{
	const char *s, *e;
	if (!(out->monitor_call = vt_alloc(out->arena, out->nmonitors)))
		return;
	memset(out->monitor_call, 0, out->nmonitors);
	if (dump_proc_part(h->d, p, PART_STACK, &s, &e) < 0)
		return;
	for (int k = 0; s < e && k < 64; k++) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *le = nl ? nl : e;
		if (le - s < 3 || s[0] != 'y')
			break;  /* the return address: the frame ends */
		const char *q = memchr(s, ':', (size_t)(le - s));
		struct vt *t = NULL;
		if (q) {
			q++;
			t = heap_element(h, &q, le, 0);
		}
		for (size_t i = 0; t && t->kind == VT_REF && t->text && i < out->nmonitors; i++)
			if (refs[i] && strcmp(refs[i], t->text) == 0)
				out->monitor_call[i] = 1;
		s = le + 1;
	}
}

int dump_detail(void *loader, const struct vm_proc *p, const struct vm_detail_limits *lim,
		struct vm_proc_detail *out)
{
	struct dump *d = loader;
	char pid[32];
	vm_pid_str(p, pid, sizeof pid);
	memset(out, 0, sizeof *out);
	if (!(out->arena = vt_arena_new()))
		return -1;
	/* links and monitors come from the =proc section's Link list (links() says
	 * when it found it); stack frames carry no file:line: unknown */
	out->no_links = out->no_frames = true;
	struct heap h = { .d = d, .a = out->arena, .budget = 20000, .items = lim->items,
			  .bytes = lim->bytes };
	if (!(d->loaded & NEED_NODES) && !dump_load_nodes(d))  /* names of the nodes' pids */
		d->loaded |= NEED_NODES;
	const char **refs = NULL;
	links(&h, p, out, &refs);
	/* the heap, for what refers into it: the links alone (tree's question
	 * of every linked process) read the =proc section and nothing else */
	bool calls = refs && out->nmonitors > 1;
	const char *hs, *he;
	if ((calls || lim->dict || lim->messages || lim->largest) &&
	    dump_proc_part(d, p, PART_HEAP, &hs, &he) == 0 && heap_index(hs, he, &h.lines) < 0)
		return -1;
	if (calls)
		call_by_stack(&h, p, out, refs);
	const char *s, *e;
	if (lim->dict && heap_section(d, "=proc_dictionary:", pid, &s, &e) == 0) {
		size_t cap = 0, cap2 = 0;
		while (s < e && out->ndict < lim->dict) {
			const char *nl = memchr(s, '\n', (size_t)(e - s));
			const char *le = nl ? nl : e;
			const char *q = s;
			h.budget = ENTRY_NODES;
			struct vt *kv = heap_element(&h, &q, le, 0);
			if (kv && kv->kind == VT_TUPLE && kv->n == 2) {
				out->dict_keys = vt_grow(out->arena, out->dict_keys, out->ndict, &cap);
				out->dict_values = vt_grow(out->arena, out->dict_values, out->ndict, &cap2);
				if (!out->dict_keys || !out->dict_values)
					break;
				out->dict_keys[out->ndict] = kv->elems[0];
				out->dict_values[out->ndict++] = kv->elems[1];
			}
			s = le + 1;
		}
	}
	if (lim->messages && heap_section(d, "=proc_messages:", pid, &s, &e) == 0) {
		size_t cap = 0;
		while (s < e && out->nmessages < lim->messages) {
			const char *nl = memchr(s, '\n', (size_t)(e - s));
			const char *le = nl ? nl : e;
			const char *q = s;
			out->messages = vt_grow(out->arena, out->messages, out->nmessages, &cap);
			if (!out->messages)
				break;
			h.budget = ENTRY_NODES;
			out->messages[out->nmessages++] = heap_element(&h, &q, le, 0);
			s = le + 1;
		}
	}
	if (lim->largest)
		dump_term_roots(&h, p, pid, lim->largest, out);
	heap_lines_free(&h.lines);
	heap_lines_free(&h.lit);
	return 0;
}
