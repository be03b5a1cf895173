/* A live process as a core: segments and file mappings from /proc/PID/maps,
 * AT_PHDR/AT_ENTRY/AT_SYSINFO_EHDR from /proc/PID/auxv, threads from
 * /proc/PID/task (registers with PTRACE_GETREGS when stopped); its memory is
 * livemem.c's, behind the cache the caller chose. */
#include "live.h"
#include "livemem.h"
#include "snap.h"
#include "stop.h"
#include "grow.h"

#include <dirent.h>
#include <sched.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

struct core_live {
	char **paths;      /* the file mappings' paths */
	size_t npaths, pathcap;
	struct user_regs_struct *regs;
	char psargs[81];
};

static void live_close(struct core *c)
{
	struct core_live *l = c->live;
	core_live_release(c);
	livemem_free(c->mem);
	for (size_t i = 0; i < l->npaths; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->regs);
	free(l);
	c->live = NULL;
}

static const struct core_ops kept_ops = {
	.span = livemem_chunk_span, .ptr = livemem_chunk_ptr, .close = live_close,
};
static const struct core_ops flushed_ops = {
	.span = livemem_page_span, .ptr = livemem_copy, .flush = livemem_page_flush,
	.close = live_close,
};

double core_live_release(struct core *c)
{
	if (!c->live_stopped)
		return -1;
	c->live_stopped = 0;
	return stop_release();
}

bc_err *core_live_exe(int pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d", pid);
	if (pid <= 0 || access(path, F_OK) != 0)
		return bc_error(BC_EIO, "no such process: PID %d", pid);
	snprintf(path, sizeof path, "/proc/%d/exe", pid);
	ssize_t n = readlink(path, buf, len - 1);
	if (n < 0) {
		if (errno == EACCES || errno == EPERM)
			return stop_why_denied(pid, "reading /proc");
		snprintf(path, sizeof path, "/proc/%d", pid);
		if (access(path, F_OK) != 0)
			return bc_error(BC_EIO, "no such process: PID %d", pid);
		bc_err *z = core_live_exited(pid, bc_error(BC_EIO, "PID %d has no executable "
							   "(a kernel thread?)", pid));
		if (strstr(z->msg, "exited"))  /* a zombie: say what it is */
			snprintf(z->msg, sizeof z->msg, "PID %d has exited (a zombie its parent has "
				 "not reaped)", pid);
		return z;
	}
	buf[n] = 0;
	static const char deleted[] = " (deleted)";
	size_t k = strlen(buf), d = sizeof deleted - 1;
	if (k > d && strcmp(buf + k - d, deleted) == 0)
		buf[k - d] = 0;
	return NULL;
}

int core_live_running(int pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *st = strrchr(buf, ')');  /* "pid (comm) S ..." */
	return st && st[1] == ' ' && st[2] != 'Z' && st[2] != 'X';
}

bc_err *core_live_exited(int pid, bc_err *err)
{
	if (!err || (!core_live_gone(pid) && core_live_running(pid)))
		return err;
	bc_err_free(err);
	return bc_error(BC_EIO, "PID %d exited during the read", pid);
}

static int add_path(struct core_live *l, const char *p, const char **out)
{
	char **a = grow(l->paths, &l->pathcap, l->npaths, sizeof *a, 64);
	if (!a)
		return -1;
	l->paths = a;
	if (!(l->paths[l->npaths] = strdup(p)))
		return -1;
	*out = l->paths[l->npaths++];
	return 0;
}

