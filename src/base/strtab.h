/* String interning: one arena, strings live until the table is freed.
 * Atoms and MFAs are interned once so a million processes share them. */
#ifndef BEAMCORE_STRTAB_H
#define BEAMCORE_STRTAB_H
#include <stddef.h>

struct strtab;
struct strtab *strtab_new(void);
void strtab_free(struct strtab *t);
/* Returns a stable copy of s[0..len) (NUL-terminated), or NULL on OOM. */
const char *strtab_intern(struct strtab *t, const char *s, size_t len);

#endif
