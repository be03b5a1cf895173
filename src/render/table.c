#include <stdlib.h>
#include <string.h>
#include "render.h"
#include "utf8.h"

#define WIDE_MAX 44

/* Display width of UTF-8 text (code points; good enough for atoms). */
static size_t u8len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

char *render_cut_middle(char *buf, size_t width)
{
	size_t n = u8len(buf);
	if (n <= width || width < 8)
		return buf;
	size_t head = (width - 2) * 2 / 5, tail = width - 2 - head;  /* characters kept */
	size_t h = 0, chars = 0;
	while (buf[h] && chars < head) {
		h++;
		while (((unsigned char)buf[h] & 0xc0) == 0x80)
			h++;
		chars++;
	}
	size_t t = strlen(buf);
	for (chars = 0; t > h && chars < tail; chars++) {
		t--;
		while (t > h && ((unsigned char)buf[t] & 0xc0) == 0x80)
			t--;
	}
	memcpy(buf + h, "..", 2);
	memmove(buf + h + 2, buf + t, strlen(buf + t) + 1);
	return buf;
}

const char *render_cell(const struct rtable *t, size_t r, size_t c, size_t max_items, char *buf,
			size_t len)
{
	struct rcell cell = { 0 };
	char scratch[512];
	t->cell(t->ctx, r, c, &cell, scratch, sizeof scratch);
	if (cell.null)
		return "?";
	switch (t->cols[c].kind) {
	case RC_STR:
		if (utf8_visible(cell.s ? cell.s : "", buf, len) != buf)
			snprintf(buf, len, "%s", cell.s ? cell.s : "");
		if (t->cols[c].flags & RCOL_CUT_MIDDLE)
			render_label_short(buf, len);
		break;
	case RC_U64: fmt_count(cell.u, buf, len); break;
	case RC_BYTES: fmt_bytes(cell.u, buf, len); break;
	case RC_WORDS: fmt_words(cell.u, buf, len); break;
	case RC_WORDS_AS_BYTES: fmt_bytes(cell.u * 8, buf, len); break;
	case RC_BOOL: snprintf(buf, len, "%s", cell.u ? "yes" : "no"); break;
	case RC_LIST: {
		size_t o = 0;
		buf[0] = '\0';
		for (size_t i = 0; i < cell.u && i < max_items && o < len; i++) {
			char ib[256];
			o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "",
					      t->item(t->ctx, r, c, i, ib, sizeof ib));
		}
		if (cell.u > max_items && o < len)
			snprintf(buf + o, len - o, " +%zu", (size_t)(cell.u - max_items));
		break;
	}
	}
	return buf;
}

static const char *text_of(const struct rtable *t, size_t r, size_t c, char *buf, size_t len)
{
	const char *s = render_cell(t, r, c, 3, buf, len);
	if (s != buf)
		return s;
	if ((t->cols[c].flags & (RCOL_WIDE | RCOL_CUT_MIDDLE)) == (RCOL_WIDE | RCOL_CUT_MIDDLE))
		return render_cut_middle(buf, WIDE_MAX);
	if ((t->cols[c].flags & RCOL_WIDE) && u8len(buf) > WIDE_MAX) {
		size_t cut = 0, chars = 0;
		while (buf[cut] && chars < WIDE_MAX - 2) {
			cut++;
			while (((unsigned char)buf[cut] & 0xc0) == 0x80)
				cut++;
			chars++;
		}
		memcpy(buf + cut, "..", 3);
	}
	return buf;
}

void render_table_text(FILE *f, const struct rtable *t)
{
	if (t->plain) {
		char pb[512];
		for (size_t r = 0; r < t->nrows; r++) {
			for (size_t c = 0; c < t->ncols; c++) {
				if (t->cols[c].flags & RCOL_JSON_ONLY)
					continue;
				struct rcell cell = { 0 };
				t->cell(t->ctx, r, c, &cell, pb, sizeof pb);
				if (c)
					fputc(' ', f);
				if (t->cols[c].kind == RC_STR)
					fputs(cell.s ? cell.s : "", f);
				else
					fprintf(f, "%llu", (unsigned long long)cell.u);
			}
			fputc('\n', f);
		}
		return;
	}
	size_t w[32] = { 0 };
	char buf[512];
	size_t nc = t->ncols < 32 ? t->ncols : 32;
	for (size_t c = 0; c < nc; c++)
		w[c] = t->cols[c].title ? u8len(t->cols[c].title) : 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < nc; c++) {
			if (t->cols[c].flags & RCOL_JSON_ONLY)
				continue;
			size_t l = u8len(text_of(t, r, c, buf, sizeof buf));
			if (l > w[c])
				w[c] = l;
		}
	for (size_t r = 0; r <= t->nrows; r++) {
		int first = 1;
		for (size_t c = 0; c < nc; c++) {
			const struct rcol *col = &t->cols[c];
			if (col->flags & RCOL_JSON_ONLY)
				continue;
			const char *s = r == 0 ? col->title : text_of(t, r - 1, c, buf, sizeof buf);
			size_t pad = w[c] - u8len(s);
			int left = (col->flags & RCOL_LEFT) || col->kind == RC_STR;
			if (!first)
				fputs("  ", f);
			first = 0;
			if (!left)
				fprintf(f, "%*s", (int)pad, "");
			fputs(s, f);
			int last = 1;
			for (size_t k = c + 1; k < nc; k++)
				if (!(t->cols[k].flags & RCOL_JSON_ONLY))
					last = 0;
			if (left && !last)
				fprintf(f, "%*s", (int)pad, "");
		}
		fputc('\n', f);
	}
}
