#include "beam.h"
#include "monlnk.h"

#include <elf.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int beam_read_u64(const struct beam *b, uint64_t addr, uint64_t *v)
{
	return core_peek(b->core, addr, v, 8);
}

int beam_read_u32(const struct beam *b, uint64_t addr, uint32_t *v)
{
	return core_peek(b->core, addr, v, 4);
}

int beam_read_field(const struct beam *b, uint64_t base, enum layout_id id, uint64_t *v)
{
	uint64_t n = b->L.e[id].size;
	*v = 0;
	if (n < 1 || n > 8)
		return -1;
	return core_peek(b->core, base + LV(&b->L, id), v, n);
}

int beam_read_cstr(const struct beam *b, uint64_t addr, char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (core_peek(b->core, addr + i, &buf[i], 1) < 0)
			return -1;
		if (!buf[i])
			return 0;
	}
	buf[len - 1] = '\0';
	return 0;
}

static void read_const_string(struct beam *b, enum layout_id id, char *buf, size_t len)
{
	if (!LHAS(&b->L, id) || beam_read_cstr(b, beam_global(b, id), buf, len) < 0)
		buf[0] = '\0';
}

/* Node name, schedulers, atom count and limit: what erlang:system_info/1 says. */
static void read_vm_facts(struct beam *b)
{
	const struct layout *L = &b->L;
	uint64_t node, name, n;
	uint32_t v;
	if (LHAS(L, G_THIS_NODE) && LHAS(L, NODE_SYSNAME) &&
	    beam_read_u64(b, beam_global(b, G_THIS_NODE), &node) == 0 &&
	    beam_read_u64(b, node + LV(L, NODE_SYSNAME), &name) == 0)
		b->vm->node = beam_atom(b, name);
	if (LHAS(L, G_NO_SCHEDULERS) && beam_read_u64(b, beam_global(b, G_NO_SCHEDULERS), &n) == 0)
		b->vm->schedulers = (uint32_t)n;
	if (LHAS(L, G_ATOM_TABLE) && LHAS(L, IT_ENTRIES) && LHAS(L, IT_LIMIT)) {
		uint64_t t = beam_global(b, G_ATOM_TABLE);
		if (beam_read_u32(b, t + LV(L, IT_ENTRIES), &v) == 0)
			b->vm->atom_count = v;
		if (beam_read_u32(b, t + LV(L, IT_LIMIT), &v) == 0)
			b->vm->atom_limit = v;
	}
}

