#include "decompress.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define IN_SIZE (1u << 20)
#define OUT_SIZE (1u << 20)
#define HOLE 4096                   /* zero pages are not written */

const char *compression_of(const void *head, size_t len)
{
	static const struct {
		const char *name;
		uint8_t magic[6];
		size_t len;
	} formats[] = {
		{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
		{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6 },
		{ "lz4", { 0x04, 0x22, 0x4d, 0x18 }, 4 },
	};
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (len >= formats[i].len && memcmp(head, formats[i].magic, formats[i].len) == 0)
			return formats[i].name;
	return NULL;
}

/* Where the output goes, and what the user is told. */
struct job {
	const char *path, *fmt, *tmpdir;
	int in, out;
	uint64_t in_size, in_done, out_size;
	struct progress *pg;            /* the progress line (progress.h), or NULL */
	uint8_t *ibuf, *obuf;
	bc_err *err;
};

static int put(struct job *j, const uint8_t *p, size_t n)
{
	while (n) {
		size_t k = n < HOLE ? n : HOLE;
		int zero = 1;
		for (size_t i = 0; i < k && zero; i++)
			zero = p[i] == 0;
		if (!zero) {
			ssize_t w = pwrite(j->out, p, k, (off_t)j->out_size);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				j->err = bc_error(BC_EIO, "%s: writing the decompressed copy into %s: %s%s",
						  j->path, j->tmpdir, w < 0 ? strerror(errno) : "short write",
						  errno == ENOSPC ? " (set TMPDIR to a roomier place)" : "");
				return -1;
			}
			k = (size_t)w;
		}
		j->out_size += k;
		p += k;
		n -= k;
	}
	return 0;
}

/* The next input chunk; 0 at end of file, -1 on error. */
static ssize_t get(struct job *j)
{
	ssize_t n;
	do
		n = read(j->in, j->ibuf, IN_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		j->err = bc_error(BC_EIO, "%s: %s", j->path, strerror(errno));
	else
		j->in_done += (uint64_t)n;
	progress_at(j->pg, j->in_done);
	return n;
}

static bc_err *bad(struct job *j, const char *what, const char *detail)
{
	return bc_error(BC_EFORMAT, "%s: %s %s data (%llu bytes decompressed%s%s)", j->path, what,
			j->fmt, (unsigned long long)j->out_size, detail ? ": " : "",
			detail ? detail : "");
}

static bc_err *unzstd(struct job *j)
{
	ZSTD_DCtx *z = ZSTD_createDCtx();
	if (!z)
		return bc_error(BC_ENOMEM, "out of memory");
	size_t last = 1;  /* 0: at the end of a frame */
	ssize_t n;
	bc_err *err = NULL;
	while (!err && (n = get(j)) > 0) {
		ZSTD_inBuffer ib = { j->ibuf, (size_t)n, 0 };
		ZSTD_outBuffer ob;
		do {
			ob = (ZSTD_outBuffer){ j->obuf, OUT_SIZE, 0 };
			last = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(last))
				err = bad(j, "corrupt", ZSTD_getErrorName(last));
			else if (put(j, j->obuf, ob.pos) < 0)
				err = j->err;
		} while (!err && (ib.pos < ib.size || ob.pos == ob.size));
	}
	if (!err && j->err)
		err = j->err;
	if (!err && last != 0)
		err = bad(j, "truncated", NULL);
	ZSTD_freeDCtx(z);
	return err;
}

