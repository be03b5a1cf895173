/* beamcore triage PATH...: many crash dumps and cores grouped by cause (their
 * signature.h signature), most frequent first. One worker thread per CPU
 * takes the next file, reads what the signature and the memory picture need,
 * keeps a few strings of it and closes it: memory stays bounded by the
 * number of files, not their size. Results are kept in input order, so the
 * output is the same on any number of CPUs. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyzer.h"
#include "decompress.h"
#include "grow.h"
#include "textfile.h"
#include "hmap.h"
#include "outfile.h"
#include "progress.h"
#include "signature.h"
#include "target.h"
#include "units.h"
#include "walk.h"
#include "xml.h"

struct triage_opts {
	int json;
	const char *baseline, *junit;
};
static struct triage_opts topts;

/* What one file left behind. */
struct result {
	char *sig;            /* NULL: unreadable (error) */
	char *error;
	double time;          /* 0: unknown */
	bool truncated;
	size_t slogan_len;    /* sig's slogan part (a truncated dump's frames may be lost) */
	const char *category; /* its largest erlang:memory() category (static); NULL: unknown */
	uint64_t category_bytes;
	char *proc;           /* its largest process: registered name, label or initial call */
	uint64_t proc_bytes;
	uint32_t group;
	const char *gsig;     /* a truncated dump's group's signature, when not sig */
};

struct run {
	const struct target_opts *to;
	struct inputs in;
	struct result *res;
	atomic_size_t next;
	pthread_mutex_t native;  /* cores one at a time: the DWARF reader keeps file state */
	struct progress *progress;  /* files read (the line is the run's, not each load's) */
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* "PATH: why" from a loader: the why (the file is said beside it). */
static const char *reason(const char *msg, const char *path)
{
	size_t k = strlen(path);
	return strncmp(msg, path, k) == 0 && strncmp(msg + k, ": ", 2) == 0 ? msg + k + 2 : msg;
}

static void memory_picture(const struct vm *vm, struct result *r)
{
	static const enum vm_mem_kind parts[] = { VM_MEM_PROCESSES, VM_MEM_BINARY, VM_MEM_CODE,
						  VM_MEM_ETS, VM_MEM_ATOM };
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if ((vm->memory.known & (1u << parts[i])) && (!r->category ||
							      vm->memory.v[parts[i]] > r->category_bytes)) {
			r->category = vm_mem_names[parts[i]];
			r->category_bytes = vm->memory.v[parts[i]];
		}
	const struct vm_proc *big = NULL;
	for (size_t i = 0; i < vm->nprocs; i++)
		if (!(vm->procs[i].unknown & VPF_MEMORY) && (!big || vm->procs[i].memory > big->memory))
			big = &vm->procs[i];
	if (!big)
		return;
	char buf[256];
	const char *name = big->registered_name ? big->registered_name
			   : big->label ? big->label : vm_mfa_str(vm_shown_initial_call(big), buf, sizeof buf);
	r->proc = dup_or_null(name ? name : "?");
	r->proc_bytes = big->memory;
}

/* Does the file need the native reader (an ELF core, or compressed: maybe one)? */
static bool native_or_compressed(const char *path)
{
	char head[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, head, sizeof head);
	close(fd);
	return n >= 4 && (memcmp(head, "\177ELF", 4) == 0 || compression_of(head, (size_t)n));
}

static void one(struct run *R, size_t i)
{
	struct result *r = &R->res[i];
	const char *path = R->in.v[i].path;
	struct stat st;
	if (R->in.v[i].error) {
		r->error = strdup(R->in.v[i].error);
		return;
	}
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
		r->error = strdup("empty file");
		return;
	}
	struct target_opts o = *R->to;
	o.path = path;
	bool native = native_or_compressed(path);
	if (native)
		pthread_mutex_lock(&R->native);
	struct target *t = NULL;
	bc_err *err = target_open(&o, &t);
	if (!err) {
		/* a dump: its processes (the largest, the culprit's stack) and memory;
		 * a core: its threads (the crashing one's frames), its memory if it reads */
		bool dump = !target_beam(t);
		err = target_load(t, dump ? NEED_PROCS | NEED_STACKS | NEED_MEMORY : NEED_THREADS);
		if (!err && !dump)
			bc_err_free(target_load(t, NEED_MEMORY));
	}
	if (err) {
		r->error = strdup(reason(err->msg, path));
		bc_err_free(err);
	} else {
		const struct vm *vm = target_vm(t);
		char sig[1024];
		sig_of(vm, sig, sizeof sig);
		r->sig = strdup(sig);
		r->slogan_len = strlen(sig);
		if (vm->death.slogan) {  /* its slogan's part */
			char slogan[1024];
			sig_normalize(vm->death.slogan, slogan, sizeof slogan);
			r->slogan_len = strlen(slogan);
		}
		r->time = vm->time;
		r->truncated = target_truncated(t);
		memory_picture(vm, r);
	}
	target_close(t);
	if (native)
		pthread_mutex_unlock(&R->native);
	if (!r->sig && !r->error)
		r->error = strdup("out of memory");
}

