/* The slogan block of the target header (vm->death), text and JSON. */
#ifndef BEAMCORE_RENDER_DEATH_H
#define BEAMCORE_RENDER_DEATH_H
#include <stdio.h>
#include "render.h"
#include "vm.h"

/* Lines "  slogan ...", "  meaning ...", "  grew|running ..."; call only when
 * vm->death.slogan is set. */
void death_text(FILE *f, const struct vm *vm);
/* "death": {...}, or null when the input has no slogan (cores). */
void death_json(struct jw *w, const struct vm *vm);

#endif
