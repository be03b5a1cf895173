/* proc_lib's '$initial_call' and '$ancestors' of a process whose dictionary
 * is at dict (identity.c): init once (-1: the layout lacks the dictionary's
 * members), then per process; an unreadable one sets VPF_IDENTITY. */
#ifndef BEAMCORE_BEAM_IDENTITY_H
#define BEAMCORE_BEAM_IDENTITY_H
#include <stdint.h>
#include "read.h"

int beam_ident_init(struct beam *b);
void beam_proc_identity(struct beam *b, uint64_t dict, struct vm_proc *vp);
void beam_ident_free(struct beam *b);
/* A hibernating process: where it resumes (vp->wake_up), from its argument
 * registers at regs (Process.arg_reg); left 0 when they do not hold it. */
void beam_proc_wake_up(struct beam *b, uint64_t regs, struct vm_proc *vp);

#endif