static bc_err *read_maps(struct core *c, struct core_live *l)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", c->live_pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return errno == EACCES || errno == EPERM ? stop_why_denied(c->live_pid, "reading /proc")
			: bc_error(BC_EIO, "PID %d exited", c->live_pid);
	char *line = NULL;
	size_t cap = 0, scap = 0, fcap = 0;
	bc_err *err = NULL;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0 && !err) {
		if (line[len - 1] == '\n')
			line[len - 1] = 0;
		unsigned long long lo, hi, off;
		char perm[8];
		int name = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perm, &off, &name) < 4 ||
		    hi <= lo)
			continue;
		struct core_seg *s = grow(c->segs, &scap, c->nsegs, sizeof *s, 256);
		if (!s) {
			err = bc_error(BC_ENOMEM, "out of memory");
			break;
		}
		c->segs = s;
		s = &c->segs[c->nsegs++];
		s->vaddr = lo;
		s->memsz = hi - lo;
		s->off = 0;
		s->flags = (perm[0] == 'r' ? PF_R : 0) | (perm[1] == 'w' ? PF_W : 0) |
			   (perm[2] == 'x' ? PF_X : 0);
		/* [vvar] and device mappings fault when read from outside */
		const char *p = name ? line + name : "";
		int readable = (s->flags & PF_R) && strncmp(p, "[vvar", 5) != 0 &&
			       strncmp(p, "/dev/", 5) != 0;
		s->filesz = readable ? s->memsz : 0;
		if (p[0] != '/')
			continue;
		struct core_file *fl = grow(c->files, &fcap, c->nfiles, sizeof *fl, 64);
		const char *kept;
		if (!fl || add_path(l, p, &kept) < 0) {
			err = bc_error(BC_ENOMEM, "out of memory");
			break;
		}
		c->files = fl;
		c->files[c->nfiles++] = (struct core_file){ lo, hi, off, kept };
	}
	free(line);
	fclose(f);
	if (!err && c->nsegs == 0)
		err = bc_error(BC_EIO, "PID %d exited (no memory mappings)", c->live_pid);
	return err;
}

static void read_auxv(struct core *c)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/auxv", c->live_pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	uint64_t kv[2];
	while (fread(kv, sizeof kv, 1, f) == 1 && kv[0] != AT_NULL) {
		if (kv[0] == AT_PHDR)
			c->at_phdr = kv[1];
		else if (kv[0] == AT_ENTRY)
			c->at_entry = kv[1];
		else if (kv[0] == AT_SYSINFO_EHDR)
			c->at_vdso = kv[1];
	}
	fclose(f);
}

static void read_cmdline(struct core *c, struct core_live *l)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/cmdline", c->live_pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t n = fread(l->psargs, 1, sizeof l->psargs - 1, f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!l->psargs[i])
			l->psargs[i] = ' ';
	l->psargs[n] = 0;
	c->psargs = l->psargs;
}

/* The threads: the stopped ones with their registers; unstopped, tids only. */
static bc_err *read_threads(struct core *c, struct core_live *l, const pid_t *tids, size_t n)
{
	pid_t *own = NULL;
	if (!tids) {  /* not stopped: /proc/PID/task as it is now */
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/task", c->live_pid);
		size_t cap = 0;
		n = 0;
		DIR *d = opendir(path);
		if (!d)
			return bc_error(BC_EIO, "PID %d exited", c->live_pid);
		for (struct dirent *e; (e = readdir(d));) {
			if (atoi(e->d_name) <= 0)
				continue;
			pid_t *a = grow(own, &cap, n, sizeof *a, 64);
			if (!a)
				break;
			own = a;
			own[n++] = atoi(e->d_name);
		}
		closedir(d);
		tids = own;
	}
	c->threads = calloc(n ? n : 1, sizeof *c->threads);
	l->regs = calloc(n ? n : 1, sizeof *l->regs);
	if (!c->threads || !l->regs) {
		free(own);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		struct core_thread *t = &c->threads[c->nthreads++];
		t->tid = tids[i];
		t->regs = &l->regs[i];
		if (!c->live_stopped || ptrace(PTRACE_GETREGS, tids[i], NULL, &l->regs[i]) < 0)
			continue;
		t->pc = l->regs[i].rip;
		t->sp = l->regs[i].rsp;
		t->fp = l->regs[i].rbp;
		t->tp = l->regs[i].fs_base;
	}
	/* the main thread (tid == pid) first, as in a core */
	for (size_t i = 1; i < c->nthreads; i++)
		if (c->threads[i].tid == c->live_pid) {
			struct core_thread t = c->threads[0];
			c->threads[0] = c->threads[i];
			c->threads[i] = t;
		}
	free(own);
	return NULL;
}

