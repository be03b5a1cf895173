/* A command's output on stdout, text or JSON, and its gaps on stderr. */
#ifndef BEAMCORE_RENDER_PRINT_H
#define BEAMCORE_RENDER_PRINT_H
#include "error.h"
#include "out.h"
#include "vm.h"

#define JSON_SCHEMA 2  /* 2: findings are objects (docs/json.md) */

/* The JSON document of a command of one target, of two (diff: "targets":
 * {"a", "b"}), the text (header: the target header first). */
void print_json(const char *command, const struct vm *vm, const struct an_out *out);
void print_json2(const char *command, const struct vm *const vm[2], const struct an_out *out);
void print_text(int header, const struct vm *vm, const struct an_out *out);
/* The parts of the JSON document, for a writer that puts several commands'
 * outputs in one (the report): the target object, a command's own output
 * and findings, the missing list and its total. */
void json_target(struct jw *w, const char *key, const struct vm *vm);
void json_body(struct jw *w, const struct an_out *out);
void json_missing(struct jw *w, const struct vm *vm);
/* --json: a failure is JSON on stdout too, {"error": ...}, so a script that
 * parses stdout learns why (the one line stays on stderr). */
void json_error(const char *command, const char *msg, int code);
/* The first ten gaps on stderr ("beamcore: partial: LABEL: ..."), and how
 * many more; BC_EXIT_PARTIAL when there are any, else 0. */
int report_gaps(const struct vm *vm, const char *label);

#endif
