/* A local pid term as <0.num.serial>, by the pid layout procs.c decided. */
#include "read.h"
#include "eterm.h"

void beam_decode_pid(const struct beam *b, uint64_t id, struct vm_pid *out)
{
	if (b->pid_wide) {
		/* erts_ptab_pixdata2data: the table index is interleaved into the low bits */
		uint64_t pixdata = id >> _TAG_IMMED1_SIZE;
		uint64_t data = pixdata & ~b->pix_mask;
		data |= (pixdata >> b->pix_cl_shift) & b->pix_cl_mask;
		data |= (pixdata & b->pix_cli_mask) << b->pix_cli_shift;
		out->num = (uint32_t)(data & 0x0fffffff);
		out->serial = (uint32_t)(data >> 28);
	} else {
		uint32_t data = (uint32_t)((id >> _TAG_IMMED1_SIZE) & 0x0fffffff);
		out->num = data & 0x7fff;
		out->serial = data >> 15;
	}
}
