/* An analyzer turns the VM model into tables, records and findings (render/
 * out.h); its run prints nothing: the renderers do. The files it reads or writes
 * are its options' (check's --rules and --junit; export's -o, which main
 * writes through an_out.write).
 * Adding one: a new file analyzers/NAME.c defining `const struct analyzer
 * analyzer_NAME` (its options table with it) and one line in
 * src/commands/list.def (meson.build builds the file that line names); then
 * `tests/check_options.py BEAMCORE --write` remakes the completion, and the
 * man page wants its entry (the same test checks it). A command that is no
 * analyzer (tui, sample) is a struct analyzer of kind CMD_MAIN, with main
 * instead of run. Options of its own are its own struct and table in its
 * file (.opts: the defaults, read by an_own_opts; a header beside it only
 * when another runs the command with options: procs.h for the browser). */
#ifndef BEAMCORE_ANALYZER_H
#define BEAMCORE_ANALYZER_H
#include <stdbool.h>
#include <stddef.h>
#include "error.h"
#include "options.h"
#include "out.h"
#include "needs.h"
#include "vm.h"

/* The option values every analyzer reads (OPT_AN), beside the command's own:
 * each command with options of its own declares their struct and table in
 * its file (its .opts, the defaults), and reads them as an_own_opts(). */
struct an_opts {
	const void *own;    /* the command's own options as the line gave them, or NULL */
	const char *sort;   /* --sort; NULL: the analyzer's default */
	const char *arg;    /* the command's own argument (proc: the pid) */
	size_t arg_count;   /* the count after the argument (arg_with); 0: none given */
	size_t top;         /* --top; 0: all */
	int json;           /* --json: the output will be JSON (an analyzer may shape tables for it) */
	const char *output; /* -o FILE ("-": stdout): the file main writes (an_out.write) */
	int page;           /* the report's page (with json): a list of every process is the
			     * page's processes table's, so a command leaves it out and says
			     * what it gives instead (docs/report.md) */
};

/* what stacks and export group stacks by: --weight, --by-status
 * (stacks_group_options, whose offsets are into this struct: the first
 * member of a command's own options that include that table) */
struct stack_group_opts {
	const char *weight; /* NULL: count */
	int by_status;
};

/* The options several commands share (options.c), included by reference in
 * their tables: --json, --top, -o; the target's (--pid and --no-stop, --debug-file
 * and --sysroot) by their slots, OPT_SLOT_TARGET_LIVE and _FILE. */
extern const struct option_entry an_json_option[], an_top_option[], an_output_option[];
/* tables of the commands that take just these: --json, --top (rows) or not
 * (a record), and the target's */
extern const struct option_entry an_rows_options[], an_record_options[];
/* stacks.c: --weight and --by-status, export's too */
extern const struct option_entry stacks_group_options[];

struct target_opts;  /* src/load/target.h: what main opens (tui, sample) */

/* What a command is: main.c runs each kind its way. */
enum command_kind {
	CMD_MODEL = 1,  /* run on one model: TARGET [BEAM], or --pid PID */
	CMD_MODELS,     /* run2 on two models: `beamcore NAME A B` (diff; no BEAM:
			 * a core's recorded beam.smp) */
	CMD_MAIN,       /* runs itself (main): the browser, sample, the tools */
};

/* A command: one record per line of src/commands/list.def. */
struct analyzer {
	const char *name;
	enum command_kind kind;   /* (each record says it: 0 is no kind) */
	const char *summary;      /* one line for --help */
	const char *about;        /* the line under its usage in `help NAME`; NULL: summary */
	unsigned needs;           /* NEED_* of needs.h */
	/* what these options need when it depends on them (export's --format);
	 * NULL: needs */
	unsigned (*needs_of)(const struct an_opts *o);
	int header;               /* text output starts with the target header */
	const char *arg_name;     /* takes one argument before TARGET, e.g. "PID" */
	/* the argument is taken only with this option given (ets TABLE --rows),
	 * and may be followed by a count (an_opts.arg_count): a word of digits
	 * before TARGET; NULL: always */
	const char *arg_with;
	const char *arg_help;     /* what arg_name may be, for `beamcore help NAME` */
	/* its options (base/options.h), a table in its own file; any other is
	 * exit 64 */
	const struct option_entry *options;
	/* checks the options together before the target is read (after each
	 * value's own check): an exit code (64, said on stderr) or -1 when they
	 * are good; NULL: nothing to check */
	int (*check)(const struct an_opts *o);
	bc_err *(*run)(const struct vm *vm, const struct an_opts *o, struct an_out *out);
	/* CMD_MODELS: both models */
	bc_err *(*run2)(const struct vm *a, const struct vm *b, const struct an_opts *o,
			struct an_out *out);
	const char *exit_help;    /* the exit codes its help lists; NULL: the usual ones */
	/* its own options struct (its table's OPT_OWN values, holding the
	 * defaults; an analyzer reads it by an_own_opts); NULL: it has none */
	void *opts;
	/* CMD_MAIN: given the target (TARGET [BEAM] or --pid checked), its own
	 * options in *opts and the words left. */
	int (*main)(const struct target_opts *to, void *opts, char **words, int nwords);
	/* its own usage lines (sample): then its options are its alone (another
	 * command's is unknown to it), its usage errors name it, its help is these
	 * lines and its options (help_width wide), and `beamcore --help` leaves
	 * them out */
	const char *usage;
	int help_width;           /* 0: 18 */
};

