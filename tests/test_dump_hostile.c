/* The crash dump reader on hostile dumps written here (issue 10's
 * reproducers): a map node whose children name itself (was a ~3^32 recursion),
 * terms and a Link list that run to the very end of a file whose size is a
 * page multiple (the mapping has no NUL after it: sscanf/strtoll read on), and
 * numbers that do not fit. Each must give an answer within a second. And
 * largest_terms over them (issue 12): a cycle ends as a cut, never a hang; a
 * list of 1,000,000 elements, and one nested 1,000,000 deep, are counted in
 * full without recursion. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dump.h"
#include "target.h"
#include "term.h"

static const char head[] =
	"=erl_crash_dump:0.5\n"
	"Sun Nov 22 03:48:16 2026\n"
	"Slogan: test\n"
	"System version: Erlang/OTP 27 [erts-15.2] [source] [64-bit]\n"
	"=proc:<0.8.0>\n"
	"State: Waiting\n"
	"Spawned as: m:f/0\n"
	"Message queue length: 0\n"
	"Reductions: 1\n"
	"Stack+heap: 233\n"
	"OldHeap: 0\n"
	"Memory: 100\n";

static int failures;
static char path[] = "/tmp/beamcore-test-hostile.XXXXXX";

static void fail(const char *what)
{
	fprintf(stderr, "FAIL: %s\n", what);
	failures++;
}

/* Write head + body (+ pad spaces inside the Slogan line to reach a multiple
 * of 4096 when page is set), load, and take the process's detail. */
/* want_size: largest_terms[0]'s flat size (0: not checked); want_cut: it must be a cut */
static void run_sized(const char *what, const char *body, int page, uint64_t want_size,
		      int want_cut, double seconds)
{
	size_t hn = strlen(head), bn = strlen(body), pad = 0;
	if (page)
		pad = (4096 - (hn + bn) % 4096) % 4096;
	char *text = malloc(hn + pad + bn);
	if (!text)
		exit(1);
	const char *slogan_end = strstr(head, "\nSystem");
	size_t at = (size_t)(slogan_end - head);
	memcpy(text, head, at);
	memset(text + at, ' ', pad);
	memcpy(text + at + pad, head + at, hn - at);
	memcpy(text + hn + pad, body, bn);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(text, 1, hn + pad + bn, f) != hn + pad + bn || fclose(f)) {
		perror(path);
		exit(1);
	}
	free(text);
	clock_t t0 = clock();
	struct dump *d;
	bc_err *e = dump_open(path, &d);
	if (e) {
		fail(what);
		bc_err_free(e);
		return;
	}
	if ((e = dump_load(d, NEED_PROCS | NEED_STACKS | NEED_ETS | NEED_MEMORY | NEED_NODES)))
		bc_err_free(e);
	struct vm *vm = dump_vm(d);
	for (size_t i = 0; i < vm->nprocs; i++) {
		struct vm_proc_detail det;
		struct vm_detail_limits lim = { 10, 50, 200, 200, 256, 10 };
		if (vm->detail(vm->loader, &vm->procs[i], &lim, &det) == 0) {
			char buf[4096];
			static const struct vt_limits pl = { 12, 200, 256 };
			for (size_t k = 0; k < det.ndict; k++)
				vt_print(det.dict_values[k], &pl, buf, sizeof buf);
			for (size_t k = 0; k < det.nlinks; k++)
				vt_print(det.links[k], &pl, buf, sizeof buf);
			if ((want_size || want_cut) &&
			    (!det.nlargest || (want_size && det.largest[0].flat_size != want_size) ||
			     det.largest[0].size_cut != (want_cut != 0))) {
				fprintf(stderr, "%s: largest_terms[0] %llu words%s\n", what,
					det.nlargest ? (unsigned long long)det.largest[0].flat_size : 0ull,
					det.nlargest && det.largest[0].size_cut ? " (cut)" : "");
				fail(what);
			}
			if (det.nlargest)
				printf("  largest: %s, %s, %llu words%s\n", det.largest[0].where,
				       det.largest[0].shape, (unsigned long long)det.largest[0].flat_size,
				       det.largest[0].size_cut ? " (cut)" : "");
		}
		vm_detail_free(&det);
	}
	dump_close(d);
	double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
	if (s > seconds)
		fail(what);
	printf("%s: %.3f s\n", what, s);
}

static void run(const char *what, const char *body, int page)
{
	run_sized(what, body, page, 0, 0, 1.0);
}

/* A message that is a list of n cells: nested in the tail (a plain list) or
 * in the head ([[[...]]]) */
static char *long_list(size_t n, int nested)
{
	char *b = malloc(64 * (n + 4)), *o = b;
	if (!b)
		exit(1);
	o += sprintf(o, "=proc_messages:<0.8.0>\nH100:NIL\n=proc_heap:<0.8.0>\n");
	for (size_t i = 0; i < n; i++) {
		size_t a = 0x100 + 0x10 * i;
		if (i + 1 == n)
			o += sprintf(o, "%zX:lI1|N\n", a);
		else if (nested)
			o += sprintf(o, "%zX:lH%zX|N\n", a, a + 0x10);
		else
			o += sprintf(o, "%zX:lI1|H%zX\n", a, a + 0x10);
	}
	sprintf(o, "=end\n");
	return b;
}

int main(void)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	/* a HAMT node whose three children are itself */
	run("self-referencing map node",
	    "=proc_dictionary:<0.8.0>\nH20\n=proc_heap:<0.8.0>\n20:Mn3:H20,H20,H20\n=end\n", 0);
	run("self-referencing list", "=proc_dictionary:<0.8.0>\nH30\n=proc_heap:<0.8.0>\n"
	    "30:t2:H40,H40\n40:lI1|H40\n=end\n", 0);
	/* the file ends inside a Link list, on a page boundary, no newline */
	run("Link list at the end of a page", "Link list: [<0.1.0>, <0.2", 1);
	run("Link list monitor at the end of a page", "Link list: [{to,{a,", 1);
	/* heap terms cut at the end of a page-sized file */
	run("integer at the end of a page", "=proc_dictionary:<0.8.0>\nI12345", 1);
	run("float at the end of a page", "=proc_dictionary:<0.8.0>\nH10\n=proc_heap:<0.8.0>\n10:F40:1.5", 1);
	run("pid at the end of a page", "=proc_dictionary:<0.8.0>\nP<0.1", 1);
	run("huge integer", "=proc_dictionary:<0.8.0>\nI99999999999999999999999999\n=end\n", 0);
	/* largest_terms: cycles are cut at the bound; long and deep lists counted */
	run_sized("self-referencing list, sized", "=proc_messages:<0.8.0>\nH30:NIL\n"
		  "=proc_heap:<0.8.0>\n30:t2:H40,H40\n40:lI1|H40\n=end\n", 0, 0, 1, 1.0);
	run_sized("self-referencing map node, sized", "=proc_messages:<0.8.0>\nH20:NIL\n"
		  "=proc_heap:<0.8.0>\n20:Mn3:H20,H20,H20\n=end\n", 0, 0, 1, 1.0);
	char *l = long_list(1000000, 0);
	run_sized("list of 1,000,000", l, 0, 2000000, 0, 5.0);
	free(l);
	l = long_list(1000000, 1);
	run_sized("list nested 1,000,000 deep", l, 0, 2000000, 0, 5.0);
	free(l);
	unlink(path);
	printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
