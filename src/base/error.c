#include "error.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Out of memory while reporting an error: hand back a static object. */
static bc_err oom_err = { BC_ENOMEM, 0, "out of memory" };

bc_err *bc_error(enum bc_errcode code, const char *fmt, ...)
{
	bc_err *e = malloc(sizeof *e);
	if (!e)
		return &oom_err;
	e->code = code;
	e->addr = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return e;
}

bc_err *bc_fault(uint64_t addr, const char *what)
{
	bc_err *e = bc_error(BC_EFAULT, "%s: address 0x%llx is not in the core",
			     what, (unsigned long long)addr);
	if (e != &oom_err)
		e->addr = addr;
	return e;
}

void bc_err_free(bc_err *e)
{
	if (e && e != &oom_err)
		free(e);
}

int bc_err_exit(const bc_err *e)
{
	return e->code == BC_EUSAGE ? BC_EXIT_USAGE : BC_EXIT_FAILED;
}
