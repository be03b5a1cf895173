/* check: thresholds for CI. Each rule (--max KEY=VALUE, --rules FILE) holds,
 * fails (exit 3, naming every process or table above it, worst first) or
 * cannot be evaluated on this input (a value the input does not carry, a limit
 * it does not record: said, exit 1, never passed). --junit writes the same as
 * JUnit XML, atomically (temporary file + rename). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer.h"
#include "check.h"
#include "textfile.h"
#include "outfile.h"
#include "needs.h"
#include "utf8.h"
#include "xml.h"

#define TEXT_OFFENDERS 20  /* text lists this many per rule and "+N more"; JSON all */

enum scope { S_PROC, S_ETS, S_NODE, S_MEM };
enum unit { U_COUNT, U_WORDS, U_BYTES };
enum limit { L_NONE, L_PROCESSES, L_ATOMS };

struct key {
	const char *name;
	enum scope scope;
	enum unit unit;
	size_t off;        /* S_PROC: the field in struct vm_proc */
	uint32_t bit;      /* S_PROC/S_ETS: its unknown bit; S_MEM: enum vm_mem_kind */
	enum limit limit;  /* S_NODE: what a percent is of */
};

#define PROC(n, u, b) { #n, S_PROC, u, offsetof(struct vm_proc, n), b, L_NONE }
#define MEM(n, k) { n, S_MEM, U_BYTES, 0, k, L_NONE }
static const struct key keys[] = {
	PROC(message_queue_len, U_COUNT, VPF_MESSAGE_QUEUE_LEN),
	PROC(memory, U_BYTES, VPF_MEMORY),
	PROC(total_heap_size, U_WORDS, VPF_TOTAL_HEAP_SIZE),
	PROC(heap_size, U_WORDS, VPF_HEAP_SIZE),
	PROC(stack_size, U_WORDS, VPF_STACK_SIZE),
	PROC(reductions, U_COUNT, VPF_REDUCTIONS),
	{ "ets.size", S_ETS, U_COUNT, 0, VEF_SIZE, L_NONE },
	{ "ets.memory", S_ETS, U_BYTES, 0, VEF_MEMORY, L_NONE },  /* bytes: ets:info words x 8 */
	{ "process_count", S_NODE, U_COUNT, 0, 0, L_PROCESSES },
	{ "atom_count", S_NODE, U_COUNT, 0, 0, L_ATOMS },
	MEM("total", VM_MEM_TOTAL), MEM("processes", VM_MEM_PROCESSES),
	MEM("processes_used", VM_MEM_PROCESSES_USED), MEM("system", VM_MEM_SYSTEM),
	MEM("atom", VM_MEM_ATOM), MEM("atom_used", VM_MEM_ATOM_USED), MEM("binary", VM_MEM_BINARY),
	MEM("code", VM_MEM_CODE), MEM("ets", VM_MEM_ETS),
};
#define NKEYS (sizeof keys / sizeof keys[0])
static const char *const unit_names[] = { "count", "words", "bytes" };

struct rule {
	const struct key *key;
	size_t text;       /* "message_queue_len<=10000": offset in rules.text */
	uint64_t max;      /* base units (count, words, bytes) */
	bool percent;
	double pct;        /* percent: of the limit */
};

struct rules {
	struct rule *r;
	size_t n, cap;
	char *text;
	size_t tlen, tcap;
};

static void rules_free(struct rules *rs)
{
	free(rs->r);
	free(rs->text);
}

static const char *rule_text(const struct rules *rs, const struct rule *r)
{
	return rs->text + r->text;
}

static bool oom(char *why, size_t len)
{
	snprintf(why, len, "out of memory");
	return false;
}

static const struct key *key_find(const char *s, size_t n)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strlen(keys[i].name) == n && memcmp(keys[i].name, s, n) == 0)
			return &keys[i];
	return NULL;
}

static const char *key_names(void)
{
	static char list[512];
	if (!list[0])
		for (size_t i = 0, o = 0; i < NKEYS && o < sizeof list; i++)
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", keys[i].name);
	return list;
}

/* VALUE of KEY=VALUE: a count, or a size with a unit (bytes keys), or a percent
 * of the limit (process_count, atom_count). false with why[] when malformed. */
