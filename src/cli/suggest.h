/* "did you mean": the likely intended word for a mistyped one (git's way). */
#ifndef BEAMCORE_SUGGEST_H
#define BEAMCORE_SUGGEST_H
#include <stddef.h>

/* The name in names[] closest to word, when it is a likely typo of it; NULL
 * otherwise. */
const char *suggest_closest(const char *word, const char *const *names, size_t n);

#endif
