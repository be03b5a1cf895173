/* Erlang terms, decoded by a loader (a core's tagged words, a dump's heap
 * encoding) into one small tree that one printer prints as Erlang would (~p
 * style), within depth and size limits. Trees live in an arena freed at once. */
#ifndef BEAMCORE_TERM_H
#define BEAMCORE_TERM_H
#include <stddef.h>
#include <stdint.h>

enum vt_kind {
	VT_INT, VT_BIG,            /* VT_BIG: text holds the decimal digits */
	VT_FLOAT, VT_ATOM, VT_PID, VT_PORT, VT_REF, VT_NIL,
	VT_LIST,                   /* elems[0..n), then tail (NULL = proper list) */
	VT_TUPLE, VT_MAP,          /* map: elems are key, value, key, value ... */
	VT_BINARY,                 /* bytes[0..n) of size bytes (+ bits), truncated if n < size */
	VT_FUN,                    /* text: "#Fun<m.i.u>" or "fun m:f/a" */
	VT_OTHER,                  /* text: something we show but do not decode */
	VT_CUT,                    /* beyond the limits: "..." */
	VT_UNREADABLE,             /* memory the core lacks: addr */
};

struct vt {
	enum vt_kind kind;
	int64_t i;                 /* INT; PID/PORT number; BINARY bits */
	uint64_t u, u2, addr;      /* PID serial; REF numbers; unreadable address */
	double f;
	const char *text;          /* ATOM name, BIG digits, FUN/OTHER text, REF text */
	uint64_t chan;             /* PID/PORT: the channel the VM prints first (0 local) */
	const char *node;          /* PID/PORT/REF of another node: its name, else NULL */
	const uint8_t *bytes;
	size_t size;               /* BINARY total bytes */
	struct vt **elems;
	size_t n;
	struct vt *tail;
};

struct vt_arena;
struct vt_arena *vt_arena_new(void);
void vt_arena_free(struct vt_arena *a);
/* Empty the arena for reuse (its first chunk kept): trees in it are gone. */
void vt_arena_reset(struct vt_arena *a);
struct vt *vt_new(struct vt_arena *a, enum vt_kind kind);
void *vt_alloc(struct vt_arena *a, size_t size);
const char *vt_strdup(struct vt_arena *a, const char *s, size_t len);
/* Room for one more in an arena array of n trees (capacity *cap): the array,
 * moved when full; NULL on OOM. */
struct vt **vt_grow(struct vt_arena *a, struct vt **v, size_t n, size_t *cap);

struct vt_limits {
	int depth;                 /* nesting */
	size_t items;              /* list/tuple/map elements shown */
	size_t bytes;              /* binary bytes shown */
};

/* Print t into buf (always NUL-terminated); returns buf. */
const char *vt_print(const struct vt *t, const struct vt_limits *lim, char *buf, size_t len);
/* As Elixir's inspect prints it (MyApp.Worker, :atom, "string", #PID<0.1.0>). */
const char *vt_print_elixir(const struct vt *t, const struct vt_limits *lim, char *buf,
			    size_t len);

#endif