static bool parse_value(const struct key *k, const char *v, struct rule *r, char *why, size_t len)
{
	static const struct { const char *name; uint64_t mult; } units[] = {
		{ "B", 1 }, { "KiB", 1ull << 10 }, { "MiB", 1ull << 20 }, { "GiB", 1ull << 30 },
		{ "TiB", 1ull << 40 }, { "KB", 1000 }, { "MB", 1000000 }, { "GB", 1000000000 },
		{ "TB", 1000000000000ull },
	};
	const char *p = v;
	uint64_t whole = 0;
	bool overflow = false;
	for (; *p >= '0' && *p <= '9'; p++)
		overflow |= __builtin_mul_overflow(whole, 10, &whole) ||
			    __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole);
	if (p == v) {
		snprintf(why, len, "not a number");
		return false;
	}
	/* the decimals as frac/10^nfrac: exact, and no locale's decimal point */
	uint64_t frac = 0, scale = 1;
	if (*p == '.') {
		const char *d = ++p;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (p - d >= 18) {
				snprintf(why, len, "too many decimals");
				return false;
			}
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
		if (p == d) {
			snprintf(why, len, "not a number");
			return false;
		}
	}
	bool has_frac = scale > 1;
	const char *suffix = p;
	while (*suffix == ' ' || *suffix == '\t')
		suffix++;
	if (overflow) {
		snprintf(why, len, "too large");
		return false;
	}
	if (*suffix == '%') {
		if (k->limit == L_NONE) {
			snprintf(why, len, "a percent is only of a limit (process_count, atom_count)");
			return false;
		}
		if (suffix[1]) {
			snprintf(why, len, "nothing may follow '%%'");
			return false;
		}
		r->percent = true;
		r->pct = (double)whole + (double)frac / (double)scale;
		if (r->pct > 100) {
			snprintf(why, len, "a percent of the limit is 0-100%%");
			return false;
		}
		return true;
	}
	if (!*suffix) {
		if (has_frac) {
			snprintf(why, len, "not a whole number");
			return false;
		}
		r->max = whole;
		return true;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcasecmp(suffix, units[i].name) != 0)
			continue;
		if (k->unit != U_BYTES) {
			snprintf(why, len, "%s is in %s: no unit", k->name, unit_names[k->unit]);
			return false;
		}
		uint64_t part = (uint64_t)((unsigned __int128)frac * units[i].mult / scale);
		if (__builtin_mul_overflow(whole, units[i].mult, &r->max) ||
		    __builtin_add_overflow(r->max, part, &r->max)) {
			snprintf(why, len, "too large");
			return false;
		}
		return true;
	}
	snprintf(why, len, "unknown unit '%s' (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB%s)", suffix,
		 k->limit != L_NONE ? ", or %" : "");
	return false;
}

/* One rule: "KEY=VALUE" or "KEY<=VALUE" (a rules file may also say "--max KEY=VALUE"). */
static bool parse_rule(const char *s, struct rules *rs, char *why, size_t len)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, "--max", 5) == 0 && (s[5] == ' ' || s[5] == '\t' || s[5] == '=')) {
		for (s += 6; *s == ' ' || *s == '\t'; s++)
			;
	}
	size_t kn = strcspn(s, "=< \t");
	const char *e = s + kn;
	while (*e == ' ' || *e == '\t')
		e++;
	if (kn == 0 || !(*e == '=' || (e[0] == '<' && e[1] == '='))) {
		snprintf(why, len, "not KEY=VALUE");
		return false;
	}
	const struct key *k = key_find(s, kn);
	if (!k) {
		char vis[128], name[64];
		snprintf(name, sizeof name, "%.*s", (int)(kn < 60 ? kn : 60), s);
		snprintf(why, len, "unknown key '%s' (keys: %s)", utf8_visible(name, vis, sizeof vis),
			 key_names());
		return false;
	}
	e += *e == '<' ? 2 : 1;
	while (*e == ' ' || *e == '\t')
		e++;
	size_t vn = strlen(e);
	while (vn && (e[vn - 1] == ' ' || e[vn - 1] == '\t' || e[vn - 1] == '\r' || e[vn - 1] == '\n'))
		vn--;
	char *value = strndup(e, vn);
	if (!value)
		return oom(why, len);
	struct rule r = { .key = k };
	char vwhy[200];
	bool ok = parse_value(k, value, &r, vwhy, sizeof vwhy);
	if (!ok) {
		char vis[128];
		snprintf(why, len, "malformed threshold '%s' for %s: %s",
			 utf8_visible(value, vis, sizeof vis), k->name, vwhy);
		free(value);
		return false;
	}
	/* the rule as written: "memory<=1GiB" */
	size_t need = strlen(k->name) + 2 + vn + 1;
	while (rs->tcap - rs->tlen < need) {
		size_t cap = rs->tcap ? rs->tcap * 2 : 256;
		char *t = realloc(rs->text, cap);
		if (!t) {
			free(value);
			return oom(why, len);
		}
		rs->text = t;
		rs->tcap = cap;
	}
	r.text = rs->tlen;
	rs->tlen += (size_t)snprintf(rs->text + rs->tlen, need, "%s<=%s", k->name, value) + 1;
	free(value);
	struct rule *slot = grow(rs->r, &rs->cap, rs->n, sizeof *rs->r, 8);
	if (!slot)
		return oom(why, len);
	rs->r = slot;
	rs->r[rs->n++] = r;
	return true;
}

