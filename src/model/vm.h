/* The VM model: one vocabulary that every loader fills and every analyzer reads.
 * Analyzers never learn which loader (core or crash dump) fed them. */
#ifndef BEAMCORE_VM_H
#define BEAMCORE_VM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include "grow.h"
#include "hmap.h"
#include "strtab.h"

struct vm_mfa {
	const char *module, *function;   /* interned; module NULL = unknown */
	int arity;
};

/* Which numeric fields of a process could not be read (never reported as 0). */
enum vm_proc_field {
	VPF_TOTAL_HEAP_SIZE = 1 << 0,
	VPF_HEAP_SIZE = 1 << 1,
	VPF_STACK_SIZE = 1 << 2,
	VPF_MESSAGE_QUEUE_LEN = 1 << 3,
	VPF_MEMORY = 1 << 4,
	VPF_REDUCTIONS = 1 << 5,
	VPF_REGISTERED_NAME = 1 << 6,
	VPF_INITIAL_CALL = 1 << 7,
	VPF_CURRENT_FUNCTION = 1 << 8,
	VPF_STATUS = 1 << 9,
	VPF_BINARY = 1 << 10,
	VPF_STACKTRACE = 1 << 11,
	VPF_IDENTITY = 1 << 12,        /* proc_lib_initial_call, ancestors: dictionary unreadable */
	VPF_BINARY_WHERE = 1 << 13,    /* its binary references: which are only its queued
					* messages' (a crash dump writes both among its heap) */
};

/* process_info(P, status), in the alphabetical order of the names (sorting by
 * status sorts by name); VS_UNKNOWN (0) when the loader could not tell. */
enum vm_status { VS_UNKNOWN, VS_EXITING, VS_FREE, VS_GARBAGE_COLLECTING, VS_RUNNABLE, VS_RUNNING,
		 VS_SUSPENDED, VS_WAITING, VS_N };
/* "waiting", ...; NULL for VS_UNKNOWN (JSON null) */
const char *vm_status_name(enum vm_status s);

struct vm_proc {                   /* (ordered to leave no padding: a million of them) */
	uint64_t addr;                 /* where the loader found it (core address, dump offset) */
	uint32_t pid_num, pid_serial;  /* <0.num.serial> */
	uint32_t nlinks;               /* links */
	uint32_t nmonitors;            /* monitors this process set up */
	uint32_t nmonitored_by;        /* monitors others set up on it */
	uint32_t unknown;              /* enum vm_proc_field bits */
	const char *registered_name;   /* interned or NULL */
	/* the functions, interned (vm_mfa_intern: one copy per distinct function,
	 * 8 bytes a process instead of 24); never NULL: &vm_mfa_none when unknown */
	const struct vm_mfa *initial_call, *current_function;
	uint64_t total_heap_size, heap_size, stack_size;  /* words */
	uint64_t message_queue_len, memory, reductions;   /* memory in bytes */
	uint32_t stack_first, stack_n; /* current_stacktrace: vm->frames[first .. first+n) */
	/* hibernating (vm_proc_hibernating): 1 + the vm->mfas index of the function
	 * it resumes in when a message comes, as erts_hibernate saved it (M:F/length
	 * of Args; through proc_lib:hibernate/3, proc_lib:wake_up/3's own M:F/A);
	 * 0: not hibernating, or not recorded (a crash dump) */
	uint32_t wake_up;
	/* proc_lib's identity, from the dictionary: '$initial_call' (module NULL:
	 * no such key) and '$ancestors' (vm->ancestors[first .. first+n); none:
	 * no such key: has_ancestors false) */
	uint32_t anc_first, anc_n;
	bool has_ancestors;
	uint8_t status;                /* enum vm_status: as process_info(P, status);
					* VS_UNKNOWN: not read */
	/* its own name as a library keeps it, found by the first label rule
	 * (labels.h) that names it: term text, interned; NULL: none. label_source
	 * is the rule's source ("process_name", "registry", ...): 1 + its index in
	 * vm->label_sources, 0: none (vm_proc_label_source says it). What the
	 * process is shown by is vm_proc_label's. */
	uint16_t label_source;
	const char *label;
	const struct vm_mfa *proc_lib_initial_call;
};

/* The unknown function (module NULL) every vm_proc's MFA points at until set. */
extern const struct vm_mfa vm_mfa_none;

struct vm_pid {
	uint32_t num, serial;
};

enum vm_ets_field {
	VEF_SIZE = 1 << 0,
	VEF_MEMORY = 1 << 1,
	VEF_ID = 1 << 2,
	VEF_NAME = 1 << 3,
};

