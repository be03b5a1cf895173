/* ETS tables from the =ets:<owner> sections (erl_db.c db_info/print_table):
 * Objects and Words are ets:info(T, size) and ets:info(T, memory). The table
 * id is printed only for unnamed tables ("Table: #Ref<...>"); a named table
 * prints its name there, so its id is unknown. Contents are not in a dump. */
#include <string.h>

#include "internal.h"
#include "loads.h"
#include "text.h"

static const char *one_of(const char *v, const char *end, const char *const *names)
{
	for (; *names; names++)
		if (strlen(*names) == (size_t)(end - v) && memcmp(*names, v, (size_t)(end - v)) == 0)
			return *names;
	return NULL;
}

/* "#Ref<0.A.B.C>" as vm_ets_id_str prints it. */
static bool parse_ref(const char *p, const char *end, uint32_t refn[3])
{
	uint64_t x[4];
	if (end - p < 6 || memcmp(p, "#Ref<", 5) != 0)
		return false;
	p += 5;
	for (int i = 0; i < 4; i++) {
		if (!parse_u64_prefix(&p, end, &x[i]) || x[i] > UINT32_MAX || p >= end ||
		    *p++ != (i < 3 ? '.' : '>'))
			return false;
	}
	if (p != end || x[0] != 0)
		return false;
	refn[2] = (uint32_t)x[1];
	refn[1] = (uint32_t)x[2];
	refn[0] = (uint32_t)x[3];
	return true;
}

static void parse_table(struct dump *d, size_t off, struct vm_ets *t)
{
	static const char *const types[] = { "set", "ordered_set", "bag", "duplicate_bag", NULL };
	static const char *const prots[] = { "private", "protected", "public", NULL };
	struct vm *vm = d->vm;
	const char *pos, *v, *tag = dump_section(d, off, &pos) + 4;  /* after "ets:" */
	memset(t, 0, sizeof t[0]);
	t->addr = off;
	t->unknown = VEF_ID | VEF_NAME | VEF_SIZE | VEF_MEMORY;
	if (!parse_pid(&tag, pos, &t->owner) || tag != pos)
		vm_gap(vm, "ETS table at byte %zu: owner %.*s unreadable", off, (int)(pos - tag), tag);
	const char *table = NULL, *table_end = NULL;
	struct line l;
	uint64_t n;
	for (pos++; next_line(&pos, d->map + d->end, &l) && *l.p != '='; ) {
		if (KEY(&l, "Slot: ", &v) && parse_u64(v, l.end, &n)) {
			t->addr = n;  /* the DbTable's address */
		} else if (KEY(&l, "Table: ", &v)) {
			table = v;
			table_end = l.end;
		} else if (KEY(&l, "Name: ", &v)) {
			const char *a = parse_atom(vm, &v, l.end, "");
			if (a && v == l.end) {
				t->name = a;
				t->unknown &= ~(uint32_t)VEF_NAME;
			}
		} else if (KEY(&l, "Objects: ", &v)) {
			if (parse_u64(v, l.end, &t->size))
				t->unknown &= ~(uint32_t)VEF_SIZE;
		} else if (KEY(&l, "Words: ", &v)) {
			if (parse_u64(v, l.end, &t->memory))
				t->unknown &= ~(uint32_t)VEF_MEMORY;
		} else if (KEY(&l, "Type: ", &v)) {
			t->type = one_of(v, l.end, types);
		} else if (KEY(&l, "Protection: ", &v)) {
			t->protection = one_of(v, l.end, prots);
		} else if (KEY(&l, "Compressed: ", &v)) {
			t->compressed = l.end - v == 4 && memcmp(v, "true", 4) == 0;
		}
	}
	if (table && parse_ref(table, table_end, t->refn))
		t->unknown &= ~(uint32_t)VEF_ID;
	else if (table)
		t->named_table = true;  /* print_table shows the name of a named table */
}

bc_err *dump_load_ets(struct dump *d)
{
	struct vm *vm = d->vm;
	for (size_t i = 0; i < d->ets.n; i++) {
		struct vm_ets *t = vm_add_ets(vm);
		if (!t)
			return bc_error(BC_ENOMEM, "out of memory after %zu ETS tables", i);
		parse_table(d, d->ets.v[i], t);
		if (dump_is_cut(d, d->ets.v[i]))
			vm_gap(vm, "ETS table %s: its =ets section is cut by the end of the dump",
			       t->name ? t->name : "?");
	}
	dump_kind_missing(d, DK_ETS, "ETS tables (=ets)");
	return NULL;
}
