#include "beam/beam.h"

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

/* Where the core mapped the executable: the NT_FILE entry holding AT_PHDR. */
static const struct core_file *exe_mapping(const struct core *c)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->at_phdr >= c->files[i].start && c->at_phdr < c->files[i].end)
			return &c->files[i];
	return NULL;
}

static int compute_bias(struct beam *b)
{
	struct exe *x = b->exe;
	size_t phnum = 0;
	elf_getphdrnum(x->elf, &phnum);
	if (b->core->at_phdr) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(x->elf, (int)i, &ph) && ph.p_type == PT_PHDR) {
				b->bias = b->core->at_phdr - ph.p_vaddr;
				return 0;
			}
		}
	}
	/* No PT_PHDR/AT_PHDR: the file mapping at offset 0 is the first PT_LOAD. */
	for (size_t i = 0; i < b->core->nfiles; i++) {
		const struct core_file *f = &b->core->files[i];
		const char *base = strrchr(f->path, '/');
		const char *xb = strrchr(x->path, '/');
		if (f->pgoff == 0 && base && xb && strcmp(base, xb) == 0 && x->nloads) {
			b->bias = f->start - (x->loads[0].vaddr & ~(uint64_t)0xfff);
			return 0;
		}
	}
	return -1;
}

/* The build-id the core recorded: beam.smp's ELF header and notes in the first
 * page, which the default coredump_filter keeps. */
static int core_build_id(struct beam *b, uint8_t id[64])
{
	if (!b->exe->nloads)
		return 0;
	uint64_t base = b->bias + (b->exe->loads[0].vaddr & ~(uint64_t)0xfff);
	Elf64_Ehdr eh;
	if (core_peek(b->core, base, &eh, sizeof eh) < 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phnum > 64)
		return 0;
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (core_peek(b->core, base + eh.e_phoff + (uint64_t)i * sizeof ph, &ph, sizeof ph) < 0)
			return 0;
		if (ph.p_type != PT_NOTE || ph.p_filesz > 4096)
			continue;
		uint8_t notes[4096];
		if (core_peek(b->core, b->bias + ph.p_vaddr, notes, ph.p_filesz) < 0)
			continue;
		int n = build_id_from_notes(notes, ph.p_filesz, id);
		if (n)
			return n;
	}
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
	bc_err *err = core_open(o->core_path, &b->core);
	if (err)
		goto fail;

	char exe_path[4096];
	const struct core_file *m = exe_mapping(b->core);
	if (o->exe_path) {
		snprintf(exe_path, sizeof exe_path, "%s", o->exe_path);
	} else if (m) {
		snprintf(exe_path, sizeof exe_path, "%s", m->path);
		if (access(exe_path, R_OK) != 0) {
			err = bc_error(BC_EUSAGE, "the core was made by %s, which is not readable here: "
				       "pass the matching beam.smp: beamcore CORE BEAM", exe_path);
			goto fail;
		}
	} else {
		err = bc_error(BC_EUSAGE, "%s records no executable path: pass the beam.smp: "
			       "beamcore CORE BEAM", o->core_path);
		goto fail;
	}
	if ((err = exe_open(exe_path, &b->exe)))
		goto fail;
	if (compute_bias(b) < 0) {
		err = bc_error(BC_EMISMATCH, "cannot find where %s was loaded in the core "
			       "(no AT_PHDR, no file mapping): is it the core's executable?", exe_path);
		goto fail;
	}

	b->vm = vm_new("core", o->core_path);
	if (!b->vm) {
		err = bc_error(BC_ENOMEM, "out of memory");
		goto fail;
	}
	snprintf(b->vm->exe, sizeof b->vm->exe, "%s", exe_path);
	build_id_hex(b->exe->build_id, b->exe->build_id_len, b->vm->build_id);

	/* Verify the executable before any file bytes can stand in for core memory. */
	uint8_t cid[64];
	int cn = core_build_id(b, cid);
	if (cn && b->exe->build_id_len &&
	    (cn != b->exe->build_id_len || memcmp(cid, b->exe->build_id, cn) != 0)) {
		char want[129];
		build_id_hex(cid, cn, want);
		err = bc_error(BC_EMISMATCH, "%s (build-id %s) is not the beam.smp of this core "
			       "(core records build-id %s%s%s)", exe_path, b->vm->build_id, want,
			       m ? ", path " : "", m ? m->path : "");
		goto fail;
	}
	if (!cn)
		vm_gap(b->vm, "the core does not hold beam.smp's build-id: %s was not verified "
		       "against it", exe_path);

	if ((err = exe_find_dwarf(b->exe, o->debug_file)))
		goto fail;
	snprintf(b->vm->debug_file, sizeof b->vm->debug_file, "%s", b->exe->debug_path);
	if ((err = layout_resolve(b->exe->dw, &b->L)))
		goto fail;

	/* .rodata and .text are not in a default core: serve them from the file. */
	for (int i = 0; i < b->exe->nloads; i++) {
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
	b->vm->sigaddr = b->core->sigaddr;
	/* gcore stops the process with ptrace: SIGSTOP is a snapshot, not a death */
	if (b->vm->signo == SIGSTOP)
		b->vm->signo = 0;
	read_vm_facts(b);
	beam_enable_detail(b);
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

void beam_close(struct beam *b)
{
	if (!b)
		return;
	vm_free(b->vm);
	free(b->atom_cache);
	beam_code_cache_free(b);
	exe_close(b->exe);
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
	uint64_t seg, atom, name;
	int16_t len;
	if (beam_read_u64(b, b->atom_seg_table + (ix >> 10) * 8, &seg) < 0 ||
	    beam_read_u64(b, seg + (ix & 0x3ff) * 8, &atom) < 0 ||
	    core_peek(b->core, atom + LV(&b->L, ATOM_LEN), &len, 2) < 0 ||
	    beam_read_u64(b, atom + LV(&b->L, ATOM_NAME), &name) < 0 || len < 0)
		return NULL;
	char buf[1024];
	if (len >= (int16_t)sizeof buf || core_peek(b->core, name, buf, len) < 0)
		return NULL;
	b->atom_cache[ix] = vm_intern(b->vm, buf, len);
	return b->atom_cache[ix];
}