struct vm_ets {
	uint64_t addr;
	uint32_t refn[3];              /* id: #Ref<0.refn[2].refn[1].refn[0]> */
	const char *name;              /* interned atom */
	bool named_table;
	struct vm_pid owner;
	const char *type, *protection; /* static strings as ets:info/1 says them */
	int keypos;
	bool compressed, decentralized_counters;
	uint64_t size, memory;         /* objects; words */
	uint32_t unknown;              /* enum vm_ets_field bits */
};

/* Where a process references an off-heap (refc) binary: its off-heap lists
 * (process_info(P, binary) lists these), its list of writable binaries (not
 * listed by process_info), or a queued message outside its heap. */
enum vm_binref_where { VBR_OFF_HEAP, VBR_WRT_BINS, VBR_MESSAGE };

/* One reference from a process to an off-heap (refc) binary. */
struct vm_binref {
	uint32_t proc;                 /* index into vm->procs */
	uint8_t where;                 /* enum vm_binref_where */
	uint64_t bin;                  /* the Binary's address: its identity */
	uint64_t orig_size, refc;
	uint64_t alloc_size;           /* its binary_alloc block (what erlang:memory(binary)
					* counts); 0: unknown */
};

/* A binary held other than by a process's refc references: a port's driver
 * queue or its driver's receive buffer, an ETS object (or the table's
 * identity), or a process's magic reference (a NIF resource, a table's id:
 * on its off-heap list, not in process_info(P, binary)). */
enum vm_binhold_kind { VBH_PORT_QUEUE, VBH_PORT_BUFFER, VBH_ETS, VBH_MAGIC,
		       VBH_LITERAL /* a literal area's: module code, persistent terms */,
		       VBH_DUMPED /* (a flag of binholds_read: vm->binrefs are what a crash
				   * dump's heaps show, without reference counts) */ };
struct vm_binhold {
	uint8_t kind;                  /* enum vm_binhold_kind */
	bool magic;                    /* VBH_ETS: a magic reference's (a NIF resource an
					* object holds), not a refc binary's */
	uint32_t owner;                /* index into vm->ports, vm->ets or vm->procs (magic); 0 */
	uint64_t bin, orig_size, refc, alloc_size;  /* as in vm_binref */
	/* VBH_MAGIC (and magic), with NEED_RESOURCES: the NIF resource type of the resource
	 * it is (an index into vm->rtypes); UINT32_MAX: none, or not read */
	uint32_t rtype;
};

/* A magic binary's hold (a NIF resource): a process's magic reference or an
 * ETS object's. */
static inline bool vm_binhold_is_magic(const struct vm_binhold *h)
{
	return h->kind == VBH_MAGIC || (h->kind == VBH_ETS && h->magic);
}

/* A NIF resource type (enif_open_resource_type): its module and name, and
 * its resources alive as the VM counts them (the type's refc, less the one
 * its loaded module holds). */
struct vm_rtype {
	const char *module, *name;     /* interned; NULL: unreadable */
	uint64_t count;
	bool count_known;
};

/* erlang:memory/0, in bytes. */
enum vm_mem_kind { VM_MEM_TOTAL, VM_MEM_PROCESSES, VM_MEM_PROCESSES_USED, VM_MEM_SYSTEM,
		   VM_MEM_ATOM, VM_MEM_ATOM_USED, VM_MEM_BINARY, VM_MEM_CODE, VM_MEM_ETS,
		   VM_MEM_COUNT };
extern const char *const vm_mem_names[VM_MEM_COUNT];

struct vm_memory {
	uint64_t v[VM_MEM_COUNT];
	uint32_t known;                /* bit per enum vm_mem_kind */
};

/* One allocator instance, as erlang:system_info({allocator, A}) describes it;
 * multiblock figures include the carriers it has in the carrier pool. */
struct vm_alloc {
	const char *name;              /* "eheap_alloc" */
	int instance;
	uint64_t mbcs_blocks, mbcs_blocks_size, mbcs_carriers, mbcs_carriers_size;
	uint64_t sbcs_blocks, sbcs_blocks_size, sbcs_carriers, sbcs_carriers_size;
};

/* A native frame of a thread: a C function in a module, or JIT code of an
 * Erlang function. */
struct vm_nframe {
	uint64_t pc;
	const char *function;          /* interned symbol, or "m:f/a" for JIT frames; NULL: unknown */
	const char *module;            /* interned file basename ("beam.smp", "libc.so.6"); NULL for JIT */
	uint64_t offset;               /* pc - symbol start */
	bool erlang;                   /* JIT code of an Erlang function */
};

struct vm_thread {
	int tid;
	int signo;                     /* the signal it took (the crashing thread) */
	const char *role;              /* "scheduler 1", "dirty cpu scheduler 2", "aux", ... */
	bool has_running;
	struct vm_pid running;         /* the process a scheduler was running */
	uint32_t frame_first, nframes; /* vm->nframes_native[...] */
	const char *unwind_stop;       /* why the backtrace ends early, or NULL */
	bool frames_cut;               /* ends at beamcore's frame limit, not the stack's end */
};

