/* Local pid and port terms as <0.num.serial> and #Port<0.num>, by the pid
 * layout procs.c decided. */
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

uint64_t beam_port_number(const struct beam *b, uint64_t term)
{
	const struct layout *L = &b->L;
	if (!b->pid_wide || !LHAS(L, G_ERTS_PORT) || !LHAS(L, PORT_PIX_CLI_SHIFT))
		return (term >> _TAG_IMMED1_SIZE) & ((1u << 28) - 1);  /* 28-bit port numbers */
	/* the port table's own masks (erts_ptab_pixdata2data), as for pids */
	uint64_t t = beam_global(b, G_ERTS_PORT), mask = 0, cl = 0, cli = 0;
	uint32_t cls = 0, clis = 0;
	beam_read_u64(b, t + LV(L, PORT_PIX_MASK), &mask);
	beam_read_u64(b, t + LV(L, PORT_PIX_CL_MASK), &cl);
	beam_read_u64(b, t + LV(L, PORT_PIX_CLI_MASK), &cli);
	beam_read_u32(b, t + LV(L, PORT_PIX_CL_SHIFT), &cls);
	beam_read_u32(b, t + LV(L, PORT_PIX_CLI_SHIFT), &clis);
	uint64_t pixdata = term >> _TAG_IMMED1_SIZE;
	uint64_t data = pixdata & ~mask;
	data |= (pixdata >> cls) & cl;
	data |= (pixdata & cli) << clis;
	return data;
}
