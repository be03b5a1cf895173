/* The libdwfl session on a real core: one module per ELF file mapping, named
 * as the core recorded it; beam.smp's module is the file given, its symbols
 * those of the file; libc is found by its recorded path with the build-id the
 * core holds; the vDSO's symbols come from its image in the core.
 * Usage: test_session FIXTURE CORE (under $BEAMCORE_FIXTURES; 77 = skip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skip.h"
#include "beam.h"
#include "read.h"
#include "walks.h"

static int fails;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	fails += !ok;
}

/* The module holding addr, its recorded name and the symbol there. */
static const char *name_at(struct beam *b, uint64_t addr, const char **sym)
{
	Dwfl_Module *m = dwfl_addrmodule(b->session->dwfl, addr);
	GElf_Sym s;
	GElf_Off off;
	*sym = m ? dwfl_module_addrinfo(m, addr, &off, &s, NULL, NULL, NULL) : NULL;
	return m ? session_module_name(m) : NULL;
}

struct want {
	const char *module, *symbol;
	uint64_t addr;  /* found: its run-time address */
};

static int find_symbol(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	(void)ud, (void)name, (void)start;
	struct want *w = arg;
	if (strcmp(session_module_name(m), w->module) != 0)
		return DWARF_CB_OK;
	int n = dwfl_module_getsymtab(m);
	for (int i = 0; i < n; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		const char *sym = dwfl_module_getsym_info(m, i, &s, &addr, NULL, NULL, NULL);
		if (sym && strcmp(sym, w->symbol) == 0 && s.st_size) {
			w->addr = addr;
			return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

/* The run-time address of symbol in module (0 if not found), by the symbol table. */
static uint64_t symbol_addr(struct beam *b, const char *module, const char *symbol)
{
	struct want w = { module, symbol, 0 };
	dwfl_getmodules(b->session->dwfl, find_symbol, &w, 0);
	return w.addr;
}

int main(int argc, char **argv)
{
	char core[4096], beam[4096] = "";
	if (fixture_files(argc, argv, core, sizeof core, beam, sizeof beam) < 0)
		return skip_code(); /* 1 under CI=true */
	struct beam_open_opts o = { .core_path = core, .exe_path = beam };
	struct beam *b;
	bc_err *e = beam_open(&o, &b);
	if (e) {
		fprintf(stderr, "beam_open: %s\n", e->msg);
		return 1;
	}
	const char *sym;
	uint64_t a = symbol_addr(b, "beam.smp", "erts_schedule");
	const char *mod = a ? name_at(b, a, &sym) : NULL;
	check(a && mod && strcmp(mod, "beam.smp") == 0 && sym && strcmp(sym, "erts_schedule") == 0,
	      "beam.smp: erts_schedule by its symbol table, module named as recorded");
	check(b->session->exe_verified, "beam.smp verified by the build-id the core holds");
	a = symbol_addr(b, "libc.so.6", "epoll_wait");
	mod = a ? name_at(b, a, &sym) : NULL;
	check(a && mod && strcmp(mod, "libc.so.6") == 0 && sym && strcmp(sym, "epoll_wait") == 0,
	      "libc.so.6 found at its recorded path, epoll_wait named");
	a = symbol_addr(b, "[vdso]", "__vdso_clock_gettime");
	mod = a ? name_at(b, a, &sym) : NULL;
	check(a && b->core->at_vdso && a > b->core->at_vdso && a < b->core->at_vdso + (1 << 20) && mod &&
	      strcmp(mod, "[vdso]") == 0 && sym && strcmp(sym, "__vdso_clock_gettime") == 0,
	      "vDSO from the core: __vdso_clock_gettime named");
	beam_close(b);
	printf("%d problems\n", fails);
	return fails ? 1 : 0;
}