/* Forget what was read before the stop; what core_ptr handed out stays
 * allocated until close. */
static int forget(struct core *c, struct core_live *l)
{
	if (livemem_forget(c->mem) < 0)
		return -1;
	free(c->segs);
	free(c->files);
	free(c->threads);
	free(l->regs);
	c->segs = NULL;
	c->files = NULL;
	c->threads = NULL;
	l->regs = NULL;
	c->nsegs = c->nfiles = c->nthreads = 0;
	c->hint = NULL;
	memset(c->near, 0, sizeof c->near);
	return 0;
}

bc_err *core_live_stop(struct core *c)
{
	struct core_live *l = c->live;
	pid_t *tids = NULL;
	size_t ntids = 0;
	if (c->live_stopped)
		return NULL;
	bc_err *err = stop_process(c->live_pid, &tids, &ntids);
	if (err)
		return err;
	c->live_stopped = c->live_frozen = 1;
	core_flush(c);
	if (forget(c, l) < 0)
		err = bc_error(BC_ENOMEM, "out of memory");
	if (!err)
		err = read_maps(c, l);
	if (!err)
		err = read_threads(c, l, tids, ntids);
	free(tids);
	return err;
}

struct core_plan *core_live_plan(const struct core *c)
{
	struct livesnap *p = calloc(1, sizeof *p);
	if (p && livemem_touched(c->mem, p) < 0) {
		livesnap_free(p);
		free(p);
		return NULL;
	}
	return (struct core_plan *)p;
}

void core_plan_free(struct core_plan *p)
{
	if (p)
		livesnap_free((struct livesnap *)p);
	free(p);
}

/* A thread's frames lie from its stack pointer (less the red zone) up to its
 * stack's top: what the native unwinder reads, up to this much of it. */
#define STACK_COPY (128u << 10)
#define STACKS_MAX 512

static void add_stacks(struct core *c, struct livesnap *s, size_t most)
{
	for (size_t i = 0; i < c->nthreads && most; i++) {
		uint64_t sp = c->threads[i].sp;
		const struct core_seg *g = sp ? core_seg_at(c, sp) : NULL;
		if (!g || !g->filesz)
			continue;
		uint64_t lo = (sp - 128) & ~(uint64_t)63, end = g->vaddr + g->filesz;
		if (lo < g->vaddr)
			lo = g->vaddr;
		if (livesnap_add(s, lo, end - lo > STACK_COPY ? lo + STACK_COPY : end) == 0)
			most--;
	}
}