/* A scheduler busy with a process when the dump was written. */
struct vm_sched_run {
	const char *scheduler;         /* "scheduler:1", "dirty_cpu_scheduler:4" */
	struct vm_pid pid;
};

/* How the node died, when the input says it in words: a crash dump's slogan
 * and what it names. Cores leave it empty (they have vm->signo). */
struct vm_death {
	const char *slogan;            /* verbatim; NULL: none */
	const char *alloc;             /* an allocation failed: "eheap_alloc"; else NULL */
	const char *alloc_type;        /* what for: "heap", "old_heap", "binary", ...; may be NULL */
	uint64_t alloc_size;           /* bytes asked for */
	bool alloc_realloc;            /* "Cannot reallocate" */
	const char *kernel_pid;        /* "Kernel pid terminated (Name) (Reason)": Name; else NULL */
	const char *reason;            /* its Reason, or do_boot's; else NULL */
	const char *thread;            /* the thread that wrote the dump: "scheduler:2"; NULL: unknown */
	bool have_culprit;
	struct vm_pid culprit;         /* the process the dying thread was running */
	const char *culprit_sched;     /* the scheduler it ran on: "dirty_cpu_scheduler:4" */
	struct vm_sched_run *running;  /* every busy scheduler (freed by vm_free) */
	size_t nrunning;
};

/* Another node this one is connected to or connecting to (erlang:nodes/1,
 * erlang:system_info(dist_ctrl)). */
enum vm_node_field {
	VNF_STATE = 1 << 0,
	VNF_CREATION = 1 << 1,
	VNF_CONNECTION_ID = 1 << 2,
	VNF_OUTPUT_QUEUE = 1 << 3,
	VNF_COUNTS = 1 << 4,           /* links, monitors, monitored_by */
};
struct vm_node {
	uint64_t addr;                 /* where the loader found it (a core's DistEntry) */
	const char *name;              /* interned: peer@host */
	uint64_t channel;              /* the first number of its pids: <CHANNEL.N.S> */
	const char *type;              /* static: "visible", "hidden" or "pending" */
	const char *controller;        /* interned: "#Port<0.10>", "<0.99.0>"; NULL: none */
	const char *state;             /* static: "idle", "pending", "connected", "exiting" */
	uint32_t creation, connection_id;
	uint64_t output_queue;         /* bytes queued for it */
	uint64_t links;                /* links between its processes and ours */
	uint64_t monitors;             /* our processes' monitors of its processes */
	uint64_t monitored_by;         /* its processes' monitors of ours */
	uint32_t unknown;              /* enum vm_node_field bits */
};

/* A port as erlang:ports() and erlang:port_info/2 see it. Which fields the
 * input could not give (null, never 0). */
enum vm_port_field {
	VPTF_NAME = 1 << 0,
	VPTF_CONNECTED = 1 << 1,
	VPTF_LINKS = 1 << 2,
	VPTF_MONITORS = 1 << 11,       /* monitors, monitored_by */
	VPTF_ID = 1 << 12,
	VPTF_QUEUE_BINARIES = 1 << 13,
	VPTF_BUFFER = 1 << 14,         /* its driver's receive buffer (vm->binholds) */
	VPTF_IO = 1 << 3,              /* input, output */
	VPTF_QUEUE = 1 << 4,
	VPTF_OS_PID = 1 << 5,
	VPTF_OS_FD = 1 << 6,
	VPTF_BUSY = 1 << 7,
	VPTF_REGISTERED_NAME = 1 << 8,
	VPTF_DRIVER = 1 << 9,
	VPTF_SUSPENDED = 1 << 10,
};
/* An atom's text as the VM keeps it (bytes, not terminated), pointing into the
 * target (a core's memory, a dump's =atoms line: no copy); text NULL: unread. */
struct vm_atom {
	const char *text;
	uint32_t len;
};