static bc_err *unxz(struct job *j)
{
	lzma_stream s = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return bc_error(BC_ENOMEM, "out of memory");
	lzma_action action = LZMA_RUN;
	bc_err *err = NULL;
	for (;;) {
		if (s.avail_in == 0 && action == LZMA_RUN) {
			ssize_t n = get(j);
			if (n < 0) {
				err = j->err;
				break;
			}
			s.next_in = j->ibuf;
			s.avail_in = (size_t)n;
			if (n == 0)
				action = LZMA_FINISH;
		}
		s.next_out = j->obuf;
		s.avail_out = OUT_SIZE;
		lzma_ret r = lzma_code(&s, action);
		if (put(j, j->obuf, OUT_SIZE - s.avail_out) < 0) {
			err = j->err;
			break;
		}
		if (r == LZMA_STREAM_END)
			break;
		if (r == LZMA_BUF_ERROR) {
			err = bad(j, "truncated", NULL);
			break;
		}
		if (r != LZMA_OK) {
			err = r == LZMA_MEM_ERROR ? bc_error(BC_ENOMEM, "out of memory")
			      : bad(j, "corrupt", r == LZMA_FORMAT_ERROR ? "not xz" : "bad check or data");
			break;
		}
	}
	lzma_end(&s);
	return err;
}

static bc_err *unlz4(struct job *j)
{
	LZ4F_dctx *d;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
		return bc_error(BC_ENOMEM, "out of memory");
	size_t hint = 1;  /* 0: at the end of a frame */
	ssize_t n;
	bc_err *err = NULL;
	while ((n = get(j)) > 0) {
		size_t pos = 0, dst;
		do {  /* until the input is used and the decoder holds nothing back */
			size_t src = (size_t)n - pos;
			dst = OUT_SIZE;
			hint = LZ4F_decompress(d, j->obuf, &dst, j->ibuf + pos, &src, NULL);
			if (LZ4F_isError(hint)) {
				err = bad(j, "corrupt", LZ4F_getErrorName(hint));
				break;
			}
			if (put(j, j->obuf, dst) < 0) {
				err = j->err;
				break;
			}
			pos += src;
			/* a full buffer may hold more back, unless the frame just
			 * ended: called again without input, the decoder would start
			 * on a next frame's header and the end would read as a cut */
		} while (pos < (size_t)n || (dst == OUT_SIZE && hint != 0));
		if (err)
			break;
	}
	if (!err && n < 0)
		err = j->err;
	if (!err && hint != 0)
		err = bad(j, "truncated", NULL);
	LZ4F_freeDecompressionContext(d);
	return err;
}

static int temp_file(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	char tmpl[4096];
	snprintf(tmpl, sizeof tmpl, "%s/beamcore-XXXXXX", dir);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

bc_err *decompress_to_temp(const char *path, const char *fmt, int *out)
{
	*out = -1;
	struct job j = { .path = path, .fmt = fmt, .in = -1, .out = -1 };
	j.tmpdir = getenv("TMPDIR");
	if (!j.tmpdir || !*j.tmpdir)
		j.tmpdir = "/tmp";
	j.in = open(path, O_RDONLY | O_CLOEXEC);
	if (j.in < 0)
		return bc_error(BC_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(j.in, &st) == 0)
		j.in_size = (uint64_t)st.st_size;
	j.pg = progress_begin("decompressing", j.in_size, PROGRESS_BYTES);
	bc_err *err = NULL;
	j.out = temp_file(j.tmpdir);
	j.ibuf = malloc(IN_SIZE);
	j.obuf = malloc(OUT_SIZE);
	if (j.out < 0)
		err = bc_error(BC_EIO, "%s: cannot make a temporary file in %s to decompress into: %s "
			       "(set TMPDIR)", path, j.tmpdir, strerror(errno));
	else if (!j.ibuf || !j.obuf)
		err = bc_error(BC_ENOMEM, "out of memory");
	else if (strcmp(fmt, "zstd") == 0)
		err = unzstd(&j);
	else if (strcmp(fmt, "xz") == 0)
		err = unxz(&j);
	else
		err = unlz4(&j);
	if (!err && ftruncate(j.out, (off_t)j.out_size) < 0)  /* a trailing hole */
		err = bc_error(BC_EIO, "%s: %s: %s", path, j.tmpdir, strerror(errno));
	progress_end(j.pg);
	free(j.ibuf);
	free(j.obuf);
	close(j.in);
	if (err) {
		if (j.out >= 0)
			close(j.out);
		return err;
	}
	*out = j.out;
	return NULL;
}
