/* Unit tests for the renderers' number formats and JSON string escaping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"

static int fails;
#define EXPECT_STR(got, want) do { const char *g_ = (got); if (strcmp(g_, (want)) != 0) { \
	fprintf(stderr, "%s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, g_, (want)); fails++; } } while (0)

int main(void)
{
	char b[64];
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
	if (fails)
		return 1;
	printf("render: ok\n");
	return 0;
}
