/* The reads every walk over a core shares: words, struct members at the size
 * the DWARF gives them, C strings, and the scheduler walk. They know no walk. */
#include "read.h"

int beam_read_u64(const struct beam *b, uint64_t addr, uint64_t *v)
{
	return core_peek(b->core, addr, v, 8);
}

int beam_read_u32(const struct beam *b, uint64_t addr, uint32_t *v)
{
	return core_peek(b->core, addr, v, 4);
}

int beam_read_field(const struct beam *b, uint64_t base, enum layout_id id, uint64_t *v)
{
	uint64_t n = b->L.e[id].size;
	*v = 0;
	if (n < 1 || n > 8)
		return -1;
	return core_peek(b->core, base + LV(&b->L, id), v, n);
}

int beam_read_cstr(const struct beam *b, uint64_t addr, char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (core_peek(b->core, addr + i, &buf[i], 1) < 0)
			return -1;
		if (!buf[i])
			return 0;
	}
	buf[len - 1] = '\0';
	return 0;
}

unsigned beam_schedulers(struct beam *b, unsigned kinds,
			 int (*fn)(struct beam *b, const struct beam_sched *s, void *arg), void *arg)
{
	static const struct {
		unsigned kind;
		enum layout_id data, count;
		const char *role;
	} k[] = {
		{ BS_NORMAL, G_SCHED_DATA, G_NO_SCHEDULERS, "scheduler" },
		{ BS_DIRTY_CPU, G_DIRTY_CPU_SCHED_DATA, G_NO_DIRTY_CPU, "dirty cpu scheduler" },
		{ BS_DIRTY_IO, G_DIRTY_IO_SCHED_DATA, G_NO_DIRTY_IO, "dirty io scheduler" },
	};
	const struct layout *L = &b->L;
	unsigned skipped = 0;
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		if (!(kinds & k[i].kind))
			continue;
		uint64_t arr, n;
		if (!LHAS(L, S_ALIGNED_SCHED_DATA) || !LHAS(L, k[i].data) || !LHAS(L, k[i].count) ||
		    beam_read_u64(b, beam_global(b, k[i].data), &arr) < 0 ||
		    beam_read_u64(b, beam_global(b, k[i].count), &n) < 0 || !arr || n > 4096) {
			skipped |= k[i].kind;
			continue;
		}
		for (uint64_t s = 0; s < n; s++) {
			struct beam_sched sd = { k[i].kind, k[i].role, s + 1,
						 arr + s * LV(L, S_ALIGNED_SCHED_DATA) };
			if (fn(b, &sd, arg))
				return skipped;
		}
	}
	return skipped;
}
