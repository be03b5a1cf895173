/* glibc's r_debug { int r_version; struct link_map *r_map; ... } and
 * link_map { l_addr, l_name, l_ld, l_next, l_prev } on a 64-bit machine. */
#include "linkmap.h"
#include "core.h"
#include "grow.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* A loop in a corrupt chain ends here; a real process has a few hundred. */
#define LINKS_MAX 65536
#define DYN_MAX 4096

bc_err *core_link_map(const struct core *c, uint64_t dynamic, struct core_link **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	uint64_t r_debug = 0;
	for (size_t i = 0; i < DYN_MAX; i++) {
		Elf64_Dyn d;
		if (core_peek(c, dynamic + i * sizeof d, &d, sizeof d) < 0)
			return bc_error(BC_EFAULT, "the executable's dynamic section (%#llx) is not in the core",
					(unsigned long long)dynamic);
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG)
			r_debug = d.d_un.d_ptr;
	}
	uint64_t link = 0;
	if (!r_debug || core_peek(c, r_debug + 8, &link, 8) < 0 || !link)
		return bc_error(BC_EFORMAT, "no dynamic linker's list in the core (DT_DEBUG %#llx): "
				"a static executable, or stopped before it was linked",
				(unsigned long long)r_debug);
	struct core_link *a = NULL;
	size_t cap = 0, k = 0;
	for (; link && k < LINKS_MAX; k++) {
		uint64_t m[4];  /* l_addr, l_name, l_ld, l_next */
		if (core_peek(c, link, m, sizeof m) < 0) {
			free(a);
			return bc_error(BC_EFAULT, "the dynamic linker's list is cut at %#llx (not in the core)",
					(unsigned long long)link);
		}
		struct core_link *g = grow(a, &cap, k, sizeof *a, 16);
		if (!g) {
			free(a);
			return bc_error(BC_ENOMEM, "out of memory");
		}
		a = g;
		a[k] = (struct core_link){ m[0], m[1], m[2] };
		link = m[3];
	}
	if (link) {
		free(a);
		return bc_error(BC_EFORMAT, "the dynamic linker's list has more than %d entries (a loop?)",
				LINKS_MAX);
	}
	*out = a;
	*n = k;
	return NULL;
}
