/* A process's deep sections and the tagged ones (deep.c): found where the
 * scan met them, else by an index of every tag line built on first use */
#ifndef BEAMCORE_DUMP_DEEP_H
#define BEAMCORE_DUMP_DEEP_H
#include <stdbool.h>
#include <stddef.h>
#include "internal.h"

/* Where p's =proc_heap body starts: as the scan met it, else by the sections'
 * index; -1: none. */
int dump_proc_heap(struct dump *d, const struct vm_proc *p, const char **start);
/* The section line before the one at t (a dump's lines that start with '='
 * are its section lines; memrchr a window at a time), or NULL */
const char *dump_prev_section(const struct dump *d, const char *t);
/* The =literals body [*start, *end): where the scan met it (no index of the
 * sections), by the index before the scan reaches it; -1: none. */
int dump_literals(struct dump *d, const char **start, const char **end);
/* p's deep sections */
enum proc_part { PART_MESSAGES, PART_DICTIONARY, PART_STACK, PART_HEAP };
/* The body of p's section part, [*start, *end) (end NULL: not looked for):
 * its stack and heap as the scan met them, its messages and dictionary right
 * before its stack; else (the scan met none) by the sections' index, the
 * file's second read. -1: none. */
int dump_proc_part(struct dump *d, const struct vm_proc *p, enum proc_part part,
		   const char **start, const char **end);

/* The body [*start, *end) of the section "TAG<pid>" (tag "=proc_heap:"); -1:
 * none. A process's four parts go by dump_proc_part; any other, or a pid the
 * scan did not list, by the index of every section (built on the first such
 * call). end NULL:
 * where the body starts only (its reader stops at a line that starts with
 * '=', and releases what it read: dump_span_add). */
int dump_proc_section(struct dump *d, const char *tag, const char *pid, const char **start,
		      const char **end);
/* The same for a whole tag line without '=': "literals", "binary:7F0A...". */
int dump_tag_section(struct dump *d, const char *key, const char **start, const char **end);
/* The body of p's =proc section: where the scan found it (p->addr), without
 * the index of dump_proc_section; by its pid when that is not it. */
int dump_proc_body(struct dump *d, const struct vm_proc *p, const char **start, const char **end);
void dump_deep_free(struct dump *d);

#endif
