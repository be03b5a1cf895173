#include "live.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int slive_read(struct live *l, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(l->pid, &local, 1, &remote, 1, 0);
	if (n < 0 && errno == ESRCH)
		l->gone = 1;
	return n == (ssize_t)len ? 0 : -1;
}

/* core.h's span_hook: a page at a time, cached until slive_flush. */
static const uint8_t *span(void *ctx, uint64_t addr, size_t want, size_t *got)
{
	struct live *l = ctx;
	uint64_t page = addr & ~(uint64_t)4095;
	struct live_page *p = &l->cache[(page >> 12) % LIVE_PAGES];
	if (p->addr != page + 1) {
		p->addr = 0;
		if (slive_read(l, page, p->data, 4096) < 0)
			return NULL;
		p->addr = page + 1;
	}
	size_t off = addr - page;
	*got = want < 4096 - off ? want : 4096 - off;
	return p->data + off;
}

void slive_flush(struct live *l)
{
	for (size_t i = 0; i < LIVE_PAGES; i++)
		l->cache[i].addr = 0;
}

int slive_in_jit(const struct live *l, uint64_t pc)
{
	for (int i = 0; i < l->njit; i++)
		if (pc >= l->jit[i].start && pc < l->jit[i].end)
			return 1;
	return 0;
}

/* /proc/PID/maps: the executable's first mapping (its load address) and the
 * executable mappings that are no file on disk (the JIT's memfd, anonymous). */
static uint64_t scan_maps(struct live *l)
{
	char path[64], line[4096 + 128];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)l->pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	uint64_t base = 0;
	l->njit = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off;
		char perm[8];
		int name = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perm, &off, &name) < 4)
			continue;
		char *file = name ? line + name : line + strlen(line);
		file[strcspn(file, "\n")] = '\0';
		if (!base && off == 0 && strcmp(file, l->exe) == 0)
			base = lo;
		if (perm[2] == 'x' && (file[0] != '/' || strncmp(file, "/memfd:", 7) == 0) &&
		    strcmp(file, "[vdso]") != 0 && strcmp(file, "[vsyscall]") != 0 &&
		    l->njit < (int)(sizeof l->jit / sizeof l->jit[0]))
			l->jit[l->njit++] = (struct live_range){ lo, hi };
	}
	fclose(f);
	return base;
}

void slive_scan_maps(struct live *l)
{
	scan_maps(l);
}

static char *debuginfo_path = ":.debug:/usr/lib/debug";

