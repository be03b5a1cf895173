#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "units.h"

static const char *scaled(uint64_t v, const char *const *units, unsigned base, char *buf, size_t len)
{
	if (v < base) {
		snprintf(buf, len, "%llu %s", (unsigned long long)v, units[0]);
		return buf;
	}
	double d = (double)v;
	int u = 0;
	while (d >= base && units[u + 1]) {
		d /= base;
		u++;
	}
	snprintf(buf, len, d < 10 ? "%.1f %s" : "%.0f %s", d, units[u]);
	return buf;
}

const char *fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", NULL };
	return scaled(v, u, 1024, buf, len);
}

const char *fmt_words(uint64_t v, char *buf, size_t len)
{
	static const char *const u[] = { "w", "Kw", "Mw", "Gw", "Tw", NULL };
	return scaled(v, u, 1000, buf, len);
}

const char *fmt_count(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
	size_t o = 0;
	for (int i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *fmt_signal(int sig, char *buf, size_t len)
{
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}