static struct check_opts check_opts;
extern const struct analyzer analyzer_check;

/* Every rule of --max and --rules FILE (in that order); false with a one-line
 * reason in why[] (usage). */
static bool load_rules(const struct check_opts *o, struct rules *rs, char *why, size_t len)
{
	char rwhy[1024], vis[300];
	for (size_t i = 0; i < o->nmax; i++)
		if (!parse_rule(o->max[i], rs, rwhy, sizeof rwhy)) {
			snprintf(why, len, "--max %s: %s", utf8_visible(o->max[i], vis, sizeof vis), rwhy);
			return false;
		}
	if (o->rules) {
		char *text;
		size_t n;
		bc_err *e = read_text_file(o->rules, "--rules", 1u << 24, &text, &n, NULL);
		if (e) {
			snprintf(why, len, "%s", e->msg);
			bc_err_free(e);
			return false;
		}
		size_t lineno = 0;
		bool ok = true;
		for (char *line = text, *next; ok && line < text + n; line = next) {
			lineno++;
			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = '\0';
			line[strcspn(line, "#\r")] = 0;
			if (!line[strspn(line, " \t")])
				continue;
			if (!(ok = parse_rule(line, rs, rwhy, sizeof rwhy)))
				snprintf(why, len, "%s:%zu: %s", utf8_visible(o->rules, vis, sizeof vis),
					 lineno, rwhy);
		}
		free(text);
		if (!ok)
			return false;
	}
	if (rs->n == 0) {
		snprintf(why, len, o->rules ? "--rules %s holds no rule"
					    : "no rules: give --max KEY=VALUE or --rules FILE",
			 o->rules ? utf8_visible(o->rules, vis, sizeof vis) : "");
		return false;
	}
	return true;
}

static int check(const struct an_opts *ao)
{
	const struct check_opts *o = an_own_opts(ao, &analyzer_check);
	struct rules rs = { 0 };
	char why[2048], vis[2100];
	bool ok = load_rules(o, &rs, why, sizeof why);
	bc_err *err = ok && o->junit ? outfile_check(o->junit, "--junit") : NULL;
	if (err) {
		snprintf(why, sizeof why, "%s", err->msg);
		bc_err_free(err);
		ok = false;
	}
	rules_free(&rs);
	if (ok)
		return -1;
	fprintf(stderr, "beamcore: check: %s\n", utf8_visible(why, vis, sizeof vis));
	return BC_EXIT_USAGE;
}

/* ---- evaluation ---- */

enum status { ST_PASS, ST_FAIL, ST_UNKNOWN };
static const char *const status_names[] = { "pass", "fail", "unknown" };

struct offender {
	uint32_t idx;      /* into vm->procs or vm->ets */
	uint64_t value;
};

struct result {
	const struct key *key;
	const char *text;
	enum status status;
	bool percent;
	double pct;
	uint64_t limit;    /* percent: the limit (0: unknown) */
	bool max_known;
	uint64_t max;
	bool have_value;
	uint64_t value;    /* node-wide: the value; per process/table: the largest read */
	int64_t worst;     /* the process/table with it; -1: none */
	uint64_t nobjects, nunknown;
	const char *reason;   /* unknown: why; NULL otherwise */
	size_t first, n;   /* offenders: ctx->off[first .. first+n) */
};

struct ctx {
	const struct vm *vm;
	struct result *res;
	size_t nres;
	struct offender *off;
	size_t noff, offcap;
	size_t npass, nfail, nunknown;
	struct who *who;   /* offender_get's: the last offender's (it is asked per field) */
	uint64_t who_of;   /* (its record id) */
};

static void ctx_release(void *p)
{
	struct ctx *c = p;
	free(c->res);
	free(c->off);
	free(c->who);
	free(c);
}

