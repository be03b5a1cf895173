/* The crash dump loader on a small dump written here, line by line as
 * erl_crash_dump_v writes one: every field parsed as process_info/ets:info
 * would answer, what a dump cannot say left unknown; then the same dump cut at
 * every byte: never a crash, always partial, and never a wrong number (a
 * number cut mid-line must not be read as a smaller one). No fixtures needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "heap.h"
#include "target.h"

static const char dump_text[] =
	"=erl_crash_dump:0.5\n"
	"Sun Nov 22 03:48:16 2026\n"
	"Slogan: eheap_alloc: Cannot reallocate 123456 bytes of memory (of type \"old_heap\").\n"
	"System version: Erlang/OTP 26 [erts-14.2] [source] [64-bit] [smp:2:2] [async-threads:1]\n"
	"Taints: \n"
	"Atoms: 100\n"
	"Calling Thread: scheduler:1\n"
	"=scheduler:1\n"
	"Scheduler Sleep Info Flags: \n"
	"Current Process: <0.7.0>\n"
	"Current Process State: Running\n"
	"=scheduler:2\n"
	"Current Process: \n"
	"=dirty_cpu_scheduler:3\n"
	"Current Process: \n"
	"=memory\n"
	"total: 1000\n"
	"processes: 500\n"
	"ets: 8\n"
	"=index_table:atom_tab\n"
	"size: 10\n"
	"limit: 1048576\n"
	"entries: 100\n"
	"=allocator:eheap_alloc[1]\n"
	"versions: 0.9 3.0\n"
	"option e: true\n"
	"mbcs blocks[eheap_alloc] count: 3 4 5\n"
	"mbcs blocks[eheap_alloc] size: 300 400 500\n"
	"mbcs blocks[binary_alloc] size: 7 7 7\n"
	"mbcs carriers: 1 1 1\n"
	"mbcs carriers size: 4096 4096 4096\n"
	"mbcs_pool blocks[eheap_alloc] count: 1\n"
	"mbcs_pool blocks[eheap_alloc] size: 100\n"
	"mbcs_pool carriers: 1\n"
	"mbcs_pool carriers size: 8192\n"
	"sbcs blocks[eheap_alloc] count: 2 2 2\n"
	"sbcs blocks[eheap_alloc] size: 70000 70000 70000\n"
	"sbcs carriers: 2 2 2\n"
	"sbcs carriers size: 81920 81920 81920\n"
	"=allocator:mseg_alloc[0]\n"
	"version: 0.9\n"
	"=allocator:test_alloc\n"
	"option e: false\n"
	"=proc:<0.7.0>\n"
	"State: Running\n"
	"Name: 'my \\'odd\\' name'\n"
	"Spawned as: 'Elixir.Foo':'-bar/1-fun-0-'/1\n"
	"Last scheduled in for: gen_server:loop/7\n"
	"Spawned by: []\n"
	"Message queue length: 2\n"
	"Number of heap fragments: 1\n"
	"Heap fragment data: 5\n"
	"Link list: [<0.1.0>, #Port<0.3>, {to,<0.2.0>,#Ref<0.1.2.3>}, {to,'a@b',#Ref<0.1.2.4>}, "
	"{from,<0.3.0>,#Ref<0.1.2.5>}, {to,{reg,'n@h'},#Ref<0.1.2.6>}]\n"
	"Reductions: 42\n"
	"Stack+heap: 233\n"
	"OldHeap: 100\n"
	"Heap unused: 10\n"
	"OldHeap unused: 0\n"
	"Memory: 5000\n"
	"Program counter: 0x00007f0000000100 (lists:foldl/3 + 8)\n"
	"Internal State: ACT_PRIO_NORMAL | USR_PRIO_NORMAL | PRQ_PRIO_NORMAL | OFF_HEAP_MSGQ\n"
	"=proc:<0.8.0>\n"
	"State: Waiting\n"
	"Spawned as: m:f/0\n"
	"Spawned by: <0.7.0>\n"
	"Message queue length: 1\n"
	"Number of heap fragments: 0\n"
	"Heap fragment data: 0\n"
	"Reductions: 1\n"
	"Stack+heap: 987654\n"
	"OldHeap: 0\n"
	"Memory: 100\n"
	"Program counter: 0x00007f0000000200 (m:f/0 + 8)\n"
	"arity = 0\n"
	"Internal State: ACT_PRIO_NORMAL | USR_PRIO_NORMAL | PRQ_PRIO_NORMAL\n"
	"=port:#Port<0.3>\n"
	"State: CONNECTED\n"
	"=ets:<0.7.0>\n"
	"Slot: 1234\n"
	"Table: #Ref<0.11.22.33>\n"
	"Name: tab\n"
	"Objects: 5\n"
	"Words: 300\n"
	"Type: ordered_set\n"
	"Protection: public\n"
	"Compressed: false\n"
	"=ets:<0.8.0>\n"
	"Table: named\n"
	"Name: named\n"
	"Objects: 1\n"
	"Words: 2\n"
	"Type: bag\n"
	"Protection: private\n"
	"=node:'n@h'\n"
	"=no_distribution\n"
	"=proc_stack:<0.8.0>\n"
	"y0:N\n"
	"0x00007f0000000010:SReturn addr 0x10 (m:g/1 + 4)\n"
	"0x00007f0000000018:SReturn addr 0x10 (m:g/1 + 4)\n"
	"0x00007f0000000020:SReturn addr 0x20 (<terminate process normally>)\n"
	"=proc_heap:<0.8.0>\n"
	"=atoms\n"
	"m\n"
	"=end\n";

static int failures;
#define CHECK(c) check((c), #c, __LINE__)
static void check(int ok, const char *what, int line)
{
	if (!ok) {
		fprintf(stderr, "FAIL line %d: %s\n", line, what);
		failures++;
	}
}

static const char *path;

static void write_dump(const char *text, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(text, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static const struct vm_proc *proc(const struct vm *vm, uint32_t num)
{
	return vm_find_proc(vm, (struct vm_pid){ num, 0 });
}

static int mfa_is(const struct vm_mfa *m, const char *s)
{
	char buf[256];
	return vm_mfa_str(m, buf, sizeof buf) && strcmp(buf, s) == 0;
}

static void whole(void)
{
	write_dump(dump_text, sizeof dump_text - 1);
	struct dump *d;
	bc_err *e = dump_open(path, &d);
	CHECK(!e);
	if (e)
		return;
	e = dump_load(d, NEED_PROCS | NEED_ETS | NEED_MEMORY | NEED_STACKS);
	CHECK(!e);
	const struct vm *vm = dump_vm(d);
	CHECK(vm->ngaps == 0);
	for (size_t i = 0; i < vm->ngaps; i++)
		fprintf(stderr, "  gap: %s\n", vm->gaps[i].what);
	const struct vm_death *dt = &vm->death;
	CHECK(dt->slogan && strncmp(dt->slogan, "eheap_alloc: Cannot reallocate", 30) == 0);
	CHECK(dt->alloc && strcmp(dt->alloc, "eheap_alloc") == 0 && dt->alloc_realloc);
	CHECK(dt->alloc_size == 123456 && dt->alloc_type && strcmp(dt->alloc_type, "old_heap") == 0);
	CHECK(dt->have_culprit && dt->culprit.num == 7 && strcmp(dt->culprit_sched, "scheduler:1") == 0);
	CHECK(dt->nrunning == 1);
	CHECK(strcmp(vm->otp_release, "26") == 0 && strcmp(vm->erts_version, "14.2") == 0);
	CHECK(vm->have_jit && !vm->jit);
	CHECK(vm->atom_count == 100 && vm->atom_limit == 1048576 && vm->schedulers == 2);
	CHECK(vm->node && strcmp(vm->node, "n@h") == 0);
	CHECK(vm->nprocs == 2);

	const struct vm_proc *p = proc(vm, 7);
	CHECK(p != NULL);
	if (p) {
		CHECK(p->registered_name && strcmp(p->registered_name, "my 'odd' name") == 0);
		CHECK(mfa_is(p->initial_call, "Elixir.Foo:-bar/1-fun-0-/1"));
		CHECK(mfa_is(p->current_function, "gen_server:loop/7"));
		CHECK(p->status == VS_RUNNING);
		CHECK(p->message_queue_len == 2 && p->reductions == 42 && p->memory == 5000);
		CHECK(p->heap_size == 233 && !(p->unknown & VPF_HEAP_SIZE));
		/* an off-heap queue: its messages are not heap */
		CHECK(p->total_heap_size == 338 && !(p->unknown & VPF_TOTAL_HEAP_SIZE));
		CHECK(p->nlinks == 2 && p->nmonitors == 2 && p->nmonitored_by == 1);
		CHECK((p->unknown & VPF_STACK_SIZE) && (p->unknown & VPF_STACKTRACE));
	}
	p = proc(vm, 8);
	CHECK(p != NULL);
	if (p) {
		CHECK(!p->registered_name && !(p->unknown & VPF_REGISTERED_NAME));
		CHECK(mfa_is(p->current_function, "m:f/0"));  /* no Current call: p->i's */
		CHECK(p->heap_size == 987654);
		/* a queued message on the heap: process_info would add its fragment */
		CHECK(p->unknown & VPF_TOTAL_HEAP_SIZE);
		CHECK(p->stack_size == 4 && !(p->unknown & VPF_STACK_SIZE));
		/* p->i's function, then each return address unlike the one before */
		CHECK(p->stack_n == 2 && !(p->unknown & VPF_STACKTRACE));
		if (p->stack_n == 2) {
			CHECK(mfa_is(&vm->mfas[vm->frames[p->stack_first]], "m:f/0"));
			CHECK(mfa_is(&vm->mfas[vm->frames[p->stack_first + 1]], "m:g/1"));
		}
	}
	CHECK(vm->nets == 2);
	if (vm->nets == 2) {
		const struct vm_ets *t = &vm->ets[0];
		char id[64];
		CHECK(!t->named_table && !(t->unknown & VEF_ID));
		CHECK(strcmp(vm_ets_id_str(t, id, sizeof id), "#Ref<0.11.22.33>") == 0);
		CHECK(t->size == 5 && t->memory == 300 && strcmp(t->type, "ordered_set") == 0);
		CHECK(strcmp(t->protection, "public") == 0 && t->owner.num == 7 && t->addr == 1234);
		t = &vm->ets[1];
		CHECK(t->named_table && (t->unknown & VEF_ID) && strcmp(t->name, "named") == 0);
		CHECK(strcmp(t->type, "bag") == 0 && t->owner.num == 8);
	}
	CHECK(vm->memory.known == ((1u << VM_MEM_TOTAL) | (1u << VM_MEM_PROCESSES) | (1u << VM_MEM_ETS)));
	CHECK(vm->memory.v[VM_MEM_TOTAL] == 1000 && vm->memory.v[VM_MEM_ETS] == 8);
	CHECK(vm->nallocs == 1);  /* not mseg_alloc (not alloc_util), not test_alloc (disabled) */
	if (vm->nallocs == 1) {
		const struct vm_alloc *a = &vm->allocs[0];
		CHECK(strcmp(a->name, "eheap_alloc") == 0 && a->instance == 1);
		CHECK(a->mbcs_blocks == 4 && a->mbcs_blocks_size == 400);  /* own type, pool added */
		CHECK(a->mbcs_carriers == 2 && a->mbcs_carriers_size == 12288);
		CHECK(a->sbcs_blocks == 2 && a->sbcs_blocks_size == 70000 && a->sbcs_carriers_size == 81920);
	}
	dump_close(d);
}

