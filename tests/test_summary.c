/* The summary's findings on a model built by hand: what one finding says is
 * never left out by another (issue 11: a 763 MiB ETS table owned by a 2.9 MiB
 * process was in no finding: the ETS rule thought the process finding named
 * it, the process rule had not named the process). */
#include <stdio.h>
#include <string.h>

#include "analyzer.h"
#include "vm.h"

#define MIB (1024ull * 1024)

static int failures;

static void expect(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	failures += !ok;
}

static struct vm_proc *proc(struct vm *vm, uint32_t num, const char *name, uint64_t memory)
{
	struct vm_proc *p = vm_add_proc(vm);
	p->pid_num = num;
	p->registered_name = name ? vm_intern(vm, name, strlen(name)) : NULL;
	p->status = VS_WAITING;
	p->memory = memory;
	p->total_heap_size = memory / 8;
	p->nlinks = 1;
	return p;
}

static void table(struct vm *vm, const char *name, uint32_t owner, uint64_t bytes)
{
	struct vm_ets *e = vm_add_ets(vm);
	e->name = vm_intern(vm, name, strlen(name));
	e->owner = (struct vm_pid){ owner, 0 };
	e->type = "set";
	e->protection = "public";
	e->size = 1000;
	e->memory = bytes / 8;
}

static int said(const struct an_out *o, const char *needle)
{
	for (size_t i = 0; i < o->nfindings; i++)
		if (strstr(o->findings[i].text, needle))
			return 1;
	return 0;
}

static void run(struct vm *vm, struct an_out *out)
{
	vm_index_pids(vm);
	extern const struct analyzer analyzer_summary;
	const struct analyzer *an = &analyzer_summary;
	struct an_opts o = { 0 };
	bc_err *e = an->run(vm, &o, out);
	expect(!e, "summary runs");
	for (size_t i = 0; i < out->nfindings; i++)
		printf("  * %s\n", out->findings[i].text);
}

int main(void)
{
	/* the shape: a small owner of a huge table, a big process */
	struct vm *vm = vm_new("core", "test");
	vm->memory.known = (1u << VM_MEM_TOTAL) | (1u << VM_MEM_PROCESSES);
	vm->memory.v[VM_MEM_PROCESSES] = 200 * MIB;
	vm->memory.v[VM_MEM_TOTAL] = 1200 * MIB;
	proc(vm, 40, "big", 150 * MIB);
	proc(vm, 41, "ets_owner", 29 * MIB / 10);  /* 2.9 MiB: not 10% of processes */
	for (uint32_t i = 0; i < 50; i++)
		proc(vm, 100 + i, NULL, 64 * 1024);
	table(vm, "huge", 41, 763 * MIB);
	struct an_out out = { 0 };
	run(vm, &out);
	expect(said(&out, "big holds"), "the big process is named");
	expect(said(&out, "ETS huge holds"), "the 763 MiB table of a 2.9 MiB owner is named");
	an_out_free(&out);
	vm_free(vm);

	/* a table listed with its named owner is not said twice */
	vm = vm_new("core", "test");
	vm->memory.known = (1u << VM_MEM_TOTAL) | (1u << VM_MEM_PROCESSES);
	vm->memory.v[VM_MEM_PROCESSES] = 200 * MIB;
	vm->memory.v[VM_MEM_TOTAL] = 400 * MIB;
	proc(vm, 40, "owner", 150 * MIB);
	table(vm, "sessions", 40, 100 * MIB);
	out = (struct an_out){ 0 };
	run(vm, &out);
	expect(said(&out, "owner holds") && said(&out, "owns ETS sessions"),
	       "the table is named with its owner");
	expect(!said(&out, "ETS sessions holds"), "and not again on its own");
	an_out_free(&out);
	vm_free(vm);

	/* by pid without vm_index_pids: vm_find_proc indexes at its first lookup,
	 * vm_find_procs finds the same in one pass (a duplicated pid: the first) */
	vm = vm_new("core", "test");
	for (uint32_t i = 0; i < 1000; i++)
		proc(vm, 100 + i, NULL, 1024);
	proc(vm, 150, "again", 1024);
	struct vm_pid pids[] = { { 150, 0 }, { 1099, 0 }, { 7, 0 }, { 150, 0 }, { 100, 1 } };
	const struct vm_proc *many[5];
	vm_find_procs(vm, pids, 5, many);
	expect(!vm->pid_index.slot, "vm_find_procs builds no index");
	expect(many[0] == &vm->procs[50] && many[1] == &vm->procs[999] && !many[2] &&
	       many[3] == &vm->procs[50] && !many[4], "vm_find_procs: each pid's first process");
	int same = 1;
	for (size_t i = 0; i < 5; i++)
		same &= vm_find_proc(vm, pids[i]) == many[i];
	expect(same && vm->pid_index.count == vm->nprocs, "vm_find_proc indexes, finds the same");
	vm_find_procs(vm, pids, 5, many);
	expect(many[0] == &vm->procs[50] && !many[2], "vm_find_procs through the index");
	vm_free(vm);
	printf("%d failures\n", failures);
	return failures != 0;
}
