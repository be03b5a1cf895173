/* "did you mean" (suggest.h). */
#include "suggest.h"

#include <string.h>

/* Edit distance of a and b (insert, delete, change, swap two neighbours: "tiu"
 * is 1 from "tui"), or 4 when they are long. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];
	if (la >= 32 || lb >= 32)
		return 4;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = i + j;
				continue;
			}
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *suggest_closest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t bd = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, names[i]);
		if (d < bd && d * 3 <= strlen(names[i])) {
			bd = d;
			best = names[i];
		}
	}
	return best;
}
