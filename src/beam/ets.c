/* ETS tables: each normal scheduler keeps the tables it created on a circular
 * list (esd.ets_tables.clist, linked through common.all); sizes come from the
 * table's flexible counters, summed over slots when decentralized (erl_flxctr.c). */
#include <string.h>

#include "addrset.h"
#include "walks.h"

/* DbTableCommon.status bits (erl_db_util.h), stable OTP 24-27. */
#define DB_PRIVATE (1u << 0)
#define DB_PROTECTED (1u << 1)
#define DB_PUBLIC (1u << 2)
#define DB_DELETE (1u << 3)
#define DB_SET (1u << 4)
#define DB_BAG (1u << 5)
#define DB_DUPLICATE_BAG (1u << 6)
#define DB_ORDERED_SET (1u << 7)
#define DB_CA_ORDERED_SET (1u << 8)
#define DB_NAMED_TABLE (1u << 11)

#define CTR_NITEMS 0
#define CTR_MEM 1
#define MAX_TABLES_PER_SCHEDULER (1u << 24)

static const char *type_of(uint32_t st)
{
	if (st & (DB_ORDERED_SET | DB_CA_ORDERED_SET))
		return "ordered_set";
	if (st & DB_DUPLICATE_BAG)
		return "duplicate_bag";
	if (st & DB_BAG)
		return "bag";
	return "set";
}

static const char *protection_of(uint32_t st)
{
	return st & DB_PRIVATE ? "private" : st & DB_PUBLIC ? "public" : "protected";
}

/* Counter `id` of a table: one atomic, or a sum over the decentralized slots. */
static int counter(struct beam *b, uint64_t tb, int id, uint64_t *out)
{
	const struct layout *L = &b->L;
	uint64_t dec;
	/* ErtsFlxCtr.is_decentralized: an int to OTP 27, a bool from 28 */
	if (beam_read_field(b, tb, DB_CTR_DECENTRALIZED, &dec) < 0)
		return -1;
	if (!dec)
		return beam_read_u64(b, tb + LV(L, DB_CTR_COUNTERS) + 8 * id, out);
	uint64_t arr;
	uint32_t groups;
	if (!LHAS(L, G_FLXCTR_GROUPS) ||
	    beam_read_u32(b, beam_global(b, G_FLXCTR_GROUPS), &groups) < 0 || groups > 4096 ||
	    beam_read_u64(b, tb + LV(L, DB_CTR_PTR), &arr) < 0)
		return -1;
	int64_t sum = 0;
	for (uint32_t s = 0; s < groups; s++) {
		int64_t v;
		if (core_peek(b->core, arr + LV(L, FLXCTR_ARRAY) + s * LV(L, S_FLXCTR_ELEM) + 8 * id,
			      &v, 8) < 0)
			return -1;
		sum += v;
	}
	*out = (uint64_t)sum;
	return 0;
}

static void fill_table(struct beam *b, uint64_t tb, uint32_t status, struct vm_ets *t)
{
	const struct layout *L = &b->L;
	uint64_t owner, name, btid, mem;
	int32_t keypos = 0;
	uint64_t dec = 0, compress = 0;
	t->addr = tb;
	t->named_table = status & DB_NAMED_TABLE;
	t->type = type_of(status);
	t->protection = protection_of(status);
	if (beam_read_u64(b, tb + LV(L, DB_OWNER), &owner) == 0)
		beam_decode_pid(b, owner, &t->owner);
	if (beam_read_u64(b, tb + LV(L, DB_NAME), &name) < 0 || !(t->name = beam_atom(b, name)))
		t->unknown |= VEF_NAME;
	if (beam_read_u64(b, tb + LV(L, DB_BTID), &btid) < 0 || !btid ||
	    core_peek(b->core, btid + LV(L, MAGIC_BIN_REFN), t->refn, sizeof t->refn) < 0)
		t->unknown |= VEF_ID;
	core_peek(b->core, tb + LV(L, DB_KEYPOS), &keypos, 4);
	beam_read_field(b, tb, DB_COMPRESS, &compress);  /* an int to OTP 28, a bool from 29 */
	beam_read_field(b, tb, DB_CTR_DECENTRALIZED, &dec);
	t->keypos = keypos;
	t->compressed = compress != 0;
	t->decentralized_counters = dec != 0;
	if (counter(b, tb, CTR_NITEMS, &t->size) < 0)
		t->unknown |= VEF_SIZE;
	/* ets:info(T, memory): the byte counter in words, rounded up */
	if (counter(b, tb, CTR_MEM, &mem) < 0)
		t->unknown |= VEF_MEMORY;
	else
		t->memory = (mem + 7) / 8;
}

