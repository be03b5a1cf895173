/* UTF-8 as JSON and a terminal need it: what a dump or a core holds may be any
 * bytes (latin-1 atoms of old releases, corruption, an attacker's file). */
#ifndef BEAMCORE_UTF8_H
#define BEAMCORE_UTF8_H
#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (at most n bytes; no NUL,
 * no overlongs, no surrogates), 0 when there is none. */
size_t utf8_seq(const unsigned char *s, size_t n);
/* s itself when it is valid UTF-8; else a copy in buf (cut to len) with every
 * byte that is not part of a valid sequence written as \xNN. */
const char *utf8_visible(const char *s, char *buf, size_t len);

#endif