/* Cut at every byte (and with =abort: appended): each number read is the
 * whole one or none. */
static void cuts(void)
{
	size_t n = sizeof dump_text - 1;
	char *buf = malloc(n + 64);
	/* from the end of the first line: a dump cut inside "=erl_crash_dump:0.5"
	 * has no version to read (bad_headers) */
	for (size_t cut = 20; cut < n; cut++) {
		for (int abort = 0; abort < 2; abort++) {
			memcpy(buf, dump_text, cut);
			size_t len = cut;
			if (abort) {
				memcpy(buf + len, "\n=abort:CRASH DUMP SIZE LIMIT REACHED\n", 38);
				len += 38;
			}
			write_dump(buf, len);
			struct dump *d;
			bc_err *e = dump_open(path, &d);
			if (e) {
				fprintf(stderr, "FAIL cut at %zu: open: %s\n", cut, e->msg);
				bc_err_free(e);
				failures++;
				continue;
			}
			if ((e = dump_load(d, NEED_PROCS | NEED_ETS | NEED_MEMORY | NEED_STACKS))) {
				fprintf(stderr, "FAIL cut at %zu: load: %s\n", cut, e->msg);
				bc_err_free(e);
				failures++;
			}
			const struct vm *vm = dump_vm(d);
			/* a cut dump always says so (but "=end" without its newline is whole) */
			int bad = (vm->ngaps == 0) != (!abort && cut == n - 1);
			const struct vm_proc *p = proc(vm, 7);
			if (p && !(p->unknown & VPF_HEAP_SIZE))
				bad |= p->heap_size != 233;
			if (p && !(p->unknown & VPF_MEMORY))
				bad |= p->memory != 5000 || p->nlinks != 2 || p->nmonitors != 2;
			if (p && !(p->unknown & VPF_TOTAL_HEAP_SIZE))
				bad |= p->total_heap_size != 338;
			if (p && !(p->unknown & VPF_MESSAGE_QUEUE_LEN))
				bad |= p->message_queue_len != 2;
			p = proc(vm, 8);
			if (p && !(p->unknown & VPF_HEAP_SIZE))
				bad |= p->heap_size != 987654;
			if (p && !(p->unknown & VPF_STACK_SIZE))
				bad |= p->stack_size != 4;
			for (size_t i = 0; i < vm->nets; i++) {
				const struct vm_ets *t = &vm->ets[i];
				if (!(t->unknown & VEF_MEMORY))
					bad |= t->memory != (t->owner.num == 7 ? 300u : 2u);
			}
			if (vm->memory.known & (1u << VM_MEM_TOTAL))
				bad |= vm->memory.v[VM_MEM_TOTAL] != 1000;
			for (size_t i = 0; i < vm->nallocs; i++)
				bad |= vm->allocs[i].sbcs_blocks_size != 70000;
			if (vm->death.alloc)
				bad |= vm->death.alloc_size != 123456;
			if (bad) {
				fprintf(stderr, "FAIL cut at %zu%s: a wrong number or no gap\n", cut,
					abort ? " (=abort:)" : "");
				failures++;
			}
			dump_close(d);
		}
	}
	free(buf);
}