static void *worker(void *arg)
{
	struct run *R = arg;
	for (size_t i; (i = atomic_fetch_add(&R->next, 1)) < R->in.n;) {
		one(R, i);
		progress_add(R->progress, 1);
	}
	return NULL;
}

static void run_all(struct run *R)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus < 1 ? 1 : (size_t)cpus;
	if (n > R->in.n)
		n = R->in.n ? R->in.n : 1;
	pthread_t *th = calloc(n, sizeof *th);
	size_t started = 0;
	R->progress = progress_begin("reading files", R->in.n, PROGRESS_COUNT);
	for (; th && started < n; started++)
		if (pthread_create(&th[started], NULL, worker, R) != 0)
			break;
	if (!started)
		worker(R);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	progress_end(R->progress);
	free(th);
}

/* ---- groups ---- */

struct group {
	const char *sig;
	uint32_t first, count, ntrunc;  /* first: its first file (the representative) */
	double first_seen, last_seen;
	bool is_new;
};

struct groups {
	struct group *v;
	size_t n, cap;
	struct hmap index;
	uint32_t *members;   /* file indices, group by group (by_group[g] first) */
	uint32_t *start;
};

static uint64_t group_hash(const void *ctx, uint32_t i)
{
	const char *s = ((const struct groups *)ctx)->v[i].sig;
	return hmap_hash_bytes(s, strlen(s));
}