/* The command's own options: as the line gave them, else its defaults (an
 * analyzer another runs: the browser's panes). */
static inline const void *an_own_opts(const struct an_opts *o, const struct analyzer *an)
{
	return o->own ? o->own : an->opts;
}

/* The process ARG names (proc.c): a local pid <0.N.S> or a registered name;
 * what ("proc", "--around") starts the error's line. */
bc_err *proc_by_arg(const struct vm *vm, const char *what, const char *arg,
		    const struct vm_proc **out);

/* stacks.c: the processes grouped by identical Erlang stack (and status with
 * by_status), heaviest group first; also what export's profiles are made of. */
struct stack_group {
	uint32_t first_proc;     /* representative: its frames are the group's stack */
	uint32_t nprocs;
	enum vm_status status;   /* with by_status */
	uint64_t weight;
	uint32_t unknown;        /* members whose weight the input does not give */
	uint32_t *members;       /* into members[] */
	/* with sums: the group's count, memory, total_heap_size,
	 * message_queue_len, binary (each weight at once, for the page), and
	 * which of them some member does not give (bit i: sum[i]) */
	uint64_t sum[5];
	uint8_t sum_unknown;
};
struct stack_groups {
	const struct vm *vm;
	struct stack_group *groups;
	size_t ngroups;
	uint32_t *members;       /* procs ordered by group */
	uint32_t *order;         /* procs in table order */
	int folded;
	int by_status;           /* groups are per stack and status */
	int sums;                /* fill each group's sum[] */
	char *line;              /* scratch for a folded line */
	size_t line_cap;
};
/* weight: NULL or count, memory, total_heap_size, message_queue_len, binary
 * (else BC_EUSAGE); free with stack_groups_free. */
bc_err *stack_groups(const struct vm *vm, const char *weight, int by_status,
		     struct stack_groups *sg);
void stack_groups_free(struct stack_groups *sg);
/* "top <- caller <- ..." of process proc's stack, "(no stack)" (scratch of sg:
 * valid until the next call) */
const char *stack_groups_line(struct stack_groups *sg, uint32_t proc);
/* p hibernates with no stack: its group is who it is (its shown initial
 * call) and where it wakes, "m:f/a" into buf (NULL: not recorded) */
bool stack_hibernating(const struct vm_proc *p);
const char *stack_wake_up(const struct vm *vm, const struct vm_proc *p, char *buf, size_t len);

/* groups.c: processes by kind (procs --group-by), each kind's members and
 * sums; the groups in no order (procs sorts them by its keys). */
enum proc_group_by { PG_LABEL, PG_INITIAL_CALL, PG_STACK, PG_N };
struct proc_group {
	uint32_t first;          /* its first process: its initial call or stack names the group */
	uint32_t count;
	uint64_t memory, total_heap_size, message_queue_len, binary;  /* sums */
	uint64_t largest;        /* the largest member's memory */
	uint32_t unknown;        /* VPF_* bits: some member's figure is unknown */
	uint32_t *members;       /* process indices, in table order */
};
struct proc_groups {
	const struct vm *vm;
	enum proc_group_by by;
	struct proc_group *g;
	size_t n;
	uint32_t *members;
	uint64_t memory_known;   /* every process's memory, those known */
	struct stack_groups sg;  /* by stack: the groups stacks makes */
};
/* "label", "initial_call", "stack"; NULL past the last */
const char *proc_group_by_name(size_t i);
/* the kind a --group-by value names, else the usage error */
bc_err *proc_group_by_find(const char *name, enum proc_group_by *by);
bc_err *proc_groups(const struct vm *vm, enum proc_group_by by, struct proc_groups *pg);
void proc_groups_free(struct proc_groups *pg);

