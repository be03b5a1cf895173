/* beamcore triage: what one input died of, as a signature two deaths of the
 * same cause share: its slogan with the variable parts normalized (the rules:
 * one table, signature.c, docs/triage.md) plus the culprit's top Erlang frames,
 * or a core's signal and the crashing thread's top native frames. */
#ifndef BEAMCORE_TOOLS_SIGNATURE_H
#define BEAMCORE_TOOLS_SIGNATURE_H
#include <stdbool.h>
#include <stddef.h>
#include "vm.h"

/* Frames a signature keeps (the innermost ones). */
#define SIG_FRAMES 3

/* The slogan s normalized into out (len bytes, cut at a character's end):
 * true when it was cut. */
bool sig_normalize(const char *s, char *out, size_t len);
/* The whole signature of a loaded model into out: "SLOGAN | m:f/a < m:f/a"
 * for a dump, "SIGSEGV | fn < fn (module)" for a core; one that does not
 * fit ends in "...". */
void sig_of(const struct vm *vm, char *out, size_t len);
/* The rule table, for docs/triage.md's check: name and what it replaces with. */
struct sig_rule {
	const char *name;        /* "pid" */
	const char *example;     /* "<0.83.0>" */
	const char *as;          /* "<PID>" */
	/* how many bytes of s (at the start of a token) the rule takes; 0: none */
	size_t (*match)(const char *s, const char *start);
};
extern const struct sig_rule sig_rules[];
extern const size_t sig_nrules;

#endif
