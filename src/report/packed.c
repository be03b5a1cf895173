/* The page's data as the page embeds it: gzip (RFC 1952), then base64, so a
 * million processes' columns fit in a mail attachment and no byte of it can
 * end its <script> element; the page undoes both (DecompressionStream). A FILE
 * that deflates what is written to it and writes base64 lines into another.
 * Deflate runs in a thread of its own, a chunk behind the JSON writer: on two
 * cores the page costs little more than its JSON. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "report.h"

#define CHUNK (1u << 20)

struct packer {
	FILE *to;
	z_stream z;
	unsigned char out[CHUNK];
	unsigned char pend[3];   /* base64 works in 3-byte groups: the rest of one */
	size_t npend;
	int failed;              /* a write or deflate failed: later ones are refused */
	/* the hand-over to the deflate thread: one chunk filled while one is deflated */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *fill, *full;       /* the writer's chunk; the one handed over (NULL: none) */
	size_t nfill, nfull;
	int done;                /* the writer closed: deflate what is left, finish */
	char bufs[2][CHUNK];
};

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* n bytes of deflate output as base64 (whole groups; the rest kept) */
static int put_b64(struct packer *p, const unsigned char *s, size_t n, int last)
{
	char line[4 * 1024 + 8];
	size_t o = 0;
	while (n || (last && p->npend)) {
		while (p->npend < 3 && n)
			p->pend[p->npend++] = *s++, n--;
		if (p->npend < 3 && !last)
			break;
		unsigned v = (unsigned)p->pend[0] << 16 | (p->npend > 1 ? (unsigned)p->pend[1] << 8 : 0) |
			     (p->npend > 2 ? p->pend[2] : 0);
		line[o++] = b64[v >> 18 & 63];
		line[o++] = b64[v >> 12 & 63];
		line[o++] = p->npend > 1 ? b64[v >> 6 & 63] : '=';
		line[o++] = p->npend > 2 ? b64[v & 63] : '=';
		p->npend = 0;
		if (o >= 4 * 1024) {
			if (fwrite(line, 1, o, p->to) != o)
				return -1;
			o = 0;
		}
	}
	return o && fwrite(line, 1, o, p->to) != o ? -1 : 0;
}

static int deflate_some(struct packer *p, const char *buf, size_t n, int flush)
{
	p->z.next_in = (unsigned char *)buf;
	p->z.avail_in = (uInt)n;
	do {
		p->z.next_out = p->out;
		p->z.avail_out = CHUNK;
		int rc = deflate(&p->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -1;
		if (put_b64(p, p->out, CHUNK - p->z.avail_out, 0) < 0)
			return -1;
	} while (p->z.avail_out == 0);
	return 0;
}

static void *deflater(void *vp)
{
	struct packer *p = vp;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->full && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->full)
			break;
		char *buf = p->full;
		size_t n = p->nfull;
		pthread_mutex_unlock(&p->mu);
		int bad = deflate_some(p, buf, n, Z_NO_FLUSH) < 0;
		pthread_mutex_lock(&p->mu);
		p->failed |= bad;
		p->full = NULL;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	if (!p->failed && (deflate_some(p, NULL, 0, Z_FINISH) < 0 || put_b64(p, NULL, 0, 1) < 0))
		p->failed = 1;
	return NULL;
}

/* hand the writer's chunk over (waiting for the last one to be taken) */
static int hand_over(struct packer *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->full)
		pthread_cond_wait(&p->cv, &p->mu);
	int failed = p->failed;
	if (!failed && p->nfill) {
		p->full = p->fill;
		p->nfull = p->nfill;
		p->fill = p->fill == p->bufs[0] ? p->bufs[1] : p->bufs[0];
		p->nfill = 0;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return failed ? -1 : 0;
}

static ssize_t packer_write(void *vp, const char *buf, size_t n)
{
	struct packer *p = vp;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < CHUNK - p->nfill ? n - done : CHUNK - p->nfill;
		memcpy(p->fill + p->nfill, buf + done, k);
		p->nfill += k;
		done += k;
		if (p->nfill == CHUNK && hand_over(p) < 0)
			return -1;
	}
	return (ssize_t)n;
}

static int packer_close(void *vp)
{
	struct packer *p = vp;
	hand_over(p);
	pthread_mutex_lock(&p->mu);
	p->done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	int failed = p->failed;
	deflateEnd(&p->z);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
	return failed ? -1 : 0;
}

FILE *report_packed(FILE *to)
{
	struct packer *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->to = to;
	p->fill = p->bufs[0];
	/* level 1: a tenth of level 6's time for a page a fifth larger */
	if (deflateInit2(&p->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->thread, NULL, deflater, p) != 0) {
		deflateEnd(&p->z);
		free(p);
		return NULL;
	}
	FILE *f = fopencookie(p, "w", (cookie_io_functions_t){ .write = packer_write,
							      .close = packer_close });
	if (!f) {
		pthread_mutex_lock(&p->mu);
		p->done = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
		deflateEnd(&p->z);
		free(p);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}
