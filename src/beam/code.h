/* Code addresses of a core as Erlang functions: the loaded modules' ranges
 * (code.c), looked up by the walks of processes, stacks and threads. */
#ifndef BEAMCORE_BEAM_CODE_H
#define BEAMCORE_BEAM_CODE_H
#include <stdint.h>
#include "read.h"

/* The function a code address lies in (the loaded modules' ranges); -1 if none. */
int beam_lookup_code(struct beam *b, uint64_t pc, struct vm_mfa *out);
/* The same, and where in the source (line 0: unknown; file_term: a charlist). */
struct vm_loc {
	int line;
	uint64_t file_term;
	uint64_t mfa_addr;         /* the function's ErtsCodeMFA (a dump's "m:f/a + offset" counts from it) */
};
int beam_lookup_code_loc(struct beam *b, uint64_t pc, struct vm_mfa *out, struct vm_loc *loc);
/* What code.c keeps of a core (b->code, made by read_model): whether the code
 * ranges can be read and the answers so far; NULL on OOM. */
struct beam_code *beam_code_new(void);
void beam_code_free(struct beam_code *c);

#endif
