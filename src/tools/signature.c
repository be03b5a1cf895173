/* The signature of a death (signature.h): the slogan's variable parts replaced
 * by the rules of one table, tried in order at each position, then the frames
 * that name where it died. */
#include "signature.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '@';
}

/* "<A.B.C>" of digits (a pid) */
static size_t m_pid(const char *s, const char *start)
{
	(void)start;
	if (*s != '<')
		return 0;
	size_t i = 1;
	for (int part = 0; part < 3; part++) {
		if (!digit(s[i]))
			return 0;
		while (digit(s[i]))
			i++;
		if (s[i] != (part < 2 ? '.' : '>'))
			return 0;
		i++;
	}
	return i;
}

/* "#Prefix<digits and dots>" */
static size_t hashed(const char *s, const char *prefix)
{
	size_t k = strlen(prefix), i;
	if (strncmp(s, prefix, k) != 0 || !digit(s[k]))
		return 0;
	for (i = k; digit(s[i]) || s[i] == '.'; i++)
		;
	return s[i] == '>' ? i + 1 : 0;
}

static size_t m_port(const char *s, const char *start)
{
	(void)start;
	return hashed(s, "#Port<");
}

static size_t m_ref(const char *s, const char *start)
{
	(void)start;
	return hashed(s, "#Ref<");
}

/* 0x and hex digits, not inside a word */
static size_t m_hex(const char *s, const char *start)
{
	if ((s > start && word_char(s[-1])) || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ||
	    !isxdigit((unsigned char)s[2]))
		return 0;
	size_t i = 2;
	while (isxdigit((unsigned char)s[i]))
		i++;
	return word_char(s[i]) ? 0 : i;
}

/* a decimal number (a sign, a fraction) not inside a word: "otp27", "base64"
 * and "erts-15" name things, "306586976 bytes" counts them */
static size_t m_number(const char *s, const char *start)
{
	size_t i = 0;
	if (s > start && (word_char(s[-1]) || s[-1] == '.' ||
			  (s[-1] == '-' && s - 1 > start && word_char(s[-2]))))  /* erts-15 */
		return 0;
	if (s[0] == '-' && digit(s[1]) && !(s > start && s[-1] == '-'))
		i = 1;
	if (!digit(s[i]))
		return 0;
	while (digit(s[i]))
		i++;
	if (s[i] == '.' && digit(s[i + 1]))
		for (i++; digit(s[i]); i++)
			;
	return word_char(s[i]) ? 0 : i;
}

/* A path's directories: "/var/tmp/run42/x.beam" keeps "x.beam", the file it
 * names; where it sits is the machine's, not the cause's. */
static size_t m_path(const char *s, const char *start)
{
	if (*s != '/' || (s > start && !(isspace((unsigned char)s[-1]) || s[-1] == '"' ||
					    s[-1] == '\'' || s[-1] == '(' || s[-1] == '[' ||
					    s[-1] == ',' || s[-1] == '{')))
		return 0;
	size_t i = 0, last = 0;
	while (s[i] && !isspace((unsigned char)s[i]) && !strchr("\"')],}", s[i]))
		if (s[i++] == '/')
			last = i;
	return last > 1 ? last : 0;  /* the directories, up to the last slash */
}

const struct sig_rule sig_rules[] = {
	{ "pid", "<0.83.0>", "<PID>", m_pid },
	{ "port", "#Port<0.7>", "#Port<N>", m_port },
	{ "reference", "#Ref<0.1.2.3>", "#Ref<N>", m_ref },
	{ "path", "/var/tmp/run42/", "/.../", m_path },
	{ "hex", "0x7f3a2c", "<HEX>", m_hex },
	{ "number", "306586976", "<N>", m_number },
};
const size_t sig_nrules = sizeof sig_rules / sizeof sig_rules[0];

/* What a signature is written into: out[0..n) of len bytes; cut when
 * something did not fit. */
struct sbuf {
	char *out;
	size_t len, n;
	bool cut;
};

/* b += s (k bytes), keeping room for the NUL; cut at a character's end */
static void put(struct sbuf *b, const char *s, size_t k)
{
	if (b->n + k >= b->len) {
		k = b->len - 1 - b->n;
		while (k > 0 && (s[k] & 0xc0) == 0x80)
			k--;
		b->cut = true;
	}
	memcpy(b->out + b->n, s, k);
	b->n += k;
	b->out[b->n] = 0;
}

