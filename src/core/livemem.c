/* A running process's memory through process_vm_readv, behind one of two
 * caches. Chunks kept (--pid commands): 64 KiB read on a miss and kept for
 * the whole run, since a walk reads neighbouring addresses and core_ptr's
 * pointers must stay valid while a model is built. Pages flushed (beamcore
 * sample): a small direct-mapped cache of 4 KiB pages, dropped at every
 * core_flush, since the sampler reads the same structures again and again as
 * they change. A read that fails (memory unmapped under a read of a running
 * process) is a fault like a hole in a core: the walks make it a gap. */
#include "livemem.h"
#include "snap.h"
#include "hmap.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define CHUNK (64u * 1024)
#define BIG_MAX (256u << 20)  /* core_ptr copies: larger is no stack or term */
#define PAGE 4096u
#define PAGES 512             /* the flushed cache: 2 MiB */

static int gone_pid;  /* a process whose memory went away under a read */

struct chunk {
	uint64_t lo;       /* key: the chunk's first address (segment-clipped) */
	uint32_t len;      /* bytes read (0: unreadable) */
	uint16_t touched;  /* its 4 KiB pages a read asked for (what a snapshot copies) */
	uint8_t *data;
};

struct page {
	uint64_t addr;     /* page address + 1 when valid (0: empty) */
	uint8_t data[PAGE];
};

struct livemem {
	int pid;
	struct chunk *chunks;   /* kept */
	size_t nchunks, cap;
	struct hmap map;
	size_t last;            /* chunk index + 1 of the last hit */
	struct page *pages;     /* flushed: PAGES, by page number */
	void **big;             /* core_ptr copies, and chunks forgotten by a stop */
	size_t nbig, bigcap;
	struct livesnap snap;   /* the copy taken while stopped; served before any chunk */
	int have_snap;
	uint64_t late;          /* bytes read from the process after the snapshot */
};

int core_live_read(const struct core *c, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(c->live_pid, &local, 1, &remote, 1, 0);
	if (n < 0 && errno == ESRCH)
		gone_pid = c->live_pid;  /* its memory is gone: it exits */
	return n == (ssize_t)len ? 0 : -1;
}

int core_live_gone(int pid)
{
	return pid == gone_pid;
}

struct livemem *livemem_new(int pid, enum core_live_mem kind)
{
	struct livemem *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->pid = pid;
	if (kind == LIVE_FLUSHED ? !(m->pages = calloc(PAGES, sizeof *m->pages))
	    : hmap_init(&m->map, 1024) < 0) {
		free(m);
		return NULL;
	}
	return m;
}

void livemem_free(struct livemem *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nchunks; i++)
		free(m->chunks[i].data);
	free(m->chunks);
	hmap_free(&m->map);
	free(m->pages);
	for (size_t i = 0; i < m->nbig; i++)
		free(m->big[i]);
	free(m->big);
	livesnap_free(&m->snap);
	free(m);
}

static int keep(struct livemem *m, void *p)
{
	void **b = grow(m->big, &m->bigcap, m->nbig, sizeof *b, 16);
	if (!b)
		return -1;
	m->big = b;
	m->big[m->nbig++] = p;
	return 0;
}

static uint64_t chunk_hash(const void *ctx, uint32_t item)
{
	const struct livemem *m = ctx;
	return m->chunks[item].lo >> 12;
}

static struct chunk *chunk_read(const struct core *c, struct livemem *m, uint64_t lo, uint64_t hi)
{
	size_t j;
	for (j = hmap_first(&m->map, lo >> 12); m->map.slot[j]; j = hmap_next(&m->map, j))
		if (m->chunks[m->map.slot[j] - 1].lo == lo) {
			m->last = m->map.slot[j];
			return &m->chunks[m->map.slot[j] - 1];
		}
	struct chunk *a = grow(m->chunks, &m->cap, m->nchunks, sizeof *a, 256);
	if (!a)
		return NULL;
	m->chunks = a;
	struct chunk *ch = &m->chunks[m->nchunks];
	ch->lo = lo;
	ch->len = 0;
	ch->touched = 0;
	ch->data = malloc(hi - lo);
	if (ch->data) {
		struct iovec local = { ch->data, hi - lo }, remote = { (void *)(uintptr_t)lo, hi - lo };
		ssize_t n = process_vm_readv(c->live_pid, &local, 1, &remote, 1, 0);
		ch->len = n > 0 ? (uint32_t)n : 0;  /* a short read: the bytes up to the fault */
		if (m->have_snap)
			m->late += ch->len;
		if (n < 0 && errno == ESRCH)
			gone_pid = c->live_pid;
	}
	if (hmap_set(&m->map, j, (uint32_t)m->nchunks, chunk_hash, m) < 0 && !m->map.slot[j]) {
		free(ch->data);
		return NULL;
	}
	m->last = ++m->nchunks;
	return ch;
}

