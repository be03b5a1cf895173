/* A NIF that leaks, for beamcore's binaries --audit: keep/1 copies a binary
 * into an environment of its own (enif_make_copy: its refc one more than any
 * term shows) and never lets it go; kept/0 says how many it keeps and their
 * bytes, the truth the test compares with. */
#include <erl_nif.h>

static ErlNifEnv *keep_env;
static unsigned long kept_count, kept_bytes;

static ERL_NIF_TERM leak_keep(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
	ErlNifBinary b;
	(void)argc;
	if (!enif_inspect_binary(env, argv[0], &b))
		return enif_make_badarg(env);
	if (!keep_env && !(keep_env = enif_alloc_env()))
		return enif_make_badarg(env);
	(void)enif_make_copy(keep_env, argv[0]);  /* held until the node dies */
	kept_count++;
	kept_bytes += b.size;
	return enif_make_atom(env, "ok");
}

static ERL_NIF_TERM leak_kept(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
	(void)argc;
	(void)argv;
	return enif_make_tuple2(env, enif_make_ulong(env, kept_count), enif_make_ulong(env, kept_bytes));
}

static ErlNifFunc funcs[] = { { "keep", 1, leak_keep, 0 }, { "kept", 0, leak_kept, 0 } };

ERL_NIF_INIT(beamcore_leak_nif, funcs, NULL, NULL, NULL, NULL)
