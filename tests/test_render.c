/* Unit tests for the renderers: number formats, JSON string escaping, nested
 * records (JSON and text from one description), the speedscope writer, the
 * output file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outfile.h"
#include "record.h"
#include "render.h"
#include "speedscope.h"

static int fails;
#define EXPECT_STR(got, want) do { const char *g_ = (got); if (strcmp(g_, (want)) != 0) { \
	fprintf(stderr, "%s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, g_, (want)); fails++; } } while (0)

/* A record type: a node with a name, a size (bytes, null when odd), a
 * text-only indent and children (JSON only, nested); the root lists every
 * node in order for text (text only), the roots for JSON. Ids: indices. */
static const char *const names[] = { "root", "left", "right \xff" };

static const struct rfield node_fields[] = {
	{ .key = "name", .kind = RF_STR },
	{ .key = "size", .kind = RF_U64, .text = RT_BYTES },
	{ .key = "children", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "indent", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },
	{ .key = "tags", .kind = RF_STRS },
};

static void node_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)ctx, (void)buf, (void)len;
	switch (f) {
	case 0: v->s = names[id]; break;
	case 1: v->u = 1024 * (id + 1); v->null = id == 1; break;
	case 2: v->n = id == 0 ? 2 : 0; break;
	case 3: v->s = id ? "  " : ""; break;
	case 4: v->n = id == 0; break;
	}
}

static uint64_t node_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)ctx, (void)id, (void)f;
	return i + 1;
}

static const char *node_tag(void *ctx, uint64_t id, size_t f, size_t i, char *buf, size_t len)
{
	(void)ctx, (void)id, (void)f, (void)i, (void)buf, (void)len;
	return "top";
}

static const char *const node_line[] = { "indent", "name", "size", NULL };
static const struct rrec node_rec = {
	.fields = node_fields, .nfields = 5, .sub = &node_rec, .get = node_get, .item = node_item,
	.item_str = node_tag, .line = "%s%-8s|%8s|\n", .line_keys = node_line,
};

static const struct rfield root_fields[] = {
	{ .key = "trees", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "order", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY, .head = "NAME    |    SIZE|\n",
	  .text_max = 2, .more = "+%zu more\n", .tail = "end\n" },
	{ .key = "count", .kind = RF_U64 },
};

static void root_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)ctx, (void)id, (void)buf, (void)len;
	v->n = f == 0 ? 1 : 3;
	v->u = 3;
}

static uint64_t root_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)ctx, (void)id;
	return f == 0 ? 0 : i;
}

static const char *const root_line[] = { "count", "=x", NULL };
static const struct rrec root_rec = {
	.fields = root_fields, .nfields = 3, .sub = &node_rec, .get = root_get, .item = root_item,
	.line = "%s nodes%-3s|100%%\n", .line_keys = root_line,
};

static char *rendered(int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rdoc d = { &root_rec, NULL, 0 };
	if (json) {
		struct jw w;
		jw_init(&w, f);
		jw_obj(&w, NULL);
		render_doc_json(&w, &d);
		jw_obj_end(&w);
	} else {
		render_doc_text(f, &d);
	}
	fclose(f);
	return buf;
}

static void test_records(void)
{
	char *j = rendered(1), *t = rendered(0);
	EXPECT_STR(j, "{\n  \"trees\": [\n    {\"name\":\"root\",\"size\":1024,\"children\":["
		      "{\"name\":\"left\",\"size\":null,\"children\":[],\"tags\":[]},"
		      "{\"name\":\"right \\u00ff\",\"size\":3072,\"children\":[],\"tags\":[]}],"
		      "\"tags\":[\"top\"]}\n  ],\n  \"count\": 3\n}\n");
	EXPECT_STR(t, "3 nodesx  |100%\nNAME    |    SIZE|\nroot    | 1.0 KiB|\n  left    |       ?|\n"
		      "+1 more\nend\n");
	free(j);
	free(t);
}

static void test_speedscope(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct speedscope s;
	speedscope_begin(&s, f, "test", NULL);
	speedscope_frame(&s, "main");
	speedscope_frame(&s, "f");
	speedscope_profile(&s, "t1", "none", 3);
	speedscope_stack(&s);
	speedscope_stack_frame(&s, 0);
	speedscope_stack_frame(&s, 1);
	speedscope_stack(&s);
	speedscope_weights(&s);
	speedscope_weight(&s, 2);
	speedscope_weight(&s, 1);
	speedscope_profile(&s, "t2", "bytes", 0);
	speedscope_end(&s);
	fclose(f);
	EXPECT_STR(buf, "{\n  \"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
			"  \"exporter\": \"test\",\n  \"shared\": {\n    \"frames\": [{\"name\":\"main\"},"
			"{\"name\":\"f\"}]\n  },\n  \"profiles\": [\n    {\"type\":\"sampled\",\"name\":\"t1\","
			"\"unit\":\"none\",\"startValue\":0,\"endValue\":3,\"samples\":[[0,1],[]],"
			"\"weights\":[2,1]},\n    {\"type\":\"sampled\",\"name\":\"t2\",\"unit\":\"bytes\","
			"\"startValue\":0,\"endValue\":0,\"samples\":[],\"weights\":[]}\n  ]\n}\n");
	free(buf);
}