bc_err *beam_open(const struct beam_open_opts *o, struct beam **out)
{
	*out = NULL;
	struct beam *b = calloc(1, sizeof *b);
	if (!b)
		return bc_error(BC_ENOMEM, "out of memory");
	b->ranges_ok = -1;
	char exe[4096], source[64];
	const char *exe_path = o->exe_path;
	bc_err *err = NULL;
	if (!o->core_path) {  /* a live process: its executable, before stopping it */
		if ((err = core_live_exe(o->pid, exe, sizeof exe)))
			goto fail;
		const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		if (strncmp(base, "beam.", 5) != 0) {
			err = bc_error(BC_EFORMAT, "PID %d is %s, not beam.smp: give the pid of the node's "
				       "beam.smp (pgrep -f beam.smp)", o->pid, exe);
			goto fail;
		}
		if (!exe_path) {  /* the file as it runs, even if replaced since */
			char path[64];
			snprintf(path, sizeof path, "/proc/%d/exe", o->pid);
			exe_path = access(exe, R_OK) == 0 ? exe : path;
		}
		snprintf(source, sizeof source, "PID %d", o->pid);
		err = core_open_live(o->pid, 0, &b->core);  /* stopped below, once DWARF is read */
	} else {
		err = core_open(o->core_path, &b->core);
	}
	if (err)
		goto fail;

	struct session_opts so = { exe_path, o->debug_file, o->sysroot };
	if ((err = session_open(b->core, &so, &b->session)))
		goto fail;
	b->exe = b->session->exe;
	b->bias = b->session->bias;
	b->vm = o->core_path ? vm_new("core", o->core_path) : vm_new("live", NULL);
	if (b->vm && !o->core_path)
		b->vm->source = vm_intern(b->vm, source, strlen(source));
	if (!b->vm) {
		err = bc_error(BC_ENOMEM, "out of memory");
		goto fail;
	}
	snprintf(b->vm->exe, sizeof b->vm->exe, "%s", b->exe->path);
	build_id_hex(b->exe->build_id, b->exe->build_id_len, b->vm->build_id);
	if (!b->session->exe_verified)
		vm_gap(b->vm, "the core does not hold beam.smp's build-id: %s was not verified "
		       "against it", b->exe->path);
	snprintf(b->vm->debug_file, sizeof b->vm->debug_file, "%s", b->exe->debug_path);
	if ((err = layout_resolve(b->exe->dw, &b->L)))
		goto fail;
	b->ml_bad = ml_layout(b);  /* which release's link/monitor layout (monlnk.c) */

	/* a live node is stopped only now: the DWARF session and the offset table
	 * (tens of ms) need no stop; every byte read so far is read again */
	if (b->core->live && !o->no_stop && (err = core_live_stop(b->core)))
		goto fail;
	if (b->core->live) {
		b->vm->live_pid = o->pid;
		b->vm->racy = !b->core->live_stopped;
		b->vm->stopped_ms = -1;
	}
	/* .rodata and .text are not in a default core: serve them from the file. */
	for (int i = 0; i < b->exe->nloads && !b->core->live; i++) {
		const struct exe_load *l = &b->exe->loads[i];
		if (!(l->flags & PF_W) &&
		    core_add_file_backing(b->core, l->vaddr + b->bias, b->exe->map + l->off, l->filesz) < 0) {
			err = bc_error(BC_ENOMEM, "out of memory");
			goto fail;
		}
	}

	if (b->core->truncated)
		vm_gap(b->vm, "the core file is truncated: memory past byte %zu is missing",
		       b->core->size);
	read_const_string(b, G_OTP_RELEASE, b->vm->otp_release, sizeof b->vm->otp_release);
	read_const_string(b, G_ERTS_VERSION, b->vm->erts_version, sizeof b->vm->erts_version);
	uint32_t v;
	if (LHAS(&b->L, G_BEAMASM) && beam_read_u32(b, beam_global(b, G_BEAMASM), &v) == 0) {
		b->vm->have_jit = true;
		b->vm->jit = v != 0;
	}
	b->vm->signo = b->core->signo ? b->core->signo
		       : b->core->nthreads ? b->core->threads[0].cursig : 0;
	b->vm->sigcode = b->core->sigcode;
	/* abort() signals its own process: only another sender is news */
	if (b->core->sigpid > 0 && b->core->sigpid != b->core->pid)
		b->vm->sigsender = b->core->sigpid;
	b->vm->sigaddr = b->core->sigaddr;
	/* gcore stops the process with ptrace: SIGSTOP is a snapshot, not a death */
	if (b->vm->signo == SIGSTOP)
		b->vm->signo = b->vm->sigsender = 0;
	read_vm_facts(b);
	beam_enable_detail(b);
	beam_enable_dump(b);
	if (!LHAS(&b->L, G_ERTS_PROC)) {
		err = bc_error(BC_ENODEBUG, "%s has no 'erts_proc' in its DWARF: not a beam.smp?",
			       b->exe->debug_path);
		goto fail;
	}
	*out = b;
	return NULL;
fail:
	beam_close(b);
	return err;
}

void beam_release(struct beam *b)
{
	double ms = b->core->live ? core_live_release(b->core) : -1;
	if (ms >= 0)
		b->vm->stopped_ms = ms;
}

void beam_close(struct beam *b)
{
	if (!b)
		return;
	vm_free(b->vm);
	free(b->atom_cache);
	beam_ident_free(b);
	beam_code_cache_free(b);
	session_close(b->session);
	core_close(b->core);
	free(b);
}

