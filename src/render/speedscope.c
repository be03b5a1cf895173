/* The speedscope file writer (speedscope.h). */
#include "speedscope.h"

enum { AT_FRAMES = 1, AT_SAMPLES, AT_STACK, AT_WEIGHTS };

void speedscope_begin(struct speedscope *s, FILE *f, const char *exporter, const char *name)
{
	jw_init(&s->w, f);
	jw_obj(&s->w, NULL);
	jw_str(&s->w, "$schema", "https://www.speedscope.app/file-format-schema.json");
	jw_str(&s->w, "exporter", exporter);
	if (name) {
		jw_str(&s->w, "name", name);
		jw_u64(&s->w, "activeProfileIndex", 0);
	}
	jw_obj(&s->w, "shared");
	jw_arr(&s->w, "frames");
	s->at = AT_FRAMES;
}

void speedscope_frame(struct speedscope *s, const char *name)
{
	jw_obj(&s->w, NULL);
	jw_str(&s->w, "name", name);
	jw_obj_end(&s->w);
}

/* Close what is open down to (not including) the profiles array. */
static void close_profile(struct speedscope *s)
{
	if (s->at == AT_FRAMES) {
		jw_arr_end(&s->w);
		jw_obj_end(&s->w);
		jw_arr(&s->w, "profiles");
		s->at = 0;
		return;
	}
	if (s->at == AT_STACK)
		jw_arr_end(&s->w);
	if (s->at == AT_STACK || s->at == AT_SAMPLES)
		speedscope_weights(s);
	if (s->at == AT_WEIGHTS) {
		jw_arr_end(&s->w);
		jw_obj_end(&s->w);
	}
	s->at = 0;
}

void speedscope_profile(struct speedscope *s, const char *name, const char *unit, uint64_t end)
{
	close_profile(s);
	jw_obj(&s->w, NULL);
	jw_str(&s->w, "type", "sampled");
	jw_str(&s->w, "name", name);
	jw_str(&s->w, "unit", unit);
	jw_u64(&s->w, "startValue", 0);
	jw_u64(&s->w, "endValue", end);
	jw_arr(&s->w, "samples");
	s->at = AT_SAMPLES;
}

void speedscope_stack(struct speedscope *s)
{
	if (s->at == AT_STACK)
		jw_arr_end(&s->w);
	jw_arr(&s->w, NULL);
	s->at = AT_STACK;
}

void speedscope_stack_frame(struct speedscope *s, uint64_t frame)
{
	jw_u64(&s->w, NULL, frame);
}

void speedscope_weights(struct speedscope *s)
{
	if (s->at == AT_STACK)
		jw_arr_end(&s->w);
	jw_arr_end(&s->w);
	jw_arr(&s->w, "weights");
	s->at = AT_WEIGHTS;
}

void speedscope_weight(struct speedscope *s, uint64_t weight)
{
	jw_u64(&s->w, NULL, weight);
}

void speedscope_end(struct speedscope *s)
{
	close_profile(s);
	jw_arr_end(&s->w);
	jw_obj_end(&s->w);  /* (the outermost: ends the line) */
}
