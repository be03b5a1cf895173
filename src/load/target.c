#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "beam.h"
#include "live.h"
#include "decompress.h"
#include "dump.h"
#include "labels.h"

/* Either a core (beam) or a crash dump (dump). */
struct target {
	struct beam *beam;
	struct dump *dump;
	int zfd;             /* a compressed input's decompressed copy (unlinked), or -1 */
	char zpath[32];      /* it as /proc/self/fd/N, the path the loaders open */
	const char *name;    /* the path the user gave, or "PID N" */
	char label[32];      /* that for a live process */
	struct beam_open_opts live;  /* a rehearsal's: how to open it again for the snapshot */
	int rehearsal;       /* the model is a rehearsal's (target_snapshot) */
	unsigned needs;      /* what the loads asked for */
};

/* Messages of the loaders name the copy: name the user's file instead. */
static bc_err *own_name(const struct target *t, bc_err *err)
{
	size_t k = strlen(t->zpath);
	char *at = err && t->zfd >= 0 ? strstr(err->msg, t->zpath) : NULL;
	if (at) {
		char rest[sizeof err->msg];
		snprintf(rest, sizeof rest, "%s", at + k);
		snprintf(at, sizeof err->msg - (size_t)(at - err->msg), "%s%s", t->name, rest);
	}
	return err;
}

static void target_free(struct target *t)
{
	if (t->zfd >= 0)
		close(t->zfd);
	free(t);
}

/* A zstd/xz/lz4 input: decompressed once into an unlinked file in $TMPDIR; the
 * loaders open it by its /proc/self/fd path. head is refilled from the copy. */
static bc_err *open_compressed(struct target *t, const char *fmt, char *head, size_t len,
			       ssize_t *n)
{
	bc_err *err = decompress_to_temp(t->name, fmt, &t->zfd);
	if (err)
		return err;
	snprintf(t->zpath, sizeof t->zpath, "/proc/self/fd/%d", t->zfd);
	memset(head, 0, len);
	*n = pread(t->zfd, head, len, 0);
	if (*n < 0)
		return bc_error(BC_EIO, "%s: %s", t->name, strerror(errno));
	return NULL;
}

/* A path argument must name a regular file (or, for --sysroot, a directory):
 * opening a FIFO would block for ever, a device or socket is not an input. */
static bc_err *must_be(const char *what, const char *path, mode_t type)
{
	struct stat st;
	if (!path)
		return NULL;
	if (stat(path, &st) < 0 || (st.st_mode & S_IFMT) == type)  /* absent: said where opened */
		return NULL;
	const char *is = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket"
		: S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
		: S_ISDIR(st.st_mode) ? "a directory" : "not a regular file";
	return bc_error(BC_EIO, "%s%s: is %s, not a %s", what, path, is,
			type == S_IFDIR ? "directory" : "regular file");
}

static bc_err *open_live_beam(struct target *t, const struct beam_open_opts *bo)
{
	bc_err *err = beam_open(bo, &t->beam);
	if (err)
		return err->code == BC_EFAULT ? core_live_exited(bo->pid, err) : err;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	beam_vm(t->beam)->time = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	beam_vm(t->beam)->time_from = "read";
	return NULL;
}

/* --pid: a running beam.smp, stopped (unless --no-stop) until target_release;
 * with snapshot, opened unstopped for a rehearsal (target_snapshot). */
static bc_err *open_live(const struct target_opts *o, struct target **out)
{
	bc_err *bad;
	if ((bad = must_be("", o->beam, S_IFREG)) ||
	    (bad = must_be("--debug-file ", o->debug_file, S_IFREG)) ||
	    (bad = must_be("--layout ", o->layout, S_IFREG)))
		return bad;
	struct target *t = calloc(1, sizeof *t);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	t->zfd = -1;
	snprintf(t->label, sizeof t->label, "PID %d", o->pid);
	t->name = t->label;
	struct beam_open_opts bo = { .exe_path = o->beam, .debug_file = o->debug_file,
				     .layout_file = o->layout, .no_cache = o->no_cache,
				     .pid = o->pid, .no_stop = o->no_stop || o->flushed,
				     .flushed = o->flushed, .max_stop_ms = (double)o->max_stop_ms,
				     .max_stop_fail = o->max_stop_fail };
	t->live = bo;
	t->rehearsal = o->snapshot && !bo.no_stop;
	bo.no_stop |= t->rehearsal;
	bc_err *err = open_live_beam(t, &bo);
	if (err) {
		target_free(t);
		return err;
	}
	*out = t;
	return NULL;
}

int target_rehearsing(const struct target *t)
{
	return t->rehearsal;
}

bc_err *target_snapshot(struct target *t)
{
	if (!t->rehearsal)
		return NULL;
	struct beam_open_opts bo = t->live;
	if (!(bo.plan = core_live_plan(beam_core(t->beam))))
		return bc_error(BC_ENOMEM, "out of memory");
	bo.stacks = (t->needs & NEED_THREADS) != 0;
	beam_close(t->beam);
	t->beam = NULL;
	t->rehearsal = 0;
	return open_live_beam(t, &bo);
}

