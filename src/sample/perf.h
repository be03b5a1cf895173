/* Sampling threads with perf_event_open, as `perf record --call-graph dwarf`
 * does: a cpu-clock software event per thread, each sample carrying the
 * thread, time, ip, user registers and a copy of the top of the user stack,
 * read from an mmap'd ring buffer. Nothing is loaded into or stopped in the
 * sampled process. */
#ifndef BEAMCORE_SAMPLE_PERF_H
#define BEAMCORE_SAMPLE_PERF_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* user registers in the order of the mask perf.c asks for (x86_64) */
enum { PR_AX, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP,
       PR_R8, PR_R9, PR_R10, PR_R11, PR_R12, PR_R13, PR_R14, PR_R15, PR_N };

struct psample {
	pid_t tid;
	uint64_t time;             /* ns, CLOCK_MONOTONIC (perf's clock for software events) */
	uint64_t ip;               /* may be a kernel address: regs[PR_IP] is the user one */
	int have_regs;
	uint64_t regs[PR_N];
	const uint8_t *stack;      /* copy of [regs[PR_SP], + stack_len) */
	uint64_t stack_len;
};

struct pthread_ev {
	pid_t tid;
	int fd;
	uint8_t *ring;             /* header page + data */
	size_t data_size;
	uint8_t *scratch;          /* a record that wraps the ring */
	size_t scratch_cap;
	uint64_t lost;             /* PERF_RECORD_LOST */
	uint64_t samples;
};

/* Open the event on tid at hz samples per second of its CPU time, copying
 * stack_bytes of user stack per sample; 0 or -errno. */
int perf_open(struct pthread_ev *t, pid_t tid, unsigned hz, unsigned stack_bytes);
/* Sample every period ns of CPU time from now on. */
void perf_set_period(struct pthread_ev *t, uint64_t period);
/* Enable all counting of t (perf_open leaves it disabled). */
void perf_enable(struct pthread_ev *t);
void perf_disable(struct pthread_ev *t);
/* Hand every sample waiting in the ring to fn; the number handed. */
size_t perf_drain(struct pthread_ev *t, void (*fn)(const struct psample *s, void *arg), void *arg);
/* The thread's CPU time counted by the event (ns). */
uint64_t perf_cpu_ns(const struct pthread_ev *t);
void perf_close(struct pthread_ev *t);

#endif
