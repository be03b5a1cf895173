/* A NIF that crashes: the crash-site tests check that beamcore names this C
 * function, the Erlang function that called it and the process. */
#include <erl_nif.h>

static ERL_NIF_TERM crash_nif_segv(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
	(void)argc;
	(void)argv;
	volatile int *volatile p = 0;
	*p = 42;  /* SIGSEGV at address 0 */
	return enif_make_atom(env, "survived");
}

/* A native stack deeper than beamcore shows: N real frames (a volatile local,
 * and the call through a volatile pointer, keep the compiler from making a
 * loop of it), then SIGSEGV at the bottom. */
static int (*volatile recurse_ptr)(volatile int *, int);

static __attribute__((noinline)) int crash_nif_recurse(volatile int *p, int n)
{
	volatile int here = n;
	if (n == 0)
		*p = 42;
	else
		here += recurse_ptr(p, n - 1);
	return here;
}

static ERL_NIF_TERM crash_nif_deep(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
	int n = 0;
	(void)argc;
	enif_get_int(env, argv[0], &n);
	recurse_ptr = crash_nif_recurse;
	return enif_make_int(env, crash_nif_recurse(0, n));
}

static ErlNifFunc funcs[] = { { "segv", 0, crash_nif_segv, 0 }, { "deep", 1, crash_nif_deep, 0 } };

ERL_NIF_INIT(beamcore_crash_nif, funcs, NULL, NULL, NULL, NULL)
