/* An aarch64 core written by qemu-user (capture.sh 27 --arm64) read on this
 * machine: the arch from its ELF header, each thread's registers from its
 * NT_PRSTATUS (the tids the node had: OUTDIR/tasks), and, with no NT_FILE in
 * it, beam.smp by AT_EXECFN under the root the node ran in (OUTDIR/sysroot)
 * and its libraries by the dynamic linker's list in
 * the core's memory (each the file beam.smp's DT_NEEDED names); libdwfl's
 * aarch64 unwinder walks every thread from its registers into libc and
 * beam.smp, through return addresses signed by pointer authentication (the
 * session strips them: qemu's core gives no PAC mask, libdwfl 0.188 none).
 * Usage: test_core_arm64 FIXTURE CORE (under $BEAMCORE_FIXTURES; 77 = skip). */
#include <elf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "skip.h"
#include "core.h"
#include "session.h"

static int fails;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	fails += !ok;
}

struct walk { int frames, in_libc, in_beam, named, signed_pc; };

static int frame_cb(Dwfl_Frame *f, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool act;
	if (!dwfl_frame_pc(f, &pc, &act))
		return DWARF_CB_ABORT;
	Dwfl_Module *m = dwfl_addrmodule(dwfl_thread_dwfl(dwfl_frame_thread(f)), act ? pc : pc - 1);
	const char *mod = m ? session_module_name(m) : NULL;
	w->signed_pc += (pc >> 48) != 0;  /* pointer authentication bits left in */
	if (w->frames == 0 && mod && strcmp(mod, "libc.so.6") == 0)
		w->in_libc = 1;
	if (mod && strcmp(mod, "beam.smp") == 0) {
		w->in_beam = 1;  /* (.dynsym alone names some of its functions) */
		w->named |= dwfl_module_addrname(m, act ? pc : pc - 1) != NULL;
	}
	return ++w->frames < 64 ? DWARF_CB_OK : DWARF_CB_ABORT;
}

struct threads { int n, walked, in_libc, in_beam, named, deep, signed_pc; };

static int thread_cb(Dwfl_Thread *t, void *arg)
{
	struct threads *ts = arg;
	struct walk w = { 0 };
	dwfl_thread_getframes(t, frame_cb, &w);
	ts->n++;
	ts->walked += w.frames >= 3;
	ts->in_libc += w.in_libc;
	ts->in_beam += w.in_beam;
	ts->named += w.named;
	ts->deep += w.frames >= 6;
	ts->signed_pc += w.signed_pc;
	return DWARF_CB_OK;
}

static int has_module(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	(void)ud, (void)start;
	const char *want = arg, *base = strrchr(name, '/');
	return strcmp(base ? base + 1 : name, want) == 0 ? (dwfl_module_getelf(m, &(GElf_Addr){ 0 }) ?
							   DWARF_CB_ABORT : DWARF_CB_OK) : DWARF_CB_OK;
}

