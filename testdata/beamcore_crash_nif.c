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

static ErlNifFunc funcs[] = { { "segv", 0, crash_nif_segv, 0 } };

ERL_NIF_INIT(beamcore_crash_nif, funcs, NULL, NULL, NULL, NULL)
