/* A NIF that leaks, for beamcore's binaries --audit and resources: keep/1
 * copies a binary into an environment of its own (enif_make_copy: its refc
 * one more than any term shows) and never lets it go; kept/0 says how many it
 * keeps and their bytes. resources(N, K, M): N resources of its type
 * beamcore_leak_nif:leaky returned (a term each holds), K of those kept too
 * (enif_keep_resource, never released), and M made and kept by it alone;
 * resources/0: those alive and those native code holds (K + M), as the
 * destructor counts them: the truth the test compares with. */
#include <erl_nif.h>

static ErlNifEnv *keep_env;
static unsigned long kept_count, kept_bytes;
static ErlNifResourceType *leaky;
static unsigned long alive, native;

struct leaky_obj {
	unsigned char payload[64];
};

static void leaky_dtor(ErlNifEnv *env, void *obj)
{
	(void)env;
	(void)obj;
	alive--;
}

static int load(ErlNifEnv *env, void **priv, ERL_NIF_TERM info)
{
	(void)priv;
	(void)info;
	leaky = enif_open_resource_type(env, NULL, "leaky", leaky_dtor, ERL_NIF_RT_CREATE, NULL);
	return leaky ? 0 : 1;
}

static ERL_NIF_TERM leak_resources(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
	unsigned n, k, m;
	(void)argc;
	if (!enif_get_uint(env, argv[0], &n) || !enif_get_uint(env, argv[1], &k) ||
	    !enif_get_uint(env, argv[2], &m) || k > n)
		return enif_make_badarg(env);
	ERL_NIF_TERM list = enif_make_list(env, 0);
	for (unsigned i = 0; i < n + m; i++) {
		struct leaky_obj *o = enif_alloc_resource(leaky, sizeof *o);
		if (!o)
			return enif_make_badarg(env);
		alive++;
		for (unsigned j = 0; j < sizeof o->payload; j++)
			o->payload[j] = (unsigned char)i;
		if (i >= n) {  /* kept by this library alone: its reference never released */
			native++;
			continue;
		}
		list = enif_make_list_cell(env, enif_make_resource(env, o), list);
		if (i < k) {
			enif_keep_resource(o);  /* one more, never released */
			native++;
		}
		enif_release_resource(o);  /* the term's now */
	}
	return list;
}

static ERL_NIF_TERM leak_resource_counts(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
	(void)argc;
	(void)argv;
	return enif_make_tuple2(env, enif_make_ulong(env, alive), enif_make_ulong(env, native));
}

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

static ErlNifFunc funcs[] = { { "keep", 1, leak_keep, 0 }, { "kept", 0, leak_kept, 0 },
			      { "resources", 3, leak_resources, 0 },
			      { "resources", 0, leak_resource_counts, 0 } };

ERL_NIF_INIT(beamcore_leak_nif, funcs, load, NULL, NULL, NULL)
