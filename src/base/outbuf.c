/* The buffered writer (outbuf.h). */
#include <stdarg.h>
#include <stdlib.h>
#include "outbuf.h"

void outbuf_init(struct outbuf *o, FILE *f)
{
	o->p = o->buf;
	o->f = f;
	o->err = 0;
}

static void drain(struct outbuf *o)
{
	size_t n = (size_t)(o->p - o->buf);
	if (n && !o->err && fwrite(o->buf, 1, n, o->f) != n)
		o->err = 1;
	o->p = o->buf;
}

int outbuf_flush(struct outbuf *o)
{
	drain(o);
	if (!o->err && (fflush(o->f) != 0 || ferror(o->f)))
		o->err = 1;
	return o->err ? -1 : 0;
}

void outbuf_write_slow(struct outbuf *o, const void *s, size_t n)
{
	drain(o);
	if (n >= OUTBUF_SIZE) {  /* a large block goes straight through */
		if (!o->err && fwrite(s, 1, n, o->f) != n)
			o->err = 1;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

/* Room for n more bytes (n <= OUTBUF_SIZE). */
static char *room(struct outbuf *o, size_t n)
{
	if ((size_t)(o->buf + OUTBUF_SIZE - o->p) < n)
		drain(o);
	return o->p;
}

void ob_u64(struct outbuf *o, uint64_t v)
{
	size_t n = 1;
	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	char *e = room(o, n) + n;
	o->p = e;
	do {
		*--e = (char)('0' + v % 10);
		v /= 10;
	} while (v);
}

void ob_i64(struct outbuf *o, int64_t v)
{
	if (v < 0) {
		ob_putc(o, '-');
		ob_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		ob_u64(o, (uint64_t)v);
	}
}

void ob_hex(struct outbuf *o, uint64_t v)
{
	size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1;
	char *e = room(o, n) + n;
	o->p = e;
	do {
		*--e = "0123456789ABCDEF"[v & 15];
		v >>= 4;
	} while (v);
}

void ob_hex016(struct outbuf *o, uint64_t v)
{
	char *e = room(o, 16) + 16;
	o->p = e;
	for (int i = 0; i < 16; i++, v >>= 4)
		*--e = "0123456789abcdef"[v & 15];
}

void ob_line_u64(struct outbuf *o, const char *key, uint64_t v)
{
	ob_puts(o, key);
	ob_u64(o, v);
	ob_putc(o, '\n');
}

void ob_printf(struct outbuf *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = (size_t)(o->buf + OUTBUF_SIZE - o->p);
	va_start(ap, fmt);
	int n = vsnprintf(o->p, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->err = 1;
		return;
	}
	if ((size_t)n < room) {
		o->p += n;
		return;
	}
	/* it did not fit: once more after a drain, else into a buffer of its size */
	if ((size_t)n < OUTBUF_SIZE) {
		drain(o);
		va_start(ap, fmt);
		vsnprintf(o->p, OUTBUF_SIZE, fmt, ap);
		va_end(ap);
		o->p += n;
		return;
	}
	char *s = malloc((size_t)n + 1);
	if (!s) {
		o->err = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ob_write(o, s, (size_t)n);
	free(s);
}
