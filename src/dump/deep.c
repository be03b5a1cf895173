/* The sections a process's terms lead to (=proc:, =proc_stack:, =proc_heap:,
 * =proc_messages:, =proc_dictionary:, =literals, =binary:ADDR) by their tag
 * line: one scan of the file for their lines the first time one is asked for,
 * then a hash lookup each. (A search of the whole file per lookup made `waits`
 * on 10,000 callers take minutes.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "deep.h"
#include "pages.h"
#include "hmap.h"

struct dump_deep {
	struct offs lines;         /* offsets of the '=' of "=proc...:<pid>" lines */
	uint32_t *fp;              /* each line's hash, its low bits: a probe compares
				    * these before it reads a tag elsewhere in the file */
	size_t fp_cap;
	struct hmap map;
	bool failed;               /* out of memory: fall back to searching */
};

/* The tag line at off, without '=' and '\n'. */
static size_t tag_at(const struct dump *d, size_t off, const char **t)
{
	*t = d->map + off + 1;
	const char *nl = memchr(*t, '\n', d->end - off - 1);
	return (size_t)((nl ? nl : d->map + d->end) - *t);
}

static uint64_t line_hash(const void *ctx, uint32_t item)
{
	const struct dump *d = ctx;
	const char *t;
	size_t n = tag_at(d, d->deep->lines.v[item], &t);
	return hmap_hash_bytes(t, n);
}

static int build(struct dump *d)
{
	struct dump_deep *x = calloc(1, sizeof *x);
	if (!x)
		return -1;
	d->deep = x;
	/* sized by what the index scan counted: growing would hash every line
	 * again, reading its tag back from all over the file */
	if (hmap_init(&x->map, d->ntagged + 1024) < 0) {
		x->failed = true;
		return -1;
	}
	const char *m = d->map, *lim = d->map + d->end;
	size_t mark = 0;
	for (const char *p = dump_next_section(d, m, &mark); p < lim; p = dump_next_section(d, p + 1, &mark)) {
		if ((size_t)(lim - p) < 6 || (memcmp(p, "=proc", 5) != 0 &&
					      memcmp(p, "=literals", (size_t)(lim - p) < 9 ? 0 : 9) != 0 &&
					      memcmp(p, "=binary:", 8) != 0))
			continue;
		size_t *v = grow(x->lines.v, &x->lines.cap, x->lines.n, sizeof *v, 1024);
		uint32_t *fp = v ? grow(x->fp, &x->fp_cap, x->lines.n, sizeof *fp, 1024) : NULL;
		if (v)
			x->lines.v = v;
		if (!fp) {
			x->failed = true;
			return -1;
		}
		x->fp = fp;
		size_t off = (size_t)(p - m);
		const char *t;
		size_t n = tag_at(d, off, &t);
		uint64_t h = hmap_hash_bytes(t, n);
		size_t j;
		for (j = hmap_first(&x->map, h); x->map.slot[j]; j = hmap_next(&x->map, j))
			;
		x->lines.v[x->lines.n] = off;
		x->fp[x->lines.n] = (uint32_t)h;
		if (hmap_set(&x->map, j, (uint32_t)x->lines.n, line_hash, d) < 0) {
			x->failed = true;
			return -1;
		}
		x->lines.n++;
	}
	/* lookups from now on: a fault maps the page it needs, not the 16
	 * around it that the kernel maps for a sequential reader (they would
	 * stay resident uncounted by dump_touch) */
	madvise((void *)d->map, d->size, MADV_RANDOM);
	return 0;
}

/* [body, the next section line) as the section's body; its pages count as
 * read out of order */
static int body_end(struct dump *d, const char *body, const char **start, const char **end)
{
	if (body > d->map + d->end)
		return -1;
	*start = body;
	if (!end)
		return 0;  /* the caller reads to the next section line itself */
	size_t mark = (size_t)(body - d->map);  /* (a heap of many MB: not all resident at once) */
	*end = dump_next_section(d, body, &mark);
	dump_touch(d, (size_t)(*end - body));
	return 0;
}

/* The sections' index, built once by whichever thread asks first (heaps are
 * walked by several); -1: none (out of memory: lookups search). */
static int dump_deep_ready(struct dump *d)
{
	pthread_mutex_lock(&d->deep_mu);
	if (!d->deep)
		build(d);
	int r = d->deep && !d->deep->failed ? 0 : -1;
	pthread_mutex_unlock(&d->deep_mu);
	return r;
}

/* "TAG<pid>" by the sections' index (built on first use: a read of the
 * whole file) */
static int by_index(struct dump *d, const char *tag, const char *pid, const char **start,
		    const char **end)
{
	char key[96];
	int n = snprintf(key, sizeof key, "%s%s", tag + (tag[0] == '='), pid);
	if (n <= 0 || (size_t)n >= sizeof key)
		return -1;
	return dump_tag_section(d, key, start, end);
}

static const char *const part_tag[] = {
	[PART_MESSAGES] = "=proc_messages:", [PART_DICTIONARY] = "=proc_dictionary:",
	[PART_STACK] = "=proc_stack:", [PART_HEAP] = "=proc_heap:",
};

const char *dump_prev_section(const struct dump *d, const char *t)
{
	const char *base = d->map, *p = t;
	if (!t || !base)
		return NULL;
	while (p > base) {
		const char *w = p - base > 65536 ? p - 65536 : base;
		const char *q = memrchr(w, '=', (size_t)(p - w));
		if (!q)
			p = w;
		else if (q == base || q[-1] == '\n')
			return q;
		else
			p = q;
	}
	return NULL;
}

