/* beamcore triage's signatures (src/tools/signature.c): each rule of the table
 * on its own example and on the slogans of real deaths; what names a thing
 * (base64, otp27, erts-15, a file's name) kept; docs/triage.md's table is the
 * code's (rule by rule: name, example, what it becomes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signature.h"

static int fails;

static void norm(const char *in, const char *want)
{
	char out[256];
	sig_normalize(in, out, sizeof out);
	if (strcmp(out, want) != 0) {
		printf("FAIL '%s' -> '%s' (want '%s')\n", in, out, want);
		fails++;
	}
}

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sig_nrules; i++)
		if (strcmp(sig_rules[i].name, "path") != 0)
			norm(sig_rules[i].example, sig_rules[i].as);
	norm("/var/tmp/run42/", "/.../");
	norm("eheap_alloc: Cannot allocate 306586976 bytes of memory (of type \"heap\").",
	     "eheap_alloc: Cannot allocate <N> bytes of memory (of type \"heap\").");
	norm("Kernel pid terminated (application_controller) (killed)",
	     "Kernel pid terminated (application_controller) (killed)");
	norm("disk full: 8704 bytes left in /var/tmp/run17/data",
	     "disk full: <N> bytes left in /.../data");
	norm("Runtime terminating during boot ({bad_config,99})",
	     "Runtime terminating during boot ({bad_config,<N>})");
	norm("{badarg,<0.83.0>,#Port<0.7>,#Ref<0.1.2.3>,0x7f3a,-1,2.5}",
	     "{badarg,<PID>,#Port<N>,#Ref<N>,<HEX>,<N>,<N>}");
	norm("base64 otp27 erts-15 mod_42 a.b.12", "base64 otp27 erts-15 mod_42 a.b.12");
	norm("two\nlines", "two lines");
	norm("<0.1>", "<<N>>");  /* not a pid: its number */
	/* cut at a character's end */
	char small[6];
	sig_normalize("abcd\xc3\xa9", small, sizeof small);
	if (strcmp(small, "abcd") != 0) {
		printf("FAIL a cut character: '%s'\n", small);
		fails++;
	}
	/* docs/triage.md: a row per rule, in the table's order */
	if (argc > 1) {
		FILE *f = fopen(argv[1], "r");
		char line[512];
		size_t next = 0;
		while (f && fgets(line, sizeof line, f))
			if (next < sig_nrules && strncmp(line, "| ", 2) == 0 &&
			    strncmp(line + 2, sig_rules[next].name, strlen(sig_rules[next].name)) == 0 &&
			    line[2 + strlen(sig_rules[next].name)] == ' ') {
				char ex[128], as[128];
				snprintf(ex, sizeof ex, "`%s`", sig_rules[next].example);
				snprintf(as, sizeof as, "`%s`", sig_rules[next].as);
				if (!strstr(line, ex) || !strstr(line, as)) {
					printf("FAIL docs/triage.md: %s's row does not say %s -> %s\n",
					       sig_rules[next].name, ex, as);
					fails++;
				}
				next++;
			}
		if (f)
			fclose(f);
		if (next != sig_nrules) {
			printf("FAIL docs/triage.md: %zu of %zu rules in the table, in order\n", next,
			       sig_nrules);
			fails++;
		}
	}
	printf("%s\n", fails ? "FAIL" : "ok");
	return fails != 0;
}
