/* The atom table from a crash dump's =atoms section (dump_atoms in
 * erl_crash_dump.c): every atom, one a line, newest first, printed as %T does
 * (quoted where needed: the quotes are dropped here, escapes inside them kept).
 * Line k is atom entries - 1 - k (=index_table:atom_tab's entries; the lines
 * when it is absent), so a dump cut inside the section loses the oldest. */
#include <string.h>

#include "internal.h"
#include "loads.h"

static void set_atom(struct vm_atom *a, const char *p, const char *end)
{
	if (end - p >= 2 && *p == '\'' && end[-1] == '\'')
		p++, end--;
	/* (an atom is at most 255 characters: a longer line is kept cut) */
	size_t n = (size_t)(end - p);
	*a = (struct vm_atom){ p, (uint32_t)(n < 4096 ? n : 4096) };
}

bc_err *dump_load_atoms(struct dump *d)
{
	struct vm *vm = d->vm;
	if (!d->atoms) {
		if (!dump_kind_missing(d, DK_ATOMS, "the atom table (=atoms)"))
			vm_gap(vm, "the atom table: the dump has no =atoms section");
		return NULL;
	}
	const char *body, *end = d->map + d->end;
	dump_section(d, d->atoms, &body);
	body++;
	size_t lines = 0;
	for (const char *p = body; p < end && *p != '='; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	size_t n = vm->atom_count && vm->atom_count >= lines ? (size_t)vm->atom_count : lines;
	if (vm->atom_count && vm->atom_count < lines)
		vm_gap(vm, "the dump lists %zu atoms, its atom table %llu entries: indexes counted "
		       "from the list", lines, (unsigned long long)vm->atom_count);
	if (vm_alloc_atoms(vm, n) < 0)
		return bc_error(BC_ENOMEM, "out of memory for %zu atoms", n);
	size_t k = 0;
	for (const char *p = body; p < end && *p != '=' && k < lines; k++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		set_atom(&vm->atoms[n - 1 - k], p, e);
		p = nl ? nl + 1 : end;
	}
	vm->atoms_unread = n - lines;
	if (vm->atoms_unread)
		vm_gap(vm, "the atom list is cut by the end of the dump: the %zu oldest of %zu atoms "
		       "are not in it", vm->atoms_unread, n);
	return NULL;
}