/* Tables of procs, ets and binaries that summary (and the browser's process
 * list) show too; *priv is freed with free(). */
bc_err *procs_table(const struct vm *vm, const char *sort, size_t top, const char *json_key,
		    struct rtable *t, void **priv);
/* n of them (sorts[i], json_keys[i] into t[i], priv[i]), in one pass over the
 * processes */
#define PROCS_TABLES_MAX 4
bc_err *procs_tables(const struct vm *vm, size_t n, const char *const *sorts, size_t top,
		     const char *const *json_keys, struct rtable *t, void **priv);
const struct vm_proc *procs_row(const struct rtable *t, size_t r);
/* procs --group-by: the groups of kind group_by sorted by sort, the first top
 * (0: all); json: the stack as a list, else as one line; owned by out */
bc_err *procs_group_table(const struct vm *vm, const char *group_by, const char *sort, size_t top,
			  int json, int garbage, struct rtable *t, struct an_out *out);

/* garbage.c: what a garbage collection of each process would keep and free
 * into out[0..vm->nprocs) (vm->liveness; unknown for every process when the
 * loader cannot tell) */
void proc_liveness(const struct vm *vm, struct vm_liveness *out);
/* the same of one process (proc) */
void proc_liveness_of(const struct vm *vm, const struct vm_proc *p, struct vm_liveness *out);
/* The summary's: every process's liveness when the heaps are few enough to
 * walk (owned by out), else NULL (*beyond: the heaps' words when more than
 * it walks, else 0); the finding on the idle processes' garbage (or that it
 * was not estimated: beyond, summary_liveness's). */
struct vm_liveness *summary_liveness(const struct vm *vm, struct an_out *out, uint64_t *beyond);
/* The processes a walk of the heaps within the summary's budget reads: NULL
 * and *n = every process when they are few enough; else the largest heaps
 * first (*n of them, within the budget; free the array), NULL and *n = 0 on
 * out of memory. */
uint32_t *heaps_to_walk(const struct vm *vm, size_t *n);

/* waste.c: slices keeping binaries alive: the processes of live (a
 * vm_liveness per process, proc_liveness's; NULL: not walked) and the ETS
 * tables (table: every one, and binaries --waste's table "waste", the first
 * top, 0 all; else the summary's: within its budget, no table), the
 * findings on the first of each kind when worth it. */
bc_err *waste_report(const struct vm *vm, const struct vm_liveness *live, size_t top, bool table,
		     struct an_out *out);

/* resources.c: the summary's finding on the NIF resource type native code
 * holds the most of, when it stands out (vm->rtypes read; else none) */
bc_err *resources_finding(const struct vm *vm, struct an_out *out);

/* binaudit.c: binaries --audit over every refc binary a reference was found
 * to (binaries.c's): its reference count against those found */
struct audit_bin {
	uint64_t addr, size, alloc, refc, found;
	bool magic;                  /* a magic binary (a NIF resource): not audited */
};
bc_err *binaries_audit(const struct vm *vm, const struct audit_bin *bins, size_t n, size_t top,
		       bool summary, struct an_out *out);
/* binaries.c: the summary's audit (binaries_audit's summary line) over the
 * binaries of holders (holders_table's) when the references were all read
 * (ETS objects and literals: NEED_REF_HOLDERS) and the processes are few
 * enough; else nothing, or a note why not. */
bc_err *held_outside_finding(const struct vm *vm, const struct rtable *holders, struct an_out *out);
void garbage_findings(const struct vm *vm, const struct vm_liveness *live, uint64_t beyond,
		      struct an_out *out);
/* groups.c: the summary's finding on the kind of process (initial call)
 * holding the most, when it holds a share; its memory into *value (0: none) */
bc_err *kind_findings(const struct vm *vm, const struct vm_liveness *live, struct an_out *out,
		      uint64_t *value);
/* procs_table's columns: the indices of its rtable's cols */
enum procs_col { PC_PID, PC_NAME, PC_REGNAME, PC_INITIAL, PC_MEMORY, PC_THS, PC_HEAP, PC_STACK,
		 PC_MSGQ, PC_REDS, PC_STATUS, PC_CURRENT, PC_NLINKS, PC_NMONITORS, PC_NMONITORED,
		 PC_PROC_LIB_INITIAL, PC_ANCESTORS, PC_LABEL, PC_LABEL_SOURCE, PC_LIVE_WORDS,
		 PC_GARBAGE_BYTES };