/* Loads in two steps (memory, then processes): the model is rebuilt whole,
 * not with gaps or processes twice. */
static void late_load(void)
{
	write_dump(dump_text, sizeof dump_text - 1);
	struct dump *d;
	bc_err *e = dump_open(path, &d);
	CHECK(!e);
	if (e)
		return;
	CHECK(!dump_load(d, NEED_MEMORY));
	CHECK(dump_vm(d)->nprocs == 0 && dump_vm(d)->nallocs == 1);
	CHECK(!dump_load(d, NEED_PROCS | NEED_STACKS));
	const struct vm *vm = dump_vm(d);
	CHECK(vm->nprocs == 2 && vm->nallocs == 1 && vm->ngaps == 0);
	const struct vm_proc *p = proc(vm, 8);
	CHECK(p && p->stack_n == 2 && p->stack_size == 4);
	dump_close(d);
}

static void bad_headers(void)
{
	static const char *const cases[] = {
		"=erl_crash_dump:", "=erl_crash_dump:\n", "=erl_crash_dump:0", "=erl_crash_dump:0.",
		"=erl_crash_dump:x.y\nSlogan: x\n=end\n",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		write_dump(cases[i], strlen(cases[i]));
		struct dump *d;
		bc_err *e = dump_open(path, &d);
		CHECK(e != NULL && e->code == BC_EFORMAT);
		if (e)
			bc_err_free(e);
		else
			dump_close(d);
	}
	CHECK(dump_detect("=erl_crash_dump:0.5", 19) && !dump_detect("=erl_crash", 10));
}