bc_err *core_live_snapshot(struct core *c, struct core_plan *plan, int stacks, double max_ms,
			   struct core_snap_stat *st)
{
	struct core_live *l = c->live;
	struct livesnap *s = livemem_snap(c->mem);
	memset(st, 0, sizeof *st);
	st->stopped_ms = -1;
	*s = *(struct livesnap *)plan;  /* the plan's ranges move into the core's snapshot */
	free(plan);
	size_t nstacks = stacks ? (c->nthreads + 16 < STACKS_MAX ? c->nthreads + 16 : STACKS_MAX) : 0;
	if (livesnap_prepare(s, nstacks * STACK_COPY) < 0)
		return bc_error(BC_ENOMEM, "out of memory for the snapshot");
	for (size_t i = 0; i < s->nruns; i++)
		st->planned += s->runs[i].len;
	pid_t *tids = NULL;
	size_t ntids = 0;
	/* While the node waits, the machine's other work must not preempt the
	 * copy: real-time priority for the window, where permitted (root). */
	struct sched_param rt = { .sched_priority = 1 }, was;
	int policy = sched_getscheduler(0);
	int raised = policy >= 0 && sched_getparam(0, &was) == 0 &&
		     sched_setscheduler(0, SCHED_FIFO, &rt) == 0;
	bc_err *err = stop_process(c->live_pid, &tids, &ntids);
	if (err) {
		if (raised)
			sched_setscheduler(0, policy, &was);
		return err;
	}
	c->live_stopped = 1;
	/* inside the stop: the threads' registers and, for the unwinder, their stacks */
	free(c->threads);
	free(l->regs);
	c->threads = NULL;
	l->regs = NULL;
	c->nthreads = 0;
	err = read_threads(c, l, tids, ntids);
	free(tids);
	if (!err && nstacks) {
		add_stacks(c, s, nstacks);
		if (livesnap_prepare(s, 0) < 0)
			err = bc_error(BC_ENOMEM, "out of memory for the snapshot");
	}
	int rc = err ? 0 : livesnap_copy(s, c->live_pid, max_ms, stop_elapsed_ms);
	st->stopped_ms = core_live_release(c);
	if (raised)
		sched_setscheduler(0, policy, &was);
	if (err)
		return err;
	if (rc < 0)
		return bc_error(BC_EIO, "PID %d exited during the read", c->live_pid);
	st->bytes = livesnap_bytes(s);
	st->over = rc > 0;
	if (st->over) {  /* released before the copy was whole: a racy read, no registers */
		livesnap_free(s);
		for (size_t i = 0; i < c->nthreads; i++)
			c->threads[i].pc = c->threads[i].sp = c->threads[i].fp = 0;
	} else {
		c->live_frozen = 1;
	}
	/* what was read before the stop is read again: from the snapshot, else anew */
	core_flush(c);
	if (livemem_forget(c->mem) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	livemem_serve_snap(c->mem, !st->over);
	/* the mappings, after the release: a read the snapshot lacks needs them */
	free(c->segs);
	free(c->files);  /* (their paths stay in l->paths until close) */
	c->segs = NULL;
	c->files = NULL;
	c->nsegs = c->nfiles = 0;
	c->hint = NULL;
	memset(c->near, 0, sizeof c->near);
	return read_maps(c, l);
}

uint64_t core_live_late_bytes(const struct core *c)
{
	return c->live ? livemem_late(c->mem) : 0;
}

bc_err *core_open_live(int pid, enum core_live_mem kind, struct core **out)
{
	*out = NULL;
	struct core *c = calloc(1, sizeof *c);
	struct core_live *l = calloc(1, sizeof *l);
	struct livemem *m = livemem_new(pid, kind);
	if (!c || !l || !m) {
		free(c);
		free(l);
		livemem_free(m);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	c->ops = kind == LIVE_FLUSHED ? &flushed_ops : &kept_ops;
	c->arch = core_arch_host();  /* the process runs here (ptrace reads its registers) */
	c->mem = m;
	c->live = l;
	c->live_pid = c->pid = pid;
	bc_err *err = read_maps(c, l);
	if (!err) {
		read_auxv(c);
		read_cmdline(c, l);
		err = read_threads(c, l, NULL, 0);
	}
	if (!err) {
		/* can we read at all? (process_vm_readv has the ptrace access check) */
		uint8_t b;
		struct iovec lv = { &b, 1 }, rv = { (void *)(uintptr_t)c->segs[0].vaddr, 1 };
		if (process_vm_readv(pid, &lv, 1, &rv, 1, 0) < 0) {
			if (errno == EPERM || errno == EACCES)
				err = stop_why_denied(pid, "process_vm_readv");
			else if (errno == ESRCH)
				err = bc_error(BC_EIO, "PID %d exited", pid);
		}
	}
	if (err) {
		core_close(c);
		return err;
	}
	*out = c;
	return NULL;
}
