/* The report's HTML: the page's style, its data in a <script
 * type="application/octet-stream"> element (never run; gzip'd JSON in base64,
 * packed.c: no byte of it can end the element), then its script. A
 * Content-Security-Policy allows these two inline blocks by their hashes and
 * nothing else: no request of any kind leaves the page. */
#include <errno.h>
#include <string.h>
#include "report.h"

static const char head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<meta name=\"generator\" content=\"beamcore " BEAMCORE_VERSION "\">\n"
	"<title>beamcore report</title>\n<style>%s</style>\n</head>\n<body>\n"
	"<noscript>This report is drawn by its script: open it in a browser with JavaScript "
	"on.</noscript>\n<div id=\"app\"></div>\n"
	"<script type=\"application/octet-stream\" id=\"bc-data\" data-encoding=\"gzip+base64\">";

bc_err *report_page(FILE *f, const struct vm *a, const struct vm *vm,
		    const struct report_opts *o, struct an_out *out)
{
	if (fprintf(f, head, report_csp, report_css) < 0)
		return bc_error(BC_EIO, "writing the page: %s", strerror(errno));
	FILE *packed = report_packed(f);
	if (!packed)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = report_data(packed, a, vm, o, out);
	if (fclose(packed) != 0 && !err)
		err = bc_error(BC_EIO, "writing the page: %s", strerror(errno));
	if (!err && fprintf(f, "</script>\n<script>%s</script>\n</body>\n</html>\n", report_js) < 0)
		err = bc_error(BC_EIO, "writing the page: %s", strerror(errno));
	return err;
}