/* Written whole or not at all: nothing but FILE after a commit, nothing at
 * all after an abort; a directory is refused. */
static void test_outfile(void)
{
	char dir[] = "/tmp/test_render.XXXXXX", path[64], name[64];
	if (!mkdtemp(dir)) {
		fails++;
		return;
	}
	snprintf(path, sizeof path, "%s/out", dir);
	struct outfile o;
	uint64_t bytes;
	bool known;
	bc_err *e = outfile_open(path, NULL, &o);
	if (e || fputs("hello", o.f) < 0 || (e = outfile_commit(&o, &bytes, &known)) || bytes != 5)
		fails++, fprintf(stderr, "outfile: commit failed\n");
	bc_err_free(e);
	struct stat st;
	if (stat(path, &st) != 0 || st.st_size != 5)
		fails++, fprintf(stderr, "outfile: %s not written\n", path);
	snprintf(name, sizeof name, "%s/gone", dir);
	if ((e = outfile_open(name, NULL, &o)) == NULL) {
		outfile_abort(&o);
		if (stat(name, &st) == 0)
			fails++, fprintf(stderr, "outfile: %s left after an abort\n", name);
	}
	bc_err_free(e);
	e = outfile_open(dir, "--x", &o);
	char want[128];
	snprintf(want, sizeof want, "--x %s: a directory, not a file", dir);
	EXPECT_STR(e ? e->msg : "", want);
	bc_err_free(e);
	unlink(path);
	rmdir(dir);
}

/* a label that is a term, in the words a column shows (render_label_short) */
static void test_label_short(void)
{
	static const char *const cases[][2] = {
		{ "{rabbit_amqqueue_process,{resource,<<\"/\">>,queue,<<\"hx.backlog\">>}}",
		  "rabbit_amqqueue_process / queue hx.backlog" },
		{ "{bc_labelled,7,<<\"worker\">>}", "bc_labelled 7 worker" },
		{ "{'Elixir.Registry',\"key \\\"q\\\"\",<0.12.0>,<<\"b\">>}",
		  "Elixir.Registry key \"q\" <0.12.0> b" },
		{ "{a,[{b,1},{c,<<1,2>>}],#Ref<0.1.2.3>,<<\"x\">>}", "a 1 <<1,2>> #Ref<0.1.2.3> x" },
		{ "{a,[{b,1}]}", "{a,[{b,1}]}" },
		{ "{Registry, {:session, 5}}", "{Registry, {:session, 5}}" },
		{ "code_server", "code_server" },
		{ "{", "{" },
		{ "{\"unterminated<<\"", "unterminated<<" },
		{ "{<<\"", "<<\"" },
		{ "{{{}}}<<\"", "<<\"" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char b[256];
		snprintf(b, sizeof b, "%s", cases[i][0]);
		EXPECT_STR(render_label_short(b, sizeof b), cases[i][1]);
	}
	char tiny[13] = "{ab,<<\"d\">>}";
	EXPECT_STR(render_label_short(tiny, sizeof tiny), "ab d");
}

int main(void)
{
	char b[64];
	test_label_short();
	EXPECT_STR(fmt_bytes(0, b, sizeof b), "0 B");
	EXPECT_STR(fmt_bytes(1023, b, sizeof b), "1023 B");
	EXPECT_STR(fmt_bytes(1536, b, sizeof b), "1.5 KiB");
	EXPECT_STR(fmt_bytes(57671680, b, sizeof b), "55 MiB");
	EXPECT_STR(fmt_words(999, b, sizeof b), "999 w");
	EXPECT_STR(fmt_words(7200000, b, sizeof b), "7.2 Mw");
	EXPECT_STR(fmt_count(0, b, sizeof b), "0");
	EXPECT_STR(fmt_count(100000, b, sizeof b), "100,000");
	EXPECT_STR(fmt_count(18446744073709551615ull, b, sizeof b), "18,446,744,073,709,551,615");

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jw w;
	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_str(&w, "name", "a\"b\\c\n\x01 \xc3\xa5");
	jw_null(&w, "registered_name");
	jw_u64(&w, "memory", 18446744073709551615ull);
	jw_arr(&w, "empty");
	jw_arr_end(&w);
	jw_obj_end(&w);
	fclose(f);
	EXPECT_STR(buf, "{\n  \"name\": \"a\\\"b\\\\c\\n\\u0001 \xc3\xa5\",\n"
			"  \"registered_name\": null,\n  \"memory\": 18446744073709551615,\n"
			"  \"empty\": []\n}\n");
	free(buf);
	test_records();
	test_speedscope();
	test_outfile();
	if (fails)
		return 1;
	printf("render: ok\n");
	return 0;
}