struct vm_port {
	uint64_t addr;                 /* where the loader found it (core address, dump offset) */
	uint64_t number;               /* #Port<0.number> */
	const char *name;              /* interned: what it was opened with ("tcp_inet", "cat") */
	const char *driver;            /* interned: its driver ("tcp_inet", "spawn", "fd", "vanilla") */
	const char *registered_name;   /* interned or NULL */
	struct vm_pid connected;
	uint64_t input, output;        /* bytes read from it, written to it */
	uint64_t queue_size;           /* bytes in the driver's queue */
	uint64_t queue_binaries;       /* the refc binaries that queue holds (distinct), */
	uint64_t queue_binary_bytes;   /* and their sizes */
	int64_t os_pid;                /* the OS process it runs; -1: none */
	int64_t os_fd;                 /* its one file descriptor (a socket, a file); -1: none */
	bool busy;                     /* the driver said it is busy (set_busy_port) */
	bool busy_queue;               /* its task queue is over its high watermark */
	/* lists of vm->port_items (interned "<0.N.S>", "#Port<0.N>"): links, the
	 * processes it monitors, those monitoring it, those suspended on it */
	uint32_t links_first, nlinks, monitors_first, nmonitors;
	uint32_t monitored_by_first, nmonitored_by, suspended_first, nsuspended;
	uint32_t unknown;              /* enum vm_port_field bits */
};

/* One process in full, loaded on demand (beamcore proc): terms are trees of
 * src/model/term.h in `arena`, freed with vm_detail_free. */
struct vt;
struct vt_arena;
struct vm_frame_loc {
	const char *function;          /* "m:f/a" */
	const char *file;              /* NULL: no line information */
	int line;
};
/* A root of a process's terms (a stack slot, an x register, a dictionary
 * value, a message) and what hangs from it: beamcore proc's largest_terms. */
struct vm_term_root {
	const char *where;             /* "stack y(2) of gen_server:loop/7", "message 17" */
	const char *shape;             /* "map, 2 keys", "list of 500,000 {integer,tuple,integer}" */
	uint64_t flat_size;            /* words, as erts_debug:flat_size/1 counts them */
	bool size_cut;                 /* the walk stopped at its bound: a lower bound */
	const char *text;              /* the term printed whole when it is small
					* (TERM_WHOLE_WORDS), else NULL */
};
/* A term of at most this many words is printed whole (proc's largest_terms,
 * its --term elements). */
#define TERM_WHOLE_WORDS 64
/* Messages of one shape ({event,_,_}, '$gen_call' ones, pid, ...). */
struct vm_shape_count {
	const char *shape;
	uint64_t count;
};
struct vm_proc_detail {
	struct vt_arena *arena;
	struct vt **links, **monitors; /* pids/ports, {process, Pid} */
	size_t nlinks, nmonitors;
	unsigned char *monitor_call;   /* per monitor: 1 = a pending call's (made with {alias,
					* demonitor}, or its reference held by the waiting frame);
					* NULL: the loader cannot tell (a crash dump) */
	struct vt **dict_keys, **dict_values;
	size_t ndict;
	struct vt **messages;          /* the first ones */
	size_t nmessages;
	struct vm_frame_loc *frames;   /* every return address on the stack, innermost first */
	size_t nframes;
	bool frames_cut;
	bool no_links, no_frames;      /* the loader cannot tell (a crash dump): unknown, not none */
	const char *unreadable;        /* what could not be read, or NULL */
	/* with limits.largest: the biggest roots by flat size, largest first, of
	 * nroots (immediates aside); the roots the input carries (a dump: no x
	 * registers) */
	struct vm_term_root *largest;
	size_t nlargest;
	uint64_t nroots;
	bool no_largest;               /* the loader cannot tell */
	const char *roots_from;        /* "stack, registers, dictionary, messages" */
	/* every message of the queue by shape: count desc, then shape */
	struct vm_shape_count *shapes;
	size_t nshapes;
	uint64_t shapes_counted;       /* messages counted */
	bool no_shapes;                /* the loader cannot tell */
	bool shapes_cut;               /* the queue could not be read to its end */
};
/* beamcore proc --term PATH: one term of a process (a root as largest_terms'
 * `where` names it, then element indexes or map keys: src/model/termpath.h),
 * its elements [0, nelems) of count, each with its own flat size. */
struct vm_term_elem {
	const char *label;             /* "3" (1-based, as element/2), or a map key printed */
	const char *text;              /* printed: whole when small, else bounded */
	const char *shape;
	uint64_t flat_size;
	bool size_cut;
};
struct vm_term_view {
	struct vt_arena *arena;
	const char *path;              /* the path as resolved ("stack y(4) of m:f/2 3") */
	const char *shape, *text;      /* the term: its shape, printed within bounds */
	bool text_whole;               /* text is the whole term */
	uint64_t flat_size;
	bool size_cut;
	const char *container;         /* "tuple", "list", "map"; NULL: no elements */
	uint64_t count;                /* its elements (a list: those counted) */
	bool count_cut;                /* a list whose spine could not be read to its end
					* (an improper tail is an end) */
	struct vm_term_elem *elems;
	size_t nelems;
	/* the path does not resolve: one line that says why and what exists
	 * there; usage: the path is malformed (exit 64), else no such term (2) */
	const char *error;
	bool error_usage;
};