/* Counts past 64 bits (a hostile heap line): never wrapped into a small
 * plausible one; a tuple, map or heap binary that claims more than its line
 * holds is no size at all (cut), never the wrapped count's. */
static void hostile_counts(void)
{
	const char *s = "10000000000000002:", *p = s;
	CHECK(heap_hex(&p, s + strlen(s)) == UINT64_MAX && *p == ':');
	s = "FFFFFFFFFFFFFFFF";
	p = s;
	CHECK(heap_hex(&p, s + strlen(s)) == UINT64_MAX);
	s = "7fffffffffffffff";
	p = s;
	CHECK(heap_hex(&p, s + strlen(s)) == INT64_MAX);
	static const char *const lines[] = {
		"t10000000000000002:I1,I2",  /* wrapped: arity 2, as the line shows */
		"t5:I1,I2",                  /* more elements than the line holds */
		"Mf10000000000000001:H7F00:I1",
		"Mh3:10000000000000002:I1,I2",
		"Yh10000000000000001:AB",
	};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		struct heap_line l = { 0x7f00, lines[i], lines[i] + strlen(lines[i]) };
		bool cut = false;
		uint64_t w = dump_line_words(NULL, 27, &l, &cut);
		if (!cut || w != 0) {
			fprintf(stderr, "FAIL hostile line %s: %llu words, cut %d\n", lines[i],
				(unsigned long long)w, cut);
			failures++;
		}
	}
	struct heap_line ok = { 0x7f00, "t2:I1,I2", NULL };
	ok.end = ok.body + strlen(ok.body);
	bool cut = false;
	CHECK(dump_line_words(NULL, 27, &ok, &cut) == 3 && !cut);
}

int main(void)
{
	char tmpl[] = "/tmp/beamcore-test-dump.XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	path = tmpl;
	whole();
	late_load();
	cuts();
	bad_headers();
	hostile_counts();
	unlink(tmpl);
	printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
