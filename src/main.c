/* beamcore: post-mortem analysis of beam.smp cores.
 *   beamcore [COMMAND] TARGET [BEAM] [--json] [--sort FIELD] [--top N] [--debug-file F]
 * Exit codes (as eu-stack): 0 complete, 1 partial (something unreadable, said
 * on stderr and in JSON "missing"), 2 failed, 64 usage. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "render/death.h"
#include "render/render.h"
#include "target.h"
#include "utf8.h"
#ifdef BEAMCORE_TUI
#include "tui/tui.h"
#endif

#define JSON_SCHEMA 1

enum { EXIT_COMPLETE = 0, EXIT_PARTIAL = 1, EXIT_FAILED = 2, EXIT_USAGE = 64 };

static void usage(FILE *f)
{
	fprintf(f, "usage: beamcore [COMMAND] TARGET [BEAM] [options]\n"
		   "  TARGET  a core file of beam.smp; BEAM  its beam.smp (default: the path the "
		   "core recorded)\n\ncommands:\n");
	for (size_t i = 0; analyzers[i]; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s%s%s", analyzers[i]->name,
			 analyzers[i]->arg_name ? " " : "",
			 analyzers[i]->arg_name ? analyzers[i]->arg_name : "");
		fprintf(f, "  %-10s %s\n", name, analyzers[i]->summary);
	}
	fprintf(f, "  %-10s %s\n", "tui", "browse processes and every view in a terminal (ncurses)");
	fprintf(f, "\noptions:\n"
		   "  --json             machine-readable output (schema in docs/json.md)\n"
		   "  --sort FIELD       total_heap_size (procs default), memory, heap_size,\n"
		   "                     stack_size, message_queue_len, reductions;\n"
		   "                     pid, name, status, current_function (ascending)\n"
		   "  --top N            only the first N rows\n"
		   "  --debug-file FILE  DWARF for a stripped beam.smp\n"
		   "  --sysroot DIR      look for the core's beam.smp and libraries under DIR\n"
		   "                     first (a core from a container or another host)\n"
		   "  --folded           stacks: folded lines for flamegraph.pl / speedscope\n"
		   "  --weight W         stacks: count (default), memory, total_heap_size,\n"
		   "                     message_queue_len, binary\n"
		   "  --by-status        stacks: group (and prefix folded lines) by status\n"
		   "  -h, --help         this text;  --version\n"
		   "exit: 0 complete, 1 partial (some memory unreadable), 2 failed, 64 usage\n");
}


static void text_header(FILE *f, const struct vm *vm)
{
	char s[64], n[32], l[32];
	fprintf(f, "%s of %s: OTP %s (erts %s%s), node %s, %u schedulers\n", vm->kind, vm->source,
		vm->otp_release[0] ? vm->otp_release : "?",
		vm->erts_version[0] ? vm->erts_version : "?",
		!vm->have_jit ? "" : vm->jit ? ", JIT" : ", interpreter",
		vm->node ? vm->node : "?", vm->schedulers);
	if (vm->exe[0])  /* (crash dumps name no executable) */
		fprintf(f, "  beam.smp %s (build-id %s)\n", vm->exe, vm->build_id[0] ? vm->build_id : "none");
	fprintf(f, "  processes %s of %s", fmt_count(vm->nprocs, n, sizeof n),
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
				  : "no fatal signal: a live snapshot (gcore)");
	if (vm->signo && vm->sigsender)
		fprintf(f, " sent by pid %d", vm->sigsender);
	fprintf(f, "\n\n");
}

static void json_target(struct jw *w, const struct vm *vm)
{
	char s[64];
	jw_obj(w, "target");
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
	jw_u64(w, "process_count", vm->nprocs);
	jw_u64_or_null(w, "process_limit", vm->process_limit != 0, vm->process_limit);
	jw_u64(w, "atom_count", vm->atom_count);
	jw_u64(w, "atom_limit", vm->atom_limit);
	jw_u64(w, "schedulers", vm->schedulers);
	jw_obj_end(w);
}

