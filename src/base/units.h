/* Numbers as people read them: sizes, word counts, thousands separators, signal
 * names. Base: the loaders word term shapes with these, the renderers print them. */
#ifndef BEAMCORE_UNITS_H
#define BEAMCORE_UNITS_H
#include <stddef.h>
#include <stdint.h>

/* "1.5 MiB", "12.3 Mw" (words), "1,234,567" */
const char *fmt_bytes(uint64_t v, char *buf, size_t len);
const char *fmt_words(uint64_t v, char *buf, size_t len);
const char *fmt_count(uint64_t v, char *buf, size_t len);
/* "SIGSEGV" (or "signal 77") */
const char *fmt_signal(int sig, char *buf, size_t len);

#endif
