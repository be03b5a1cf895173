/* Links and monitors of a core (erl_monitor_link.h): one reader of a node's
 * type and flags for both layouts the releases use, and one place for the
 * rules process_info/2 and erts_process_memory apply to them. */
#ifndef BEAMCORE_MONLNK_H
#define BEAMCORE_MONLNK_H
#include <stdint.h>

struct beam;

/* Flags, the same bits whatever the release stores. */
enum ml_flag {
	MLF_TARGET = 1 << 0,
	MLF_NAME = 1 << 1,
	MLF_EXTENDED = 1 << 2,
	MLF_SPAWN_PENDING = 1 << 3,
	MLF_CALL = 1 << 4,         /* alias state "demonitor": monitor(_, _, [{alias, demonitor}]),
				    * the monitor of a call (gen:do_call, send_request) */
};

/* Types (ERTS_MON_TYPE_*, ERTS_LNK_TYPE_*): the same numbers in every layout. */
enum ml_type {
	ML_MON_PROC = 0, ML_MON_PORT = 1, ML_MON_TIME_OFFSET = 2, ML_MON_DIST_PROC = 3,
	ML_MON_DIST_PORT = 4, ML_MON_RESOURCE = 5, ML_MON_NODE = 6, ML_MON_NODES = 7,
	ML_MON_SUSPEND = 8, ML_MON_ALIAS = 9,
	ML_LNK_PROC = 10, ML_LNK_PORT = 11, ML_LNK_DIST_PROC = 12, ML_LNK_DIST_PORT = 13,
};

struct ml_node {
	uint32_t type;
	uint32_t flags;            /* enum ml_flag */
	uint64_t other;            /* other.item: the other end (a term) */
};

/* Decide the layout from the DWARF; NULL, or why this beam.smp's links and
 * monitors cannot be read (names what is missing). */
const char *ml_layout(struct beam *b);
/* One node; -1 when unreadable or its type is not one of this layout's. */
int ml_read(struct beam *b, uint64_t node, struct ml_node *out);
/* erts_link_size / erts_monitor_size of one node; -1 when unreadable. */
int ml_size(struct beam *b, uint64_t node, const struct ml_node *n, int is_link, uint64_t *size);
/* Visit every node of a link or monitor tree (left/right children) or of the
 * circular list of local target monitors (next). -1 when a node is unreadable,
 * the structure is corrupt (deeper or longer than any real one), or a visit
 * returns -1. */
enum ml_shape { ML_TREE, ML_LIST };
typedef int ml_visit(void *ctx, uint64_t node, const struct ml_node *n, int is_link);
int ml_walk(struct beam *b, uint64_t root, enum ml_shape shape, int is_link, ml_visit *visit,
	    void *ctx);
/* Does process_info(P, monitors | monitored_by) list it? */
int ml_listed_monitor(const struct ml_node *n);
int ml_listed_monitored_by(const struct ml_node *n);
/* The structure a node is embedded in (erts_ml_node_to_main_struct__: the
 * link data, the monitor data). */
int ml_main_struct(struct beam *b, uint64_t node, uint64_t *out);
/* NC_HEAP_SIZE: words of a pid/port/ref term off the heap (0 if immediate). */
int ml_nc_heap_size(struct beam *b, uint64_t term, uint64_t *words);

#endif