/* The label rules of the files (labels.h): the default file, then --labels;
 * once per run (diff opens two targets). A bad file is a usage error. */
static bc_err *label_files(const struct target_opts *o)
{
	static bool done;
	char path[4096], err[512];
	if (done)
		return NULL;
	done = true;
	const char *def = label_default_path(path, sizeof path);
	if (def && label_rules_load(def, false, err, sizeof err) < 0)
		return bc_error(BC_EUSAGE, "label rules: %s", err);
	if (o->labels && label_rules_load(o->labels, true, err, sizeof err) < 0)
		return bc_error(BC_EUSAGE, "--labels: %s", err);
	return NULL;
}

bc_err *target_init(const struct target_opts *o)
{
	label_rules();
	return label_files(o);
}

bc_err *target_open(const struct target_opts *o, struct target **out)
{
	*out = NULL;
	bc_err *lerr = label_files(o);
	if (lerr)
		return lerr;
	if (!o->path)
		return open_live(o, out);
	char head[32] = { 0 };
	bc_err *bad;
	if ((bad = must_be("", o->path, S_IFREG)) || (bad = must_be("", o->beam, S_IFREG)) ||
	    (bad = must_be("--debug-file ", o->debug_file, S_IFREG)) ||
	    (bad = must_be("--layout ", o->layout, S_IFREG)) ||
	    (bad = must_be("--sysroot ", o->sysroot, S_IFDIR)))
		return bad;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return bc_error(BC_EIO, "%s: %s", o->path, strerror(errno));
	ssize_t n = read(fd, head, sizeof head);
	close(fd);
	if (n < 0)
		return bc_error(BC_EIO, "%s: %s", o->path, strerror(errno));
	struct target *t = calloc(1, sizeof *t);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	t->zfd = -1;
	t->name = o->path;
	const char *path = o->path;
	const char *fmt = n > 0 ? compression_of(head, (size_t)n) : NULL;
	bc_err *err = NULL;
	if (fmt) {
		if ((err = open_compressed(t, fmt, head, sizeof head, &n))) {
			target_free(t);
			return err;
		}
		path = t->zpath;
	}
	if (n > 0 && dump_detect(head, (size_t)n)) {
		/* a dump needs no beam.smp: BEAM and --debug-file are not used */
		err = dump_open(path, &t->dump);
	} else if (n < 4 || memcmp(head, "\177ELF", 4) != 0) {
		err = bc_error(BC_EFORMAT, "%s: neither an ELF core file nor an erl_crash.dump%s",
			       o->path, fmt ? " (once decompressed)" : "");
	} else {
		struct beam_open_opts bo = { .core_path = path, .exe_path = o->beam,
					     .debug_file = o->debug_file, .sysroot = o->sysroot,
					     .layout_file = o->layout, .no_cache = o->no_cache };
		err = beam_open(&bo, &t->beam);
	}
	if (err) {
		own_name(t, err);
		target_free(t);
		return err;
	}
	struct vm *vm = target_vm(t);
	vm->source = o->path;
	struct stat st;
	if (t->beam && stat(o->path, &st) == 0) {  /* an ELF core carries no time of its own */
		vm->time = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
		vm->time_from = "file mtime";
	}
	*out = t;
	return NULL;
}

bc_err *target_load(struct target *t, unsigned needs)
{
	t->needs |= needs;
	bc_err *err = own_name(t, t->dump ? dump_load(t->dump, needs) : beam_load(t->beam, needs));
	if (err && t->beam && beam_core(t->beam)->live)
		err = core_live_exited(beam_core(t->beam)->live_pid, err);
	target_vm(t)->source = t->name;  /* (a dump's reload makes a new model) */
	return err;
}

struct vm *target_vm(struct target *t)
{
	return t->dump ? dump_vm(t->dump) : beam_vm(t->beam);
}

bool target_is_snapshot(const char *path)
{
	unsigned char head[32] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, head, sizeof head);
	close(fd);
	if (n <= 0)
		return false;
	/* a compressed file: a dump or a core (a beam.smp is never read so) */
	if (compression_of((const char *)head, (size_t)n) || dump_detect((const char *)head, (size_t)n))
		return true;
	/* an ELF core: e_type ET_CORE (4), little or big endian */
	return n >= 18 && memcmp(head, "\177ELF", 4) == 0 &&
	       (head[5] == 2 ? head[16] == 0 && head[17] == 4 : head[16] == 4 && head[17] == 0);
}

bool target_truncated(const struct target *t)
{
	return t->dump && dump_truncated(t->dump);
}

struct beam *target_beam(struct target *t)
{
	return t->beam;
}

void target_release(struct target *t)
{
	if (t && t->beam)
		beam_release(t->beam);
}

void target_close(struct target *t)
{
	if (!t)
		return;
	if (t->dump)
		dump_close(t->dump);
	else if (t->beam)
		beam_close(t->beam);
	target_free(t);
}
