/* A label that is a term, as a person reads it in a column (render.h:
 * render_label_short). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "render.h"

/* the end of the token at p: a quoted text (its closing quote, escapes
 * skipped), a <<...>> or a <...> (#Ref<...>, a pid) to its closing bracket,
 * else the run up to the next , { } [ ] */
static const char *token_end(const char *p)
{
	if (*p == '"' || *p == '\'') {
		char q = *p++;
		while (*p && *p != q)
			p += p[0] == '\\' && p[1] ? 2 : 1;
		return *p ? p + 1 : p;
	}
	if (p[0] == '<' && p[1] == '<') {
		const char *e = strstr(p, ">>");
		return e ? e + 2 : p + strlen(p);
	}
	for (int angle = 0; *p; p++) {
		if (*p == '<')
			angle++;
		else if (*p == '>' && angle)
			angle--;
		else if (!angle && strchr(",{}[]", *p))
			break;
	}
	return p;
}

char *render_label_short(char *buf, size_t len)
{
	/* only an Erlang term with a binary in it: <<"hx.backlog">> is what
	 * reads badly (an Elixir label prints its binaries as text already) */
	if (buf[0] != '{' || len < 2 || !strstr(buf, "<<\""))
		return buf;
	char out[512];
	size_t o = 0;
	bool tag = false;  /* the next token is an inner tuple's first: a record's tag */
	for (const char *p = buf + 1; *p && o + 2 < sizeof out;) {
		if (strchr(",}] ", *p) || *p == '[') {
			p++;
			continue;
		}
		if (*p == '{') {
			tag = true;
			p++;
			continue;
		}
		const char *e = token_end(p), *s = p, *se = e;
		bool atom = *p != '"' && *p != '\'' && *p != '<' && *p != '#' &&
			    !(*p >= '0' && *p <= '9') && *p != '-';
		if (s[0] == '<' && s[1] == '<' && s[2] == '"' && se - s >= 5 && se[-3] == '"') {
			s += 3;  /* <<"text">>: its text */
			se -= 3;
		} else if (*s == '"' || *s == '\'') {
			s++;  /* "text", 'atom': inside the quotes (an open one: to the end) */
			if (se > s && se[-1] == s[-1])
				se--;
		}
		if (!(tag && atom) && se > s) {
			if (o)
				out[o++] = ' ';
			for (const char *c = s; c < se && o + 1 < sizeof out; c++) {
				if (*c == '\\' && c + 1 < se)
					c++;
				out[o++] = *c;
			}
		}
		tag = false;
		p = e > p ? e : p + 1;
	}
	if (!o)
		return buf;
	out[o] = '\0';
	snprintf(buf, len, "%s", out);
	return buf;
}