/* The --sort keys (the default is total_heap_size): the column a key sorts
 * (-1: no such key); key i (NULL past the last), in the browser's order; all
 * of them, "memory, total_heap_size, ...". */
int procs_sort_col(const char *name);
const char *procs_sort_name(size_t i);
const char *procs_sort_names(void);
/* Key i's rule, for a sorter outside (the report's page): the column it
 * sorts (its JSON name; the LABEL column's "label"), text (ascending, by
 * procs_ranks' classes) or a number (largest first, unknown last; by_memory:
 * an unknown one ranked by memory in words, after a known equal value), then
 * by pid; walk: a figure only a walk of every heap gives (garbage_bytes).
 * False past the last key. */
bool procs_sort_rule(size_t i, const char **json, bool *text, bool *by_memory, bool *walk);
/* The processes as classes of a text key (name, status, current_function):
 * rank[i] for process i (rank has vm->nprocs entries), the same for processes
 * only their pids tell apart, numbered in the key's order from 0; *reps
 * (malloc'd, *nclasses of them): a process of each class, in that order. */
bc_err *procs_classes(const struct vm *vm, const char *sort, uint32_t *rank, uint32_t **reps,
		      size_t *nclasses);

void memory_kv(const struct vm *vm, struct an_out *out);
/* ports.c: the ports sorted by --sort (NULL: queue_size), the first top (0: all) */
bc_err *ports_table(const struct vm *vm, const char *sort, size_t top, struct rtable *t,
		    void **priv);
const struct vm_port *ports_row(const struct rtable *t, size_t r);
/* The ports with output queued in their driver, most first (at most max):
 * how much, busy or not, who waits on them (the summary's too). */
bc_err *ports_findings(const struct vm *vm, struct an_out *out, size_t max);
bc_err *ets_table(const struct vm *vm, size_t top, struct rtable *t, void **priv);
const struct vm_ets *ets_row(const struct rtable *t, size_t r);
/* binaries.c: the processes holding refc binaries, most first; row r's
 * figures (distinct binaries: bytes in all, those no one else holds, those
 * in messages not yet received); *priv freed by holders_release. */
bc_err *holders_table(const struct vm *vm, size_t top, struct rtable *t, void **priv);
void holders_release(void *priv);
struct holder_row {
	uint32_t proc;
	uint64_t count, bytes, exclusive, queued, exclusive_queued;
};
void holders_row(const struct rtable *t, size_t r, struct holder_row *out);
/* erlang:memory(binary) by holder as binaries' attribution says it (each
 * binary once, its allocator block); a share the input did not give is
 * unread. The port holding the most, -1 when none holds any. */
struct binary_split {
	uint64_t processes, ports, ets, literals;
	bool ports_read, ets_read, literals_read;
	size_t nports;                 /* ports holding any */
	int64_t top_port;              /* index into vm->ports */
	uint64_t top_port_bytes;
};
void holders_split(const struct rtable *t, struct binary_split *out);
/* The refc binaries only p's queued messages hold (kept outside its heap, not
 * in process_info(P, binary)): how many distinct, their orig_size summed. */
void binaries_queued(const struct vm *vm, const struct vm_proc *p, uint64_t *count,
		     uint64_t *bytes);

/* Each process's supervisor as tree draws it: an index into vm->procs, or -1
 * (tree.c; *parent malloc'd, NULL when the input gives no links). */
bc_err *tree_parents(const struct vm *vm, int32_t **parent);
/* tree's finding for the summary: the supervision subtree holding the most */
bc_err *tree_findings(const struct vm *vm, struct an_out *out);

/* Every process waiting in a call and on whom (waits.c): callee an index into
 * vm->procs, -1 when not here (callee_str then names it, or is NULL when
 * unknown); strings live in *strings. *list is malloc'd. */
struct call_wait {
	uint32_t waiter;
	int64_t callee;
	const char *callee_str, *via;
};
bc_err *waits_list(const struct vm *vm, struct an_out *strings, struct call_wait **list,
		   size_t *n);
/* waits' findings (deadlocks, the biggest bottleneck, unknown callees), at most max */
bc_err *waits_findings(const struct vm *vm, struct an_out *out, size_t max);

/* "crash_nif+0x12 (libcrash.so)" or "m:f/a (JIT)" */
const char *frame_text(const struct vm_nframe *f, char *buf, size_t len);

#endif