static void normalize(struct sbuf *b, const char *s)
{
	for (const char *p = s; *p && !b->cut;) {
		size_t k = 0, r;
		for (r = 0; r < sig_nrules && !(k = sig_rules[r].match(p, s)); r++)
			;
		if (k) {
			put(b, sig_rules[r].as, strlen(sig_rules[r].as));
			p += k;
		} else if (*p == '\n' || *p == '\r') {  /* one line: a slogan's own newlines */
			put(b, " ", 1);
			p++;
		} else {
			size_t k1 = 1;  /* a whole character */
			while ((p[k1] & 0xc0) == 0x80)
				k1++;
			put(b, p, k1);
			p += k1;
		}
	}
}

bool sig_normalize(const char *s, char *out, size_t len)
{
	struct sbuf b = { out, len, 0, false };
	out[0] = 0;
	normalize(&b, s);
	return b.cut;
}

static const char *signal_name(int signo, char *buf, size_t len)
{
	static const struct { int no; const char *name; } names[] = {
		{ SIGSEGV, "SIGSEGV" }, { SIGABRT, "SIGABRT" }, { SIGBUS, "SIGBUS" },
		{ SIGILL, "SIGILL" }, { SIGFPE, "SIGFPE" }, { SIGKILL, "SIGKILL" },
		{ SIGTERM, "SIGTERM" }, { SIGQUIT, "SIGQUIT" }, { SIGTRAP, "SIGTRAP" },
		{ SIGSYS, "SIGSYS" }, { SIGUSR1, "SIGUSR1" }, { SIGXCPU, "SIGXCPU" },
	};
	if (!signo)
		return "no signal";
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].no == signo)
			return names[i].name;
	snprintf(buf, len, "signal %d", signo);
	return buf;
}

/* " | a < b < c": the innermost frames first */
static void frames_dump(const struct vm *vm, struct sbuf *b)
{
	const struct vm_death *d = &vm->death;
	const struct vm_proc *p = d->have_culprit ? vm_find_proc(vm, d->culprit) : NULL;
	char fn[256];
	if (!p)
		return;
	size_t shown = 0;
	for (uint32_t i = 0; i < p->stack_n && shown < SIG_FRAMES; i++) {
		uint32_t id = vm->frames[p->stack_first + i];
		if (id >= vm->nmfas || !vm_mfa_str(&vm->mfas[id], fn, sizeof fn))
			continue;
		put(b, shown++ ? " < " : " | ", 3);
		put(b, fn, strlen(fn));
	}
	if (!shown && vm_mfa_str(p->current_function, fn, sizeof fn)) {
		put(b, " | ", 3);
		put(b, fn, strlen(fn));
	}
}

static void frames_core(const struct vm *vm, struct sbuf *b)
{
	char sb[32];
	const char *sig = signal_name(vm->signo, sb, sizeof sb);
	put(b, sig, strlen(sig));
	if (vm->fatal_function) {
		put(b, " in ", 4);
		put(b, vm->fatal_function, strlen(vm->fatal_function));
	}
	if (vm->crash_thread < 0 || (size_t)vm->crash_thread >= vm->nthreads)
		return;
	const struct vm_thread *t = &vm->threads[vm->crash_thread];
	size_t shown = 0;
	for (uint32_t i = 0; i < t->nframes && shown < SIG_FRAMES; i++) {
		const struct vm_nframe *f = &vm->nframes_native[t->frame_first + i];
		put(b, shown++ ? " < " : " | ", 3);
		const char *fn = f->function ? f->function : "?";
		put(b, fn, strlen(fn));
		if (f->module && !f->erlang) {
			put(b, " (", 2);
			put(b, f->module, strlen(f->module));
			put(b, ")", 1);
		}
	}
}

void sig_of(const struct vm *vm, char *out, size_t len)
{
	struct sbuf b = { out, len, 0, false };
	out[0] = 0;
	if (vm->death.slogan) {
		normalize(&b, vm->death.slogan);
		frames_dump(vm, &b);
	} else if (strcmp(vm->kind, "crash_dump") == 0) {  /* cut before its slogan */
		put(&b, "(no slogan)", 11);
	} else {
		frames_core(vm, &b);
	}
	if (b.cut && len >= 8) {  /* said: it ends in "..." (at a character's end) */
		size_t n = b.n < len - 4 ? b.n : len - 4;
		while (n > 0 && (out[n] & 0xc0) == 0x80)
			n--;
		memcpy(out + n, "...", 4);
	}
}
