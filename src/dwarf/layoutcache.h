/* The layout cache: the offset table a build's DWARF gave an earlier run,
 * kept per build-id as a layout pack of that one build (pack.h: BUILD and V
 * lines) in ${XDG_CACHE_HOME:-~/.cache}/beamcore/layout-BUILDID.pack, so the
 * next command on the same build reads no DWARF. Nothing here fails a
 * command: a cache file missing, unreadable, corrupt, of another build or
 * written by another beamcore is a miss; an unwritable directory, no cache. */
#ifndef BEAMCORE_LAYOUTCACHE_H
#define BEAMCORE_LAYOUTCACHE_H
#include "debuginfo.h"
#include "layout.h"

/* The cache file of the executable's build; -1 when there is none (no
 * build-id, no absolute $XDG_CACHE_HOME or $HOME). */
int layout_cache_path(const struct exe *x, char *buf, size_t len);
/* 0: L from the cache, *source (malloc'd) where the DWARF it came from was;
 * -1: a miss, *why says which (a static string, for a trace). */
int layout_cache_load(const struct exe *x, struct layout *L, char **source, const char **why);
/* L (from the DWARF at source) kept for the executable's build: written to a
 * temporary file beside the cache file, then renamed over it, so concurrent
 * runs never see half of one; -1 when it could not be (said nowhere). */
int layout_cache_store(const struct exe *x, const struct layout *L, const char *source);

#endif
