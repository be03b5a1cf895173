/* speedscope's file format (https://www.speedscope.app/file-format-schema.json),
 * the one writer of it (export --format speedscope, sample --speedscope):
 * the frames every profile shares, then sampled profiles, each its samples
 * (stacks of frame indices, outermost first) and then their weights. Calls
 * come in that order: begin, frame..., then per profile profile, (stack,
 * stack_frame..., ) ..., weights, weight..., then end. */
#ifndef BEAMCORE_RENDER_SPEEDSCOPE_H
#define BEAMCORE_RENDER_SPEEDSCOPE_H
#include <stdint.h>
#include <stdio.h>
#include "render.h"

struct speedscope {
	struct jw w;
	int at;   /* what is open: 1 frames, 2 a profile's samples, 3 a stack, 4 its weights */
};

/* name: the file's (and "activeProfileIndex": 0); NULL: neither */
void speedscope_begin(struct speedscope *s, FILE *f, const char *exporter, const char *name);
void speedscope_frame(struct speedscope *s, const char *name);
/* A sampled profile from 0 to end, in unit ("none", "bytes", "nanoseconds"). */
void speedscope_profile(struct speedscope *s, const char *name, const char *unit, uint64_t end);
void speedscope_stack(struct speedscope *s);
void speedscope_stack_frame(struct speedscope *s, uint64_t frame);
void speedscope_weights(struct speedscope *s);
void speedscope_weight(struct speedscope *s, uint64_t weight);
/* Closes what is open; the file ends with a newline. */
void speedscope_end(struct speedscope *s);

#endif
