/* How the node died, when the input says it in words (vm->death: a crash
 * dump's slogan): the slogan, what it means, and the process the dying thread
 * was running (for an allocation failure: the process that grew). */
#include <stdio.h>
#include <string.h>

#include "death.h"

/* erl_alloc types seen in out-of-memory slogans. */
static const char *type_meaning(const char *t)
{
	static const struct { const char *type, *what; } m[] = {
		{ "heap", "a process heap" }, { "old_heap", "a process's old (mature) heap" },
		{ "heap_frag", "a heap fragment (a message or a large result)" },
		{ "binary", "a binary" }, { "db_term", "an ETS object" },
		{ "proc", "a process structure" }, { "message", "a message" },
	};
	for (size_t i = 0; t && i < sizeof m / sizeof m[0]; i++)
		if (strcmp(t, m[i].type) == 0)
			return m[i].what;
	return NULL;
}

static const char *meaning(const struct vm_death *d, char *buf, size_t len)
{
	char b[32];
	if (d->alloc) {
		const char *what = type_meaning(d->alloc_type);
		int n = snprintf(buf, len, "out of memory: %s could not %s %s", d->alloc,
				 d->alloc_realloc ? "grow a block to" : "allocate",
				 fmt_bytes(d->alloc_size, b, sizeof b));
		if (n > 0 && (size_t)n < len && (what || d->alloc_type))
			snprintf(buf + n, len - (size_t)n, what ? " for %s" : " (type %s)",
				 what ? what : d->alloc_type);
	} else if (d->kernel_pid) {
		snprintf(buf, len, "a kernel process (%s) died%s%s%s: the node cannot run without it",
			 d->kernel_pid, d->reason ? " (" : "", d->reason ? d->reason : "",
			 d->reason ? ")" : "");
	} else if (d->reason) {
		snprintf(buf, len, "the boot failed: init's do_boot exited (%s)", d->reason);
	} else if (strcmp(d->slogan, "Received SIGUSR1") == 0) {
		snprintf(buf, len, "someone sent it SIGUSR1 (kill -USR1): a requested dump, "
			 "not a failure of its own");
	} else if (strcmp(d->slogan, "Crash dump requested by user") == 0) {
		snprintf(buf, len, "(A)bort in the BREAK menu: a requested dump");
	} else {
		return NULL;  /* halt("...") or another erts_exit message: the slogan says it all */
	}
	return buf;
}

/* "<0.83.0> grower (beamcore_deaths:grow/1)" */
static const char *who(const struct vm_proc *p, struct vm_pid pid, char *buf, size_t len)
{
	char s[32], m[256];
	vm_pid2str(pid, s, sizeof s);
	if (!p)
		snprintf(buf, len, "%s", s);
	else if (p->registered_name || p->label)  /* (a library's label: vm_proc_label) */
		snprintf(buf, len, "%s %s", s, p->registered_name ? p->registered_name : p->label);
	else
		snprintf(buf, len, "%s (%s)", s,
			 vm_mfa_str(vm_shown_initial_call(p), m, sizeof m) ? m : "unknown initial call");
	return buf;
}

void death_text(FILE *f, const struct vm *vm)
{
	const struct vm_death *d = &vm->death;
	char buf[1024], w[512], a[32], b[32], c[32], fn[256];
	fprintf(f, "  slogan %s\n", d->slogan);
	if (meaning(d, buf, sizeof buf))
		fprintf(f, "  meaning %s\n", buf);
	size_t others = 0;  /* busy schedulers besides the culprit's (said below) */
	for (size_t i = 0; i < d->nrunning; i++)
		others += !d->have_culprit || d->running[i].pid.num != d->culprit.num ||
			  d->running[i].pid.serial != d->culprit.serial;
	if (others) {  /* the schedulers' current processes */
		fprintf(f, "  schedulers");
		for (size_t i = 0; i < d->nrunning; i++) {
			const struct vm_sched_run *r = &d->running[i];
			const struct vm_proc *rp = vm_find_proc(vm, r->pid);
			fprintf(f, "%s %s ran %s", i ? ";" : "", r->scheduler, who(rp, r->pid, w, sizeof w));
		}
		fprintf(f, "\n");
	}
	if (!d->have_culprit)
		return;
	const struct vm_proc *p = vm_find_proc(vm, d->culprit);
	who(p, d->culprit, w, sizeof w);
	if (!p) {
		fprintf(f, "  running %s on %s\n", w, d->culprit_sched);
		return;
	}
	/* for an allocation failure, what it was running is what grew */
	if (d->alloc)
		fprintf(f, "  grew %s (%s on %s)", w, p->status ? vm_status_name(p->status) : "?", d->culprit_sched);
	else
		fprintf(f, "  running %s on %s", w, d->culprit_sched);
	if (!(p->unknown & VPF_HEAP_SIZE))
		fprintf(f, ": heap %s", fmt_words(p->heap_size, a, sizeof a));
	if (!(p->unknown & VPF_TOTAL_HEAP_SIZE))
		fprintf(f, ", total heap %s", fmt_words(p->total_heap_size, b, sizeof b));
	if (!(p->unknown & VPF_MEMORY))
		fprintf(f, ", memory %s", fmt_bytes(p->memory, c, sizeof c));
	if (!(p->unknown & VPF_MESSAGE_QUEUE_LEN) && p->message_queue_len)
		fprintf(f, ", %s messages queued", fmt_count(p->message_queue_len, a, sizeof a));
	if (vm_mfa_str(p->current_function, fn, sizeof fn))
		fprintf(f, ", in %s", fn);
	fprintf(f, "\n");
}

void death_json(struct jw *w, const struct vm *vm)
{
	const struct vm_death *d = &vm->death;
	if (!d->slogan) {
		jw_null(w, "death");
		return;
	}
	char buf[1024], pid[32];
	jw_obj(w, "death");
	jw_str(w, "slogan", d->slogan);
	jw_str(w, "meaning", meaning(d, buf, sizeof buf));
	jw_str(w, "allocator", d->alloc);
	jw_str(w, "alloc_type", d->alloc_type);
	jw_u64_or_null(w, "alloc_size", d->alloc != NULL, d->alloc_size);
	jw_str(w, "kernel_pid", d->kernel_pid);
	jw_str(w, "reason", d->reason);
	jw_str(w, "thread", d->thread);
	jw_str(w, "culprit", d->have_culprit ? vm_pid2str(d->culprit, pid, sizeof pid) : NULL);
	jw_str(w, "culprit_scheduler", d->have_culprit ? d->culprit_sched : NULL);
	jw_arr(w, "running");
	for (size_t i = 0; i < d->nrunning; i++) {
		jw_obj(w, NULL);
		jw_str(w, "scheduler", d->running[i].scheduler);
		jw_str(w, "pid", vm_pid2str(d->running[i].pid, pid, sizeof pid));
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}
