/* The one buffered writer of bulk output (export's crash dump): bytes gather
 * in a 64 KiB buffer that goes to its FILE whole, and numbers are formatted
 * by hand, so the inner loop of a writer makes no stdio or printf call per
 * term. A write error sticks (err) and is returned by outbuf_flush. */
#ifndef BEAMCORE_OUTBUF_H
#define BEAMCORE_OUTBUF_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OUTBUF_SIZE (64 * 1024)

struct outbuf {
	char *p;                 /* the next byte */
	FILE *f;                 /* where full buffers go */
	int err;                 /* a write failed */
	char buf[OUTBUF_SIZE];
};

void outbuf_init(struct outbuf *o, FILE *f);
/* What the buffer holds, to the FILE (fflush'ed too): 0, or -1 when this
 * or an earlier write failed. */
int outbuf_flush(struct outbuf *o);
/* (ob_write's path when the bytes do not fit) */
void outbuf_write_slow(struct outbuf *o, const void *s, size_t n);

static inline void ob_write(struct outbuf *o, const void *s, size_t n)
{
	if ((size_t)(o->buf + OUTBUF_SIZE - o->p) >= n) {
		memcpy(o->p, s, n);
		o->p += n;
	} else {
		outbuf_write_slow(o, s, n);
	}
}

static inline void ob_putc(struct outbuf *o, char c)
{
	if (o->p == o->buf + OUTBUF_SIZE)
		outbuf_write_slow(o, &c, 1);
	else
		*o->p++ = c;
}

static inline void ob_puts(struct outbuf *o, const char *s)
{
	ob_write(o, s, strlen(s));
}

void ob_u64(struct outbuf *o, uint64_t v);   /* %llu */
void ob_i64(struct outbuf *o, int64_t v);    /* %lld */
void ob_hex(struct outbuf *o, uint64_t v);   /* %llX: upper case, no leading zeros */
void ob_hex016(struct outbuf *o, uint64_t v); /* %016llx */
/* "KEY" then v and a newline: the per-process "Name: 42" lines. */
void ob_line_u64(struct outbuf *o, const char *key, uint64_t v);
/* For the lines written once (headers, per-section lines): printf's format. */
void ob_printf(struct outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
