#include "session.h"
#include "core.h"
#include "linkmap.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the session knows of a module before libdwfl asks for its file: the
 * path the core recorded and the build-id the core holds (libdwfl's userdata). */
struct session_mod {
	struct session *s;
	const char *recorded;
	uint8_t build_id[64];
	int build_id_len;
	int is_exe;
	const uint8_t *image;  /* the vDSO: its ELF image in the core */
	size_t image_len;
	char *own;             /* recorded, when read from the core's memory (freed with it) */
};

/* A recorded path as a file name here: without the kernel's " (deleted)" (a
 * file replaced while the process ran), under the sysroot if asked. */
static int lookup_path(const char *sysroot, const char *recorded, char *buf, size_t len)
{
	size_t n = strlen(recorded);
	static const char deleted[] = " (deleted)";
	if (n > sizeof deleted - 1 && strcmp(recorded + n - (sizeof deleted - 1), deleted) == 0)
		n -= sizeof deleted - 1;
	size_t r = 0;
	if (sysroot) {
		r = strlen(sysroot);
		while (r > 0 && sysroot[r - 1] == '/')
			r--;
	}
	int w = snprintf(buf, len, "%.*s%.*s", (int)r, sysroot ? sysroot : "", (int)n, recorded);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* A regular ELF file whose build-id is want (any, when want_len is 0); the
 * open fd and its Elf, or -1. Never blocks on a FIFO. */
static int open_matching(const char *path, const uint8_t *want, int want_len, Elf **elfp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	Elf *elf = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	uint8_t id[64];
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    (want_len && (elf_build_id(elf, id) != want_len || memcmp(id, want, want_len) != 0))) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	*elfp = elf;
	return fd;
}

/* libdwfl asks for a module's file: the beam.smp already open; a library under
 * the sysroot, then where the core recorded it, if its build-id matches; then
 * /usr/lib/debug/.build-id and debuginfod by build-id. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct session_mod *m = *userdata;
	if (m && m->is_exe) {
		struct exe *x = m->s->exe;
		*elfp = elf_memory((char *)x->map, x->size);
		*file_name = strdup(x->path);
		return -1;
	}
	if (m && m->image) {
		*elfp = elf_memory((char *)m->image, m->image_len);
		return -1;
	}
	if (m) {
		char path[4096];
		const char *roots[2] = { m->s->o.sysroot, NULL };
		for (int i = m->s->o.sysroot ? 0 : 1; i < 2; i++) {
			if (lookup_path(roots[i], m->recorded, path, sizeof path) < 0)
				continue;
			int fd = open_matching(path, m->build_id, m->build_id_len, elfp);
			if (fd >= 0) {
				*file_name = strdup(path);
				return fd;
			}
		}
	}
	return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
}

/* The beam.smp's DWARF from --debug-file (its build-id checked before), else
 * the standard search: .gnu_debuglink beside the file, .build-id directories
 * (the sysroot's first), debuginfod when DEBUGINFOD_URLS is set. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct session_mod *m = *userdata;
	if (m && m->is_exe && m->s->o.debug_file) {
		int fd = open(m->s->o.debug_file, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			*debuginfo_file_name = strdup(m->s->o.debug_file);
		return fd;
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

/* Where the core mapped the executable: the NT_FILE entry holding AT_PHDR. */
static const struct core_file *exe_mapping(const struct core *c)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->at_phdr >= c->files[i].start && c->at_phdr < c->files[i].end)
			return &c->files[i];
	return NULL;
}

static int compute_bias(struct session *s)
{
	struct exe *x = s->exe;
	const struct core *c = s->core;
	size_t phnum = 0;
	elf_getphdrnum(x->elf, &phnum);
	if (c->at_phdr) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(x->elf, (int)i, &ph) && ph.p_type == PT_PHDR) {
				s->bias = c->at_phdr - ph.p_vaddr;
				return 0;
			}
		}
	}
	/* No PT_PHDR/AT_PHDR: the file mapping at offset 0 is the first PT_LOAD. */
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct core_file *f = &c->files[i];
		const char *base = strrchr(f->path, '/');
		const char *xb = strrchr(x->path, '/');
		if (f->pgoff == 0 && base && xb && strcmp(base, xb) == 0 && x->nloads) {
			s->bias = f->start - (x->loads[0].vaddr & ~(uint64_t)0xfff);
			return 0;
		}
	}
	return -1;
}