const uint8_t *livemem_chunk_span(const struct core *c, uint64_t addr, size_t want, size_t *got)
{
	struct livemem *m = c->mem;
	const uint8_t *p;
	if (m->have_snap && (p = livesnap_span(&m->snap, addr, want, got)))
		return p;
	const struct core_seg *s = core_seg_at(c, addr);
	if (!s || addr - s->vaddr >= s->filesz)
		return NULL;
	uint64_t lo = addr & ~(uint64_t)(CHUNK - 1);
	if (lo < s->vaddr)
		lo = s->vaddr;
	struct chunk *ch = m->last ? &m->chunks[m->last - 1] : NULL;
	if (!ch || ch->lo != lo) {
		uint64_t hi = (addr & ~(uint64_t)(CHUNK - 1)) + CHUNK;
		if (hi - s->vaddr > s->filesz)
			hi = s->vaddr + s->filesz;
		if (!(ch = chunk_read(c, m, lo, hi)))
			return NULL;
	}
	uint64_t at = addr - lo;
	if (at >= ch->len)
		return NULL;
	*got = ch->len - at < want ? ch->len - at : want;
	/* the pages asked for: at .. at + *got - 1 (bits of the 16 pages of a chunk) */
	unsigned first = (unsigned)(at / PAGE), last = (unsigned)((at + *got - 1) / PAGE);
	ch->touched |= (uint16_t)(((2u << last) - 1) & ~((1u << first) - 1));
	return ch->data + at;
}

const void *livemem_copy(const struct core *c, uint64_t addr, size_t len)
{
	if (len > BIG_MAX || addr + len < addr)
		return NULL;
	/* every byte in readable segments before allocating: a racy length
	 * must not cost a huge allocation */
	for (size_t i = 0, k = 0; i < c->nsegs && k < len; i++) {
		const struct core_seg *s = &c->segs[i];
		if (addr + k < s->vaddr || addr + k - s->vaddr >= s->memsz)
			continue;
		if (!s->filesz)
			return NULL;
		k = s->vaddr + s->memsz - addr;
		if (k >= len)
			break;
		if (i + 1 == c->nsegs || c->segs[i + 1].vaddr != s->vaddr + s->memsz)
			return NULL;
	}
	void *copy = malloc(len);
	if (!copy || core_peek(c, addr, copy, len) < 0 || keep(c->mem, copy) < 0) {
		free(copy);
		return NULL;
	}
	return copy;
}

const void *livemem_chunk_ptr(const struct core *c, uint64_t addr, size_t len)
{
	size_t got;
	const uint8_t *p = livemem_chunk_span(c, addr, len, &got);
	if (p && got < len)  /* across a chunk's end: a copy */
		return livemem_copy(c, addr, len);
	return p;
}

int livemem_touched(const struct livemem *m, struct livesnap *s)
{
	for (size_t i = 0; i < m->nchunks; i++) {
		const struct chunk *ch = &m->chunks[i];
		for (unsigned b = 0; b < CHUNK / PAGE; b++) {  /* (a chunk starts on a page) */
			uint64_t lo = ch->lo + (uint64_t)b * PAGE;
			if ((ch->touched >> b & 1) && livesnap_add(s, lo, lo + PAGE) < 0)
				return -1;
		}
	}
	return 0;
}

struct livesnap *livemem_snap(struct livemem *m)
{
	return &m->snap;
}

void livemem_serve_snap(struct livemem *m, int on)
{
	m->have_snap = on;
}

uint64_t livemem_late(const struct livemem *m)
{
	return m->late;
}

int livemem_forget(struct livemem *m)
{
	for (size_t i = 0; i < m->nchunks; i++)
		if (keep(m, m->chunks[i].data) < 0)
			return -1;
	m->nchunks = 0;
	m->last = 0;
	if (m->map.slot)
		memset(m->map.slot, 0, m->map.size * sizeof *m->map.slot);
	m->map.count = 0;
	return 0;
}

/* Any address of the process, not only the segments seen at open: the
 * sampler runs for minutes while the VM maps new memory. */
const uint8_t *livemem_page_span(const struct core *c, uint64_t addr, size_t want, size_t *got)
{
	struct livemem *m = c->mem;
	uint64_t page = addr & ~(uint64_t)(PAGE - 1);
	struct page *p = &m->pages[(page / PAGE) % PAGES];
	if (p->addr != page + 1) {
		p->addr = 0;
		if (core_live_read(c, page, p->data, PAGE) < 0)
			return NULL;
		p->addr = page + 1;
	}
	size_t off = addr - page;
	*got = want < PAGE - off ? want : PAGE - off;
	return p->data + off;
}

void livemem_page_flush(struct core *c)
{
	struct livemem *m = c->mem;
	for (size_t i = 0; i < PAGES; i++)
		m->pages[i].addr = 0;
}