/* ets TABLE --rows: a table's first rows printed, and how many it has as
 * walked (freed with vm_ets_rows_free). */
struct vm_ets_rows {
	struct vt_arena *arena;
	const char **rows;             /* each object printed (~p, bounded) */
	size_t nrows;
	uint64_t counted;              /* the rows walked: all of them unless cut */
	const char *cut;               /* why the walk ended before the table's end, or NULL */
};

struct vm_detail_limits {
	size_t messages, dict, frames, items, bytes;
	size_t largest;                /* largest_terms to keep; 0: neither they nor shapes */
};

/* What a major garbage collection of a process (erlang:garbage_collect/1)
 * would keep and free, estimated from its heap as the snapshot holds it
 * (vm->liveness). */
struct vm_liveness {
	bool known;                    /* false: the loader could not tell (the rest 0) */
	bool cut;                      /* part of the heap could not be read: live_words is
					* a lower bound */
	uint64_t live_words;           /* heap words reachable from its roots: what the
					* collection keeps (each term once, however shared) */
	uint64_t heap_after;           /* total_heap_size after it, words, as the VM sizes the
					* new heap for live_words (gcsize.h) */
	uint64_t garbage_bytes;        /* what it frees: (total_heap_size - heap_after) * 8,
					* 0 when the heap would grow */
	/* its live slices (sub-binaries) of refc binaries it uses only through
	 * slices: how many, their bytes, and those binaries' count and bytes
	 * (what they keep alive); slices_known false: not read (a dump) */
	bool slices_known;
	uint64_t slices, slice_bytes, slice_binaries, slice_kept_bytes;
};

/* An ETS table's slices (vm->ets_slices): the sub-binaries its objects hold
 * of refc binaries no object holds whole, their bytes, and those binaries'
 * count and bytes (each once); known false: not read (why says) */
struct vm_slices {
	bool known;
	const char *why;               /* static */
	uint64_t slices, slice_bytes, binaries, kept_bytes;
};

/* Something the loader could not read or does not know: shown to the user and
 * turned into exit code 1. */
struct vm_gap {
	char *what;
};

/* beamcore export --format crashdump: what only the loader can read, written
 * in the VM's own encoding (break.c, erl_process_dump.c). begin returns the
 * state of one export (NULL: out of memory); proc writes the lines of a =proc
 * section the model has no field for, `part` 0: Spawned by; 1: Number of heap
 * fragments, Heap fragment data, Link list; 2: OldHeap ... OldBinVHeap unused;
 * 3: Program counter, Internal State; deep writes its =proc_messages,
 * =proc_dictionary, =proc_stack and =proc_heap; end writes =binary and =atoms
 * and frees the state. Each returns how many things it could not read (proc
 * and deep say the last one in `why`), -1 on a write error. */
struct vm_dump_sched {
	const char *tag;               /* "scheduler", "dirty_cpu_scheduler", "dirty_io_scheduler" */
	uint32_t index;                /* 1-based */
	bool has_current, calling;     /* runs a process; took the signal */
	struct vm_pid current;
};
struct outbuf;  /* base/outbuf.h: the writer's buffer */
struct vm_dump_ops {
	void *(*begin)(void *loader);
	long (*proc)(void *st, const struct vm_proc *p, int part, struct outbuf *f);
	long (*deep)(void *st, const struct vm_proc *p, struct outbuf *f);
	long (*end)(void *st, struct outbuf *f);
	/* a connected node's "Remote link:", "Remote monitoring:" and "Remotely
	 * monitored by:" lines (dist.c print_link_info, print_monitor_info) */
	long (*node)(void *st, const struct vm_node *n, struct outbuf *f);
	/* the schedulers (normal, dirty cpu, dirty io) into out[0..max): how many */
	size_t (*schedulers)(void *st, struct vm_dump_sched *out, size_t max);
	const char *(*why)(void *st);
};