/* The executable: BEAM as given, else the recorded path (under the sysroot). */
static bc_err *open_exe(struct session *s)
{
	const struct session_opts *o = &s->o;
	char path[4096];
	if (o->exe_path || !s->core) {
		snprintf(path, sizeof path, "%s", o->exe_path ? o->exe_path : "");
	} else if (s->recorded_exe) {
		if (lookup_path(o->sysroot, s->recorded_exe, path, sizeof path) < 0)
			return bc_error(BC_EUSAGE, "the core's executable path is too long: pass the "
					"beam.smp: beamcore CORE BEAM");
		if (access(path, R_OK) != 0) {
			if (o->sysroot)
				return bc_error(BC_EUSAGE, "the core was made by %s, which is not under "
						"--sysroot %s (no %s): pass the matching beam.smp: "
						"beamcore CORE BEAM", s->recorded_exe, o->sysroot, path);
			return bc_error(BC_EUSAGE, "the core was made by %s, which is not readable here: "
					"pass the matching beam.smp: beamcore CORE BEAM (or --sysroot DIR)",
					s->recorded_exe);
		}
	} else {
		return bc_error(BC_EUSAGE, "the core records no executable path: pass the beam.smp: "
				"beamcore CORE BEAM");
	}
	return exe_open(path, &s->exe);
}

static int exe_phdr(const struct exe *x, uint32_t type, GElf_Phdr *out);

/* A core without the executable's first page (qemu's leaves out read-only
 * code, ELF header and build-id note with it): the executable checked by its
 * dynamic section instead, which the core holds (writable) and which names
 * this very build (its sizes, string table offsets, addresses). Each entry as
 * in the file, or relocated by the bias (the dynamic linker does that to some);
 * DT_DEBUG is the dynamic linker's. 1 the same, -1 entry *at differs, 0 unknown. */
static int same_dynamic(const struct session *s, size_t *at)
{
	const struct exe *x = s->exe;
	GElf_Phdr dyn;
	if (!exe_phdr(x, PT_DYNAMIC, &dyn) || dyn.p_offset > x->size || dyn.p_filesz > x->size - dyn.p_offset)
		return 0;
	size_t n = dyn.p_filesz / sizeof(Elf64_Dyn), same = 0;
	for (size_t i = 0; i < n; i++) {
		Elf64_Dyn f, c;
		memcpy(&f, x->map + dyn.p_offset + i * sizeof f, sizeof f);
		if (core_peek(s->core, dyn.p_vaddr + s->bias + i * sizeof c, &c, sizeof c) < 0)
			return 0;
		*at = i;
		if (c.d_tag != f.d_tag)
			return -1;
		if (f.d_tag == DT_NULL)
			break;
		if (f.d_tag != DT_DEBUG && c.d_un.d_val != f.d_un.d_val && c.d_un.d_val != f.d_un.d_val + s->bias)
			return -1;
		same++;
	}
	return same >= 8;  /* (a real beam.smp has some 30) */
}

/* Check the executable against the build-id the core holds; 0 if unknown. */
static bc_err *verify_exe(struct session *s, struct session_mod *m)
{
	struct exe *x = s->exe;
	GElf_Ehdr eh;
	if (gelf_getehdr(x->elf, &eh) && s->core->arch && eh.e_machine != s->core->arch->machine) {
		const char *mach = core_machine_name(eh.e_machine);
		return bc_error(BC_EMISMATCH, "%s is built for %s, but the core is of an %s process: "
				"pass the core's beam.smp", x->path, mach ? mach : "another machine",
				s->core->arch->name);
	}
	m->build_id_len = x->nloads ? core_image_build_id(s->core, s->bias +
				      (x->loads[0].vaddr & ~(uint64_t)0xfff), m->build_id) : 0;
	if (m->build_id_len && x->build_id_len &&
	    (m->build_id_len != x->build_id_len || memcmp(m->build_id, x->build_id, x->build_id_len))) {
		char want[129], have[129];
		build_id_hex(m->build_id, m->build_id_len, want);
		build_id_hex(x->build_id, x->build_id_len, have);
		return bc_error(BC_EMISMATCH, "%s (build-id %s) is not the beam.smp of this core "
				"(core records build-id %s%s%s)", x->path, have, want,
				s->recorded_exe ? ", path " : "", s->recorded_exe ? s->recorded_exe : "");
	}
	s->exe_verified = m->build_id_len != 0;
	size_t at = 0;
	int same = !m->build_id_len && s->core->arch ? same_dynamic(s, &at) : 0;
	if (same < 0)
		return bc_error(BC_EMISMATCH, "%s is not the beam.smp of this core (the core holds no "
				"build-id; its dynamic section differs from the file's at entry %zu%s%s)",
				x->path, at, s->recorded_exe ? ", path " : "",
				s->recorded_exe ? s->recorded_exe : "");
	s->exe_verified |= same > 0;
	if (!m->build_id_len) {  /* the file's own id, for libdwfl's checks */
		memcpy(m->build_id, x->build_id, x->build_id_len);
		m->build_id_len = x->build_id_len;
	}
	return NULL;
}