/* Whether the section line at t is p's part: its body then, else NULL */
static const char *tagged(const struct dump *d, const char *t, enum proc_part part,
			  const struct vm_proc *p)
{
	char key[64], pid[32];
	int n = snprintf(key, sizeof key, "%s%s", part_tag[part] + 1, vm_pid_str(p, pid, sizeof pid));
	const char *k;
	return t && n > 0 && tag_at(d, (size_t)(t - d->map), &k) == (size_t)n &&
	       memcmp(k, key, (size_t)n) == 0 ? k + n + 1 : NULL;
}

int dump_proc_part(struct dump *d, const struct vm_proc *p, enum proc_part part,
		   const char **start, const char **end)
{
	const struct vm *vm = d->vm;
	const struct proc_at *at = d->proc_at && p >= vm->procs && p < vm->procs + d->nproc_at
				   ? &d->proc_at[p - vm->procs] : NULL;
	if (at && at->stack && at->heap) {
		if (part == PART_STACK || part == PART_HEAP)
			return body_end(d, d->map + d->at_base + (part == PART_STACK ? at->stack : at->heap) - 1,
					start, end);
		/* the VM writes a process's sections together (erl_process_dump.c):
		 * =proc_messages (if any), =proc_dictionary (if any), =proc_stack,
		 * =proc_heap; so the two before its stack are its own or none */
		const char *st = dump_prev_section(d, d->map + d->at_base + at->stack - 1);
		const char *t = dump_prev_section(d, st), *body;
		if (part == PART_DICTIONARY && (body = tagged(d, t, part, p)))
			return body_end(d, body, start, end);
		if (tagged(d, t, PART_DICTIONARY, p))
			t = dump_prev_section(d, t);
		if (part == PART_MESSAGES && (body = tagged(d, t, part, p)))
			return body_end(d, body, start, end);
		return -1;
	}
	char pid[32];
	return by_index(d, part_tag[part], vm_pid_str(p, pid, sizeof pid), start, end);
}

int dump_proc_section(struct dump *d, const char *tag, const char *pid, const char **start,
		      const char **end)
{
	const char *q = pid;
	struct vm_pid v;
	const struct vm_proc *p = parse_pid(&q, pid + strlen(pid), &v) && !*q
				  ? vm_find_proc(d->vm, v) : NULL;
	for (int part = 0; p && part < (int)(sizeof part_tag / sizeof part_tag[0]); part++)
		if (strcmp(tag, part_tag[part]) == 0)
			return dump_proc_part(d, p, (enum proc_part)part, start, end);
	return by_index(d, tag, pid, start, end);
}

int dump_literals(struct dump *d, const char **start, const char **end)
{
	if (!d->literals && !d->scanned)  /* (not met yet: it is near the end) */
		return dump_tag_section(d, "literals", start, end);
	if (!d->literals)
		return -1;  /* (the scan met none) */
	const char *t;
	dump_section(d, d->literals, &t);
	return t < d->map + d->end ? body_end(d, t + 1, start, end) : -1;
}

int dump_proc_heap(struct dump *d, const struct vm_proc *p, const char **start)
{
	return dump_proc_part(d, p, PART_HEAP, start, NULL);
}


int dump_tag_section(struct dump *d, const char *key, const char **start, const char **end)
{
	int n = (int)strlen(key);
	if (n <= 0 || n > 96)
		return -1;
	dump_deep_ready(d);
	const char *body = NULL;
	if (d->deep && !d->deep->failed) {
		struct dump_deep *x = d->deep;
		uint64_t h = hmap_hash_bytes(key, (size_t)n);
		for (size_t j = hmap_first(&x->map, h); x->map.slot[j]; j = hmap_next(&x->map, j)) {
			const char *t;
			if (x->fp[x->map.slot[j] - 1] != (uint32_t)h)
				continue;
			size_t off = x->lines.v[x->map.slot[j] - 1];
			dump_touch(d, 0);  /* a probe reads a tag line elsewhere */
			if (tag_at(d, off, &t) == (size_t)n && memcmp(t, key, (size_t)n) == 0) {
				body = t + n + 1;
				break;
			}
		}
	} else {  /* no index: search (slow, but right) */
		char line[100];
		int ln = snprintf(line, sizeof line, "\n=%s\n", key);
		const char *p = text_find(d->map, d->map + d->end, line, (size_t)ln);
		body = p ? p + ln : NULL;
	}
	if (!body)
		return -1;
	return body_end(d, body, start, end);
}

int dump_proc_body(struct dump *d, const struct vm_proc *p, const char **start, const char **end)
{
	char key[48];
	int n = snprintf(key, sizeof key, "proc:");
	vm_pid_str(p, key + n, sizeof key - (size_t)n);
	n = (int)strlen(key);
	const char *t;
	if (p->addr < d->end && d->map[p->addr] == '=' &&
	    tag_at(d, p->addr, &t) == (size_t)n && memcmp(t, key, (size_t)n) == 0)
		return body_end(d, t + n + 1, start, end);
	return dump_tag_section(d, key, start, end);
}

void dump_deep_free(struct dump *d)
{
	if (!d->deep)
		return;
	hmap_free(&d->deep->map);
	free(d->deep->lines.v);
	free(d->deep->fp);
	free(d->deep);
	d->deep = NULL;
}
