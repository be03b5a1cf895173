/* What the dump says about the node as a whole: the header (slogan, system
 * version, atoms, the thread that wrote it), the node name, the atom table's
 * limit, the schedulers and what they were running (the culprit of a death). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "loads.h"
#include "text.h"

/* "Erlang/OTP 27 [erts-15.2.7] [source] [64-bit] ... [jit:ns]" */
static void system_version(struct vm *vm, const char *v, const char *end)
{
	const char *p = v;
	if (end - p > 11 && memcmp(p, "Erlang/OTP ", 11) == 0) {
		p += 11;
		size_t n = 0;
		while (p + n < end && p[n] != ' ' && n + 1 < sizeof vm->otp_release)
			n++;
		memcpy(vm->otp_release, p, n);
		vm->otp_release[n] = '\0';
	}
	const char *e = memmem(v, (size_t)(end - v), "[erts-", 6);
	if (e) {
		e += 6;
		size_t n = 0;
		while (e + n < end && e[n] != ']' && n + 1 < sizeof vm->erts_version)
			n++;
		memcpy(vm->erts_version, e, n);
		vm->erts_version[n] = '\0';
	}
	vm->jit = memmem(v, (size_t)(end - v), "[jit", 4) != NULL;
	vm->have_jit = true;  /* the string names the JIT when there is one */
}

/* The line after "=erl_crash_dump:0.5": the node's ctime(), "Mon Nov 23
 * 12:15:24 2026", in its local time zone (taken as ours: the usual case of a
 * dump read where it was written). */
static bool dump_time(struct vm *vm, const char *p, const char *end)
{
	char buf[64];
	size_t n = (size_t)(end - p);
	if (n >= sizeof buf)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	struct tm tm = { 0 };
	const char *rest = strptime(buf, "%a %b %d %H:%M:%S %Y", &tm);
	if (!rest || *rest)
		return false;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t == (time_t)-1)
		return false;
	vm->time = (double)t;
	vm->time_from = "dump header";
	vm->time_step = 1;  /* ctime(): whole seconds */
	return true;
}

static void header(struct dump *d)
{
	struct vm *vm = d->vm;
	const char *pos = memchr(d->map, '\n', d->end), *lim = d->map + (d->header_end ? d->header_end : d->end);
	if (!pos)
		return;
	pos++;
	struct line l;
	const char *v, *slogan = NULL, *slogan_end = NULL;
	bool seen_version = false;
	if (next_line(&pos, lim, &l) && !dump_time(vm, l.p, l.end))
		pos = l.p;  /* no date line: the line is read again below */
	while (next_line(&pos, lim, &l)) {
		uint64_t n;
		if (KEY(&l, "Slogan: ", &v)) {
			slogan = v;
			slogan_end = l.end;
		} else if (KEY(&l, "System version: ", &v)) {
			system_version(vm, v, l.end);
			seen_version = true;
		} else if (KEY(&l, "Atoms: ", &v)) {
			if (parse_u64(v, l.end, &n))
				vm->atom_count = n;
		} else if (KEY(&l, "Calling Thread: ", &v)) {
			vm->death.thread = intern_text(vm, v, (size_t)(l.end - v));
		} else if (slogan && !seen_version) {
			slogan_end = l.end;  /* a slogan of several lines runs to System version */
		}
	}
	if (slogan)
		dump_slogan(vm, slogan, (size_t)(slogan_end - slogan));
	else
		vm_gap(vm, "the dump's header has no Slogan: why the node died is unknown");
	if (!seen_version)
		vm_gap(vm, "the dump's header has no System version: OTP release unknown");
}

/* =index_table:atom_tab: size, limit, entries */
static void atom_table(struct dump *d)
{
	if (!d->atom_table)
		return;
	const char *pos, *v;
	dump_section(d, d->atom_table, &pos);
	struct line l;
	uint64_t n;
	for (pos++; next_line(&pos, d->map + d->end, &l) && *l.p != '='; ) {
		if (KEY(&l, "limit: ", &v) && parse_u64(v, l.end, &n))
			d->vm->atom_limit = n;
		else if (KEY(&l, "entries: ", &v) && parse_u64(v, l.end, &n) && !d->vm->atom_count)
			d->vm->atom_count = n;
	}
}

static void node_name(struct dump *d)
{
	if (!d->node)
		return;
	const char *end, *t = dump_section(d, d->node, &end) + 5;  /* after "node:" */
	const char *a = parse_atom(d->vm, &t, end, "\n");
	if (a && t == end)
		d->vm->node = a;
}

struct sched {
	const char *tag;               /* "scheduler:1" */
	size_t taglen;
	bool has_current, garbing;
	struct vm_pid current;
};

static void read_sched(struct dump *d, size_t off, struct sched *s)
{
	const char *pos;
	s->tag = dump_section(d, off, &pos);
	s->taglen = (size_t)(pos - s->tag);
	struct line l;
	const char *v;
	for (pos++; next_line(&pos, d->map + d->end, &l) && *l.p != '='; ) {
		if (KEY(&l, "Current Process: ", &v))
			s->has_current = parse_pid(&v, l.end, &s->current) && v == l.end;
		else if (KEY(&l, "Current Process State: ", &v))
			s->garbing = l.end - v == 7 && memcmp(v, "Garbing", 7) == 0;
	}
}

static void set_culprit(struct vm *vm, const struct sched *s)
{
	vm->death.have_culprit = true;
	vm->death.culprit = s->current;
	vm->death.culprit_sched = intern_text(vm, s->tag, s->taglen);
}

/* The culprit is what the thread that wrote the dump was running. A dirty
 * scheduler calls itself "scheduler:0" (its sd->no): then the dirty scheduler
 * that was garbage collecting (a big heap's GC runs there), or the only busy one. */
static void schedulers(struct dump *d)
{
	struct vm *vm = d->vm;
	size_t n = d->scheds.n;
	struct sched *s = calloc(n ? n : 1, sizeof *s);
	if (!s)
		return;
	for (size_t i = 0; i < n; i++) {
		read_sched(d, d->scheds.v[i], &s[i]);
		if (s[i].taglen > 10 && memcmp(s[i].tag, "scheduler:", 10) == 0)
			vm->schedulers++;
	}
	vm->death.running = calloc(n ? n : 1, sizeof *vm->death.running);
	for (size_t i = 0; vm->death.running && i < n; i++)
		if (s[i].has_current)
			vm->death.running[vm->death.nrunning++] = (struct vm_sched_run){
				intern_text(vm, s[i].tag, s[i].taglen), s[i].current };
	const char *th = vm->death.thread;
	if (th && strcmp(th, "scheduler:0") == 0) {
		int busy = -1, garbing = -1, nbusy = 0, ngarbing = 0;
		for (size_t i = 0; i < n; i++) {
			if (!s[i].has_current || memcmp(s[i].tag, "dirty_", 6) != 0)
				continue;
			busy = (int)i, nbusy++;
			if (s[i].garbing)
				garbing = (int)i, ngarbing++;
		}
		if (ngarbing == 1)
			set_culprit(vm, &s[garbing]);
		else if (nbusy == 1)
			set_culprit(vm, &s[busy]);
	} else if (th) {
		for (size_t i = 0; i < n; i++)
			if (s[i].has_current && strlen(th) == s[i].taglen &&
			    memcmp(th, s[i].tag, s[i].taglen) == 0)
				set_culprit(vm, &s[i]);
	}
	free(s);
}

void dump_header(struct dump *d)
{
	header(d);
	atom_table(d);
	node_name(d);
	schedulers(d);
}
