/* A command's output on stdout: the target header and what the command
 * described (render/out.h), as text or as JSON (docs/json.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "death.h"
#include "print.h"
#include "utf8.h"

static void text_header(FILE *f, const struct vm *vm)
{
	char s[64], n[32], l[32];
	/* the machine is named when it is not the usual one (an arm64 core read here) */
	bool other_arch = vm->arch && strcmp(vm->arch, "x86_64") != 0;
	fprintf(f, "%s of %s: OTP %s (erts %s%s%s%s), node %s, %u schedulers\n", vm->kind, vm->source,
		vm->otp_release[0] ? vm->otp_release : "?",
		vm->erts_version[0] ? vm->erts_version : "?",
		!vm->have_jit ? "" : vm->jit ? ", JIT" : ", interpreter",
		other_arch ? ", " : "", other_arch ? vm->arch : "",
		vm->node ? vm->node : "?", vm->schedulers);
	if (vm->live_pid && vm->racy && vm->stopped_ms >= 0)
		fprintf(f, "  stopped %.1f ms, released before the copy was whole (--max-stop): read "
			   "racily, values may be mid-change; impossible ones are gaps\n", vm->stopped_ms);
	else if (vm->live_pid && vm->racy)
		fprintf(f, "  read WITHOUT stopping it (--no-stop): values may be mid-change; "
			   "impossible ones are gaps\n");
	else if (vm->live_pid && vm->stopped_ms >= 0 && vm->copied_bytes) {
		char b[32], r[32];
		fprintf(f, "  stopped for %.1f ms to copy %s (ptrace), read from the copy", vm->stopped_ms,
			fmt_bytes(vm->copied_bytes, b, sizeof b));
		if (vm->racy_bytes)
			fprintf(f, "; %s read after it ran again", fmt_bytes(vm->racy_bytes, r, sizeof r));
		fprintf(f, "\n");
	} else if (vm->live_pid && vm->stopped_ms >= 0)
		fprintf(f, "  stopped for %.1f ms for the read (ptrace)\n", vm->stopped_ms);
	if (vm->exe[0])  /* (crash dumps name no executable) */
		fprintf(f, "  beam.smp %s (build-id %s)\n", vm->exe, vm->build_id[0] ? vm->build_id : "none");
	fprintf(f, "  processes %s of %s", fmt_count(vm_process_count(vm), n, sizeof n),
		vm->process_limit ? fmt_count(vm->process_limit, l, sizeof l) : "?");
	fprintf(f, "; atoms %s of %s", fmt_count(vm->atom_count, n, sizeof n),
		fmt_count(vm->atom_limit, l, sizeof l));
	if (vm->death.slogan) {  /* crash dumps: the slogan and what it names */
		fprintf(f, "\n");
		death_text(f, vm);
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "; %s", vm->signo ? fmt_signal(vm->signo, s, sizeof s)
				  : vm->live_pid ? "running"
				  : "no fatal signal: a live snapshot (gcore)");
	if (vm->signo && vm->sigsender)
		fprintf(f, " sent by pid %d", vm->sigsender);
	fprintf(f, "\n\n");
}

void json_target(struct jw *w, const char *key, const struct vm *vm)
{
	char s[64];
	jw_obj(w, key);
	jw_str(w, "kind", vm->kind);
	jw_str(w, "path", vm->source);
	jw_str(w, "executable", vm->exe[0] ? vm->exe : NULL);
	jw_str(w, "build_id", vm->build_id[0] ? vm->build_id : NULL);
	jw_str(w, "debug_file", vm->debug_file[0] ? vm->debug_file : NULL);
	jw_str(w, "otp_release", vm->otp_release[0] ? vm->otp_release : NULL);
	jw_str(w, "erts_version", vm->erts_version[0] ? vm->erts_version : NULL);
	if (vm->have_jit)
		jw_bool(w, "jit", vm->jit);
	else
		jw_null(w, "jit");
	jw_str(w, "signal", vm->signo ? fmt_signal(vm->signo, s, sizeof s) : NULL);
	jw_u64_or_null(w, "signal_sender", vm->signo && vm->sigsender, (uint64_t)vm->sigsender);
	death_json(w, vm);  /* crash dumps: the slogan; null for cores */
	jw_str(w, "node", vm->node);
	jw_u64(w, "process_count", vm_process_count(vm));
	jw_u64_or_null(w, "process_limit", vm->process_limit != 0, vm->process_limit);
	jw_u64(w, "atom_count", vm->atom_count);
	jw_u64(w, "atom_limit", vm->atom_limit);
	jw_u64(w, "schedulers", vm->schedulers);
	jw_f64(w, "time", vm->time ? vm->time : NAN);
	jw_str(w, "time_from", vm->time ? vm->time_from : NULL);
	jw_u64_or_null(w, "os_pid", vm->os_pid > 0, (uint64_t)vm->os_pid);
	jw_str(w, "arch", vm->arch);
	/* --pid: how long it was stopped, whether it ran meanwhile */
	jw_f64(w, "stopped_ms", vm->live_pid && vm->stopped_ms >= 0 ? vm->stopped_ms : NAN);
	jw_bool(w, "racy", vm->live_pid && vm->racy);
	/* what was copied while stopped, what was read besides after the release */
	jw_u64_or_null(w, "copied_bytes", vm->live_pid && vm->stopped_ms >= 0, vm->copied_bytes);
	jw_u64_or_null(w, "racy_bytes", vm->live_pid && vm->stopped_ms >= 0, vm->racy_bytes);
	jw_obj_end(w);
}

