#include "utf8.h"

#include <stdio.h>
#include <string.h>

size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;  /* the second byte's range */
	if (c == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

const char *utf8_visible(const char *s, char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	while (i < n && utf8_seq(u + i, n - i))
		i += utf8_seq(u + i, n - i);
	if (i == n || len == 0)
		return s;
	for (i = 0; i < n && o + 5 < len;) {
		size_t k = utf8_seq(u + i, n - i);
		if (k) {
			if (o + k >= len)
				break;
			memcpy(buf + o, s + i, k);
			o += k;
			i += k;
		} else {
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", u[i++]);
		}
	}
	buf[o] = '\0';
	return buf;
}
