/* Reads of a core's memory, whatever its source: the segment an address lies
 * in (a lookup cache in front of a binary search), then the source's bytes,
 * or file backing where a core file has none. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

void core_close(struct core *c)
{
	if (!c)
		return;
	if (c->ops && c->ops->close)
		c->ops->close(c);
	free(c->segs);
	free(c->files);
	free(c->threads);
	free(c->backing);
	free(c);
}

void core_flush(struct core *c)
{
	if (c->ops->flush)
		c->ops->flush(c);
}

static inline const struct core_seg *find_seg(const struct core *c, uint64_t addr)
{
	/* Walks read neighbouring addresses: try the segment of the last hit, then
	 * the one last seen in this 64 KiB neighbourhood, before searching. */
	struct core *w = (struct core *)c;
	const struct core_seg *h = atomic_load_explicit(&w->hint, memory_order_relaxed);
	if (h && addr >= h->vaddr && addr - h->vaddr < h->memsz)
		return h;
	_Atomic(const struct core_seg *) *slot = &w->near[(addr >> 16) & 1023];
	h = atomic_load_explicit(slot, memory_order_relaxed);
	if (!(h && addr >= h->vaddr && addr - h->vaddr < h->memsz)) {
		size_t lo = 0, hi = c->nsegs;
		for (h = NULL; lo < hi && !h;) {
			size_t mid = (lo + hi) / 2;
			const struct core_seg *s = &c->segs[mid];
			if (addr < s->vaddr)
				hi = mid;
			else if (addr - s->vaddr >= s->memsz)
				lo = mid + 1;
			else
				h = s;
		}
		if (!h)
			return NULL;
		atomic_store_explicit(slot, h, memory_order_relaxed);
	}
	atomic_store_explicit(&w->hint, h, memory_order_relaxed);
	return h;
}

int core_reads_shareable(const struct core *c)
{
	return !c->live && c->map && !c->ops->span && !c->ops->ptr;
}

const struct core_seg *core_seg_at(const struct core *c, uint64_t addr)
{
	return find_seg(c, addr);
}

uint64_t core_mapped(const struct core *c, uint64_t addr)
{
	const struct core_seg *s = find_seg(c, addr);
	if (!s)
		return 0;
	uint64_t end = s->vaddr + s->memsz;
	for (size_t i = (size_t)(s - c->segs) + 1; i < c->nsegs && c->segs[i].vaddr == end; i++)
		end += c->segs[i].memsz;
	return end - addr;
}

static const struct core_backing *find_backing(const struct core *c, uint64_t addr)
{
	for (size_t i = 0; i < c->nbacking; i++)
		if (addr >= c->backing[i].vaddr && addr - c->backing[i].vaddr < c->backing[i].len)
			return &c->backing[i];
	return NULL;
}

/* Longest contiguous run of readable bytes at addr (up to want). */
static const uint8_t *span(const struct core *c, uint64_t addr, size_t want, size_t *got)
{
	if (c->ops->span)
		return c->ops->span(c, addr, want, got);
	/* the segments' bytes in the image; where it has none, file backing */
	const struct core_seg *s = find_seg(c, addr);
	if (s && addr - s->vaddr < s->filesz) {
		uint64_t avail = s->filesz - (addr - s->vaddr);
		*got = avail < want ? avail : want;
		return c->map + s->off + (addr - s->vaddr);
	}
	const struct core_backing *b = find_backing(c, addr);
	if (b) {
		uint64_t avail = b->len - (addr - b->vaddr);
		*got = avail < want ? avail : want;
		return b->data + (addr - b->vaddr);
	}
	return NULL;
}

/* Copy up to len bytes at addr: how many were readable before a fault. */
static inline size_t copy_out(const struct core *c, uint64_t addr, void *buf, size_t len)
{
	uint8_t *o = buf;
	size_t done = 0;
	while (done < len) {
		size_t got;
		const uint8_t *p = span(c, addr + done, len - done, &got);
		if (!p)
			break;
		memcpy(o + done, p, got);
		done += got;
	}
	return done;
}

int core_peek(const struct core *c, uint64_t addr, void *buf, size_t len)
{
	return copy_out(c, addr, buf, len) == len ? 0 : -1;
}

bc_err *core_read(const struct core *c, uint64_t addr, void *buf, size_t len)
{
	size_t done = copy_out(c, addr, buf, len);
	return done == len ? NULL : bc_fault(addr + done, "read");
}

const void *core_ptr(const struct core *c, uint64_t addr, size_t len)
{
	if (c->ops->ptr)
		return c->ops->ptr(c, addr, len);
	size_t got;
	const uint8_t *p = span(c, addr, len, &got);
	return p && got == len ? p : NULL;
}

void core_drop(const struct core *c, uint64_t addr, uint64_t len)
{
	if (c->ops->drop && len)
		c->ops->drop(c, addr, len);
}

void core_populate(const struct core *c, uint64_t addr, uint64_t len)
{
	if (c->ops->populate && len)
		c->ops->populate(c, addr, len);
}

int core_add_file_backing(struct core *c, uint64_t vaddr, const uint8_t *data, uint64_t len)
{
	struct core_backing *b = realloc(c->backing, (c->nbacking + 1) * sizeof *b);
	if (!b)
		return -1;
	c->backing = b;
	c->backing[c->nbacking++] = (struct core_backing){ vaddr, len, data };
	return 0;
}

uint64_t core_thread_reg(const struct core *c, const struct core_thread *t, int i)
{
	uint64_t v = 0;
	if (t->regs && c->arch && i >= 0 && i < c->arch->nregs)
		memcpy(&v, (const uint8_t *)t->regs + (size_t)i * 8, 8);
	return v;
}