void json_error(const char *command, const char *msg, int code)
{
	struct jw w;
	jw_init(&w, stdout);
	jw_obj(&w, NULL);
	jw_u64(&w, "beamcore_schema", JSON_SCHEMA);
	jw_str(&w, "command", command);
	jw_str(&w, "error", msg);
	jw_u64(&w, "exit", (uint64_t)code);
	jw_obj_end(&w);
	fflush(stdout);
}

/* What follows the target(s): the command's own output, then findings. */
void json_body(struct jw *w, const struct an_out *out)
{
	if (out->fields_key) {
		jw_obj(w, out->fields_key);
		size_t open = 0;  /* the length of the open sub-object's prefix (0: none) */
		for (size_t i = 0; i < out->nfields; i++) {
			const struct an_field *f = &out->fields[i];
			const char *dot = strchr(f->key, '.'), *key = dot ? dot + 1 : f->key;
			size_t pre = dot ? (size_t)(dot - f->key) : 0;
			if (open && (pre != open || strncmp(f->key, out->fields[i - 1].key, pre) != 0)) {
				jw_obj_end(w);
				open = 0;
			}
			if (pre && !open) {
				char name[64];
				snprintf(name, sizeof name, "%.*s", (int)pre, f->key);
				jw_obj(w, name);
				open = pre;
			}
			if (f->kind == AF_STR)
				jw_str(w, key, f->s);
			else if (f->kind == AF_U64)
				jw_u64(w, key, f->u);
			else if (f->kind == AF_BOOL)
				jw_bool(w, key, f->u != 0);
			else if (f->kind == AF_NULL || f->kind == AF_UNKNOWN)
				jw_null(w, key);
			else {
				jw_arr(w, key);
				for (size_t k = 0; k < f->n; k++)
					jw_str(w, NULL, f->list[k]);
				jw_arr_end(w);
			}
		}
		if (open)
			jw_obj_end(w);
		for (size_t i = 0; i < out->ntables; i++)
			if (out->tables[i].in_fields)
				render_table_json(w, &out->tables[i]);
		jw_obj_end(w);
	}
	if (out->kv_key) {
		jw_obj(w, out->kv_key);
		for (size_t i = 0; i < out->nkv; i++) {
			if (out->kv[i].null)
				jw_null(w, out->kv[i].key);
			else
				jw_u64(w, out->kv[i].key, out->kv[i].value);
		}
		jw_obj_end(w);
	}
	for (size_t i = 0; i < out->ntables; i++)
		if (!out->tables[i].in_fields || !out->fields_key)
			render_table_json(w, &out->tables[i]);
	render_doc_json(w, &out->doc);
	jw_arr(w, "findings");
	for (size_t i = 0; i < out->nfindings; i++) {
		const struct an_finding *f = &out->findings[i];
		char pid[32];
		jw_obj(w, NULL);
		jw_str(w, "kind", f->kind ? f->kind : "note");
		jw_str(w, "severity", f->severity ? f->severity : "info");
		jw_str(w, "pid", f->has_pid ? vm_pid2str(f->pid, pid, sizeof pid) : NULL);
		jw_str(w, "name", f->name);
		jw_u64_or_null(w, "value", f->has_value, f->value);
		jw_str(w, "text", f->text);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

void print_json(const char *command, const struct vm *vm, const struct an_out *out)
{
	struct jw w;
	jw_init(&w, stdout);
	jw_obj(&w, NULL);
	jw_u64(&w, "beamcore_schema", JSON_SCHEMA);
	jw_str(&w, "command", command);
	jw_bool(&w, "complete", vm->ngaps == 0 && vm->gaps_dropped == 0);
	json_target(&w, "target", vm);
	json_body(&w, out);
	json_missing(&w, vm);
	jw_obj_end(&w);
}

void json_missing(struct jw *w, const struct vm *vm)
{
	jw_arr(w, "missing");
	for (size_t i = 0; i < vm->ngaps; i++)
		jw_str(w, NULL, vm->gaps[i].what);
	jw_arr_end(w);
	/* the list keeps the first gaps; the total counts every one */
	jw_u64(w, "missing_total", vm->ngaps + vm->gaps_dropped);
}

/* A command of two targets: "targets": {"a", "b"}; missing sentences start
 * with "A: " or "B: ". */
void print_json2(const char *command, const struct vm *const vm[2],
			const struct an_out *out)
{
	struct jw w;
	jw_init(&w, stdout);
	jw_obj(&w, NULL);
	jw_u64(&w, "beamcore_schema", JSON_SCHEMA);
	jw_str(&w, "command", command);
	jw_bool(&w, "complete", !vm[0]->ngaps && !vm[0]->gaps_dropped && !vm[1]->ngaps &&
				!vm[1]->gaps_dropped);
	jw_obj(&w, "targets");
	json_target(&w, "a", vm[0]);
	json_target(&w, "b", vm[1]);
	jw_obj_end(&w);
	json_body(&w, out);
	jw_arr(&w, "missing");
	size_t listed = 0;  /* the first 64 of both, as one target's list */
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < vm[k]->ngaps && listed < 64; i++, listed++) {
			char *line = NULL;
			if (asprintf(&line, "%s: %s", k ? "B" : "A", vm[k]->gaps[i].what) >= 0) {
				jw_str(&w, NULL, line);
				free(line);
			}
		}
	jw_arr_end(&w);
	jw_u64(&w, "missing_total",
	       vm[0]->ngaps + vm[0]->gaps_dropped + vm[1]->ngaps + vm[1]->gaps_dropped);
	jw_obj_end(&w);
}

void print_text(int header, const struct vm *vm, const struct an_out *out)
{
	if (header)
		text_header(stdout, vm);
	for (size_t i = 0; i < out->nfindings; i++)
		printf("* %s\n", out->findings[i].text);
	for (int lists = 0; lists < 2; lists++)  /* the scalars, then the lists */
		for (size_t i = 0; i < out->nfields; i++) {
			const struct an_field *f = &out->fields[i];
			char b[32], kb[64];
			char vis[4096];
			if (an_field_is_list(f) != lists)
				continue;
			const char *key = an_field_text_key(f->key, kb, sizeof kb);
			if (f->kind == AF_STR)
				printf("  %-18s %s\n", key, utf8_visible(f->s ? f->s : "", vis, sizeof vis));
			else if (f->kind == AF_U64)
				printf("  %-18s %s\n", key, fmt_count(f->u, b, sizeof b));
			else if (f->kind == AF_BOOL)
				printf("  %-18s %s\n", key, f->u ? "true" : "false");
			else if (!lists)
				printf("  %-18s %s\n", key, f->kind == AF_NULL ? "-" : "?");
			else {
				printf("\n%s\n", f->title ? f->title : key);
				size_t shown = f->text_max && f->text_max < f->n ? f->text_max : f->n;
				for (size_t k = 0; k < shown; k++)
					printf("  %s\n", f->list[k]);
				if (shown < f->n || f->text_more)
					printf("  ... and %s more (--all prints all; --json has all)\n",
					       fmt_count(f->n - shown + f->text_more, b, sizeof b));
			}
		}
	if (out->nfields)
		printf("\n");
	if (out->nkv) {
		char b[32];
		if (out->kv_title)
			printf("%s\n", out->kv_title);
		for (size_t i = 0; i < out->nkv; i++)
			printf("  %-16s %12s\n", out->kv[i].key,
			       out->kv[i].null ? "?" : fmt_bytes(out->kv[i].value, b, sizeof b));
		printf("\n");
	}
	for (size_t i = 0; i < out->ntables; i++) {
		if (out->tables[i].hide_empty && !out->tables[i].nrows)
			continue;
		if (out->tables[i].title)
			printf("%s\n", out->tables[i].title);
		render_table_text(stdout, &out->tables[i]);
	}
	render_doc_text(stdout, &out->doc);
}

/* The first ten gaps on stderr, and how many more; the exit code they make. */
int report_gaps(const struct vm *vm, const char *label)
{
	char vis[4096];
	const char *sep = label ? ": " : "";
	label = label ? label : "";
	for (size_t i = 0; i < vm->ngaps && i < 10; i++)
		fprintf(stderr, "beamcore: partial: %s%s%s\n", label, sep,
			utf8_visible(vm->gaps[i].what, vis, sizeof vis));
	if (vm->ngaps + vm->gaps_dropped > 10)
		fprintf(stderr, "beamcore: partial: %s%s... and %zu more\n", label, sep,
			vm->ngaps + vm->gaps_dropped - 10);
	return vm->ngaps || vm->gaps_dropped ? BC_EXIT_PARTIAL : BC_EXIT_COMPLETE;
}