/* Every DT_NEEDED of beam.smp a module of the session, its file found. */
static int needed_found(struct session *s, int *n)
{
	Elf_Scn *scn = NULL;
	int missing = 0;
	*n = 0;
	while ((scn = elf_nextscn(s->exe->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			const char *lib = elf_strptr(s->exe->elf, sh.sh_link, dyn.d_un.d_val);
			int found = lib && dwfl_getmodules(s->dwfl, has_module, (void *)lib, 0) != 0;
			if (!found)
				printf("     %s: no module\n", lib ? lib : "?");
			missing += !found;
			++*n;
		}
	}
	return missing;
}

int main(int argc, char **argv)
{
	char core[4096], beam[4096] = "", tasks[4096];
	if (fixture_files(argc, argv, core, sizeof core, beam, sizeof beam) < 0)
		return skip_code(); /* 1 under CI=true */
	snprintf(tasks, sizeof tasks, "%s/%s/tasks", getenv("BEAMCORE_FIXTURES"), argv[1]);
	struct core *c;
	bc_err *e = core_open(core, &c);
	if (e) {
		fprintf(stderr, "core_open: %s\n", e->msg);
		return 1;
	}
	check(strcmp(c->arch->name, "aarch64") == 0 && c->arch->ptr_size == 8, "arch aarch64 from the ELF header");
	check(c->nfiles == 0 && c->at_execfn && c->at_phdr, "no NT_FILE; AT_EXECFN and AT_PHDR in NT_AUXV");
	/* the tids the node had (qemu's RCU thread is not the guest's) */
	int tids[4096], ntids = 0, known = 0, main_thread = 0, sp_mapped = 0;
	FILE *f = fopen(tasks, "r");
	while (f && ntids < 4096 && fscanf(f, "%d", &tids[ntids]) == 1)
		ntids++;
	if (f)
		fclose(f);
	for (size_t i = 0; i < c->nthreads; i++) {
		const struct core_thread *t = &c->threads[i];
		for (int k = 0; k < ntids; k++)
			known += tids[k] == t->tid;
		main_thread += t->tid == c->pid;
		sp_mapped += t->pc && core_seg_at(c, t->sp) && t->fp == core_thread_reg(c, t, 29);
	}
	printf("     %zu threads in the core, %d tasks of the node (pid %d)\n", c->nthreads, ntids, c->pid);
	check(c->nthreads > 10 && known == (int)c->nthreads && ntids - (int)c->nthreads <= 1,
	      "each NT_PRSTATUS one of the node's threads, all but qemu's own");
	check(main_thread == 1, "the main thread's tid is NT_PRPSINFO's pid");
	check(sp_mapped == (int)c->nthreads, "each thread's pc set, sp in a segment, fp = x29");

	/* the root the node ran in (capture.sh wrote it) */
	struct session_opts so = { 0 };
	char root[4096] = "", sysroot[4096];
	struct session *s;
	snprintf(sysroot, sizeof sysroot, "%s/%s/sysroot", getenv("BEAMCORE_FIXTURES"), argv[1]);
	f = fopen(sysroot, "r");
	if (!f || !fgets(root, sizeof root, f)) {
		fprintf(stderr, "no %s\n", sysroot);
		return 1;
	}
	fclose(f);
	root[strcspn(root, "\n")] = '\0';
	so.sysroot = root;
	if ((e = session_open(c, &so, &s)) && e->code != BC_ENODEBUG) {
		fprintf(stderr, "session_open: %s\n", e->msg);
		return 1;
	}
	check(!e, "session on the beam.smp (stock: no DWARF, a layout pack's case)");
	if (e)
		return 1;
	check(s->recorded_exe && strcmp(beam, root) > 0 && strcmp(beam + strlen(root), s->recorded_exe) == 0,
	      "beam.smp by AT_EXECFN under the sysroot");
	int n, missing = needed_found(s, &n);
	printf("     %d DT_NEEDED of beam.smp, %d without a module\n", n, missing);
	check(n >= 3 && missing == 0, "its libraries from the dynamic linker's list, each file found");
	struct threads ts = { 0 };
	check(session_attach(s) == 0, "libdwfl attached the core's threads");
	dwfl_getthreads(s->dwfl, thread_cb, &ts);
	printf("     %d threads: %d walked 3+ frames, %d stopped in libc, %d through beam.smp "
	       "(%d of them a function its .dynsym names)\n", ts.n, ts.walked, ts.in_libc, ts.in_beam, ts.named);
	check(ts.n == (int)c->nthreads && ts.walked == ts.n && ts.in_libc == ts.n,
	      "every thread unwound from libc by its registers");
	check(ts.in_beam >= ts.n - 2 && ts.named >= ts.n / 2, "(nearly) every thread's frames reach beam.smp");
	printf("     %d threads walked 6+ frames; %d return addresses with PAC bits left\n", ts.deep,
	       ts.signed_pc);
	check(ts.signed_pc == 0 && ts.deep >= ts.n / 2,
	      "return addresses signed by pointer authentication unwound through");
	session_close(s);
	core_close(c);
	printf("%d problems\n", fails);
	return fails ? 1 : 0;
}