static int off_cmp(const void *a, const void *b)
{
	const struct offender *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static bool object_value(const struct vm *vm, const struct key *k, size_t i, uint64_t *v)
{
	if (k->scope == S_PROC) {
		const struct vm_proc *p = &vm->procs[i];
		if (p->unknown & k->bit)
			return false;
		memcpy(v, (const char *)p + k->off, sizeof *v);
		return true;
	}
	const struct vm_ets *t = &vm->ets[i];
	if (t->unknown & k->bit)
		return false;
	*v = k->bit == VEF_SIZE ? t->size : t->memory * 8;
	return true;
}

static bc_err *evaluate(struct ctx *c, struct result *r, struct an_out *out)
{
	const struct vm *vm = c->vm;
	const struct key *k = r->key;
	char buf[256];
	r->worst = -1;
	r->first = c->noff;
	if (r->percent) {
		r->limit = k->limit == L_PROCESSES ? vm->process_limit : vm->atom_limit;
		if (r->limit) {
			r->max = (uint64_t)((double)r->limit * r->pct / 100.0);
			r->max_known = true;
		}
	} else {
		r->max_known = true;
	}
	if (k->scope == S_PROC || k->scope == S_ETS) {
		size_t n = k->scope == S_PROC ? vm->nprocs : vm->nets;
		r->nobjects = n;
		for (size_t i = 0; i < n; i++) {
			uint64_t v;
			if (!object_value(vm, k, i, &v)) {
				r->nunknown++;
				continue;
			}
			if (!r->have_value || v > r->value) {
				r->have_value = true;
				r->value = v;
				r->worst = (int64_t)i;
			}
			if (v <= r->max)
				continue;
			struct offender *o = grow(c->off, &c->offcap, c->noff, sizeof *c->off, 64);
			if (!o)
				return bc_error(BC_ENOMEM, "out of memory");
			c->off = o;
			c->off[c->noff++] = (struct offender){ (uint32_t)i, v };
		}
		r->n = c->noff - r->first;
		if (r->n)  /* (c->off is NULL until the first offender) */
			qsort(c->off + r->first, r->n, sizeof *c->off, off_cmp);
		if (r->n)
			r->status = ST_FAIL;
		else if (r->nunknown) {
			r->status = ST_UNKNOWN;
			snprintf(buf, sizeof buf, "%s of %llu %s of %llu unreadable in this input: none of "
				 "the others is above", k->name + (k->scope == S_ETS ? 4 : 0),
				 (unsigned long long)r->nunknown, k->scope == S_PROC ? "processes" : "tables",
				 (unsigned long long)r->nobjects);
			r->reason = an_keep(out, buf);
		} else
			r->status = ST_PASS;
		return NULL;
	}
	if (k->scope == S_MEM) {
		r->have_value = vm->memory.known & (1u << k->bit);
		r->value = vm->memory.v[k->bit];
		if (!r->have_value) {
			snprintf(buf, sizeof buf, "erlang:memory(%s) is unknown in this input", k->name);
			r->reason = an_keep(out, buf);
		}
	} else if (k->limit == L_PROCESSES) {
		r->have_value = true;
		r->value = vm->nprocs;
	} else {
		r->have_value = vm->atom_count != 0;  /* a VM always has atoms: 0 is unread */
		r->value = vm->atom_count;
		if (!r->have_value)
			r->reason = "atom_count is unknown in this input";
	}
	if (r->have_value && !r->max_known) {
		snprintf(buf, sizeof buf, "%s is unknown in this input: %s of it cannot be evaluated",
			 k->limit == L_PROCESSES ? "process_limit" : "atom_limit", "a percent");
		r->reason = an_keep(out, buf);
	}
	if (!r->have_value || !r->max_known)
		r->status = ST_UNKNOWN;
	else
		r->status = r->value > r->max ? ST_FAIL : ST_PASS;
	return NULL;
}

/* ---- output ---- */

static const char *fmt_value(const struct key *k, uint64_t v, char *buf, size_t len)
{
	return k->unit == U_BYTES ? fmt_bytes(v, buf, len)
	     : k->unit == U_WORDS ? fmt_words(v, buf, len) : fmt_count(v, buf, len);
}

/* An offender's identity: pid, registered name, and the name text shows (its
 * label: vm_proc_label); a table's id, name and owner. */
struct who {
	char pid[32], name[300], id[64];
	const char *regname, *shown;
};

static void who(const struct vm *vm, const struct key *k, uint32_t idx, struct who *w)
{
	if (k->scope == S_PROC) {
		const struct vm_proc *p = &vm->procs[idx];
		vm_pid_str(p, w->pid, sizeof w->pid);
		w->regname = p->registered_name;
		w->shown = vm_proc_label(p, w->name, sizeof w->name);
		return;
	}
	const struct vm_ets *t = &vm->ets[idx];
	if (t->unknown & VEF_ID)  /* a dump's named table: the dump prints its name instead */
		snprintf(w->id, sizeof w->id, "-");
	else
		vm_ets_id_str(t, w->id, sizeof w->id);
	vm_pid2str(t->owner, w->pid, sizeof w->pid);
	const struct vm_proc *p = vm_find_proc(vm, t->owner);
	w->regname = p ? p->registered_name : NULL;
	w->shown = t->unknown & VEF_NAME ? NULL : t->name;
}

/* The output: "check" (the counts), "rules" (each with its offenders). Text:
 * the counts' line, then a line per rule and one per offender (the first
 * TEXT_OFFENDERS). Rule ids index c->res; an offender's id is its rule's
 * index << 32 | its place among the rule's offenders. */
static enum rf_text unit_text(const struct key *k)
{
	return k->unit == U_BYTES ? RT_BYTES : k->unit == U_WORDS ? RT_WORDS : RT_COUNT;
}

static const struct rfield counts_fields[] = {
	{ .key = "rules", .kind = RF_U64 },
	{ .key = "passed", .kind = RF_U64 },
	{ .key = "failed", .kind = RF_U64 },
	{ .key = "unknown", .kind = RF_U64 },
	{ .key = "plural", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },
};
static const char *const counts_line[] = { "rules", "plural", "passed", "failed", "unknown", NULL };

static void counts_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id, (void)buf, (void)len;
	const struct ctx *c = ctx;
	const size_t n[] = { c->nres, c->npass, c->nfail, c->nunknown };
	if (f < 4)
		v->u = n[f];
	else
		v->s = c->nres == 1 ? "" : "s";
}