static Dwfl_Module *report_module(struct session *s, struct session_mod *m, const char *name,
				  uint64_t lo, uint64_t hi)
{
	Dwfl_Module *mod = dwfl_report_module(s->dwfl, name, lo, hi);
	if (!mod)
		return NULL;
	void **ud;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = m;
	if (m->build_id_len)
		dwfl_module_report_build_id(mod, m->build_id, m->build_id_len, 0);
	return mod;
}

static bc_err *report_exe(struct session *s)
{
	struct exe *x = s->exe;
	struct session_mod *m = &s->mods[s->nmods++];
	*m = (struct session_mod){ .s = s, .recorded = s->recorded_exe, .is_exe = 1 };
	if (s->core) {
		bc_err *err = verify_exe(s, m);
		if (err)
			return err;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < x->nloads; i++) {
		uint64_t align = x->loads[i].align ? x->loads[i].align : 1;
		if (i == 0)
			lo = x->loads[i].vaddr & -align;
		if (x->loads[i].vaddr + x->loads[i].memsz > hi)
			hi = x->loads[i].vaddr + x->loads[i].memsz;
	}
	if (!x->nloads)
		return bc_error(BC_EFORMAT, "%s: no loadable segments", x->path);
	const char *name = s->recorded_exe ? s->recorded_exe : x->path;
	s->exe_mod = report_module(s, m, name, lo + s->bias, hi + s->bias);
	if (!s->exe_mod)
		return bc_error(BC_EFORMAT, "%s: %s", x->path, dwfl_errmsg(-1));
	return NULL;
}

/* The core's other ELF file mappings (shared libraries): one module per file,
 * from its first mapping (file offset 0, where the core holds its ELF header
 * and build-id) to the end of its last adjacent mapping. */
static void report_libraries(struct session *s)
{
	const struct core *c = s->core;
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct core_file *f = &c->files[i];
		if (f->pgoff != 0 || f->path[0] != '/' || strncmp(f->path, "/memfd:", 7) == 0 ||
		    strncmp(f->path, "/dev/", 5) == 0 ||
		    (s->recorded_exe && strcmp(f->path, s->recorded_exe) == 0))
			continue;
		int seen = 0;
		for (size_t k = 0; k < s->nmods && !seen; k++)
			seen = s->mods[k].recorded && strcmp(s->mods[k].recorded, f->path) == 0;
		uint8_t magic[SELFMAG];
		if (seen || core_peek(c, f->start, magic, sizeof magic) < 0 ||
		    memcmp(magic, ELFMAG, SELFMAG) != 0)
			continue;  /* (kernel and gdb cores hold the first page of every ELF mapping) */
		uint64_t hi = f->end;
		for (size_t k = i + 1; k < c->nfiles && strcmp(c->files[k].path, f->path) == 0; k++)
			hi = c->files[k].end > hi ? c->files[k].end : hi;
		struct session_mod *m = &s->mods[s->nmods++];
		*m = (struct session_mod){ .s = s, .recorded = f->path };
		m->build_id_len = core_image_build_id(c, f->start, m->build_id);
		if (!report_module(s, m, f->path, f->start, hi))
			s->nmods--;  /* overlaps another: left out */
	}
}

