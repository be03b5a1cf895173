/* libdwfl (beamcore's unwinder, through its session) against libunwind-coredump
 * on one core: per native thread, the frames each reaches, how many of them
 * are named (a symbol, or the Erlang function of JIT code, by beamcore's own
 * namer for both), whether the walk got to the thread's root (_start or
 * clone3: nothing left to unwind), and how many leading frames agree.
 *   unwinders CORE [BEAM] [--debug-file FILE] [-v]
 * One row per thread (-v: and both walks' frames), then a TOTAL row. Built only where libunwind-coredump is
 * installed (libunwind-dev); run by bench/unwinders.sh over the crash fixtures. */
#include <libunwind-coredump.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beam.h"
#include "read.h"
#include "walks.h"

#define MAX_FRAMES 1024

struct walk {
	int n, named, root;
	uint64_t pc[MAX_FRAMES];
};

static int is_root(const char *f)
{
	return f && (strcmp(f, "_start") == 0 || strcmp(f, "__clone3") == 0 ||
		     strcmp(f, "__clone") == 0 || strcmp(f, "clone3") == 0 || strcmp(f, "clone") == 0);
}

static int verbose;

static void print_frames(struct beam *b, const struct walk *w, const char *who)
{
	for (int k = 0; verbose && k < w->n; k++) {
		struct vm_nframe f;
		beam_describe_pc(b, w->pc[k], k == 0, &f);
		printf("    %-9s #%-2d %#llx %s+%#llx (%s)\n", who, k, (unsigned long long)w->pc[k],
		       f.function ? f.function : "?", (unsigned long long)f.offset,
		       f.module ? f.module : "-");
	}
}

static void name_all(struct beam *b, struct walk *w)
{
	w->named = w->root = 0;
	for (int k = 0; k < w->n; k++) {
		struct vm_nframe f;
		beam_describe_pc(b, w->pc[k], k == 0, &f);
		if (f.function)
			w->named++;
		if (k == w->n - 1)
			w->root = is_root(f.function);
	}
}

/* libunwind-coredump, with every file mapping of the core backed by its file
 * (the one beamcore's session found for beam.smp, the recorded path otherwise). */
static struct UCD_info *lu_open(struct beam *b, const char *core, unw_addr_space_t *as)
{
	struct UCD_info *ui = _UCD_create(core);
	if (!ui)
		return NULL;
	const char *rec = b->session->recorded_exe;
	int backed = 0, tried = 0;
	for (size_t i = 0; i < b->core->nfiles; i++) {
		const struct core_file *f = &b->core->files[i];
		const char *path = rec && strcmp(f->path, rec) == 0 ? b->exe->path : f->path;
		if (path[0] == '/' && strncmp(path, "/memfd:", 7) != 0 && access(path, R_OK) == 0) {
			tried++;
			backed += _UCD_add_backing_file_at_vaddr(ui, f->start, path) == 0;
		}
	}
	printf("libunwind: %d of %d file mappings backed by their file\n", backed, tried);
	*as = unw_create_addr_space(&_UCD_accessors, 0);
	return ui;
}

static int lu_walk(struct UCD_info *ui, unw_addr_space_t as, int idx, struct walk *w)
{
	w->n = 0;
	_UCD_select_thread(ui, idx);
	int tid = _UCD_get_pid(ui);
	unw_cursor_t c;
	if (unw_init_remote(&c, as, ui) < 0)
		return tid;
	do {
		unw_word_t ip;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		w->pc[w->n++] = ip;
	} while (w->n < MAX_FRAMES && unw_step(&c) > 0);
	return tid;
}

int main(int argc, char **argv)
{
	struct beam_open_opts o = { 0 };
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else if (strcmp(argv[i], "--debug-file") == 0 && i + 1 < argc)
			o.debug_file = argv[++i];
		else if (!o.core_path)
			o.core_path = argv[i];
		else if (!o.exe_path)
			o.exe_path = argv[i];
		else {
			fprintf(stderr, "usage: unwinders CORE [BEAM] [--debug-file FILE] [-v]\n");
			return 64;
		}
	}
	if (!o.core_path) {
		fprintf(stderr, "usage: unwinders CORE [BEAM] [--debug-file FILE]\n");
		return 64;
	}
	struct beam *b;
	bc_err *e = beam_open(&o, &b);
	if (!e)
		e = beam_load_procs(b);
	if (!e && vm_index_pids(b->vm) < 0)
		e = bc_error(BC_ENOMEM, "out of memory");
	if (!e)
		e = beam_load_threads(b);
	if (e) {
		fprintf(stderr, "unwinders: %s\n", e->msg);
		return 2;
	}
	unw_addr_space_t as;
	struct UCD_info *ui = lu_open(b, o.core_path, &as);
	if (!ui || !as) {
		fprintf(stderr, "unwinders: libunwind-coredump cannot open %s\n", o.core_path);
		return 2;
	}
	struct vm *vm = b->vm;
	static struct walk d, u;
	int t_d = 0, t_u = 0, n_d = 0, n_u = 0, r_d = 0, r_u = 0, more_d = 0, more_u = 0;
	printf("%-7s %-22s %18s %18s %6s\n", "TID", "ROLE", "libdwfl fr/nam/rt", "libunwind fr/nam/rt",
	       "AGREE");
	for (size_t i = 0; i < vm->nthreads; i++) {
		const struct vm_thread *t = &vm->threads[i];
		d.n = (int)(t->nframes < MAX_FRAMES ? t->nframes : MAX_FRAMES);
		for (int k = 0; k < d.n; k++)
			d.pc[k] = vm->nframes_native[t->frame_first + k].pc;
		name_all(b, &d);
		if (lu_walk(ui, as, (int)i, &u) != t->tid) {
			fprintf(stderr, "unwinders: thread %zu is %d to libdwfl, not to libunwind\n", i,
				t->tid);
			return 2;
		}
		name_all(b, &u);
		int agree = 0;
		while (agree < d.n && agree < u.n && d.pc[agree] == u.pc[agree])
			agree++;
		printf("%-7d %-22s %8d %4d %4s %8d %4d %4s %6d\n", t->tid, t->role ? t->role : "-",
		       d.n, d.named, d.root ? "yes" : "no", u.n, u.named, u.root ? "yes" : "no", agree);
		print_frames(b, &d, "libdwfl");
		print_frames(b, &u, "libunwind");
		t_d += d.n, t_u += u.n, n_d += d.named, n_u += u.named, r_d += d.root, r_u += u.root;
		more_d += d.named > u.named, more_u += u.named > d.named;
	}
	printf("TOTAL %zu threads: libdwfl %d frames, %d named, %d to the root; libunwind %d frames, "
	       "%d named, %d to the root; more named frames: libdwfl on %d threads, libunwind on %d\n",
	       vm->nthreads, t_d, n_d, r_d, t_u, n_u, r_u, more_d, more_u);
	_UCD_destroy(ui);
	unw_destroy_addr_space(as);
	beam_close(b);
	return 0;
}
