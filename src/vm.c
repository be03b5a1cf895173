#include "vm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VM_MAX_GAPS 64

struct vm *vm_new(const char *kind, const char *source)
{
	struct vm *vm = calloc(1, sizeof *vm);
	if (!vm)
		return NULL;
	vm->kind = kind;
	vm->source = source;
	vm->strings = strtab_new();
	if (!vm->strings) {
		free(vm);
		return NULL;
	}
	return vm;
}

void vm_free(struct vm *vm)
{
	if (!vm)
		return;
	for (size_t i = 0; i < vm->ngaps; i++)
		free(vm->gaps[i].what);
	free(vm->gaps);
	free(vm->procs);
	strtab_free(vm->strings);
	free(vm);
}

struct vm_proc *vm_add_proc(struct vm *vm)
{
	if (vm->nprocs == vm->procs_cap) {
		size_t cap = vm->procs_cap ? vm->procs_cap * 2 : 4096;
		struct vm_proc *p = realloc(vm->procs, cap * sizeof *p);
		if (!p)
			return NULL;
		vm->procs = p;
		vm->procs_cap = cap;
	}
	struct vm_proc *p = &vm->procs[vm->nprocs++];
	memset(p, 0, sizeof *p);
	return p;
}

void vm_gap(struct vm *vm, const char *fmt, ...)
{
	if (vm->ngaps >= VM_MAX_GAPS) {
		vm->gaps_dropped++;
		return;
	}
	struct vm_gap *g = realloc(vm->gaps, (vm->ngaps + 1) * sizeof *g);
	if (!g) {
		vm->gaps_dropped++;
		return;
	}
	vm->gaps = g;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	vm->gaps[vm->ngaps].what = strdup(buf);
	if (vm->gaps[vm->ngaps].what)
		vm->ngaps++;
	else
		vm->gaps_dropped++;
}

const char *vm_intern(struct vm *vm, const char *s, size_t len)
{
	return strtab_intern(vm->strings, s, len);
}

const char *vm_pid_str(const struct vm_proc *p, char *buf, size_t len)
{
	snprintf(buf, len, "<0.%u.%u>", p->pid_num, p->pid_serial);
	return buf;
}

const char *vm_mfa_str(const struct vm_mfa *m, char *buf, size_t len)
{
	if (!m->module || !m->function)
		return NULL;
	snprintf(buf, len, "%s:%s/%d", m->module, m->function, m->arity);
	return buf;
}