/* The vDSO (clock_gettime & co): no file, but its whole ELF image is in the
 * core at AT_SYSINFO_EHDR (kernel cores and gcore always dump it). */
static void report_vdso(struct session *s)
{
	const struct core *c = s->core;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[16];
	if (!c->at_vdso || core_peek(c, c->at_vdso, &eh, sizeof eh) < 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phnum > 16 ||
	    eh.e_phentsize != sizeof ph[0] ||
	    core_peek(c, c->at_vdso + eh.e_phoff, ph, eh.e_phnum * sizeof ph[0]) < 0)
		return;
	uint64_t len = 0;
	for (int i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > len)
			len = ph[i].p_offset + ph[i].p_filesz;
	if (eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > len)
		len = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	len = (len + 0xfff) & ~(uint64_t)0xfff;
	const uint8_t *image = len && len <= (1u << 20) ? core_ptr(c, c->at_vdso, len) : NULL;
	if (!image)
		return;
	struct session_mod *m = &s->mods[s->nmods++];
	*m = (struct session_mod){ .s = s, .recorded = "[vdso]", .image = image, .image_len = len };
	m->build_id_len = core_image_build_id(c, c->at_vdso, m->build_id);
	if (!report_module(s, m, "[vdso]", c->at_vdso, c->at_vdso + len))
		s->nmods--;
}

/* A C string of the core's memory, malloc'ed, or NULL. */
static char *core_cstr(const struct core *c, uint64_t addr)
{
	char buf[4096];
	size_t n = 0;
	while (addr && n < sizeof buf && core_peek(c, addr + n, &buf[n], 1) == 0 && buf[n])
		n++;
	return n && n < sizeof buf && buf[n] == '\0' ? strndup(buf, n) : NULL;
}

/* The executable's program header of type, or 0. */
static int exe_phdr(const struct exe *x, uint32_t type, GElf_Phdr *out)
{
	size_t phnum = 0;
	elf_getphdrnum(x->elf, &phnum);
	for (size_t i = 0; i < phnum; i++)
		if (gelf_getphdr(x->elf, (int)i, out) && out->p_type == type)
			return 1;
	return 0;
}

/* One object of the dynamic linker's list as a module: its file (under the
 * sysroot first), checked against the list's l_ld (its _DYNAMIC where the
 * process had it), its extent from its own program headers. */
static void report_linked(struct session *s, const struct core_link *l, char *name)
{
	char path[4096];
	const char *roots[2] = { s->o.sysroot, NULL };
	Elf *elf = NULL;
	int fd = -1;
	for (int i = s->o.sysroot ? 0 : 1; i < 2 && fd < 0; i++)
		if (lookup_path(roots[i], name, path, sizeof path) == 0)
			fd = open_matching(path, NULL, 0, &elf);
	uint64_t lo = UINT64_MAX, hi = 0, dyn = UINT64_MAX;
	size_t phnum = 0;
	if (fd >= 0)
		elf_getphdrnum(elf, &phnum);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_DYNAMIC)
			dyn = ph.p_vaddr;
		if (ph.p_type != PT_LOAD)
			continue;
		uint64_t align = ph.p_align ? ph.p_align : 1;
		lo = (ph.p_vaddr & -align) < lo ? ph.p_vaddr & -align : lo;
		hi = ph.p_vaddr + ph.p_memsz > hi ? ph.p_vaddr + ph.p_memsz : hi;
	}
	struct session_mod *m = &s->mods[s->nmods];
	*m = (struct session_mod){ .s = s, .recorded = name, .own = name };
	if (elf)
		m->build_id_len = elf_build_id(elf, m->build_id);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	/* not found, or not the file the process loaded: left out (no frames named in it) */
	if (lo >= hi || dyn == UINT64_MAX || l->l_addr + dyn != l->l_ld ||
	    !report_module(s, m, name, l->l_addr + lo, l->l_addr + hi)) {
		free(name);
		return;
	}
	s->nmods++;
}

/* A core with no file mappings (qemu-user's): the shared libraries from the
 * dynamic linker's list in the core's memory. The dynamic linker's own name is
 * the executable's PT_INTERP (its l_name points into the executable's text,
 * which such a core leaves out). */