static const struct rrec counts_rec = {
	.fields = counts_fields, .nfields = 5, .get = counts_get,
	.line = "check: %s rule%s: %s passed, %s failed, %s not evaluated\n\n", .line_keys = counts_line,
};

enum { PO_PID, PO_REGNAME, PO_NAME, PO_LABEL, PO_VALUE };
static const struct rfield proc_off_fields[] = {
	{ .key = "pid", .kind = RF_STR },
	{ .key = "registered_name", .kind = RF_STR },
	{ .key = "name", .kind = RF_STR, .null_text = "" },
	{ .key = "label", .kind = RF_STR, .flags = RCOL_JSON_ONLY },  /* = name */
	{ .key = "value", .kind = RF_U64 },
};
static const char *const proc_off_line[] = { "pid", "name", "value", NULL };
enum { EO_ID, EO_NAME, EO_OWNER, EO_OWNER_NAME, EO_VALUE, EO_ID_TEXT };
static const struct rfield ets_off_fields[] = {
	{ .key = "id", .kind = RF_STR },
	{ .key = "name", .kind = RF_STR },
	{ .key = "owner", .kind = RF_STR },
	{ .key = "owner_name", .kind = RF_STR },
	{ .key = "value", .kind = RF_U64 },
	{ .key = "id_text", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },  /* "  ID", "" */
};
static const char *const ets_off_line[] = { "name", "value", "owner", "id_text", NULL };

static void offender_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	struct ctx *c = ctx;
	const struct result *r = &c->res[id >> 32];
	const struct offender *o = &c->off[r->first + (uint32_t)id];
	const struct key *k = r->key;
	if (c->who_of != id)
		who(c->vm, k, o->idx, c->who);
	c->who_of = id;
	const struct who *wh = c->who;
	bool id_known = strcmp(wh->id, "-") != 0;  /* (a dump's named table has none) */
	if (k->scope == S_PROC && f < PO_VALUE)
		v->s = f == PO_PID ? wh->pid : f == PO_REGNAME ? wh->regname : wh->shown;
	else if (k->scope == S_ETS && f != EO_VALUE) {
		const char *s[] = { id_known ? wh->id : NULL, wh->shown, wh->pid, wh->regname };
		if (f == EO_ID_TEXT)
			snprintf(buf, len, "%s%s", id_known ? "  " : "", id_known ? wh->id : "");
		v->s = f == EO_ID_TEXT ? buf : s[f];
	}
	v->u = o->value;
	v->text = unit_text(k);
}

