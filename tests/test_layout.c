/* Every entry of src/beam/layout.def resolves in the DWARF of each supported
 * release's beam.smp, and sizes agree with what the walks assume (pointers and
 * atomics 8 bytes). Usage: test_layout FIXTURE (beam.smp.path under
 * $BEAMCORE_FIXTURES; 77 = skip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dwarf/debuginfo.h"
#include "dwarf/layout.h"

int main(int argc, char **argv)
{
	const char *dir = getenv("BEAMCORE_FIXTURES");
	char path[4096], beam[4096] = "";
	snprintf(path, sizeof path, "%s/%s/beam.smp.path", dir ? dir : "/nonexistent",
		 argc > 1 ? argv[1] : "");
	FILE *f = fopen(path, "r");
	if (!f || !fgets(beam, sizeof beam, f)) {
		printf("SKIP: no fixture %s\n", path);
		return 77;
	}
	fclose(f);
	beam[strcspn(beam, "\n")] = '\0';
	struct exe *x;
	bc_err *e = exe_open(beam, &x);
	if (!e)
		e = exe_find_dwarf(x, NULL);
	struct layout L;
	if (!e)
		e = layout_resolve(x->dw, &L);
	if (e) {
		fprintf(stderr, "%s: %s\n", beam, e->msg);
		return 1;
	}
	int missing = 0;
	/* One of each group exists, by release: ProcBin (to 26) or BinRef (27+). */
	int procbin = L.e[S_PROCBIN].found && L.e[PROCBIN_VAL].found;
	int binref = L.e[S_BINREF].found && L.e[BINREF_VAL].found;
	/* renamed in OTP 27 */
	int time_trace = L.e[G_RETURN_TIME_TRACE].found, call_trace = L.e[G_CALL_TRACE_RETURN].found;
	if (!time_trace && !call_trace)
		fprintf(stderr, "neither beam_return_time_trace nor beam_call_trace_return\n"), missing++;
	if (!procbin && !binref)
		fprintf(stderr, "neither ProcBin nor BinRef\n"), missing++;
	for (int i = 0; i < L_COUNT; i++) {
		if ((i == S_PROCBIN || i == PROCBIN_VAL) && binref)
			continue;
		if ((i == S_BINREF || i == BINREF_VAL) && procbin)
			continue;
		if ((i == G_RETURN_TIME_TRACE && call_trace) || (i == G_CALL_TRACE_RETURN && time_trace))
			continue;
		if (!L.e[i].found) {
			char d[200];
			fprintf(stderr, "missing: %s\n", layout_describe(i, d, sizeof d));
			missing++;
		}
	}
	/* The walks read these as 8-byte words. */
	static const enum layout_id words[] = { P_ID, P_HEAP_SZ, P_STOP, P_HEND, P_REDS, P_I,
						P_CURRENT, P_PSD, MSG_NEXT, HF_USED, PTAB_TAB };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (L.e[words[i]].size != 8) {
			char d[200];
			fprintf(stderr, "%s is %llu bytes, expected 8\n", layout_describe(words[i], d, sizeof d),
				(unsigned long long)L.e[words[i]].size);
			missing++;
		}
	if (L.e[P_STATE].size != 4 || L.e[PTAB_MAX].size != 4)
		fprintf(stderr, "state/max not 32-bit\n"), missing++;
	printf("%s: %zu of %d layout entries resolved (%s), sizeof(Process) %llu\n", beam, L.nfound,
	       L_COUNT, binref ? "BinRef" : "ProcBin", (unsigned long long)L.e[S_PROCESS].value);
	exe_close(x);
	return missing ? 1 : 0;
}
