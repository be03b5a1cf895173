/* The report's HTML: the page's style, its data in a <script
 * type="application/json"> element (never run; every '<' in it written as
 * \u003c, so no text in it can end the element), then its script. A
 * Content-Security-Policy allows these two inline blocks by their hashes and
 * nothing else: no request of any kind leaves the page. */
#include <errno.h>
#include <string.h>
#include "report.h"

/* a FILE that writes into another with every '<' as "\u003c" (JSON's
 * escape: valid only inside strings, where JSON has its only '<') */
static ssize_t safe_write(void *cookie, const char *buf, size_t n)
{
	FILE *to = cookie;
	size_t from = 0;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '<') {
			if (fwrite(buf + from, 1, i - from, to) != i - from || fputs("\\u003c", to) < 0)
				return -1;
			from = i + 1;
		}
	if (fwrite(buf + from, 1, n - from, to) != n - from)
		return -1;
	return (ssize_t)n;
}

static const char head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<meta name=\"generator\" content=\"beamcore " BEAMCORE_VERSION "\">\n"
	"<title>beamcore report</title>\n<style>%s</style>\n</head>\n<body>\n"
	"<noscript>This report is drawn by its script: open it in a browser with JavaScript "
	"on.</noscript>\n<div id=\"app\"></div>\n"
	"<script type=\"application/json\" id=\"bc-data\">";

bc_err *report_page(FILE *f, const struct vm *vm, const struct report_opts *o,
		    struct an_out *out)
{
	if (fprintf(f, head, report_csp, report_css) < 0)
		return bc_error(BC_EIO, "writing the page: %s", strerror(errno));
	FILE *safe = fopencookie(f, "w", (cookie_io_functions_t){ .write = safe_write });
	if (!safe)
		return bc_error(BC_ENOMEM, "out of memory");
	setvbuf(safe, NULL, _IOFBF, 1 << 16);
	bc_err *err = report_data(safe, vm, o, out);
	if (fclose(safe) != 0 && !err)
		err = bc_error(BC_EIO, "writing the page: %s", strerror(errno));
	if (!err && fprintf(f, "</script>\n<script>%s</script>\n</body>\n</html>\n", report_js) < 0)
		err = bc_error(BC_EIO, "writing the page: %s", strerror(errno));
	return err;
}