static void report_link_map(struct session *s, struct core_link *links, size_t n)
{
	GElf_Phdr interp;
	for (size_t i = 1; i < n; i++) {  /* [0]: the executable */
		char *name = core_cstr(s->core, links[i].l_name);
		if (!name && links[i].l_addr == s->core->at_base && exe_phdr(s->exe, PT_INTERP, &interp) &&
		    interp.p_offset < s->exe->size && interp.p_filesz <= s->exe->size - interp.p_offset)
			name = strndup((const char *)s->exe->map + interp.p_offset, interp.p_filesz);
		if (name && name[0] == '/')
			report_linked(s, &links[i], name);
		else
			free(name);
	}
}

/* --debug-file's build-id, checked when the session opens (before any
 * cache makes its DWARF unneeded), to say what is wrong. */
static bc_err *check_debug_file(struct session *s)
{
	struct exe *x = s->exe;
	const char *dbg = s->o.debug_file;
	if (!dbg)
		return NULL;
	Elf *elf = NULL;
	int fd = open_matching(dbg, NULL, 0, &elf);
	if (fd < 0)
		return bc_error(BC_EIO, "--debug-file %s: %s", dbg,
				errno ? strerror(errno) : "not an ELF file");
	uint8_t id[64];
	int n = elf_build_id(elf, id);
	elf_end(elf);
	close(fd);
	if (n && x->build_id_len && (n != x->build_id_len || memcmp(id, x->build_id, n))) {
		char a[129], b[129];
		build_id_hex(id, n, a);
		build_id_hex(x->build_id, x->build_id_len, b);
		return bc_error(BC_EMISMATCH, "--debug-file %s has build-id %s, but %s has %s",
				dbg, a, x->path, b);
	}
	return NULL;
}