bc_err *slive_open(pid_t pid, const char *debug_file, struct live **out)
{
	*out = NULL;
	char path[64];
	struct live *l = calloc(1, sizeof *l);
	if (!l || !(l->cache = calloc(LIVE_PAGES, sizeof *l->cache))) {
		free(l);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	l->pid = pid;
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, l->exe, sizeof l->exe - 1);
	bc_err *err = NULL;
	if (n < 0) {
		err = errno == ENOENT ? bc_error(BC_EIO, "no process %d", (int)pid)
				      : bc_error(BC_EIO, "process %d: cannot read %s: %s (run as its "
						 "user or as root)", (int)pid, path, strerror(errno));
		goto fail;
	}
	l->exe[n] = '\0';
	const char *slash = strrchr(l->exe, '/');
	const char *base_name = slash ? slash + 1 : l->exe;
	if (strncmp(base_name, "beam", 4) != 0) {
		err = bc_error(BC_EMISMATCH, "process %d is not an Erlang VM: it runs %s, not beam.smp",
			       (int)pid, l->exe);
		goto fail;
	}
	/* a read of its memory tells whether we may (ptrace access mode) */
	uint64_t base = scan_maps(l);
	uint8_t probe[8];
	if (!base || slive_read(l, base, probe, sizeof probe) < 0) {
		err = bc_error(BC_EIO, "process %d: cannot read its memory: %s (run as its user or "
			       "as root; a container needs CAP_SYS_PTRACE)", (int)pid,
			       l->gone ? "it exited" : strerror(errno));
		goto fail;
	}

	struct beam *b = l->b = calloc(1, sizeof *b);
	if (!b || !(b->core = calloc(1, sizeof *b->core))) {
		err = bc_error(BC_ENOMEM, "out of memory");
		goto fail;
	}
	b->ranges_ok = -1;
	b->core->span_hook = span;
	b->core->hook_ctx = l;
	b->core->pid = pid;
	struct session_opts so = { l->exe, debug_file, NULL };
	if ((err = session_open(NULL, &so, &b->session)))
		goto fail;
	b->exe = b->session->exe;
	b->bias = base - (b->exe->nloads ? b->exe->loads[0].vaddr & ~(uint64_t)0xfff : 0);
	char src[64];
	snprintf(src, sizeof src, "pid %d", (int)pid);
	if (!(b->vm = vm_new("live", src))) {
		err = bc_error(BC_ENOMEM, "out of memory");
		goto fail;
	}
	if ((err = layout_resolve(b->exe->dw, &b->L)))
		goto fail;
	const struct layout *L = &b->L;
	if (!LHAS(L, G_ERTS_PROC)) {
		err = bc_error(BC_ENODEBUG, "%s has no 'erts_proc' in its DWARF: not a beam.smp?",
			       b->exe->debug_path);
		goto fail;
	}
	if (LHAS(L, G_OTP_RELEASE))
		beam_read_cstr(b, beam_global(b, G_OTP_RELEASE), b->vm->otp_release,
			       sizeof b->vm->otp_release);
	uint32_t v;
	if (LHAS(L, G_BEAMASM) && beam_read_u32(b, beam_global(b, G_BEAMASM), &v) == 0) {
		b->vm->have_jit = true;
		b->vm->jit = v != 0;
	}
	/* pids: OTP 26+ interleave the table index (procs.c decide_pid_layout) */
	uint64_t ptab = beam_global(b, G_ERTS_PROC);
	if (LHAS(L, PTAB_PIX_MASK) && LHAS(L, PTAB_PIX_CL_MASK) && LHAS(L, PTAB_PIX_CLI_MASK) &&
	    LHAS(L, PTAB_PIX_CL_SHIFT) && LHAS(L, PTAB_PIX_CLI_SHIFT) &&
	    beam_read_u64(b, ptab + LV(L, PTAB_PIX_MASK), &b->pix_mask) == 0 &&
	    beam_read_u64(b, ptab + LV(L, PTAB_PIX_CL_MASK), &b->pix_cl_mask) == 0 &&
	    beam_read_u64(b, ptab + LV(L, PTAB_PIX_CLI_MASK), &b->pix_cli_mask) == 0 &&
	    beam_read_u32(b, ptab + LV(L, PTAB_PIX_CL_SHIFT), &b->pix_cl_shift) == 0 &&
	    beam_read_u32(b, ptab + LV(L, PTAB_PIX_CLI_SHIFT), &b->pix_cli_shift) == 0)
		b->pid_wide = atoi(b->vm->otp_release) >= 26;

	/* native code: every mapping of the process, as perf reports them */
	l->cb = (Dwfl_Callbacks){ .find_elf = dwfl_linux_proc_find_elf,
				  .find_debuginfo = dwfl_standard_find_debuginfo,
				  .debuginfo_path = &debuginfo_path };
	if (!(l->dwfl = dwfl_begin(&l->cb))) {
		err = bc_error(BC_ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
		goto fail;
	}
	dwfl_report_begin(l->dwfl);
	if (dwfl_linux_proc_report(l->dwfl, pid) != 0) {
		err = bc_error(BC_EIO, "process %d: cannot read its mappings", (int)pid);
		goto fail;
	}
	dwfl_report_end(l->dwfl, NULL, NULL);
	slive_flush(l);
	*out = l;
	return NULL;
fail:
	slive_close(l);
	return err;
}

void slive_close(struct live *l)
{
	if (!l)
		return;
	if (l->b) {
		struct beam *b = l->b;
		vm_free(b->vm);
		free(b->atom_cache);
		beam_code_cache_free(b);
		session_close(b->session);
		free(b->core);
		free(b);
	}
	if (l->dwfl)
		dwfl_end(l->dwfl);
	free(l->cache);
	free(l);
}
