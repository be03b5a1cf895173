/* How the cursor moves through a list: one handler for every list view, as
 * htop's. PgDn/PgUp move the cursor and the text together by a screen, so the
 * first PgDn shows the next screen (it used to move only the cursor, to the
 * last row, and leave the text where it was). */
#include <curses.h>
#include "ui.h"

int ui_list_key(size_t *cur, size_t *top, size_t n, int vis, int ch)
{
	size_t page = vis > 1 ? (size_t)vis : 1, last = n ? n - 1 : 0;
	size_t top_max = n > page ? n - page : 0;
	switch (ch) {
	case KEY_UP: case 'k': if (*cur) --*cur; break;
	case KEY_DOWN: case 'j': if (*cur < last) ++*cur; break;
	case KEY_PPAGE:
		*cur = *cur > page ? *cur - page : 0;
		*top = *top > page ? *top - page : 0;
		break;
	case KEY_NPAGE:
		*cur = *cur + page < last ? *cur + page : last;
		*top = *top + page < top_max ? *top + page : top_max;
		break;
	case KEY_HOME: *cur = 0; break;
	case KEY_END: *cur = last; break;
	default: return 0;
	}
	ui_list_show(cur, top, vis);
	return 1;
}

void ui_list_show(const size_t *cur, size_t *top, int vis)
{
	if (vis < 1)
		return;
	if (*cur < *top)
		*top = *cur;
	if (*cur >= *top + (size_t)vis)
		*top = *cur - (size_t)vis + 1;
}