bc_err *session_dwarf(struct session *s)
{
	struct exe *x = s->exe;
	if (s->dwarf_looked)
		return NULL;
	s->dwarf_looked = 1;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(s->exe_mod, &bias);
	if (dw) {
		const char *debugfile = NULL;
		dwfl_module_info(s->exe_mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
		x->dw = dw;
		x->debug_path = strdup(debugfile ? debugfile : x->path);
		return x->debug_path ? NULL : bc_error(BC_ENOMEM, "out of memory");
	}
	if (s->o.debug_file)
		return bc_error(BC_ENODEBUG, "--debug-file %s: no DWARF in it", s->o.debug_file);
	char hex[129];
	build_id_hex(x->build_id, x->build_id_len, hex);
	/* a stripped beam.smp is read through a layout pack (beam.c): the
	 * reason there is no DWARF is kept to say when no pack fits either */
	s->no_dwarf = bc_error(BC_ENODEBUG,
			       "%s is stripped and no debug info was found for build-id %s: "
			       "install the matching -dbgsym package (e.g. erlang-base-dbgsym, "
			       "into /usr/lib/debug/.build-id/), pass --debug-file FILE, "
			       "or set DEBUGINFOD_URLS", x->path, hex[0] ? hex : "(none)");
	return NULL;
}

bc_err *session_open(const struct core *core, const struct session_opts *o, struct session **out)
{
	*out = NULL;
	struct session *s = calloc(1, sizeof *s);
	if (!s)
		return bc_error(BC_ENOMEM, "out of memory");
	s->core = core;
	s->o.exe_path = o->exe_path ? strdup(o->exe_path) : NULL;
	s->o.debug_file = o->debug_file ? strdup(o->debug_file) : NULL;
	s->o.sysroot = o->sysroot ? strdup(o->sysroot) : NULL;
	bc_err *err = NULL;
	s->mods = calloc((core ? core->nfiles : 0) + 2, sizeof *s->mods);  /* + exe, vDSO */
	/* .build-id and .debug directories: the sysroot's before this machine's */
	const char *root = o->sysroot ? o->sysroot : "";
	size_t plen = strlen(root) + 64;
	s->debuginfo_path = malloc(plen);
	if (!s->mods || !s->debuginfo_path || (o->exe_path && !s->o.exe_path) ||
	    (o->debug_file && !s->o.debug_file) || (o->sysroot && !s->o.sysroot)) {
		err = bc_error(BC_ENOMEM, "out of memory");
		goto fail;
	}
	if (o->sysroot)
		snprintf(s->debuginfo_path, plen, ":.debug:%s/usr/lib/debug:/usr/lib/debug", root);
	else
		snprintf(s->debuginfo_path, plen, ":.debug:/usr/lib/debug");
	s->cb = (Dwfl_Callbacks){ .find_elf = find_elf, .find_debuginfo = find_debuginfo,
				  .debuginfo_path = &s->debuginfo_path };
	if (core && core->nfiles) {
		const struct core_file *m = exe_mapping(core);
		s->recorded_exe = m ? m->path : NULL;
	} else if (core) {  /* no NT_FILE: the path it was executed by (AT_EXECFN) */
		s->recorded_exe = s->execfn = core_cstr(core, core->at_execfn);
	}
	if ((err = open_exe(s)))
		goto fail;
	if (core && compute_bias(s) < 0) {
		err = bc_error(BC_EMISMATCH, "cannot find where %s was loaded in the core "
			       "(no AT_PHDR, no file mapping): is it the core's executable?",
			       s->exe->path);
		goto fail;
	}
	s->dwfl = dwfl_begin(&s->cb);
	if (!s->dwfl) {
		err = bc_error(BC_ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
		goto fail;
	}
	struct core_link *links = NULL;
	size_t nlinks = 0;
	GElf_Phdr dyn;
	if (core && !core->nfiles && exe_phdr(s->exe, PT_DYNAMIC, &dyn)) {
		/* no file mappings: the libraries the dynamic linker lists (none if unreadable) */
		bc_err *e = core_link_map(core, dyn.p_vaddr + s->bias, &links, &nlinks);
		bc_err_free(e);
		struct session_mod *more = calloc(nlinks + 2, sizeof *more);
		if (!more) {
			free(links);
			err = bc_error(BC_ENOMEM, "out of memory");
			goto fail;
		}
		free(s->mods);
		s->mods = more;
	}
	dwfl_report_begin(s->dwfl);
	if ((err = report_exe(s))) {
		free(links);
		goto fail;
	}
	if (core) {
		report_libraries(s);
		report_link_map(s, links, nlinks);
		report_vdso(s);
	}
	free(links);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if ((err = check_debug_file(s)) || (!o->defer_dwarf && (err = session_dwarf(s))))
		goto fail;
	*out = s;
	return NULL;
fail:
	session_close(s);
	return err;
}

/* The core's threads for libdwfl's unwinder through our own callbacks: a
 * stopped live process (dwfl_linux_proc_attach asserts when a thread dies
 * mid-unwind: elfutils 0.188 leaves tid_attached set when setting its
 * registers fails), and a core whose return addresses carry pointer
 * authentication bits (aarch64: libdwfl 0.188 strips none, and qemu's core has
 * no NT_ARM_PAC_MASK). Registers from the thread's note (or ptrace), in the
 * arch table's DWARF order; memory through the core. */
struct unwind_thread {
	const struct core *c;
	const struct core_thread *t;
};

static pid_t own_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct session *s = arg;
	const struct unwind_thread *last = *thread_argp;  /* the thread's own arg too */
	size_t i = last ? (size_t)(last - s->unwind_threads) + 1 : 0;
	(void)dwfl;
	if (i >= s->core->nthreads)
		return 0;
	*thread_argp = &s->unwind_threads[i];
	return s->core->threads[i].tid;
}

/* A return address signed by pointer authentication: its bits above the
 * 48-bit address space dropped, when what is left is code. */
static uint64_t unsigned_ra(const struct core *c, uint64_t v)
{
	if (!c->arch->signed_ra || !(v >> 48))
		return v;
	const struct core_seg *g = core_seg_at(c, v & 0xffffffffffffull);
	return g && (g->flags & PF_X) ? v & 0xffffffffffffull : v;
}

static bool own_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct session *s = arg;
	(void)dwfl;
	if (core_peek(s->core, addr, result, sizeof *result) != 0)
		return false;
	*result = unsigned_ra(s->core, *result);  /* (saved registers are what it reads) */
	return true;
}