/* Atom index -> name through erts_atom_table's segments (index.h). */
const char *beam_atom(struct beam *b, uint64_t term)
{
	if ((term & 0x3f) != 0x0b)
		return NULL;
	uint64_t ix = term >> 6;
	if (!b->atom_cache) {
		static const enum layout_id need[] = { G_ATOM_TABLE, IT_ENTRIES, IT_SEG_TABLE,
						       ATOM_LEN, ATOM_NAME };
		bc_err *e = layout_need(&b->L, need, sizeof need / sizeof need[0]);
		if (e) {
			bc_err_free(e);
			return NULL;
		}
		uint64_t t = beam_global(b, G_ATOM_TABLE);
		uint32_t entries;
		if (beam_read_u32(b, t + LV(&b->L, IT_ENTRIES), &entries) < 0 ||
		    beam_read_u64(b, t + LV(&b->L, IT_SEG_TABLE), &b->atom_seg_table) < 0 ||
		    entries > (1u << 30))
			return NULL;
		b->atom_entries = entries;
		b->atom_cache = calloc(entries ? entries : 1, sizeof *b->atom_cache);
		if (!b->atom_cache)
			return NULL;
	}
	if ((int64_t)ix >= b->atom_entries)
		return NULL;
	if (b->atom_cache[ix])
		return b->atom_cache[ix];
	uint64_t seg, atom, name, blen;
	int16_t len;
	if (beam_read_u64(b, b->atom_seg_table + (ix >> 10) * 8, &seg) < 0 ||
	    beam_read_u64(b, seg + (ix & 0x3ff) * 8, &atom) < 0 ||
	    core_peek(b->core, atom + LV(&b->L, ATOM_LEN), &len, 2) < 0 ||
	    beam_read_u64(b, atom + LV(&b->L, ATOM_NAME), &name) < 0 || len < 0)
		return NULL;
	/* OTP 29 keeps the name in a binary: the union's other reading */
	if (LHAS(&b->L, ATOM_BIN) &&
	    (beam_bits_bytes(b, name, &name, &blen) < 0 || blen != (uint64_t)len))
		return NULL;
	char buf[1024];
	if (len >= (int16_t)sizeof buf || core_peek(b->core, name, buf, len) < 0)
		return NULL;
	b->atom_cache[ix] = vm_intern(b->vm, buf, len);
	return b->atom_cache[ix];
}

unsigned beam_schedulers(struct beam *b, unsigned kinds,
			 int (*fn)(struct beam *b, const struct beam_sched *s, void *arg), void *arg)
{
	static const struct {
		unsigned kind;
		enum layout_id data, count;
		const char *role;
	} k[] = {
		{ BS_NORMAL, G_SCHED_DATA, G_NO_SCHEDULERS, "scheduler" },
		{ BS_DIRTY_CPU, G_DIRTY_CPU_SCHED_DATA, G_NO_DIRTY_CPU, "dirty cpu scheduler" },
		{ BS_DIRTY_IO, G_DIRTY_IO_SCHED_DATA, G_NO_DIRTY_IO, "dirty io scheduler" },
	};
	const struct layout *L = &b->L;
	unsigned skipped = 0;
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		if (!(kinds & k[i].kind))
			continue;
		uint64_t arr, n;
		if (!LHAS(L, S_ALIGNED_SCHED_DATA) || !LHAS(L, k[i].data) || !LHAS(L, k[i].count) ||
		    beam_read_u64(b, beam_global(b, k[i].data), &arr) < 0 ||
		    beam_read_u64(b, beam_global(b, k[i].count), &n) < 0 || !arr || n > 4096) {
			skipped |= k[i].kind;
			continue;
		}
		for (uint64_t s = 0; s < n; s++) {
			struct beam_sched sd = { k[i].kind, k[i].role, s + 1,
						 arr + s * LV(L, S_ALIGNED_SCHED_DATA) };
			if (fn(b, &sd, arg))
				return skipped;
		}
	}
	return skipped;
}
