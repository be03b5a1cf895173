/* One libdwfl session per target: the core's executable (beam.smp) and shared
 * libraries are found once — BEAM as given, else the path the core recorded
 * (under --sysroot first), checked against the build-ids the core holds — and
 * reported as modules of one Dwfl. The beam.smp's DWARF (its own, --debug-file,
 * .gnu_debuglink, /usr/lib/debug/.build-id, debuginfod), symbols, build-ids and
 * the unwinder all come from that Dwfl. */
#ifndef BEAMCORE_SESSION_H
#define BEAMCORE_SESSION_H
#include <elfutils/libdwfl.h>
#include "debuginfo.h"
#include "error.h"

struct core;

struct session_opts {
	const char *exe_path;    /* NULL: the path the core recorded */
	const char *debug_file;  /* NULL: the standard search */
	const char *sysroot;     /* NULL: paths as recorded */
	int defer_dwarf;         /* the DWARF looked for only at session_dwarf */
};

struct session_mod;
struct unwind_thread;

struct session {
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	struct session_opts o;         /* copies of the caller's strings */
	const struct core *core;       /* NULL: the executable alone (no core) */
	Elf *core_elf;
	struct exe *exe;
	Dwfl_Module *exe_mod;
	const char *recorded_exe;      /* the executable's path in the core, or NULL */
	char *execfn;                  /* that path, when read from the core's memory (AT_EXECFN) */
	uint64_t bias;                 /* run-time address = link-time address + bias */
	int exe_verified;              /* the core's build-id of beam.smp matched */
	struct session_mod *mods;
	size_t nmods;
	int attached;                  /* unwinder: 0 not yet, 1 attached, -1 failed */
	struct unwind_thread *unwind_threads; /* its threads' args, with our own callbacks */
	bc_err *no_dwarf;              /* exe->dw NULL: why (no --debug-file given) */
	int dwarf_looked;              /* session_dwarf ran */
};

/* core NULL: just the executable o->exe_path and its DWARF (bias 0). */
bc_err *session_open(const struct core *core, const struct session_opts *o,
		     struct session **out);
/* The beam.smp's DWARF, looked for once (at session_open unless deferred):
 * exe->dw and debug_path, else no_dwarf says why; an error only when the
 * --debug-file given holds none. */
bc_err *session_dwarf(struct session *s);
/* Attach the core's threads for unwinding (dwfl_getthreads); -1 with
 * dwfl_errmsg(-1) on failure. */
int session_attach(struct session *s);
/* Attach the threads of pid through the caller's callbacks instead (the
 * sampler's: registers and a stack copy of each sample); once per session,
 * -1 on failure. */
int session_attach_with(struct session *s, pid_t pid, const Dwfl_Thread_Callbacks *cb, void *arg);
/* The first len bytes of the object symbol in the file of the module whose
 * recorded name (basename) is module (libc.so.6): 0, or -1 when not there. */
int session_symbol_bytes(struct session *s, const char *module, const char *symbol, void *out,
			 size_t len);
/* The recorded name (basename) of the module holding addr, NULL if none. */
const char *session_module_name(Dwfl_Module *m);
void session_close(struct session *s);

#endif
