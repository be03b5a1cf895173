#include "perf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 256  /* 1 MiB per thread: ~60 samples of 16 KiB between drains */

/* perf's x86_64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) in
 * the order of enum PR_*: a sample lists the masked registers by number. */
static const int x86_regs[PR_N] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 22, 23 };

static uint64_t regs_mask(void)
{
	uint64_t m = 0;
	for (int i = 0; i < PR_N; i++)
		m |= 1ull << x86_regs[i];
	return m;
}

int perf_open(struct pthread_ev *t, pid_t tid, unsigned hz, unsigned stack_bytes)
{
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->fd = -1;
	struct perf_event_attr a = { 0 };
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000000ull / (hz ? hz : 1);  /* ns of the thread's CPU time */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = regs_mask();
	a.sample_stack_user = stack_bytes;
	a.disabled = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	/* nobody polls: wake no one (the loop drains every 10 ms) */
	a.watermark = 1;
	a.wakeup_watermark = RING_PAGES * 4096u / 2;
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)page * (RING_PAGES + 1);
	void *ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		int e = errno;
		close(fd);
		return -e;
	}
	t->fd = fd;
	t->ring = ring;
	t->data_size = (size_t)page * RING_PAGES;
	return 0;
}

void perf_enable(struct pthread_ev *t)
{
	if (t->fd >= 0)
		ioctl(t->fd, PERF_EVENT_IOC_ENABLE, 0);
}

void perf_set_period(struct pthread_ev *t, uint64_t period)
{
	if (t->fd >= 0)
		ioctl(t->fd, PERF_EVENT_IOC_PERIOD, &period);
}

void perf_disable(struct pthread_ev *t)
{
	if (t->fd >= 0)
		ioctl(t->fd, PERF_EVENT_IOC_DISABLE, 0);
}

uint64_t perf_cpu_ns(const struct pthread_ev *t)
{
	uint64_t v = 0;
	if (t->fd < 0 || read(t->fd, &v, sizeof v) != sizeof v)
		return 0;
	return v;
}

/* One PERF_RECORD_SAMPLE in the layout sample_type asks for. */
static int parse_sample(const uint8_t *p, size_t n, struct psample *s)
{
	const uint8_t *end = p + n;
	memset(s, 0, sizeof *s);
#define TAKE(dst, sz) do { if ((size_t)(end - p) < (sz)) return -1; memcpy((dst), p, (sz)); p += (sz); } while (0)
	uint32_t pt[2];
	TAKE(&s->ip, 8);
	TAKE(pt, 8);
	s->tid = (pid_t)pt[1];
	TAKE(&s->time, 8);
	uint64_t abi;
	TAKE(&abi, 8);
	if (abi) {
		TAKE(s->regs, 8 * PR_N);
		s->have_regs = 1;
	}
	uint64_t size;
	TAKE(&size, 8);
	if (size) {
		if ((size_t)(end - p) < size + 8)
			return -1;
		const uint8_t *data = p;
		uint64_t dyn;
		memcpy(&dyn, p + size, 8);
		s->stack = data;
		s->stack_len = dyn < size ? dyn : size;
	}
#undef TAKE
	return 0;
}

size_t perf_drain(struct pthread_ev *t, void (*fn)(const struct psample *s, void *arg), void *arg)
{
	if (!t->ring)
		return 0;
	struct perf_event_mmap_page *h = (void *)t->ring;
	const uint8_t *data = t->ring + (h->data_offset ? h->data_offset : (uint64_t)sysconf(_SC_PAGESIZE));
	uint64_t head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = h->data_tail;
	size_t got = 0;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header eh;
		size_t off = tail % t->data_size;
		for (size_t i = 0; i < sizeof eh; i++)
			((uint8_t *)&eh)[i] = data[(off + i) % t->data_size];
		if (eh.size < sizeof eh || tail + eh.size > head)
			break;
		const uint8_t *rec = data + off;
		if (off + eh.size > t->data_size) {  /* wraps: copy it out */
			if (eh.size > t->scratch_cap) {
				uint8_t *s = realloc(t->scratch, eh.size);
				if (!s)
					break;
				t->scratch = s;
				t->scratch_cap = eh.size;
			}
			size_t first = t->data_size - off;
			memcpy(t->scratch, data + off, first);
			memcpy(t->scratch + first, data, eh.size - first);
			rec = t->scratch;
		}
		if (eh.type == PERF_RECORD_SAMPLE) {
			struct psample s;
			if (parse_sample(rec + sizeof eh, eh.size - sizeof eh, &s) == 0) {
				fn(&s, arg);
				t->samples++;
				got++;
			}
		} else if (eh.type == PERF_RECORD_LOST) {
			uint64_t lost[2];
			if (eh.size >= sizeof eh + 16) {
				memcpy(lost, rec + sizeof eh, 16);
				t->lost += lost[1];
			}
		}
		tail += eh.size;
	}
	__atomic_store_n(&h->data_tail, tail, __ATOMIC_RELEASE);
	return got;
}

void perf_close(struct pthread_ev *t)
{
	if (t->ring)
		munmap(t->ring, t->data_size + (size_t)sysconf(_SC_PAGESIZE));
	if (t->fd >= 0)
		close(t->fd);
	free(t->scratch);
	t->ring = NULL;
	t->fd = -1;
	t->scratch = NULL;
}
