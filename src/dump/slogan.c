/* What a slogan names. The slogans of common deaths (erl_alloc.c, erl_init.c,
 * init.erl):
 *   <alloc>: Cannot allocate|reallocate <N> bytes of memory (of type "<T>").
 *   Kernel pid terminated (<Name>) (<Reason>)
 *   could not start kernel pid (<Name>) (<What>)
 *   init terminating in do_boot (<Reason>)
 * Anything else (halt("..."), "Received SIGUSR1") is kept verbatim only. */
#include <string.h>

#include "internal.h"
#include "loads.h"
#include "text.h"

static const char *find(const char *p, const char *end, const char *lit)
{
	return memmem(p, (size_t)(end - p), lit, strlen(lit));
}

static void alloc_failure(struct vm *vm, const char *s, const char *end)
{
	const char *c = find(s, end, ": Cannot ");
	if (!c || c == s || memchr(s, ' ', (size_t)(c - s)))
		return;
	const char *p = c + 9, *v;
	bool realloc = false;
	if (end - p >= 9 && memcmp(p, "allocate ", 9) == 0)
		p += 9;
	else if (end - p >= 11 && memcmp(p, "reallocate ", 11) == 0)
		p += 11, realloc = true;
	else
		return;
	uint64_t size;
	if (!parse_u64_prefix(&p, end, &size) || end - p < 16 || memcmp(p, " bytes of memory", 16))
		return;
	p += 16;
	vm->death.alloc = intern_text(vm, s, (size_t)(c - s));
	vm->death.alloc_size = size;
	vm->death.alloc_realloc = realloc;
	if ((v = find(p, end, "(of type \"")) != NULL) {
		v += 10;
		const char *q = memchr(v, '"', (size_t)(end - v));
		if (q)
			vm->death.alloc_type = intern_text(vm, v, (size_t)(q - v));
	}
}

/* "(<Name>) (<Reason>)" after a prefix; the reason may hold parentheses. */
static void name_reason(struct vm *vm, const char *p, const char *end, bool named)
{
	if (p >= end || *p != '(')
		return;
	const char *close = end;
	while (close > p && close[-1] != ')')
		close--;
	if (close <= p)
		return;
	close--;  /* the last ')' */
	if (named) {
		const char *sep = find(p, close, ") (");
		if (!sep)
			return;
		vm->death.kernel_pid = intern_text(vm, p + 1, (size_t)(sep - p - 1));
		p = sep + 2;
	}
	vm->death.reason = intern_text(vm, p + 1, (size_t)(close - p - 1));
}

void dump_slogan(struct vm *vm, const char *s, size_t n)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	if (n > 16384)
		n = 16384;  /* a slogan can hold a whole term; the start says what it is */
	vm->death.slogan = intern_text(vm, s, n);
	const char *end = s + n;
	static const char kernel[] = "Kernel pid terminated ", start[] = "could not start kernel pid ",
			  boot[] = "init terminating in do_boot ";
	if (n > sizeof kernel - 1 && memcmp(s, kernel, sizeof kernel - 1) == 0)
		name_reason(vm, s + sizeof kernel - 1, end, true);
	else if (n > sizeof start - 1 && memcmp(s, start, sizeof start - 1) == 0)
		name_reason(vm, s + sizeof start - 1, end, true);
	else if (n > sizeof boot - 1 && memcmp(s, boot, sizeof boot - 1) == 0)
		name_reason(vm, s + sizeof boot - 1, end, false);
	else
		alloc_failure(vm, s, end);
}