static const struct rrec proc_off_rec = {
	.fields = proc_off_fields, .nfields = 5, .get = offender_get,
	.line = "         %-14s %-32s %14s\n", .line_keys = proc_off_line,
};
static const struct rrec ets_off_rec = {
	.fields = ets_off_fields, .nfields = 6, .get = offender_get,
	.line = "         %-32s %14s  owner %s%s\n", .line_keys = ets_off_line,
};

enum { R_RULE, R_KEY, R_UNIT, R_MAX, R_MAX_PERCENT, R_LIMIT, R_STATUS, R_VALUE, R_REASON,
       R_PROCESSES, R_TABLES, R_UNREADABLE, R_OFFENDERS, R_WORD, R_PERCENT_TEXT, R_VERDICT,
       R_UNREADABLE_TEXT };
static const struct rfield rule_fields[] = {
	{ .key = "rule", .kind = RF_STR },
	{ .key = "key", .kind = RF_STR },
	{ .key = "unit", .kind = RF_STR },
	{ .key = "max", .kind = RF_U64 },
	{ .key = "max_percent", .kind = RF_F64 },
	{ .key = "limit", .kind = RF_U64 },
	{ .key = "status", .kind = RF_STR },
	{ .key = "value", .kind = RF_U64 },
	{ .key = "reason", .kind = RF_STR },
	{ .key = "processes", .kind = RF_U64 },
	{ .key = "tables", .kind = RF_U64 },
	{ .key = "unreadable", .kind = RF_U64 },
	{ .key = "offenders", .kind = RF_LIST, .text_max = TEXT_OFFENDERS,
	  .more = "         +%zu more (--json lists every one)\n" },
	/* text: "FAIL     memory<=1MiB: 3 processes above 1.0 MiB" and what follows */
	{ .key = "word", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },
	{ .key = "percent_text", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },
	{ .key = "verdict", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },
	{ .key = "unreadable_text", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },
};
static const char *const rule_line[] = { "word", "rule", "percent_text", "verdict",
					  "unreadable_text", NULL };

/* The rest of the rule's text line, after the rule: ": 3 processes above 1.0 MiB\n" */
static const char *verdict(const struct ctx *c, const struct result *r, char *buf, size_t len)
{
	const struct key *k = r->key;
	bool objects = k->scope == S_PROC || k->scope == S_ETS;
	const char *what = k->scope == S_PROC ? "process" : "table";
	char a[48], vis[400];
	if (r->status == ST_UNKNOWN)
		snprintf(buf, len, ": not evaluated: %s\n", r->reason ? r->reason : "unknown");
	else if (objects && r->status == ST_FAIL)
		snprintf(buf, len, ": %zu %s%s above %s\n", r->n, what,
			 r->n == 1 ? "" : "es" + (k->scope == S_ETS), fmt_value(k, r->max, a, sizeof a));
	else if (objects && r->have_value) {
		struct who wh;
		who(c->vm, k, (uint32_t)r->worst, &wh);
		snprintf(buf, len, ": largest %s (%s%s%s)\n", fmt_value(k, r->value, a, sizeof a),
			 k->scope == S_ETS ? "" : wh.pid, k->scope == S_ETS || !wh.shown ? "" : " ",
			 wh.shown ? utf8_visible(wh.shown, vis, sizeof vis) : "");
	} else if (objects)
		snprintf(buf, len, ": no %ses\n", what);
	else
		snprintf(buf, len, ": %s\n", fmt_value(k, r->value, a, sizeof a));
	return buf;
}

