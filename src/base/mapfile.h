/* Map a whole regular file read-only (private, so libelf may be handed it). */
#ifndef BEAMCORE_MAPFILE_H
#define BEAMCORE_MAPFILE_H
#include <stddef.h>
#include <stdint.h>
#include "error.h"

/* min_size: smaller files are a format error naming `what`. */
bc_err *map_file(const char *path, size_t min_size, const char *what,
		 const uint8_t **map, size_t *size);
void unmap_file(const uint8_t *map, size_t size);

#endif
