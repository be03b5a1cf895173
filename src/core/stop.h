/* Stopping a live process for a consistent read: PTRACE_SEIZE and
 * PTRACE_INTERRUPT of every thread, then PTRACE_DETACH of all of them — on
 * every exit path: stop_release(), atexit, and SIGINT/SIGTERM/SIGHUP/SIGQUIT/
 * SIGPIPE handlers (if beamcore dies otherwise, the kernel detaches the
 * seized threads and they run on: an interrupt stop is no group stop). */
#ifndef BEAMCORE_STOP_H
#define BEAMCORE_STOP_H
#include <sys/types.h>
#include "error.h"

/* Stop every thread of pid (threads created meanwhile too). The tids stopped
 * into *tids (malloc'd) and *n. */
bc_err *stop_process(pid_t pid, pid_t **tids, size_t *n);
/* Detach every stopped thread (a signal that arrived meanwhile is passed on);
 * milliseconds the process was stopped, or -1 when it was not. Idempotent. */
double stop_release(void);
/* Milliseconds since the process was stopped, or -1 when it is not. */
double stop_elapsed_ms(void);
/* Why ptrace-level access to pid was refused (EPERM/EACCES), naming the fix:
 * another user, no CAP_SYS_PTRACE, yama ptrace_scope, another tracer. */
bc_err *stop_why_denied(pid_t pid, const char *what);

#endif
