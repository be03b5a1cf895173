/* The progress line (progress.h). */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "units.h"

struct progress {
	const char *what;
	uint64_t total;
	enum progress_unit unit;
	_Atomic uint64_t done;
	uint64_t start;          /* when it began (ns) */
	_Atomic uint64_t next;   /* when it may draw next (ns) */
	atomic_flag drawing;     /* one thread draws at a time */
	bool shown;              /* a line is on the terminal */
};

static struct progress line;
static atomic_bool taken;    /* the line is someone's */
static atomic_bool quiet;

void progress_quiet(void)
{
	atomic_store(&quiet, true);
}

/* ns; the coarse clock (a few ms) costs a hook next to nothing */
static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Seconds before the first draw: 1, or $BEAMCORE_PROGRESS_DELAY (the tests
 * see the line on a small input). */
static double delay(void)
{
	const char *e = getenv("BEAMCORE_PROGRESS_DELAY");
	char *end;
	double d = e ? strtod(e, &end) : 1.0;
	return e && end != e && d >= 0 ? d : 1.0;
}

struct progress *progress_begin(const char *what, uint64_t total, enum progress_unit unit)
{
	if (atomic_load(&quiet) || !isatty(STDERR_FILENO))
		return NULL;
	bool free_line = false;
	if (!atomic_compare_exchange_strong(&taken, &free_line, true))
		return NULL;
	struct progress *p = &line;
	p->what = what;
	p->total = total;
	p->unit = unit;
	atomic_store(&p->done, 0);
	p->start = now();
	atomic_store(&p->next, p->start + (uint64_t)(delay() * 1e9));
	atomic_flag_clear(&p->drawing);
	p->shown = false;
	return p;
}

static const char *amount(const struct progress *p, uint64_t v, char *buf, size_t len)
{
	return p->unit == PROGRESS_BYTES ? fmt_bytes(v, buf, len) : fmt_count(v, buf, len);
}

/* Appends to the line at n, never past its end (a long `what` is cut). */
static size_t add(char *text, size_t len, size_t n, const char *fmt, ...)
{
	if (n >= len - 1)
		return n;
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(text + n, len - n, fmt, ap);
	va_end(ap);
	return r < 0 ? n : n + (size_t)r >= len - 1 ? len - 1 : n + (size_t)r;
}

static void draw(struct progress *p, uint64_t done, uint64_t t)
{
	char text[256], a[32], b[32], r[32];
	size_t n = 0, len = sizeof text - 4;  /* room for the erase-line code */
	double secs = (double)(t - p->start) / 1e9;
	uint64_t rate = secs > 0 ? (uint64_t)(done / secs) : 0;
	n = add(text, len, n, "\rbeamcore: %s %s", p->what, amount(p, done, a, sizeof a));
	if (p->total && done <= p->total)
		n = add(text, len, n, "/%s (%d%%)", amount(p, p->total, b, sizeof b),
			(int)(100 * done / p->total));
	if (rate)
		n = add(text, len, n, ", %s/s", amount(p, rate, r, sizeof r));
	if (p->total && done <= p->total && rate) {
		uint64_t left = (p->total - done) / rate;
		if (left >= 60)
			n = add(text, len, n, ", %llu min %llu s left", (unsigned long long)(left / 60),
				(unsigned long long)(left % 60));
		else
			n = add(text, len, n, ", %llu s left", (unsigned long long)left + 1);
	}
	memcpy(text + n, "\033[K", 4);  /* with its NUL: n <= len - 1 = sizeof text - 5 */
	fputs(text, stderr);
	fflush(stderr);
	p->shown = true;
}

/* Draws when it is time (10 times a second at most), one thread at a time. */
static void tick(struct progress *p, uint64_t done)
{
	uint64_t t = now();
	if (t < atomic_load_explicit(&p->next, memory_order_relaxed) ||
	    atomic_flag_test_and_set(&p->drawing))
		return;
	if (t >= atomic_load(&p->next)) {
		draw(p, done, t);
		atomic_store(&p->next, t + 100000000u);
	}
	atomic_flag_clear(&p->drawing);
}

void progress_add_(struct progress *p, uint64_t n)
{
	tick(p, atomic_fetch_add_explicit(&p->done, n, memory_order_relaxed) + n);
}

void progress_at_(struct progress *p, uint64_t done)
{
	atomic_store_explicit(&p->done, done, memory_order_relaxed);
	tick(p, done);
}

void progress_end(struct progress *p)
{
	if (!p)
		return;
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
	atomic_store(&taken, false);
}

static int parse_quiet(const char *arg, void *opts)
{
	(void)arg;
	if (opts)
		progress_quiet();
	return 0;
}

const struct option_entry progress_options[] = {
	{ .kind = OPT_VALUE, .name = "quiet",
	  .help = "no progress line on stderr (shown, when stderr is a\n"
		  "terminal, for work that passes a second)",
	  .store = OPT_TARGET, .parse = parse_quiet },
	OPT_TABLE_END,
};
