/* What a table's column holds, as the page formats it. */
#include "report.h"

const char *report_kind(enum rcol_kind k)
{
	switch (k) {
	case RC_BYTES: return "bytes";
	case RC_WORDS: case RC_WORDS_AS_BYTES: return "words";  /* (JSON has words) */
	case RC_STR: return "str";
	case RC_BOOL: return "bool";
	case RC_LIST: return "list";
	default: return "count";
	}
}
