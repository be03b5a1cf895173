/* threads: every native thread of the core with its backtrace, named by role,
 * the process each scheduler was running, and the one that took the signal. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"

const char *frame_text(const struct vm_nframe *f, char *buf, size_t len)
{
	if (f->erlang)
		snprintf(buf, len, "%s (JIT)", f->function);
	else if (f->function && !f->module)
		snprintf(buf, len, "%s", f->function);
	else if (f->function)
		snprintf(buf, len, "%s+0x%llx (%s)", f->function, (unsigned long long)f->offset,
			 f->module ? f->module : "?");
	else
		snprintf(buf, len, "0x%llx (%s)", (unsigned long long)f->pc,
			 f->module ? f->module : "no module");
	return buf;
}

static const char *thread_role(const struct vm_thread *t, char *buf, size_t len)
{
	char pid[32];
	if (t->has_running)
		snprintf(buf, len, "%s, running %s", t->role ? t->role : "?",
			 vm_pid2str(t->running, pid, sizeof pid));
	else
		snprintf(buf, len, "%s", t->role ? t->role : "-");
	return buf;
}

/* JSON: one object per thread, frames as strings. */
enum { J_TID, J_CRASH, J_ROLE, J_RUNNING, J_SIGNAL, J_FRAMES, J_CUT, J_STOP, J_PCS };
static const struct rcol json_cols[] = {
	[J_TID] = { "tid", NULL, RC_U64, 0 },
	[J_CRASH] = { "crash_site", NULL, RC_BOOL, 0 },
	[J_ROLE] = { "role", NULL, RC_STR, 0 },
	[J_RUNNING] = { "running", NULL, RC_STR, 0 },
	[J_SIGNAL] = { "signal", NULL, RC_STR, 0 },
	[J_FRAMES] = { "frames", NULL, RC_LIST, 0 },
	[J_CUT] = { "frames_cut", NULL, RC_BOOL, 0 },
	[J_STOP] = { "unwind_stopped", NULL, RC_STR, 0 },
	[J_PCS] = { "pcs", NULL, RC_LIST, 0 },  /* each frame's address, "0x..." */
};

static void json_cell(void *ctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	const struct vm *vm = ctx;
	const struct vm_thread *t = &vm->threads[row];
	switch (col) {
	case J_TID: out->u = (uint64_t)t->tid; break;
	case J_CRASH: out->u = (size_t)vm->crash_thread == row; break;
	case J_ROLE: out->s = t->role; break;
	case J_RUNNING: out->s = t->has_running ? vm_pid2str(t->running, buf, len) : NULL; break;
	case J_SIGNAL:
		if ((size_t)vm->crash_thread == row && t->signo > 0)
			out->s = fmt_signal(t->signo, buf, len);
		break;
	case J_FRAMES: out->u = t->nframes; break;
	case J_CUT: out->u = t->frames_cut; break;
	case J_STOP: out->s = t->unwind_stop; break;
	case J_PCS: out->u = t->nframes; break;
	}
}

static const char *json_item(void *ctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	const struct vm *vm = ctx;
	const struct vm_nframe *f = &vm->nframes_native[vm->threads[row].frame_first + i];
	if (col == J_PCS) {
		snprintf(buf, len, "0x%llx", (unsigned long long)f->pc);
		return buf;
	}
	return frame_text(f, buf, len);
}

/* Text: one row per frame, the thread named on its first row. */
struct text_ctx {
	const struct vm *vm;
	uint32_t *thread, *frame;   /* per row: thread index, frame index in thread (or -1) */
};

static const struct rcol text_cols[] = {
	{ NULL, "TID", RC_STR, 0 },
	{ NULL, "THREAD", RC_STR, 0 },
	{ NULL, "#", RC_STR, 0 },
	{ NULL, "FRAME", RC_STR, 0 },
};

static void text_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct text_ctx *c = vctx;
	const struct vm_thread *t = &c->vm->threads[c->thread[row]];
	uint32_t k = c->frame[row];
	int first = k == 0 || (k == UINT32_MAX && !t->nframes);
	out->s = "";
	switch (col) {
	case 0:
		if (first) {
			snprintf(buf, len, "%d%s", t->tid, c->thread[row] == (uint32_t)c->vm->crash_thread ? "*" : "");
			out->s = buf;
		}
		break;
	case 1:
		if (first)
			out->s = thread_role(t, buf, len);
		break;
	case 2:
		if (k != UINT32_MAX) {
			snprintf(buf, len, "#%u", k);
			out->s = buf;
		}
		break;
	case 3:
		if (k == UINT32_MAX) {
			snprintf(buf, len, "... (%s)", t->unwind_stop ? t->unwind_stop : "no frames");
			out->s = buf;
		} else {
			out->s = frame_text(&c->vm->nframes_native[t->frame_first + k], buf, len);
		}
		break;
	}
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const char *why = vm_not_recorded(vm, NEED_THREADS);
	if (why)
		return bc_error(BC_EFORMAT, "%s: %s: `threads` needs a core (the summary names what "
				"each scheduler was running)", vm->source, why);
	if (o->json) {
		if (!an_table(out, (struct rtable){ .json_key = "threads", .cols = json_cols,
						  .ncols = sizeof json_cols / sizeof json_cols[0],
						  .nrows = vm->nthreads, .ctx = (void *)vm,
						  .cell = json_cell, .item = json_item }, NULL))
			return bc_error(BC_ENOMEM, "out of memory");
		return NULL;
	}
	size_t rows = 0;
	for (size_t i = 0; i < vm->nthreads; i++)
		rows += vm->threads[i].nframes + (vm->threads[i].unwind_stop || !vm->threads[i].nframes);
	struct text_ctx *c = calloc(1, sizeof *c + 2 * (rows ? rows : 1) * sizeof(uint32_t));
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	c->vm = vm;
	c->thread = (uint32_t *)(c + 1);
	c->frame = c->thread + (rows ? rows : 1);
	size_t r = 0;
	for (size_t i = 0; i < vm->nthreads; i++) {
		const struct vm_thread *t = &vm->threads[i];
		for (uint32_t k = 0; k < t->nframes; k++, r++) {
			c->thread[r] = (uint32_t)i;
			c->frame[r] = k;
		}
		if (t->unwind_stop || !t->nframes) {
			c->thread[r] = (uint32_t)i;
			c->frame[r++] = UINT32_MAX;
		}
	}
	if (!an_own(out, c, NULL))
		return bc_error(BC_ENOMEM, "out of memory");
	if (!an_table(out, (struct rtable){ .json_key = "threads", .cols = text_cols, .ncols = 4,
					  .nrows = rows, .ctx = c, .cell = text_cell }, "Native threads (* took the signal)"))
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}

const struct analyzer analyzer_threads = {
	.name = "threads",
	.kind = CMD_MODEL,
	.options = an_record_options,
	.summary = "every native thread's backtrace, named by role, JIT frames as Erlang functions",
	.needs = NEED_THREADS,  /* (and the processes they run: the loaders add them) */
	.run = run,
};
