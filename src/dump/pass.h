/* The passes that ride on the index scan (procs.c, stacks.c, procat.c,
 * identity.c, pool.c): the processes, their stacks, where their deep
 * sections start, proc_lib's identity */
#ifndef BEAMCORE_DUMP_PASS_H
#define BEAMCORE_DUMP_PASS_H
#include <stdbool.h>
#include <stddef.h>
#include "internal.h"
#include "text.h"
#include "pool.h"

/* Where a stack frame's code is: a function (mfa id) and the offset in it
 * (8 bytes: one per process is kept while the scan runs). */
struct code_pos {
	int32_t mfa;                   /* -1: none */
	uint32_t off;
};

/* Parses the =proc sections into vm->procs (procs.c) and the =proc_stack ones
 * into stack sizes and, with stacks, frames (stacks.c) as the index scan meets
 * them: one pass over the file. */
struct proc_pass {
	struct dump *d;
	bool stacks;                   /* also the frames (current_stacktrace) */
	bool tops;                     /* ... of a waiting process, only the innermost
					* (NEED_STACK_TOPS) */
	bool indexed;                  /* the =proc sections are over: pid index built */
	size_t indexed_n;              /* ... over this many processes */
	bool oom;
	size_t skipped, cursor;
	struct code_pos *pcs;          /* with stacks: per process, p->i */
	size_t pcs_cap;
	struct mfa_cache cache;
	size_t *batch;                 /* =proc sections met, not parsed yet (procs.c) */
	size_t nbatch, batch_cap;
	struct pool *pool;             /* the threads that parse them with this one */
	bool pool_failed;
	pthread_mutex_t intern_lock;   /* (vm->intern_lock while they run) */
	struct vm_proc *stack_proc;    /* the process whose =proc_stack came last */
	size_t stack_body;             /* ... where its body starts */
	struct dump_ident *ident;      /* identity.c's, on the same scan (dump.c sets it) */
};


struct proc_pass *proc_pass_new(struct dump *d, bool stacks);
void proc_pass_free(struct proc_pass *pp);
/* The =proc (=proc_stack) section at off; returns where its body ends (the
 * next section's line, or the end of the content). *read: the process whose
 * stack was read in full, or NULL. */
const char *proc_pass_section(struct proc_pass *pp, size_t off);
/* Parse the =proc sections met so far (the scan met another kind, or ended):
 * before anything reads vm->procs. */
void proc_pass_flush(struct proc_pass *pp);
const char *proc_pass_stack(struct proc_pass *pp, size_t off, struct vm_proc **read);
/* A =proc_heap section: its pid and where its body starts (NULL: its tag
 * line is not "=proc_heap:<pid>"), recorded for the process of the
 * =proc_stack before it, with that one's (d->proc_at). */
const char *proc_pass_heap(struct proc_pass *pp, size_t off, struct vm_pid *pid);

/* After the last section (and dump_ident_end): gaps, the pid index; frees pp.
 * proc_pass_free frees it without them (a scan that failed). */
bc_err *proc_pass_end(struct proc_pass *pp);
/* The process of a deep section (=proc_stack, ...) by its pid, or NULL. */
struct vm_proc *proc_pass_owner(struct proc_pass *pp, struct vm_pid pid);

/* proc_lib's '$initial_call' and '$ancestors' of each process (identity.c),
 * from its =proc_dictionary and =proc_heap as the scan meets them; a
 * process's identity stays VPF_IDENTITY until its deep sections are read. */
struct dump_ident *dump_ident_new(struct dump *d);
void dump_ident_dict(struct proc_pass *pp, size_t off);
void dump_ident_stack(struct proc_pass *pp, struct vm_proc *p);
/* The =proc_heap of pid, its body from hs (proc_pass_heap read its tag).
 * Returns where the scan goes on (past the heap when it was read). */
const char *dump_ident_heap(struct proc_pass *pp, struct vm_pid pid, const char *hs);
/* After the scan: values in =literals; frees the state. false: out of memory. */
bool dump_ident_end(struct proc_pass *pp);

#endif