static bool own_set_registers(Dwfl_Thread *thread, void *thread_arg)
{
	const struct unwind_thread *u = thread_arg;
	const struct core_arch *a = u->c->arch;
	if (!u->t->pc || !a->ndwarf)  /* registers not read */
		return false;
	Dwarf_Word w[64];
	for (int i = 0; i < a->ndwarf; i++)
		w[i] = unsigned_ra(u->c, core_thread_reg(u->c, u->t, a->dwarf[i]));
	if (!dwfl_thread_state_registers(thread, 0, a->ndwarf, w))
		return false;
	dwfl_thread_state_register_pc(thread, u->t->pc);
	return true;
}

int session_attach(struct session *s)
{
	static const Dwfl_Thread_Callbacks cb = { own_next_thread, NULL, own_memory_read,
						  own_set_registers, NULL, NULL };
	if (s->attached)
		return s->attached > 0 ? 0 : -1;
	s->attached = -1;
	if (!s->core || (s->core->live && !s->core->live_frozen))
		return -1;
	if (s->core->live || s->core->arch->signed_ra) {
		s->unwind_threads = calloc(s->core->nthreads ? s->core->nthreads : 1,
					   sizeof *s->unwind_threads);
		if (!s->unwind_threads)
			return -1;
		for (size_t i = 0; i < s->core->nthreads; i++)
			s->unwind_threads[i] = (struct unwind_thread){ s->core, &s->core->threads[i] };
		s->attached = 0;
		return session_attach_with(s, s->core->live ? s->core->live_pid : s->core->pid, &cb, s);
	}
	s->core_elf = elf_memory((char *)s->core->map, s->core->size);
	if (s->core_elf && dwfl_core_file_attach(s->dwfl, s->core_elf) >= 0)
		s->attached = 1;
	return s->attached > 0 ? 0 : -1;
}

int session_attach_with(struct session *s, pid_t pid, const Dwfl_Thread_Callbacks *cb, void *arg)
{
	if (s->attached)
		return s->attached > 0 ? 0 : -1;
	s->attached = dwfl_attach_state(s->dwfl, s->exe->elf, pid, cb, arg) ? 1 : -1;
	return s->attached > 0 ? 0 : -1;
}

struct sym_find {
	const char *module, *symbol;
	void *out;
	size_t len;
	int found;
};

static int read_sym(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	(void)ud, (void)name, (void)start;
	struct sym_find *f = arg;
	const char *base = session_module_name(m);
	if (!base || strcmp(base, f->module) != 0)
		return DWARF_CB_OK;
	int n = dwfl_module_getsymtab(m);
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sn = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
		if (!sn || strcmp(sn, f->symbol) != 0 || sym.st_size < f->len)
			continue;
		/* its bytes from the module's own file, by the section that holds
		 * the address (the symbol may come from a debug file, where the
		 * section has no bytes; dwfl_module_address_section would load all
		 * of that file's DWARF, ~30 ms for libc's, for a few bytes) */
		Dwarf_Addr bias;
		Elf *elf = dwfl_module_getelf(m, &bias);
		Elf_Scn *scn = NULL;
		while (elf && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
			    sh.sh_type == SHT_NOBITS || addr < sh.sh_addr + bias ||
			    addr - (sh.sh_addr + bias) >= sh.sh_size)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			uint64_t off = addr - (sh.sh_addr + bias);
			if (d && d->d_buf && off <= d->d_size && f->len <= d->d_size - off) {
				memcpy(f->out, (const char *)d->d_buf + off, f->len);
				f->found = 1;
			}
			break;
		}
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_ABORT;
}

int session_symbol_bytes(struct session *s, const char *module, const char *symbol, void *out, size_t len)
{
	struct sym_find f = { module, symbol, out, len, 0 };
	dwfl_getmodules(s->dwfl, read_sym, &f, 0);
	return f.found ? 0 : -1;
}

const char *session_module_name(Dwfl_Module *m)
{
	const char *name = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!name)
		return NULL;
	const char *base = strrchr(name, '/');
	return base ? base + 1 : name;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	if (s->core_elf)
		elf_end(s->core_elf);
	exe_close(s->exe);
	bc_err_free(s->no_dwarf);
	for (size_t i = 0; s->mods && i < s->nmods; i++)
		free(s->mods[i].own);
	free(s->mods);
	free(s->execfn);
	free(s->unwind_threads);
	free(s->debuginfo_path);
	free((char *)s->o.exe_path);
	free((char *)s->o.debug_file);
	free((char *)s->o.sysroot);
	free(s);
}
