/* The offset table's source (offsets.h). */
#include "offsets.h"
#include "layoutcache.h"
#include "packed.h"

#include <stdlib.h>
#include <string.h>

/* From DWARF, kept in the cache (unless no_cache, or what the cache held:
 * was), else from a pack. */
static bc_err *from_dwarf(struct beam *b, const struct beam_open_opts *o, const struct layout *was)
{
	bc_err *err = o->pack_over_dwarf ? NULL : session_dwarf(b->session);
	if (err)
		return err;
	if (!b->exe->dw || o->pack_over_dwarf)
		return beam_pack_layout(b, o->layout_file);
	if ((err = layout_resolve(b->exe->dw, &b->L)))
		return err;
	if (!o->no_cache && (!was || !layout_same(was, &b->L)))
		layout_cache_store(b->exe, &b->L, b->exe->debug_path);
	return NULL;
}

bc_err *beam_offsets(struct beam *b, const struct beam_open_opts *o)
{
	const char *why;
	if (o->no_cache || o->pack_over_dwarf ||
	    layout_cache_load(b->exe, &b->L, &b->cache_source, &why) < 0)
		return from_dwarf(b, o, NULL);
	if (o->debug_file) {  /* (the same build's: session_open checked it) */
		free(b->cache_source);
		if (!(b->cache_source = strdup(o->debug_file)))
			return bc_error(BC_ENOMEM, "out of memory");
	}
	return NULL;
}

bc_err *beam_offsets_verify(struct beam *b, const struct beam_open_opts *o)
{
	if (b->pack_name[0])
		return beam_pack_verify(b);
	if (!b->cache_source || !o)
		return NULL;
	bc_err *err = beam_layout_check(b, "the layout cache");
	if (!err)
		return NULL;
	bc_err_free(err);
	/* what was read through the table that did not fit is read again */
	beam_atoms_forget(b);
	b->atom_entries = 0;
	b->atom_seg_table = 0;
	free(b->cache_source);
	b->cache_source = NULL;
	struct layout was = b->L;
	if ((err = from_dwarf(b, o, &was)))
		return err;
	return b->pack_name[0] ? beam_pack_verify(b) : NULL;
}

const char *beam_offsets_source(const struct beam *b)
{
	return b->pack_name[0] ? b->pack_name : b->cache_source ? b->cache_source
		: b->exe->debug_path ? b->exe->debug_path : "";
}
