/* Layout packs (docs/layout-packs.md): the offset table of one release and
 * flavor as data, for a beam.smp with no DWARF (a stock, stripped build). A
 * pack is lines of
 *   PACK("25", "13.1.5", "jit", "x86_64")  release, erts version, flavor, arch
 *   E(P_ID, 0x48, 8)      a member offset, type or element size; its width
 *   G(G_ERTS_PROC, 320)   an exported global: address from .dynsym, size checked
 *   S(G_RANGES, 96)       a file static: in no symbol table of a stripped build
 *   A(G_ATOM_SPACE, 8, erts_atom_table, 0x80)  a file static at a distance from
 *                         an exported variable of its compile unit (the compiler
 *                         lays out a unit's variables alike in every build of it)
 *   F(G_FLXCTR_GROUPS, 4, erts_flxctr_setup, 0)  a file static that an exported
 *                         function stores to: the target of its first (0) store
 *                         through a 32-bit %rip-relative address
 *   BUILD("a1a858f8...")  the lines after it, up to the next BUILD, hold for
 *                         the binary of that build-id only:
 *   V(G_ERTS_PROC, 320, 0xc17ec0)  a global at that link-time address of it
 *                         (a build that exports none: testdata/stock-routes.py
 *                         finds them by matching its code against our build's)
 *   CACHE("FINGERPRINT", "SUM", "SOURCE")  second line of a layout cache
 *                         (layoutcache.h: one build's table from its DWARF, every
 *                         global a V line): the beamcore that wrote it, the sum
 *                         of its entries (layout_sum), where its DWARF was
 * and comment lines. The packs pack-RELEASE-FLAVOR.def beside it are compiled in (pack.c), the
 * same syntax as --layout FILE reads; `beamcore layout BEAM` writes one. */
#ifndef BEAMCORE_PACK_H
#define BEAMCORE_PACK_H
#include <libelf.h>
#include <stdio.h>
#include "layout.h"

struct pack_id {
	char release[16], erts[32], flavor[8], arch[16];
};

enum pack_kind { PL_ID, PL_ENTRY, PL_GLOBAL, PL_STATIC, PL_ANCHORED, PL_STORED, PL_BUILD, PL_AT,
		 PL_CACHE };

struct pack_line {
	enum pack_kind kind;
	int id;                  /* enum layout_id; PL_ID: 0; PL_BUILD: -1 */
	uint64_t value, size;    /* PL_ANCHORED: the signed distance; PL_STORED: which store;
				  * PL_AT: the address */
	const char *s[4];        /* PL_ID: release, erts, flavor, arch; PL_ANCHORED: s[0]
				  * the exported variable; PL_STORED: the function;
				  * PL_BUILD: the build-id in hex; PL_CACHE: fingerprint,
				  * sum, source */
};

struct pack {
	const char *name;        /* the file, or the compiled-in pack's */
	const struct pack_line *lines;
	size_t n;
	char *text;              /* a file's: the lines' strings point into it */
	struct pack_line *owned;
};

/* What the binary says it is: etp_otp_release, etp_erts_version and
 * etp_beamasm through .dynsym (their bytes from the file; symtab: .symtab
 * too, for a build that exports none), the arch from the ELF header. */
bc_err *pack_identify(Elf *elf, int symtab, struct pack_id *out);
/* A binary that exports no etp_* (OTP 29's): the pack (p, or NULL: the
 * compiled-in ones) holding routes (BUILD/V lines) for its build-id, and its
 * identity read from the file where they place etp_otp_release,
 * etp_erts_version and etp_beamasm (pack_apply then checks it against the
 * pack's PACK line); NULL if no pack holds routes for it. */
const struct pack *pack_routed(const struct pack *p, Elf *elf, struct pack_id *out);
/* "OTP 25 (erts 13.1.5, jit, x86_64)" */
const char *pack_id_str(const struct pack_id *id, char *buf, size_t len);
/* The compiled-in pack for the binary, NULL if none; every pack's identity,
 * for a message. */
const struct pack *pack_builtin(const struct pack_id *id);
void pack_list(char *buf, size_t len);
/* A pack file (--layout FILE). */
bc_err *pack_read(const char *path, struct pack *out);
void pack_free(struct pack *p);
/* The offset table from pack p for the binary elf (identity bin): refused
 * when the pack is another release's or flavor's, or when a global's size in
 * .dynsym is not the pack's (its type's layout differs). Globals come from
 * .dynsym, then from the routes of this build (V lines); file statics and
 * globals with neither are left out (a walk finds another route or names the
 * cost). bin NULL: no identity checked (a layout cache, whose build-id and
 * sum its reader checks). */
bc_err *pack_apply(const struct pack *p, const struct pack_id *bin, Elf *elf, struct layout *L);
/* For each file static of L: the nearest exported variable (in .dynsym) of
 * its compile unit in the same section, and the distance; else the smallest
 * exported function that stores to it; name NULL: none. */
struct pack_anchor {
	const char *name;
	int64_t delta;
	int stored;      /* name is a function storing to it (delta: which store) */
};
void pack_anchors(Dwarf *dw, Elf *elf, const struct layout *L, struct pack_anchor *out);
/* Write the table L (from DWARF) as a pack; anchors NULL: none. */
int pack_write(FILE *f, const struct pack_id *id, const struct layout *L,
	       const struct pack_anchor *anchors, const char *source);
/* The CACHE line of p (a layout cache's), NULL if none. */
const struct pack_line *pack_cache(const struct pack *p);
/* Write the table L of the build build_hex as a layout cache: the CACHE line
 * (fingerprint, L's sum, source), the entries, then the build's BUILD section
 * with every global found (V); -1 on a write error or a source that cannot be
 * written on one line. */
int pack_write_cache(FILE *f, const struct pack_id *id, const struct layout *L,
		     const char *build_hex, const char *fingerprint, const char *source);

#endif
