/* src/base/outbuf.c and addrset.c, what export's crash dump writer stands on:
 * the hand-made numbers are printf's (0, edges, every digit count, across the
 * buffer's end), ob_printf's long lines whole, a write error returned; the
 * address set says each address new once, across pages, after emptying and
 * after a large set is followed by small ones (checked against a plain array). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrset.h"
#include "outbuf.h"

static int bad;

static void expect(int ok, const char *what)
{
	if (!ok) {
		printf("FAIL %s\n", what);
		bad++;
	}
}

/* Every value through ob_* and printf into two memory files: the same bytes. */
static void numbers(void)
{
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
	struct outbuf *o = malloc(sizeof *o);
	if (!fa || !fb || !o) {
		expect(0, "memory files");
		return;
	}
	outbuf_init(o, fa);
	uint64_t v[200];
	size_t n = 0;
	v[n++] = 0;
	v[n++] = UINT64_MAX;
	v[n++] = (uint64_t)INT64_MAX;
	v[n++] = (uint64_t)INT64_MIN;
	for (uint64_t p = 1; p && n < 180; p *= 10) {  /* every digit count, and its neighbours */
		v[n++] = p - 1;
		v[n++] = p;
	}
	for (int k = 0; k < 64 && n < 200; k += 4)
		v[n++] = (uint64_t)1 << k;
	/* enough rounds that lines fall across the 64 KiB buffer's end */
	for (int round = 0; round < 400; round++) {
		for (size_t i = 0; i < n; i++) {
			ob_u64(o, v[i]);
			ob_putc(o, ' ');
			ob_i64(o, (int64_t)v[i]);
			ob_putc(o, ' ');
			ob_hex(o, v[i]);
			ob_putc(o, ' ');
			ob_hex016(o, v[i]);
			ob_line_u64(o, " k: ", v[i]);
			fprintf(fb, "%" PRIu64 " %" PRId64 " %" PRIX64 " %016" PRIx64 " k: %" PRIu64 "\n",
				v[i], (int64_t)v[i], v[i], v[i], v[i]);
		}
		ob_printf(o, "%s=%d\n", "printf", round);
		fprintf(fb, "%s=%d\n", "printf", round);
	}
	/* a line longer than the buffer, by printf and by ob_write */
	char *big = malloc(3 * OUTBUF_SIZE);
	if (big) {
		memset(big, 'x', 3 * OUTBUF_SIZE - 1);
		big[3 * OUTBUF_SIZE - 1] = 0;
		ob_printf(o, "<%s>", big);
		ob_puts(o, big);
		fprintf(fb, "<%s>%s", big, big);
		free(big);
	}
	expect(outbuf_flush(o) == 0, "flush");
	fflush(fb);
	expect(na == nb && memcmp(a, b, na) == 0, "ob_* writes what printf writes");
	fclose(fa);
	fclose(fb);
	free(a);
	free(b);

	FILE *full = fopen("/dev/full", "w");
	if (full) {
		outbuf_init(o, full);
		for (int i = 0; i < 100000; i++)
			ob_u64(o, (uint64_t)i);
		expect(outbuf_flush(o) < 0, "a write error (/dev/full) is returned");
		fclose(full);
	}
	free(o);
}

static int in(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static void addresses(void)
{
	struct addrset s = { 0 };
	/* one large set: 200,000 addresses spread over pages, some twice */
	size_t fresh = 0;
	for (uint64_t i = 0; i < 200000; i++) {
		uint64_t a = 0x7f0000000000ull + (i * 4099 % 150000) * 4 * 37;
		int r = addrset_add(&s, a);
		fresh += r == 1;
		expect(r >= 0, "add");
	}
	/* i * 4099 % 150000 (4099 prime to 150000): 150,000 distinct values */
	expect(fresh == 150000, "each address new once in a large set");
	/* then small sets, emptied between: each against a plain array */
	for (int round = 0; round < 300; round++) {
		addrset_clear(&s);
		uint64_t seen[256];  /* (k mod 183 makes the address: 183 distinct, 17 twice) */
		size_t n = 0;
		for (int k = 0; k < 200; k++) {
			uint64_t a = 0x5000000ull + (uint64_t)((k * 7 + round * 13) % 61) * 4 +
				     (uint64_t)(k % 3) * 0x100000;
			int was = in(seen, n, a);
			int r = addrset_add(&s, a);
			expect(r == !was, "a small set against a plain array");
			if (!was && n < 256)
				seen[n++] = a;
		}
	}
	addrset_free(&s);
	addrset_clear(&s);  /* (a freed set is an empty one) */
	expect(addrset_add(&s, 8) == 1 && addrset_add(&s, 8) == 0 && addrset_add(&s, 12) == 1,
	       "neighbouring words kept apart");
	addrset_free(&s);
}

int main(void)
{
	numbers();
	addresses();
	printf(bad ? "%d failures\n" : "all ok\n", bad);
	return bad != 0;
}