static void rule_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	const struct ctx *c = ctx;
	const struct result *r = &c->res[id];
	const struct key *k = r->key;
	bool objects = k->scope == S_PROC || k->scope == S_ETS;
	const char *what = k->scope == S_PROC ? "process" : "table";
	char a[48], b[48];
	switch (f) {
	case R_RULE: v->s = r->text; break;
	case R_KEY: v->s = k->name; break;
	case R_UNIT: v->s = unit_names[k->unit]; break;
	case R_MAX: v->u = r->max; v->null = !r->max_known; break;
	case R_MAX_PERCENT: v->f = r->pct; v->null = !r->percent; break;
	case R_LIMIT: v->u = r->limit; v->null = !r->percent || !r->limit; break;
	case R_STATUS: v->s = status_names[r->status]; break;
	case R_VALUE: v->u = r->value; v->null = !r->have_value; break;
	case R_REASON: v->s = r->reason; break;
	case R_PROCESSES: v->u = r->nobjects; v->absent = k->scope != S_PROC; break;
	case R_TABLES: v->u = r->nobjects; v->absent = k->scope != S_ETS; break;
	case R_UNREADABLE: v->u = r->nunknown; v->absent = !objects; break;
	case R_OFFENDERS:
		v->n = r->n;
		v->rec = k->scope == S_ETS ? &ets_off_rec : &proc_off_rec;
		break;
	case R_WORD:
		v->s = r->status == ST_PASS ? "PASS" : r->status == ST_FAIL ? "FAIL" : "UNKNOWN";
		break;
	case R_PERCENT_TEXT:
		v->s = buf;
		buf[0] = '\0';
		if (r->percent && r->max_known)
			snprintf(buf, len, " (%s of %s)", fmt_count(r->max, a, sizeof a),
				 fmt_count(r->limit, b, sizeof b));
		break;
	case R_VERDICT: v->s = verdict(c, r, buf, len); break;
	case R_UNREADABLE_TEXT:
		v->s = buf;
		buf[0] = '\0';
		if (objects && r->status == ST_FAIL && r->nunknown)
			snprintf(buf, len, "         (%llu %s%s unreadable)\n",
				 (unsigned long long)r->nunknown, what,
				 r->nunknown == 1 ? "" : "es" + (k->scope == S_ETS));
		break;
	}
}

static uint64_t rule_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)ctx, (void)f;
	return id << 32 | i;
}

static const struct rrec rule_rec = {
	.fields = rule_fields, .nfields = sizeof rule_fields / sizeof *rule_fields,
	.get = rule_get, .item = rule_item, .line = "%-8s %s%s%s%s", .line_keys = rule_line,
};

static const struct rfield check_fields[] = {
	{ .key = "check", .kind = RF_REC },
	{ .key = "rules", .kind = RF_LIST },
};

static void check_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id, (void)buf, (void)len;
	const struct ctx *c = ctx;
	v->rec = f == 0 ? &counts_rec : &rule_rec;
	v->n = c->nres;
}

static uint64_t check_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)ctx, (void)id, (void)f;
	return i;
}

static const struct rrec check_rec = {
	.fields = check_fields, .nfields = 2, .get = check_get, .item = check_item,
};

/* ---- JUnit XML ---- */

