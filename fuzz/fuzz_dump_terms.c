/* libFuzzer target: the dump's heap-term decoder and proc detail. The input is
 * the body of a dump after a fixed header naming one process <0.8.0>: its
 * =proc_dictionary, =proc_heap, =proc_messages, =proc_stack sections, Link
 * list lines... Every process's detail is taken and its terms printed. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "dump.h"
#include "target.h"
#include "term.h"

static const char head[] =
	"=erl_crash_dump:0.5\n"
	"Sun Nov 22 03:48:16 2026\n"
	"Slogan: fuzz\n"
	"System version: Erlang/OTP 27 [erts-15.2] [source] [64-bit]\n"
	"=proc:<0.8.0>\n"
	"State: Waiting\n"
	"Spawned as: m:f/0\n"
	"Message queue length: 1\n"
	"Reductions: 1\n"
	"Stack+heap: 233\n"
	"OldHeap: 0\n"
	"Memory: 100\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	size_t hn = sizeof head - 1;
	uint8_t *text = malloc(hn + n);
	if (!text)
		return 0;
	memcpy(text, head, hn);
	if (n)
		memcpy(text + hn, data, n);
	const char *path = fuzz_file(text, hn + n);
	free(text);
	struct dump *d;
	bc_err *e = dump_open(path, &d);
	if (e) {
		bc_err_free(e);
		return 0;
	}
	if ((e = dump_load(d, NEED_PROCS | NEED_STACKS)))
		bc_err_free(e);
	struct vm *vm = dump_vm(d);
	fuzz_details(vm, 16);
	dump_close(d);
	return 0;
}
