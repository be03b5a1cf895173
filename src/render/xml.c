/* XML text for the JUnit files (check --junit, triage --junit). */
#include "xml.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void xml_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + strlen(s);
	for (; p < e; p++) {
		if (*p >= 0x80) {
			size_t k = utf8_seq(p, (size_t)(e - p));
			if (k) {
				fwrite(p, 1, k, f);
				p += k - 1;
			} else
				fprintf(f, "\\x%02x", *p);
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\n': case '\t': fputc(*p, f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
}

void xml_printf(FILE *f, const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	xml_put(f, s);
	free(s);
}