static void junit_body(FILE *f, const struct ctx *c)
{
	char a[48];
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuites name=\"beamcore check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		   "skipped=\"%zu\">\n", c->nres, c->nfail, c->nunknown);
	fprintf(f, "  <testsuite name=\"");
	xml_printf(f, "beamcore check %s", c->vm->source);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", c->nres,
		c->nfail, c->nunknown);
	for (size_t i = 0; i < c->nres; i++) {
		const struct result *r = &c->res[i];
		const struct key *k = r->key;
		fprintf(f, "    <testcase classname=\"beamcore.check\" name=\"");
		xml_put(f, r->text);
		fprintf(f, "\"");
		if (r->status == ST_PASS) {
			fprintf(f, "/>\n");
			continue;
		}
		fprintf(f, ">\n");
		if (r->status == ST_UNKNOWN) {
			fprintf(f, "      <skipped message=\"");
			xml_printf(f, "not evaluated: %s", r->reason ? r->reason : "unknown");
			fprintf(f, "\"/>\n    </testcase>\n");
			continue;
		}
		fprintf(f, "      <failure type=\"threshold\" message=\"");
		if (k->scope == S_PROC || k->scope == S_ETS)
			xml_printf(f, "%zu %s above %s", r->n,
				   k->scope == S_PROC ? (r->n == 1 ? "process" : "processes")
						      : (r->n == 1 ? "table" : "tables"),
				   fmt_value(k, r->max, a, sizeof a));
		else
			xml_printf(f, "%s is %s, above %s", k->name, fmt_value(k, r->value, a, sizeof a),
				   fmt_value(k, r->max, a + 24, 24));
		fprintf(f, "\">");
		for (size_t j = 0; j < r->n; j++) {
			const struct offender *o = &c->off[r->first + j];
			struct who wh;
			who(c->vm, k, o->idx, &wh);
			if (k->scope == S_ETS)
				xml_printf(f, "%s %s %llu (owner %s)\n", wh.id, wh.shown ? wh.shown : "?",
					   (unsigned long long)o->value, wh.pid);
			else
				xml_printf(f, "%s %s %llu\n", wh.pid, wh.shown ? wh.shown : "-",
					   (unsigned long long)o->value);
		}
		if (!r->n)
			xml_printf(f, "%s %llu > %llu\n", k->name, (unsigned long long)r->value,
				   (unsigned long long)r->max);
		fprintf(f, "</failure>\n    </testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

/* Through the output file: a reader never sees half a report. */
static bc_err *junit_write(const char *path, const struct ctx *c)
{
	struct outfile of;
	bc_err *err = outfile_open(path, "--junit", &of);
	if (err)
		return err;
	junit_body(of.f, c);
	uint64_t bytes;
	bool known;
	return outfile_commit(&of, &bytes, &known);
}

static bc_err *run(const struct vm *vm, const struct an_opts *ao, struct an_out *out)
{
	const struct check_opts *o = an_own_opts(ao, &analyzer_check);
	struct rules rs = { 0 };
	char why[2048];
	if (!load_rules(o, &rs, why, sizeof why)) {  /* changed since check(): say it */
		rules_free(&rs);
		return bc_error(BC_EUSAGE, "check: %.400s", why);
	}
	struct ctx *c = an_own(out, calloc(1, sizeof *c), ctx_release);
	struct result *res = c ? c->res = calloc(rs.n, sizeof *res) : NULL;
	if (!res || !(c->who = malloc(sizeof *c->who))) {
		rules_free(&rs);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	c->vm = vm;
	c->nres = rs.n;
	c->who_of = UINT64_MAX;
	bc_err *err = NULL;
	for (size_t i = 0; i < rs.n && !err; i++) {
		struct result *r = &res[i];
		r->key = rs.r[i].key;
		r->text = an_keep(out, rule_text(&rs, &rs.r[i]));
		r->percent = rs.r[i].percent;
		r->pct = rs.r[i].pct;
		r->max = rs.r[i].max;
		if (!r->text)
			err = bc_error(BC_ENOMEM, "out of memory");
		else
			err = evaluate(c, r, out);
		if (!err) {
			c->npass += r->status == ST_PASS;
			c->nfail += r->status == ST_FAIL;
			c->nunknown += r->status == ST_UNKNOWN;
		}
	}
	rules_free(&rs);
	if (err)
		return err;
	out->doc = (struct rdoc){ &check_rec, c, 0 };
	out->exit_code = c->nfail ? BC_EXIT_CHECK_FAILED : c->nunknown ? BC_EXIT_PARTIAL : 0;
	if (o->junit)
		err = junit_write(o->junit, c);
	return err;
}

static const char *key_name(size_t i)
{
	return i < NKEYS ? keys[i].name : NULL;
}

/* --max, repeatable: the rules in the order given (argv outlives the run) */
static int add_max(const char *rule, void *opts)
{
	struct check_opts *o = opts;
	if (!o)
		return 0;
	const char **max = realloc(o->max, (o->nmax + 1) * sizeof *max);
	if (!max) {
		fprintf(stderr, "beamcore: out of memory\n");
		return BC_EXIT_FAILED;
	}
	max[o->nmax++] = rule;
	o->max = max;
	return 0;
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	{ .kind = OPT_VALUE, .name = "max", .arg = "KEY=VALUE",
	  .help = "a rule, repeatable: exit 3 when KEY is above VALUE;\n"
		  "per process: message_queue_len, memory, total_heap_size,\n"
		  "heap_size, stack_size, reductions; per ETS table:\n"
		  "ets.size, ets.memory; node: process_count, atom_count\n"
		  "(80% = of the limit), erlang:memory() total, processes,\n"
		  "processes_used, system, atom, atom_used, binary, code,\n"
		  "ets; bytes take KiB/MiB/GiB/KB/MB/GB",
	  .parse = add_max, .value = key_name },
	{ .kind = OPT_STRING, .name = "rules", .arg = "FILE",
	  .help = "rules from FILE, one KEY=VALUE a line, # comments",
	  .offset = offsetof(struct check_opts, rules), .complete = OPT_COMPLETE_FILE },
	{ .kind = OPT_STRING, .name = "junit", .arg = "FILE",
	  .help = "also write the results as JUnit XML to FILE",
	  .offset = offsetof(struct check_opts, junit), .complete = OPT_COMPLETE_FILE },
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_check = {
	.name = "check",
	.kind = CMD_MODEL,
	.options = options,
	.opts = &check_opts,
	.exit_help = "exit: 0 every rule holds, 1 partial (a rule not evaluated, or some memory\n"
		     "  unreadable), 2 failed, 3 a rule failed, 64 usage\n",
	.summary = "CI thresholds (--max KEY=VALUE, --rules FILE): exit 3 when one fails",
	.needs = NEED_PROCS | NEED_ETS | NEED_MEMORY,
	.header = 1,
	.check = check,
	.run = run,
};