static int by_count(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int group_all(struct run *R, struct groups *G)
{
	if (hmap_init(&G->index, 64) < 0)
		return -1;
	/* the whole files first; then a truncated one joins the group of its
	 * signature or, its stack cut, the largest group of its slogan */
	for (size_t k = 0; k < 2 * R->in.n; k++) {
		size_t i = k % R->in.n;
		struct result *r = &R->res[i];
		if (!r->sig || r->truncated != (k >= R->in.n))
			continue;
		uint64_t h = hmap_hash_bytes(r->sig, strlen(r->sig));
		size_t j;
		for (j = hmap_first(&G->index, h); G->index.slot[j]; j = hmap_next(&G->index, j))
			if (strcmp(G->v[G->index.slot[j] - 1].sig, r->sig) == 0)
				break;
		struct group *g;
		size_t same = SIZE_MAX;
		for (size_t x = 0; r->truncated && !G->index.slot[j] && x < G->n; x++)
			if (strncmp(G->v[x].sig, r->sig, r->slogan_len) == 0 &&
			    (G->v[x].sig[r->slogan_len] == ' ' || !G->v[x].sig[r->slogan_len]) &&
			    (same == SIZE_MAX || G->v[x].count > G->v[same].count))
				same = x;
		if (same != SIZE_MAX) {
			g = &G->v[same];
			r->gsig = g->sig;  /* (below: found by its group's signature) */
		} else if (G->index.slot[j]) {
			g = &G->v[G->index.slot[j] - 1];
		} else {
			struct group *v = grow(G->v, &G->cap, G->n, sizeof *v, 16);
			if (!v)
				return -1;
			G->v = v;
			g = &v[G->n];
			*g = (struct group){ .sig = r->sig, .first = (uint32_t)i };
			hmap_set(&G->index, j, (uint32_t)G->n++, group_hash, G);
		}
		g->count++;
		g->ntrunc += r->truncated;
		if (r->time > 0 && (!g->first_seen || r->time < g->first_seen))
			g->first_seen = r->time;
		if (r->time > g->last_seen)
			g->last_seen = r->time;
	}
	if (G->n)
		qsort(G->v, G->n, sizeof *G->v, by_count);
	/* each file's group, then the members in input order */
	G->start = calloc(G->n + 1, sizeof *G->start);
	G->members = calloc(R->in.n + 1, sizeof *G->members);
	if (!G->start || !G->members)
		return -1;
	for (size_t g = 0; g < G->n; g++) {
		G->start[g + 1] = G->start[g] + G->v[g].count;
		G->v[g].count = 0;
	}
	hmap_free(&G->index);
	if (hmap_init(&G->index, G->n) < 0)
		return -1;
	for (size_t g = 0; g < G->n; g++) {
		uint64_t h = hmap_hash_bytes(G->v[g].sig, strlen(G->v[g].sig));
		size_t j = hmap_first(&G->index, h);
		while (G->index.slot[j])
			j = hmap_next(&G->index, j);
		hmap_set(&G->index, j, (uint32_t)g, group_hash, G);
	}
	for (size_t i = 0; i < R->in.n; i++) {
		struct result *r = &R->res[i];
		if (!r->sig)
			continue;
		const char *sig = r->gsig ? r->gsig : r->sig;
		uint64_t h = hmap_hash_bytes(sig, strlen(sig));
		size_t j;
		for (j = hmap_first(&G->index, h); strcmp(G->v[G->index.slot[j] - 1].sig, sig);
		     j = hmap_next(&G->index, j))
			;
		r->group = G->index.slot[j] - 1;
		struct group *g = &G->v[r->group];
		G->members[G->start[r->group] + g->count++] = (uint32_t)i;
	}
	return 0;
}

/* The group's typical memory picture: the largest category most of its files
 * share, and the process most often largest; each with its median size. */
struct picture {
	const char *category, *proc;
	uint64_t category_bytes, proc_bytes;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void typical(const struct run *R, const struct groups *G, size_t g, struct picture *p,
		    uint64_t *scratch)
{
	const uint32_t *m = G->members + G->start[g];
	size_t n = G->v[g].count, best = 0;
	memset(p, 0, sizeof *p);
	for (int pass = 0; pass < 2; pass++) {
		const char *mode = NULL;
		best = 0;
		for (size_t i = 0; i < n; i++) {  /* quadratic only in a group's distinct names */
			const struct result *a = &R->res[m[i]];
			const char *s = pass ? a->proc : a->category;
			if (!s)
				continue;
			size_t c = 0;
			for (size_t k = 0; k < n; k++) {
				const struct result *b = &R->res[m[k]];
				const char *t = pass ? b->proc : b->category;
				c += t && strcmp(s, t) == 0;
			}
			if (c > best) {
				best = c;
				mode = s;
			}
			if (best * 2 > n)
				break;
		}
		if (!mode)
			continue;
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			const struct result *a = &R->res[m[i]];
			const char *s = pass ? a->proc : a->category;
			if (s && strcmp(s, mode) == 0)
				scratch[k++] = pass ? a->proc_bytes : a->category_bytes;
		}
		qsort(scratch, k, sizeof *scratch, cmp_u64);
		if (pass) {
			p->proc = mode;
			p->proc_bytes = scratch[k / 2];
		} else {
			p->category = mode;
			p->category_bytes = scratch[k / 2];
		}
	}
}

static const char *when(double t, char *buf, size_t len)
{
	if (t <= 0)
		return NULL;
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* ---- baseline: the signatures of a previous --json ---- */

/* out[*n..] += code point v as UTF-8 */
static void put_utf8(char *out, size_t len, size_t *n, unsigned v)
{
	char b[4];
	size_t k = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4;
	static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	for (size_t i = k - 1; i > 0; i--, v >>= 6)
		b[i] = (char)(0x80 | (v & 0x3f));
	b[0] = (char)(lead[k] | v);
	for (size_t i = 0; i < k && *n + 1 < len; i++)
		out[(*n)++] = b[i];
}

/* The JSON string at s (after its opening quote) decoded into out; NULL when
 * it does not end. \uXXXX as the character (a file rewritten by another JSON
 * tool), or with bytes set, \u00XX as byte XX: beamcore's own way of writing a
 * byte that is no valid UTF-8 (docs/json.md). */
static const char *json_string(const char *s, char *out, size_t len, bool bytes)
{
	size_t n = 0;
	for (; *s && *s != '"'; s++) {
		if (*s != '\\') {
			if (n + 1 < len)
				out[n++] = *s;
			continue;
		}
		char c = *++s;
		unsigned v = 0, lo = 0;
		if (c != 'u') {
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b'
			    : c == 'f' ? '\f' : c;
			if (!c)
				return NULL;
			if (n + 1 < len)
				out[n++] = c;
			continue;
		}
		if (sscanf(s + 1, "%4x", &v) != 1 || strlen(s) < 5)
			return NULL;
		s += 4;
		if (bytes && v <= 0xff) {
			if (n + 1 < len)
				out[n++] = (char)v;
			continue;
		}
		if (v >= 0xd800 && v < 0xdc00 && s[1] == '\\' && s[2] == 'u' &&
		    sscanf(s + 3, "%4x", &lo) == 1 && lo >= 0xdc00 && lo < 0xe000) {
			v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
			s += 6;
		}
		put_utf8(out, len, &n, v);
	}
	out[n] = 0;
	return *s == '"' ? s + 1 : NULL;
}

/* A group's signature seen in the baseline: not new. */
static void seen_in_baseline(struct groups *G, const char *sig)
{
	for (size_t g = 0; g < G->n; g++)
		if (strcmp(G->v[g].sig, sig) == 0)
			G->v[g].is_new = false;
}

static bc_err *baseline_mark(const char *path, struct groups *G)
{
	char *text;
	size_t n;
	bc_err *e = read_text_file(path, "--baseline", (size_t)1 << 30, &text, &n, NULL);
	if (e)
		return e;
	if (!strstr(text, "\"groups\"")) {
		free(text);
		return bc_error(BC_EUSAGE, "--baseline %s: not a beamcore triage --json", path);
	}
	for (size_t g = 0; g < G->n; g++)
		G->v[g].is_new = true;
	static const char key[] = "\"signature\":";
	char sig[1024];
	for (const char *p = strstr(text, key); p; p = strstr(p, key)) {
		p += sizeof key - 1;
		while (*p == ' ')
			p++;
		if (*p != '"' || !json_string(p + 1, sig, sizeof sig, true))
			break;
		seen_in_baseline(G, sig);
		if (!(p = json_string(p + 1, sig, sizeof sig, false)))
			break;
		seen_in_baseline(G, sig);
	}
	free(text);
	return NULL;
}

/* ---- output ---- */

static void text_out(const struct run *R, const struct groups *G, uint64_t *scratch, size_t nunread)
{
	char a[32], b[32], c[32], d[32];
	for (size_t g = 0; g < G->n; g++) {
		const struct group *gr = &G->v[g];
		struct picture p;
		typical(R, G, g, &p, scratch);
		printf("%s%5u  %s", gr->is_new ? "NEW " : (topts.baseline ? "    " : ""), gr->count,
		       gr->sig);
		if (gr->ntrunc)
			printf("  (%u truncated)", gr->ntrunc);
		const char *f = when(gr->first_seen, a, sizeof a), *l = when(gr->last_seen, b, sizeof b);
		printf("  seen %s .. %s  e.g. %s", f ? f : "?", l ? l : "?", R->in.v[gr->first].path);
		if (p.category)
			printf("  memory: %s %s", p.category, fmt_bytes(p.category_bytes, c, sizeof c));
		if (p.proc)
			printf("%s largest %s %s", p.category ? "," : "  memory:", p.proc,
			       fmt_bytes(p.proc_bytes, d, sizeof d));
		printf("\n");
	}
	if (nunread)
		printf("%sunreadable: %zu\n", G->n ? "\n" : "", nunread);
	for (size_t i = 0; i < R->in.n; i++)
		if (!R->res[i].sig)
			printf("  %s: %s\n", R->in.v[i].path, R->res[i].error);
}

static void json_out(const struct run *R, const struct groups *G, uint64_t *scratch, bool complete)
{
	struct jw w;
	char a[32];
	jw_init(&w, stdout);
	jw_obj(&w, NULL);
	jw_u64(&w, "beamcore_schema", 2);
	jw_str(&w, "command", "triage");
	jw_bool(&w, "complete", complete);
	jw_u64(&w, "files", R->in.n);
	jw_arr(&w, "groups");
	for (size_t g = 0; g < G->n; g++) {
		const struct group *gr = &G->v[g];
		const uint32_t *m = G->members + G->start[g];
		struct picture p;
		typical(R, G, g, &p, scratch);
		jw_obj(&w, NULL);
		jw_str(&w, "signature", gr->sig);
		jw_u64(&w, "count", gr->count);
		if (topts.baseline)
			jw_bool(&w, "new", gr->is_new);
		else
			jw_null(&w, "new");
		jw_str(&w, "first_seen", when(gr->first_seen, a, sizeof a));
		jw_str(&w, "last_seen", when(gr->last_seen, a, sizeof a));
		jw_str(&w, "representative", R->in.v[gr->first].path);
		jw_arr(&w, "files");
		for (size_t i = 0; i < gr->count; i++)
			jw_str(&w, NULL, R->in.v[m[i]].path);
		jw_arr_end(&w);
		jw_arr(&w, "truncated");
		for (size_t i = 0; i < gr->count; i++)
			if (R->res[m[i]].truncated)
				jw_str(&w, NULL, R->in.v[m[i]].path);
		jw_arr_end(&w);
		jw_obj(&w, "memory");
		jw_str(&w, "largest_category", p.category);
		jw_u64_or_null(&w, "largest_category_bytes", p.category != NULL, p.category_bytes);
		jw_str(&w, "largest_process", p.proc);
		jw_u64_or_null(&w, "largest_process_bytes", p.proc != NULL, p.proc_bytes);
		jw_obj_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_arr(&w, "unreadable");
	for (size_t i = 0; i < R->in.n; i++)
		if (!R->res[i].sig) {
			jw_obj(&w, NULL);
			jw_str(&w, "file", R->in.v[i].path);
			jw_str(&w, "error", R->res[i].error);
			jw_obj_end(&w);
		}
	jw_arr_end(&w);
	jw_obj_end(&w);
	fputc('\n', stdout);
}

/* One test case a group: failed when new (against --baseline). */
static bc_err *junit_write(const struct run *R, const struct groups *G, size_t nnew)
{
	struct outfile of;
	bc_err *err = outfile_open(topts.junit, "--junit", &of);
	if (err)
		return err;
	FILE *f = of.f;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuites name=\"beamcore triage\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n"
		   "  <testsuite name=\"beamcore triage\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
		G->n, nnew, G->n, nnew);
	for (size_t g = 0; g < G->n; g++) {
		const struct group *gr = &G->v[g];
		fprintf(f, "    <testcase classname=\"beamcore.triage\" name=\"");
		xml_put(f, gr->sig);
		if (!gr->is_new) {
			fprintf(f, "\"/>\n");
			continue;
		}
		fprintf(f, "\">\n      <failure type=\"new\" message=\"");
		xml_printf(f, "a new cause: %u file%s, e.g. %s", gr->count, gr->count == 1 ? "" : "s",
			   R->in.v[gr->first].path);
		fprintf(f, "\"/>\n    </testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
	uint64_t bytes;
	bool known;
	return outfile_commit(&of, &bytes, &known);
}

static int say(bc_err *err)
{
	fprintf(stderr, "beamcore: triage: %s\n", err->msg);
	int rc = bc_err_exit(err);
	bc_err_free(err);
	return rc;
}

/* The groups on stdout (text or --json), --junit: the exit code. */
static int report(const struct run *R, const struct groups *G, uint64_t *scratch)
{
	size_t nnew = 0, nunread = 0, ntrunc = 0;
	for (size_t g = 0; g < G->n; g++)
		nnew += G->v[g].is_new;
	for (size_t i = 0; i < R->in.n; i++)
		nunread += !R->res[i].sig, ntrunc += R->res[i].truncated;
	if (topts.json)
		json_out(R, G, scratch, !nunread && !ntrunc);
	else
		text_out(R, G, scratch, nunread);
	/* exit 1: a new cause, or a file not read whole */
	int rc = nnew || nunread || ntrunc ? BC_EXIT_PARTIAL : BC_EXIT_COMPLETE;
	bc_err *err;
	if (topts.junit && (err = junit_write(R, G, nnew)))
		rc = say(err);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "beamcore: writing output: %s\n", strerror(errno));
		rc = BC_EXIT_FAILED;
	}
	return rc;
}

static int triage_main(const struct target_opts *to, void *opts, char **words, int nwords)
{
	(void)opts;
	if (nwords < 1) {
		fprintf(stderr, "beamcore: usage: beamcore triage PATH... (crash dumps, cores, "
			"directories of them)\n");
		return BC_EXIT_USAGE;
	}
	bc_err *err;
	if (topts.junit && (err = outfile_check(topts.junit, "--junit")))
		return say(err);
	if ((err = target_init(to)))
		return say(err);
	struct run R = { .to = to };
	struct groups G = { 0 };
	uint64_t *scratch = NULL;
	int rc = -1;
	pthread_mutex_init(&R.native, NULL);
	for (int i = 0; i < nwords && rc < 0; i++)
		if (walk_add(&R.in, words[i]) < 0)
			rc = say(bc_error(BC_ENOMEM, "out of memory"));
	if (rc < 0 && !(R.res = calloc(R.in.n + 1, sizeof *R.res)))
		rc = say(bc_error(BC_ENOMEM, "out of memory"));
	if (rc < 0) {
		tzset();  /* (the dump headers' local times: the zone read once, not by each thread) */
		run_all(&R);
		if (group_all(&R, &G) < 0 || !(scratch = calloc(R.in.n + 1, sizeof *scratch)))
			rc = say(bc_error(BC_ENOMEM, "out of memory"));
	}
	if (rc < 0 && topts.baseline && (err = baseline_mark(topts.baseline, &G)))
		rc = say(err);
	if (rc < 0)
		rc = report(&R, &G, scratch);
	for (size_t i = 0; R.res && i < R.in.n; i++) {
		free(R.res[i].sig);
		free(R.res[i].error);
		free(R.res[i].proc);
	}
	free(R.res);
	free(scratch);
	free(G.v);
	free(G.members);
	free(G.start);
	hmap_free(&G.index);
	walk_free(&R.in);
	pthread_mutex_destroy(&R.native);
	return rc;
}

static const struct option_entry options[] = {
	OPT_FLAG("json", "JSON (docs/schema/triage.json)", OPT_OWN, struct triage_opts, json),
	{ .kind = OPT_STRING, .name = "baseline", .arg = "FILE",
	  .help = "a previous triage --json: mark the groups it has not seen\n"
		  "as new, and exit 1 when any is",
	  .offset = offsetof(struct triage_opts, baseline), .complete = OPT_COMPLETE_FILE },
	{ .kind = OPT_STRING, .name = "junit", .arg = "FILE",
	  .help = "also write the groups as JUnit XML to FILE (a new one fails)",
	  .offset = offsetof(struct triage_opts, junit), .complete = OPT_COMPLETE_FILE },
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer command_triage = {
	.name = "triage",
	.kind = CMD_MAIN,
	.summary = "PATH...: crash dumps and cores grouped by cause, most frequent first",
	.usage = "usage: beamcore triage PATH... [options]\n"
		 "  every crash dump and core under PATH (files, directories recursively;\n"
		 "  .zst/.xz/.lz4 too) grouped by signature: the slogan normalized plus the\n"
		 "  culprit's top Erlang frames, or a core's signal and crashing thread's\n"
		 "  top frames (docs/triage.md). Exit 1: a group is new (--baseline),\n"
		 "  or a file was unreadable or truncated\n",
	.options = options,
	.opts = &topts,
	.main = triage_main,
};
