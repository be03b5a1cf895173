/* beamcore layout BEAM: the offset table of a beam.smp built with DWARF,
 * written as a layout pack (src/dwarf/pack.h, docs/layout-packs.md) for the
 * stock, stripped builds of the same release and flavor. */
#include <stdio.h>
#include <string.h>

#include "analyzer.h"
#include "pack.h"
#include "session.h"

static const struct option_entry options[] = {
	OPT_TABLE_END,
};

static int layout_main(const struct target_opts *to, void *opts, char **words, int nwords)
{
	(void)to;
	(void)opts;
	if (nwords != 1) {
		fprintf(stderr, "beamcore: usage: beamcore layout BEAM (a beam.smp with DWARF)\n");
		return BC_EXIT_USAGE;
	}
	struct session_opts so = { words[0], NULL, NULL, 0 };
	struct session *s = NULL;
	struct layout L;
	struct pack_id id;
	bc_err *err = session_open(NULL, &so, &s);
	if (!err && !s->exe->dw)
		err = bc_error(BC_ENODEBUG, "%s", s->no_dwarf->msg);
	if (!err)
		err = layout_resolve(s->exe->dw, &L);
	if (!err)
		err = pack_identify(s->exe->elf, 1, &id);
	int rc = 0;
	if (err) {
		fprintf(stderr, "beamcore: %s\n", err->msg);
		rc = bc_err_exit(err);
		bc_err_free(err);
	} else {
		char src[700];
		char hex[129];
		build_id_hex(s->exe->build_id, s->exe->build_id_len, hex);
		snprintf(src, sizeof src, "%s (build-id %s)", s->exe->path, hex);
		static struct pack_anchor anchors[L_COUNT];
		pack_anchors(s->exe->dw, s->exe->elf, &L, anchors);
		if (pack_write(stdout, &id, &L, anchors, src) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "beamcore: writing the pack failed\n");
			rc = BC_EXIT_FAILED;
		}
	}
	session_close(s);
	return rc;
}

const struct analyzer command_layout = {
	.name = "layout",
	.kind = CMD_MAIN,
	.summary = "BEAM: write a beam.smp's offset table (DWARF) as a layout pack",
	.usage = "usage: beamcore layout BEAM\n"
		 "  the offset table of BEAM, a beam.smp built with DWARF, as a layout pack on\n"
		 "  stdout: what reads the stripped stock builds of the same release and flavor\n"
		 "  (docs/layout-packs.md)\n",
	.options = options,
	.main = layout_main,
};