struct vm {
	/* set while several loader threads parse into the model: vm_intern and
	 * vm_mfa_intern take it (NULL: one thread) */
	pthread_mutex_t *intern_lock;
	const char *kind;              /* "core", "crash_dump" or "live" (--pid) */
	const char *source;            /* file the model came from */
	char otp_release[16];
	char erts_version[32];
	bool jit;
	bool have_jit;
	char exe[4096];                /* beam.smp path, for cores */
	char build_id[129];
	char debug_file[4096];
	int signo;                     /* signal that killed it, 0 for a live snapshot (gcore) */
	int sigcode;
	int sigsender;                 /* pid of another process that sent the signal (kill), or 0 */
	uint64_t sigaddr;              /* faulting address of SIGSEGV/SIGBUS */
	/* as the VM counted them (a core's process table counter; a dump's =proc
	 * sections), known before the processes are read (memory reads none) */
	uint64_t process_count;
	bool procs_read;               /* the processes were read: nprocs is their count */
	uint64_t process_limit;        /* 0: unknown */
	uint64_t atom_count, atom_limit;
	uint32_t schedulers;
	const char *node;              /* nonode@nohost; NULL: unknown */
	/* when the snapshot was taken, seconds since the epoch (0: unknown): a
	 * dump's header date (local time, whole seconds), a core's file mtime */
	double time;
	const char *time_from;         /* static: "dump header", "file mtime", "read" */
	/* the clock's step: the snapshot was at time .. time + time_step (1 s for a
	 * dump header's whole seconds; 0: a file mtime's or a read's nanoseconds) */
	double time_step;
	int live_pid;                  /* live: the process read (--pid); 0 otherwise */
	int os_pid;                    /* the OS process: --pid, a core's NT_PRPSINFO; 0: unknown */
	const char *arch;              /* static: "x86_64", "aarch64" (the core's ELF machine); NULL: a dump */
	bool racy;                     /* live: read without stopping it (--no-stop) */
	double stopped_ms;             /* live: how long it was stopped; < 0: not stopped */
	uint64_t copied_bytes;         /* live: bytes copied while stopped (0: read while stopped) */
	uint64_t racy_bytes;           /* live: bytes read besides that copy, after the release */
	struct vm_death death;         /* crash dumps: the slogan and what it names */
	struct vm_proc *procs;
	size_t nprocs, procs_cap;
	struct vm_ets *ets;
	size_t nets, ets_cap;
	struct vm_node *nodes;
	size_t nnodes, nodes_cap;
	struct vm_binref *binrefs;
	size_t nbinrefs, binrefs_cap;
	/* ports' (with NEED_PORTS); ETS objects' and literals' (NEED_BINARY_HOLDERS) */
	struct vm_binhold *binholds;
	size_t nbinholds, binholds_cap;
	/* which holders of binaries were read: bits of enum vm_binhold_kind */
	uint32_t binholds_read;
	struct vm_port *ports;
	size_t nports, ports_cap;
	/* NIF resource types (NEED_RESOURCES) */
	struct vm_rtype *rtypes;
	size_t nrtypes, rtypes_cap;
	bool rtypes_read;
	/* what could not be read of them (interned), said by the command that
	 * shows them, not by every command that loads them (the summary) */
	const char *rtypes_missing;
	/* the atom table by index (NEED_ATOMS): atoms[i] is atom i, made i-th */
	struct vm_atom *atoms;
	size_t natoms, atoms_unread;   /* natoms: atom_count, or as many as read */
	const char **port_items;       /* the ports' lists (struct vm_port) */
	size_t nport_items, port_items_cap;
	uint64_t port_count, port_limit;  /* as the VM counted them; 0: unknown */
	/* labels the input never holds, said by the commands that show labels (a
	 * crash dump records no ETS rows: Registry names); NULL: none. Not a gap:
	 * nothing was left unread. */
	const char *label_note;
	const char **ancestors;        /* '$ancestors' lists: interned names, "<0.N.S>" */
	size_t nancestors, ancestors_cap;
	uint32_t anc_last_first, anc_last_n;  /* the last list added (shared when repeated) */
	uint32_t *frames;              /* stack frames as indices into mfas */
	size_t nframes, frames_cap;
	struct vm_mfa *mfas;           /* distinct functions seen on stacks */
	size_t nmfas, mfas_cap;
	struct hmap mfa_index;         /* mfas by module, function, arity */
	/* the processes' functions (vm_mfa_intern): stable copies, by chunk */
	const struct vm_mfa **pmfas;
	size_t npmfas, pmfas_cap;
	struct hmap pmfa_index;
	struct vm_mfa_chunk *pmfa_chunks;
	const char **label_sources;    /* vm_proc's label_source: distinct rule sources */
	size_t nlabel_sources, label_sources_cap;
	struct vm_thread *threads;
	size_t nthreads;
	int crash_thread;              /* index of the thread that took the fatal signal, or
					* (no signal) that stopped in a fatal function; -1 */
	const char *fatal_function;    /* that fatal function (erts_alc_fatal_error, ...) */
	uint64_t alloc_size;           /* erts_alc_fatal_error caught on entry: its size, */
	const char *alloc_type;        /* and the allocation type ("heap", ...); else 0/NULL */
	struct vm_nframe *nframes_native;
	size_t nnframes, nnframes_cap;
	struct vm_memory memory;
	struct vm_alloc *allocs;
	size_t nallocs;
	struct hmap pid_index;         /* procs by pid: vm_index_pids, or the first vm_find_proc */
	bool pid_index_oom;            /* that failed (said once, as a gap) */
	struct vm_gap *gaps;
	size_t ngaps;
	size_t gaps_dropped;           /* beyond the kept ones */
	struct strtab *strings;
	/* the loader's answer for one process in full (NULL: not supported) */
	int (*detail)(void *loader, const struct vm_proc *p, const struct vm_detail_limits *lim,
		      struct vm_proc_detail *out);
	/* what a garbage collection of each of procs[0..n) would keep and free
	 * into out[0..n) (NULL: not supported); a walk of every heap, so not for
	 * the default path of a command on a million processes */
	void (*liveness)(void *loader, const struct vm_proc *procs, size_t n,
			 struct vm_liveness *out);
	/* the slices of table t's objects into out (NULL: not supported) */
	void (*ets_slices)(void *loader, const struct vm_ets *t, struct vm_slices *out);
	/* the references to atoms of each class that the live terms of each of
	 * procs[which[0..n)] (which NULL: procs[0..n)) hold (liveness's walk:
	 * each object once; a process it cannot walk is skipped): cls[i] is
	 * atom i's class, 1..k (0: none); emit(ctx, j, tally) for each process
	 * procs[j] holding any, tally[c - 1] its references to class c (NULL:
	 * not supported) */
	void (*atom_refs)(void *loader, const struct vm_proc *procs, const uint32_t *which, size_t n,
			  const uint8_t *cls,
			  size_t ncls, unsigned k,
			  void (*emit)(void *ctx, size_t j, const uint32_t *tally), void *ctx);
	/* the modules whose literals hold atoms of classes 1..k (cls as
	 * atom_refs) or a string (a char list, a heap binary) starting with
	 * lead[c - 1] (a pattern's text before its first placeholder; len 0:
	 * none): emit(ctx, module, tally) for each literal area holding any (a
	 * module's current and old code: twice), tally[c - 1] its literals of
	 * class c; returns the areas that could not be scanned whole, their
	 * hits not emitted, SIZE_MAX none (NULL: not supported) */
	size_t (*atom_modules)(void *loader, const uint8_t *cls, size_t ncls, unsigned k,
			       const struct vm_atom *lead,
			       void (*emit)(void *ctx, const char *module, const uint32_t *tally),
			       void *ctx);
	void *loader;
	/* the first n bytes of the refc binary at bin (a Binary's address, as
	 * vm_binref.bin); 0, or -1 unreadable (NULL: not supported) */
	int (*binary_bytes)(void *loader, uint64_t bin, void *buf, size_t n);
	/* the allocator type of the refc binary at bin, as erl_alloc.types
	 * names it: "binary" (binary_alloc's own, erlang's and enif_alloc_binary's),
	 * "drv_binary" (driver_alloc_binary's); NULL unreadable (the hook NULL:
	 * not supported) */
	const char *(*binary_alloc_type)(void *loader, uint64_t bin);
	/* one term of p by path, at most max elements (0: all); -1 on OOM (NULL:
	 * not supported). Free out with vm_term_free. */
	int (*term)(void *loader, const struct vm_proc *p, const char *path, size_t max,
		    struct vm_term_view *out);
	/* the first max rows of table t (all counted); -1 on OOM (NULL: the input
	 * holds no rows: a crash dump) */
	int (*ets_rows)(void *loader, const struct vm_ets *t, size_t max, struct vm_ets_rows *out);
	const struct vm_dump_ops *dump_ops;  /* NULL: this loader cannot export */
	/* why this kind of input never records a part (one NEED_* bit of
	 * needs.h), or NULL; such a part stays empty. NULL: none such. */
	const char *(*not_recorded)(unsigned part);
};