static int fail(bc_err *e)
{
	int code = e->code == BC_EUSAGE ? EXIT_USAGE : EXIT_FAILED;
	char vis[1200];
	fprintf(stderr, "beamcore: %s\n", utf8_visible(e->msg, vis, sizeof vis));
	bc_err_free(e);
	return code;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 't' },
		{ "debug-file", required_argument, NULL, 'd' },
		{ "sysroot", required_argument, NULL, 'S' },
		{ "folded", no_argument, NULL, 'f' },
		{ "weight", required_argument, NULL, 'w' },
		{ "by-status", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0;
	struct an_opts ao = { 0 };
	const char *debug_file = NULL, *sysroot = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 's': ao.sort = optarg; break;
		case 't': {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || *end || v < 0) {
				fprintf(stderr, "beamcore: --top %s: not a count\n", optarg);
				return EXIT_USAGE;
			}
			ao.top = (size_t)v;
			break;
		}
		case 'd': debug_file = optarg; break;
		case 'S': sysroot = optarg; break;
		case 'f': ao.folded = 1; break;
		case 'w': ao.weight = optarg; break;
		case 'b': ao.by_status = 1; break;
		case 'h': usage(stdout); return EXIT_COMPLETE;
		case 'V': printf("beamcore %s\n", BEAMCORE_VERSION); return EXIT_COMPLETE;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	char **pos = argv + optind;
	int npos = argc - optind;
	if (npos > 0 && strcmp(pos[0], "tui") == 0) {  /* src/tui/: beamcore tui TARGET [BEAM] */
#ifdef BEAMCORE_TUI
		if (npos < 2 || npos > 3) {
			fprintf(stderr, "beamcore: usage: beamcore tui TARGET [BEAM]\n");
			return EXIT_USAGE;
		}
		struct target_opts tto = { pos[1], npos > 2 ? pos[2] : NULL, debug_file, sysroot };
		return tui_main(&tto);
#else
		fprintf(stderr, "beamcore: tui: built without ncursesw\n");
		return EXIT_FAILED;
#endif
	}
	const struct analyzer *an = NULL;
	if (npos > 0 && (an = analyzer_find(pos[0]))) {
		pos++;
		npos--;
	} else {
		an = analyzer_find("summary");
	}
	if (an->arg_name) {
		if (npos < 2) {
			fprintf(stderr, "beamcore: usage: beamcore %s %s TARGET [BEAM]\n", an->name,
				an->arg_name);
			return EXIT_USAGE;
		}
		ao.arg = pos[0];
		pos++;
		npos--;
	}
	if (npos < 1 || npos > 2) {
		fprintf(stderr, npos < 1 ? "beamcore: no TARGET given\n" : "beamcore: too many arguments\n");
		usage(stderr);
		return EXIT_USAGE;
	}

	struct target_opts to = { pos[0], npos > 1 ? pos[1] : NULL, debug_file, sysroot };
	struct target *t;
	bc_err *err = target_open(&to, &t);
	if (err)
		return fail(err);
	if ((err = target_load(t, an->needs))) {
		target_close(t);
		return fail(err);
	}
	struct vm *vm = target_vm(t);
	struct an_out out = { 0 };
	ao.json = json;
	if ((err = an->run(vm, &ao, &out))) {
		an_out_free(&out);
		target_close(t);
		return fail(err);
	}

	if (json) {
		struct jw w;
		jw_init(&w, stdout);
		jw_obj(&w, NULL);
		jw_u64(&w, "beamcore_schema", JSON_SCHEMA);
		jw_str(&w, "command", an->name);
		jw_bool(&w, "complete", vm->ngaps == 0);
		json_target(&w, vm);
		if (out.fields_key) {
			jw_obj(&w, out.fields_key);
			for (size_t i = 0; i < out.nfields; i++) {
				const struct an_field *f = &out.fields[i];
				if (f->kind == AF_STR)
					jw_str(&w, f->key, f->s);
				else if (f->kind == AF_U64)
					jw_u64(&w, f->key, f->u);
				else if (f->kind == AF_NULL || f->kind == AF_UNKNOWN)
					jw_null(&w, f->key);
				else {
					jw_arr(&w, f->key);
					for (size_t k = 0; k < f->n; k++)
						jw_str(&w, NULL, f->list[k]);
					jw_arr_end(&w);
				}
			}
			jw_obj_end(&w);
		}
		if (out.kv_key) {
			jw_obj(&w, out.kv_key);
			for (size_t i = 0; i < out.nkv; i++) {
				if (out.kv[i].null)
					jw_null(&w, out.kv[i].key);
				else
					jw_u64(&w, out.kv[i].key, out.kv[i].value);
			}
			jw_obj_end(&w);
		}
		for (size_t i = 0; i < out.ntables; i++)
			render_table_json(&w, &out.tables[i]);
		jw_arr(&w, "findings");
		for (size_t i = 0; i < out.nfindings; i++)
			jw_str(&w, NULL, out.findings[i]);
		jw_arr_end(&w);
		jw_arr(&w, "missing");
		for (size_t i = 0; i < vm->ngaps; i++)
			jw_str(&w, NULL, vm->gaps[i].what);
		jw_arr_end(&w);
		jw_obj_end(&w);
	} else {
		if (an->header)
			text_header(stdout, vm);
		for (size_t i = 0; i < out.nfindings; i++)
			printf("* %s\n", out.findings[i]);
		for (size_t i = 0; i < out.nfields; i++) {
			const struct an_field *f = &out.fields[i];
			char b[32];
			char vis[4096];
			if (f->kind == AF_STR)
				printf("  %-18s %s\n", f->key, utf8_visible(f->s ? f->s : "", vis, sizeof vis));
			else if (f->kind == AF_U64)
				printf("  %-18s %s\n", f->key, fmt_count(f->u, b, sizeof b));
			else if (f->kind == AF_NULL || f->kind == AF_UNKNOWN)
				printf("  %-18s %s\n", f->key, f->kind == AF_NULL ? "-" : "?");
			else {
				printf("\n%s\n", f->title ? f->title : f->key);
				for (size_t k = 0; k < f->n; k++)
					printf("  %s\n", f->list[k]);
			}
		}
		if (out.nfields)
			printf("\n");
		if (out.nkv) {
			char b[32];
			if (out.kv_title)
				printf("%s\n", out.kv_title);
			for (size_t i = 0; i < out.nkv; i++)
				printf("  %-16s %12s\n", out.kv[i].key,
				       out.kv[i].null ? "?" : fmt_bytes(out.kv[i].value, b, sizeof b));
			printf("\n");
		}
		for (size_t i = 0; i < out.ntables; i++) {
			if (out.titles[i])
				printf("%s\n", out.titles[i]);
			render_table_text(stdout, &out.tables[i]);
		}
	}
	char vis[4096];
	for (size_t i = 0; i < vm->ngaps && i < 10; i++)
		fprintf(stderr, "beamcore: partial: %s\n", utf8_visible(vm->gaps[i].what, vis, sizeof vis));
	if (vm->ngaps + vm->gaps_dropped > 10)
		fprintf(stderr, "beamcore: partial: ... and %zu more\n",
			vm->ngaps + vm->gaps_dropped - 10);
	int rc = vm->ngaps || vm->gaps_dropped ? EXIT_PARTIAL : EXIT_COMPLETE;
	an_out_free(&out);
	target_close(t);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "beamcore: writing output: %s\n", strerror(errno));
		return EXIT_FAILED;
	}
	return rc;
}
