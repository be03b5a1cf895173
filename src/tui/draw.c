/* Text on the screen: UTF-8 decoded to wide characters and clipped by display
 * columns, so a multibyte atom never splits or overruns a column. */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui.h"

/* The next character of s: its wide char, bytes and columns (control and
 * invalid bytes show as '?'). */
static size_t next(const char *s, wchar_t *wc, int *w)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	size_t n = mbrtowc(wc, s, MB_CUR_MAX, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*wc = L'?';
		*w = 1;
		return 1;
	}
	*w = wcwidth(*wc);
	if (*w < 0 || (unsigned)*wc < 0x20) {
		*wc = L'?';
		*w = 1;
	}
	return n;
}

int ui_width(const char *s)
{
	int cols = 0, w;
	wchar_t wc;
	while (*s) {
		s += next(s, &wc, &w);
		cols += w;
	}
	return cols;
}

int ui_put(int y, int x, int width, const char *s, int skip)
{
	int col = 0, drawn = 0, w;
	wchar_t wc;
	move(y, x);
	while (*s && drawn < width) {
		s += next(s, &wc, &w);
		if (col < skip) {
			col += w;
			continue;
		}
		if (drawn + w > width)
			break;
		addnwstr(&wc, 1);
		drawn += w;
		col += w;
	}
	return drawn;
}

const char *ui_pad(const char *s, int w, int right, char *buf, size_t len)
{
	int sw = ui_width(s);
	size_t o = 0;
	if (sw > w) {  /* cut at a character boundary */
		int cols = 0, cw;
		wchar_t wc;
		const char *p = s;
		while (*p) {
			size_t n = next(p, &wc, &cw);
			if (cols + cw > w)
				break;
			cols += cw;
			p += n;
		}
		snprintf(buf, len, "%.*s%*s", (int)(p - s), s, w - cols, "");
		return buf;
	}
	if (right)
		o = (size_t)snprintf(buf, len, "%*s", w - sw, "");
	if (o < len)
		snprintf(buf + o, len - o, "%s%*s", s, right ? 0 : w - sw, "");
	return buf;
}

const char *ui_cell(const struct rtable *t, size_t r, size_t c, char *buf, size_t len)
{
	return render_cell(t, r, c, SIZE_MAX, buf, len);
}


static void bar(int y, const struct ui *u, const char *s)
{
	attron(A_REVERSE);
	move(y, 0);
	for (int i = 0; i < u->cols; i++)
		addch(' ');
	ui_put(y, 0, u->cols, s, 0);
	attroff(A_REVERSE);
}

void ui_header(const struct ui *u)
{
	const struct vm *vm = u->vm;
	char line[1024], death[300], sig[32], n[32], mem[32];
	if (vm->death.slogan)
		snprintf(death, sizeof death, "%s", vm->death.slogan);
	else if (vm->signo)
		snprintf(death, sizeof death, "%s", fmt_signal(vm->signo, sig, sizeof sig));
	else if (u->live)
		snprintf(death, sizeof death, "%s", u->live);
	else
		snprintf(death, sizeof death, "live snapshot");
	if (vm->memory.known & (1u << VM_MEM_TOTAL))
		fmt_bytes(vm->memory.v[VM_MEM_TOTAL], mem, sizeof mem);
	else
		snprintf(mem, sizeof mem, "?");
	snprintf(line, sizeof line, "OTP %s | %s | %s | %s procs | %s total%s",
		 vm->otp_release[0] ? vm->otp_release : "?", vm->node ? vm->node : "?", death,
		 fmt_count(vm->nprocs, n, sizeof n), mem, vm->ngaps || vm->gaps_dropped ? " | partial (? says what)" : "");
	bar(0, u, line);
}

void ui_title(const struct ui *u, const char *title)
{
	move(1, 0);
	clrtoeol();
	attron(A_BOLD);
	ui_put(1, 0, u->cols, u->msg[0] ? u->msg : title, 0);
	attroff(A_BOLD);
}

void ui_footer(const struct ui *u, const char *keys)
{
	bar(u->rows - 1, u, keys);
}