/* One scheduler's list of ETS tables (esd.ets_tables.clist: a ring). */
/* The tables met (a list that comes back to a table other than its head, or
 * reaches another scheduler's, a corrupt core, stops there: each is read once). */
struct walk {
	struct addrset met;        /* (a table's address: word-aligned) */
	int oom;
};

static int scheduler_tables(struct beam *b, const struct beam_sched *s, void *arg)
{
	const struct layout *L = &b->L;
	struct walk *w = arg;
	uint64_t first;
	if (beam_read_u64(b, s->esd + LV(L, ASD_ETS_CLIST), &first) < 0) {
		vm_gap(b->vm, "ETS tables of scheduler %llu: list head unreadable",
		       (unsigned long long)s->index);
		return 0;
	}
	uint64_t tb = first;
	for (uint32_t k = 0; tb; k++) {
		uint32_t status;
		int fresh = addrset_add(&w->met, tb);
		if (fresh < 0) {
			w->oom = 1;
			break;
		}
		if (!fresh) {  /* the ring closes at its head */
			if (tb != first)
				vm_gap(b->vm, "ETS list of scheduler %llu comes back to 0x%llx, not to "
				       "its head, or reaches another's list: corrupt (read up to there)",
				       (unsigned long long)s->index, (unsigned long long)tb);
			break;
		}
		if (k >= MAX_TABLES_PER_SCHEDULER) {
			vm_gap(b->vm, "ETS list of scheduler %llu does not close: corrupt",
			       (unsigned long long)s->index);
			break;
		}
		if (beam_read_u32(b, tb + LV(L, DB_STATUS), &status) < 0) {
			vm_gap(b->vm, "ETS table at 0x%llx unreadable (scheduler %llu's list "
			       "stops there)", (unsigned long long)tb, (unsigned long long)s->index);
			break;
		}
		if (!(status & DB_DELETE)) {
			struct vm_ets *t = vm_add_ets(b->vm);
			if (!t) {
				w->oom = 1;
				break;
			}
			fill_table(b, tb, status, t);
			if (t->unknown)
				vm_gap(b->vm, "ETS table at 0x%llx: some fields unreadable",
				       (unsigned long long)tb);
		}
		if (beam_read_u64(b, tb + LV(L, DB_ALL_NEXT), &tb) < 0) {
			vm_gap(b->vm, "ETS list of scheduler %llu broken after 0x%llx",
			       (unsigned long long)s->index, (unsigned long long)tb);
			break;
		}
	}
	return w->oom;
}

bc_err *beam_load_ets(struct beam *b)
{
	static const enum layout_id need[] = {
		G_SCHED_DATA, G_NO_SCHEDULERS, S_ALIGNED_SCHED_DATA, ASD_ETS_CLIST, DB_ALL_NEXT,
		DB_OWNER, DB_NAME, DB_BTID, DB_STATUS, DB_KEYPOS, DB_COMPRESS,
		DB_CTR_DECENTRALIZED, DB_CTR_COUNTERS, DB_CTR_PTR, FLXCTR_ARRAY, S_FLXCTR_ELEM,
		MAGIC_BIN_REFN,
	};
	const struct layout *L = &b->L;
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err)
		return err;
	struct walk w = { 0 };
	unsigned skipped = beam_schedulers(b, BS_NORMAL, scheduler_tables, &w);
	addrset_free(&w.met);
	if (skipped & BS_NORMAL)
		return bc_error(BC_EFAULT, "scheduler data unreadable: no ETS tables");
	if (w.oom)
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}
