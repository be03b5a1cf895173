/* The label rules (src/model/labels.c): the built-in rules parse; every kind
 * and option of the format; each bad line is one error naming FILE:LINE and
 * what is wrong, and adds no rule; labels printed as Erlang and as Elixir. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "labels.h"
#include "term.h"

static int fails;

static void check(int ok, const char *what)
{
	if (!ok)
		printf("FAIL %s\n", what);
	fails += !ok;
}

static void bad(const char *text, const char *want)
{
	struct label_rules r = { 0 };
	char err[256] = "";
	int rc = label_rules_parse(text, "f", &r, err, sizeof err);
	char what[512];
	snprintf(what, sizeof what, "bad %s -> '%s' (want '%s')", text, err, want);
	check(rc < 0 && r.n == 0 && strstr(err, want) && !strchr(err, '\n'), what);
	label_rules_free(&r);
}

static struct vt *atom(struct vt_arena *a, const char *s)
{
	struct vt *t = vt_new(a, VT_ATOM);
	t->text = s;
	return t;
}

static struct vt *tuple(struct vt_arena *a, size_t n, struct vt **e)
{
	struct vt *t = vt_new(a, VT_TUPLE);
	t->elems = vt_alloc(a, n * sizeof *t->elems);
	memcpy(t->elems, e, n * sizeof *e);
	t->n = n;
	return t;
}

int main(void)
{
	const struct label_rules *b = label_rules();
	check(b->n == 4 && b->rule[0].kind == LABEL_DICT && !strcmp(b->rule[0].what, "$process_label") &&
	      !strcmp(b->rule[1].source, "process_name") && b->rule[2].kind == LABEL_REGISTRY &&
	      b->rule[2].pid.n == 2 && b->rule[2].pid.ix[0] == 2 && b->rule[2].pid.ix[1] == 1 &&
	      b->rule[2].arity == 2 && !strcmp(b->rule[3].where_atom, "n"), "built-in rules");
	check(!strcmp(b->rule[0].origin, "built-in:1"), "a rule's origin is FILE:LINE");

	struct label_rules r = { 0 };
	char err[256] = "";
	int rc = label_rules_parse("# comment\n\n  dict my_name  # trailing\n"
				   "ets 'my table' pid=1 name=2.3.1 as=erlang label=\"<%n in %t>\"\r\n"
				   "registry 'Elixir.My.Reg' pid=3 name=1 arity=3 where=2:x source=mine\n",
				   "f", &r, err, sizeof err);
	check(rc == 0 && r.n == 3, "a good file: three rules");
	if (r.n == 3) {
		check(!strcmp(r.rule[0].what, "my_name") && !strcmp(r.rule[0].source, "my_name"),
		      "dict: the key, source defaults to it");
		check(!strcmp(r.rule[1].what, "my table") && r.rule[1].name.n == 3 &&
		      r.rule[1].name.ix[2] == 1 && r.rule[1].syntax == LABEL_ERLANG &&
		      !strcmp(r.rule[1].format, "<%n in %t>") && !strcmp(r.rule[1].source, "ets"),
		      "ets: quoted table, nested position, format");
		check(!strcmp(r.rule[2].origin, "f:5") && !strcmp(r.rule[2].source, "mine") &&
		      r.rule[2].where.ix[0] == 2 && !strcmp(r.rule[2].where_atom, "x"),
		      "registry: where, source, origin line 5");
	}
	label_rules_free(&r);
	bad("dict\n", "f:1: dict: what does it read?");
	bad("\nfoo bar\n", "f:2: 'foo' is not a kind of rule");
	bad("ets t name=1\n", "pid=POS and name=POS");
	bad("ets t pid=0 name=1\n", "pid=0: positions are 1-based");
	bad("ets t pid=1.2.3.4.5 name=1\n", "4 deep at most");
	bad("ets t pid=1. name=1\n", "pid=1.");
	bad("ets t pid=1 name=1 as=cobol\n", "erlang, elixir or auto");
	bad("ets t pid=1 name=1 colour=red\n", "'colour' is not an option");
	bad("ets t pid=1 name=1 where=2\n", "POS:ATOM");
	bad("ets t pid=1 name=1 label=\"{%n\n", "an unclosed quote");
	bad("dict k pid=1\n", "dict: the value is the name");
	bad("ets t pid\n", "options are NAME=VALUE");
	bad("dict ok\nets t pid=1 name=1 arity=0\n", "f:2: arity=0: 1 to 255");

	/* files: a missing default is none; a missing --labels file is an error */
	check(label_rules_load("/nonexistent/labels", false, err, sizeof err) == 1, "no default file");
	check(label_rules_load("/nonexistent/labels", true, err, sizeof err) < 0 &&
	      strstr(err, "/nonexistent/labels: No such file"), "a missing --labels file");
	char path[] = "/tmp/test_labels.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fputs("dict extra_key\nets bad pid=x name=1\n", f);
		fclose(f);
		check(label_rules_load(path, true, err, sizeof err) < 0 && strstr(err, ":2: pid=x") &&
		      label_rules()->n == 4, "a bad file adds nothing, names its line");
		f = fopen(path, "w");
		fputs("dict extra_key\n", f);
		fclose(f);
		check(label_rules_load(path, true, err, sizeof err) == 0 && label_rules()->n == 5 &&
		      !strcmp(label_rules()->rule[4].what, "extra_key"), "a file's rules after the built-in");
		unlink(path);
	}

	/* label text: Erlang as io_lib:print, Elixir as inspect */
	struct vt_arena *a = vt_arena_new();
	struct vt *key = tuple(a, 2, (struct vt *[]){ atom(a, "pool"), vt_new(a, VT_INT) });
	key->elems[1]->i = 1;
	char buf[256];
	label_text(&b->rule[2], key, "Elixir.BcApp.Registry.KeyPartition0", "Elixir.BcApp.Registry",
		   false, buf, sizeof buf);
	check(!strcmp(buf, "{:via, Registry, {BcApp.Registry, {:pool, 1}}}"), buf);
	struct vt *bin = vt_new(a, VT_BINARY);
	bin->bytes = (const uint8_t *)"hx.backlog";
	bin->n = bin->size = 10;
	struct vt *res = tuple(a, 4, (struct vt *[]){ atom(a, "resource"), bin, atom(a, "queue"), bin });
	struct vt *pn = tuple(a, 2, (struct vt *[]){ atom(a, "rabbit_amqqueue_process"), res });
	label_text(&b->rule[1], pn, NULL, NULL, false, buf, sizeof buf);
	check(!strcmp(buf, "{rabbit_amqqueue_process,{resource,<<\"hx.backlog\">>,queue,<<\"hx.backlog\">>}}"),
	      buf);
	label_text(&b->rule[0], pn, NULL, NULL, true, buf, sizeof buf);
	check(!strcmp(buf, "{:rabbit_amqqueue_process, {:resource, \"hx.backlog\", :queue, \"hx.backlog\"}}"),
	      buf);
	struct vt *odd = atom(a, "Elixir.my mod");
	label_text(&b->rule[0], odd, NULL, NULL, true, buf, sizeof buf);
	check(!strcmp(buf, ":\"Elixir.my mod\""), buf);
	vt_arena_free(a);
	printf("%s\n", fails ? "FAIL" : "ok");
	return fails ? 1 : 0;
}