void vm_detail_free(struct vm_proc_detail *d);
void vm_term_free(struct vm_term_view *v);
void vm_ets_rows_free(struct vm_ets_rows *r);
/* vm->not_recorded's answer for part (NULL: the input may hold it): a command
 * whose whole subject the part is fails with this reason, in its own words. */
const char *vm_not_recorded(const struct vm *vm, unsigned part);

struct vm *vm_new(const char *kind, const char *source);
void vm_free(struct vm *vm);
struct vm_proc *vm_add_proc(struct vm *vm);
/* n zeroed processes at the end, room made for exactly them; NULL: out of memory. */
struct vm_proc *vm_add_procs(struct vm *vm, size_t n);
/* A row as vm_add_proc gives it: zero, its MFAs &vm_mfa_none. vm_add_procs'
 * rows are zero only: its caller readies each (vm_proc_ready: a zero row's
 * MFAs) before filling it (a million rows are faulted in by the threads that
 * fill them, not here). */
void vm_proc_clear(struct vm_proc *p);
static inline void vm_proc_ready(struct vm_proc *p)
{
	p->initial_call = p->current_function = p->proc_lib_initial_call = &vm_mfa_none;
}
void vm_gap(struct vm *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *vm_intern(struct vm *vm, const char *s, size_t len);

struct vm_ets *vm_add_ets(struct vm *vm);
struct vm_binref *vm_add_binref(struct vm *vm);
struct vm_binhold *vm_add_binhold(struct vm *vm);
struct vm_node *vm_add_node(struct vm *vm);
struct vm_port *vm_add_port(struct vm *vm);
struct vm_rtype *vm_add_rtype(struct vm *vm);
/* Room for n atoms in vm->atoms (zeroed: text NULL, unread); -1 on OOM. */
int vm_alloc_atoms(struct vm *vm, size_t n);
/* Append an item (interned) to vm->port_items; -1 on OOM. */
int vm_add_port_item(struct vm *vm, const char *item);
/* "#Port<0.N>" into buf. */
const char *vm_port_str(const struct vm_port *p, char *buf, size_t len);
/* The node whose pids print as <channel.N.S>, or NULL. */
const struct vm_node *vm_node_by_channel(const struct vm *vm, uint64_t channel);
/* The index of m in vm->mfas (added if new); -1 on OOM. */
int64_t vm_mfa_id(struct vm *vm, const struct vm_mfa *m);
/* A stable copy of m shared by every process with that function (what a
 * vm_proc's MFAs point at): &vm_mfa_none for the zero MFA; NULL on OOM.
 * Not for several threads at once (a walk on threads holds its lock). */
const struct vm_mfa *vm_mfa_intern(struct vm *vm, const struct vm_mfa *m);
/* p's '$ancestors' are names[0..n) (interned): appended to vm->ancestors, or
 * the last list added when it is the same; -1 on OOM. */
int vm_set_ancestors(struct vm *vm, struct vm_proc *p, const char *const *names, size_t n);
/* p's proc_lib initial call when it has one, else its initial call (what
 * observer shows: proc_lib:init_p/5 says nothing). */
const struct vm_mfa *vm_shown_initial_call(const struct vm_proc *p);
/* The label p is shown by (issue 21): its registered name; else its own name
 * as a library keeps it (p->label: '$process_label', RabbitMQ's process_name,
 * an Elixir Registry key, ...); else its proc_lib initial call, else its
 * initial call ("m:f/a" written into buf); NULL when none is known. */
const char *vm_proc_label(const struct vm_proc *p, char *buf, size_t len);
/* p's label from the name term a label rule found (labels.h: label_text, in
 * Elixir's syntax when p's module is Elixir's, interned); table and parent for
 * the rule's %t and %p (NULL: none). 0, -1 out of memory. */
struct label_rule;
struct vt;
int vm_set_label(struct vm *vm, struct vm_proc *p, const struct label_rule *r,
		 const struct vt *name, const char *table, const char *parent);
/* Where that label comes from: "registered_name", p->label_source,
 * "proc_lib_initial_call", "initial_call"; NULL when there is none. */
const char *vm_proc_label_source(const struct vm *vm, const struct vm_proc *p);
/* p hibernates: its current function is erlang:hibernate/3 (its stack empty
 * but for the final return address; p->wake_up says where it resumes). */
bool vm_proc_hibernating(const struct vm_proc *p);
/* Append a frame to vm->frames; -1 on OOM. */
int vm_add_frame(struct vm *vm, uint32_t mfa_id);
/* How many processes the node has, as every command says it: those read when
 * they were (nprocs), else the count the VM kept (memory reads none). */
uint64_t vm_process_count(const struct vm *vm);

/* After the processes are loaded: index them by pid (-1 on OOM). Optional:
 * vm_find_proc indexes them at the first lookup. */
int vm_index_pids(struct vm *vm);
/* The process with this pid, or NULL (indexes them first when needed). */
const struct vm_proc *vm_find_proc(const struct vm *vm, struct vm_pid pid);
/* The processes of n pids into out (NULL: none), as vm_find_proc would find
 * them, in one pass over the processes when they are not indexed yet: a few
 * lookups need not index a million processes. */
void vm_find_procs(const struct vm *vm, const struct vm_pid *pids, size_t n,
		   const struct vm_proc **out);
/* "#Ref<0.a.b.c>" of a table into buf. */
const char *vm_ets_id_str(const struct vm_ets *t, char *buf, size_t len);
const char *vm_pid2str(struct vm_pid pid, char *buf, size_t len);

/* "<0.N.S>" into buf (>= 32 bytes). */
const char *vm_pid_str(const struct vm_proc *p, char *buf, size_t len);
/* "m:f/a" into buf, or NULL when unknown. */
const char *vm_mfa_str(const struct vm_mfa *m, char *buf, size_t len);

#endif
