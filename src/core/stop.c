#include "stop.h"

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The stopped threads live in static arrays: the signal handlers must detach
 * them without allocating. A BEAM has tens of threads (1,024 async threads at
 * most). */
#define MAX_TIDS 8192
#define STOP_TIMEOUT_S 5.0

static pid_t g_tid[MAX_TIDS];   /* 0: exited meanwhile */
static int g_sig[MAX_TIDS];     /* a signal it stopped with, passed on at detach */
static volatile sig_atomic_t g_n;
static struct timespec g_t0;

static double since_ms(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Async-signal-safe: ptrace and clock_gettime only. */
double stop_release(void)
{
	int n = g_n;
	if (n <= 0)
		return -1;
	g_n = 0;
	for (int i = 0; i < n; i++)
		if (g_tid[i])
			ptrace(PTRACE_DETACH, g_tid[i], NULL, (void *)(long)g_sig[i]);
	return since_ms(&g_t0);
}

double stop_elapsed_ms(void)
{
	return g_n > 0 ? since_ms(&g_t0) : -1;
}

static void release_at_exit(void)
{
	stop_release();
}

static void on_signal(int sig)
{
	stop_release();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_once(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	atexit(release_at_exit);
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* an ignored signal stays ignored (nohup); a handler of our own (the
		 * TUI's) is not replaced */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return (int)n;
}

static long status_field(pid_t pid, const char *key)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (read_small(path, buf, sizeof buf) < 0)
		return -1;
	char *at = strstr(buf, key);
	return at ? strtol(at + strlen(key), NULL, 0) : -1;
}

static int have_cap_sys_ptrace(void)
{
	char buf[4096];
	if (read_small("/proc/self/status", buf, sizeof buf) < 0)
		return 0;
	char *at = strstr(buf, "CapEff:");
	unsigned long long caps = at ? strtoull(at + 7, NULL, 16) : 0;
	return (caps >> 19) & 1;  /* CAP_SYS_PTRACE */
}

bc_err *stop_why_denied(pid_t pid, const char *what)
{
	char buf[16], who[64] = "";
	int scope = read_small("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof buf) > 0 ? atoi(buf) : -1;
	long tracer = status_field(pid, "TracerPid:");
	struct stat st;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	int have_uid = stat(path, &st) == 0;
	uid_t me = geteuid();
	int cap = have_cap_sys_ptrace();
	if (have_uid) {
		struct passwd *pw = getpwuid(st.st_uid);
		snprintf(who, sizeof who, "%s", pw ? pw->pw_name : "");
	}
	if (tracer > 0 && tracer != getpid())
		return bc_error(BC_EIO, "%s of PID %d: it is already traced by PID %ld (gdb, strace?): "
				"detach that tracer first", what, (int)pid, tracer);
	if (scope == 3)
		return bc_error(BC_EIO, "%s of PID %d: kernel.yama.ptrace_scope is 3 (ptrace disabled "
				"until reboot): a live node cannot be read here; take a core "
				"(kill -ABRT) or an erl_crash.dump (kill -USR1) instead", what, (int)pid);
	if (!cap && have_uid && st.st_uid != me)
		return bc_error(BC_EIO, "%s of PID %d: permission denied: it belongs to uid %u%s%s%s "
				"and beamcore runs as uid %u without CAP_SYS_PTRACE: run beamcore as "
				"that user (sudo -u %s) or as root", what, (int)pid, (unsigned)st.st_uid,
				who[0] ? " (" : "", who, who[0] ? ")" : "", (unsigned)me,
				who[0] ? who : "USER");
	if (!cap && scope == 2)
		return bc_error(BC_EIO, "%s of PID %d: permission denied: kernel.yama.ptrace_scope is 2 "
				"(only CAP_SYS_PTRACE may attach): run beamcore as root", what, (int)pid);
	if (!cap && scope == 1)
		return bc_error(BC_EIO, "%s of PID %d: permission denied: kernel.yama.ptrace_scope is 1 "
				"(only a parent may attach to its children): run beamcore with sudo, or "
				"set `sysctl kernel.yama.ptrace_scope=0`", what, (int)pid);
	if (!cap && me == 0)
		return bc_error(BC_EIO, "%s of PID %d: permission denied: root without CAP_SYS_PTRACE "
				"(a container?): give it the capability (docker run --cap-add=SYS_PTRACE, "
				"securityContext.capabilities.add: [SYS_PTRACE])", what, (int)pid);
	return bc_error(BC_EIO, "%s of PID %d: permission denied (not dumpable, or a seccomp or LSM "
			"policy): run beamcore as root with CAP_SYS_PTRACE", what, (int)pid);
}

static int known(pid_t tid, int n)
{
	for (int i = 0; i < n; i++)
		if (g_tid[i] == tid)
			return 1;
	return 0;
}

/* Is the thread exiting or gone (the process killed while we stop it)? */
static int dying(pid_t pid, pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (read_small(path, buf, sizeof buf) <= 0)
		return 1;
	const char *st = strrchr(buf, ')');  /* "tid (comm) S ..." */
	return st && st[1] == ' ' && (st[2] == 'Z' || st[2] == 'X');
}

/* Killed and exiting: its memory is gone (no executable any more), and the
 * kernel refuses ptrace as for a process that is not dumpable. */
static int exiting(pid_t pid)
{
	char path[64], buf[8];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	return readlink(path, buf, sizeof buf) < 0 && errno == ENOENT;
}

/* Wait (bounded) until thread i is in a ptrace stop; a signal it stopped with
 * instead of our interrupt is kept for the detach. */
static bc_err *wait_stop(pid_t pid, int i)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int st;
		pid_t r = waitpid(g_tid[i], &st, __WALL | WNOHANG);
		if (r == g_tid[i]) {
			if (WIFEXITED(st) || WIFSIGNALED(st)) {
				g_tid[i] = 0;  /* the thread is gone */
				return NULL;
			}
			if (WIFSTOPPED(st)) {
				if ((st >> 16) != PTRACE_EVENT_STOP)
					g_sig[i] = WSTOPSIG(st);  /* signal-delivery stop */
				return NULL;
			}
			continue;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			g_tid[i] = 0;  /* ECHILD: gone */
			return NULL;
		}
		if (since_ms(&t0) > 10 && dying(pid, g_tid[i])) {  /* killed meanwhile */
			g_tid[i] = 0;
			return NULL;
		}
		if (since_ms(&t0) > STOP_TIMEOUT_S * 1e3)
			return bc_error(BC_EIO, "PID %d: thread %d did not stop within %.0f s "
					"(uninterruptible sleep?): try --no-stop", (int)pid,
					(int)g_tid[i], STOP_TIMEOUT_S);
		struct timespec d = { 0, 20000 };
		nanosleep(&d, NULL);
	}
}

/* Seize the threads of pid not seized yet (listed in /proc/PID/task), and
 * interrupt them when interrupt: the new ones from *n on. */
static bc_err *seize_listed(pid_t pid, const char *path, int interrupt, int *n)
{
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? bc_error(BC_EIO, "PID %d exited", (int)pid)
				       : bc_error(BC_EIO, "%s: %s", path, strerror(errno));
	bc_err *err = NULL;
	int have = *n;
	struct dirent *e;
	while ((e = readdir(d)) && !err) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid <= 0 || known(tid, have))
			continue;
		if (*n >= MAX_TIDS) {
			err = bc_error(BC_EIO, "PID %d has more than %d threads", (int)pid, MAX_TIDS);
			break;
		}
		if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
			if (errno == ESRCH)
				continue;  /* exited meanwhile */
			err = exiting(pid) ? bc_error(BC_EIO, "PID %d exited during the read", (int)pid)
				: errno == EPERM || errno == EACCES ? stop_why_denied(pid, "ptrace")
				: bc_error(BC_EIO, "ptrace of PID %d: %s", (int)pid, strerror(errno));
			break;
		}
		g_tid[*n] = tid;
		g_sig[*n] = 0;
		g_n = ++*n;  /* (the handlers see it from here on) */
		if (interrupt && ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 && errno == ESRCH)
			g_tid[*n - 1] = 0;
	}
	closedir(d);
	return err;
}

bc_err *stop_process(pid_t pid, pid_t **tids, size_t *ntids)
{
	*tids = NULL;
	*ntids = 0;
	if (g_n)
		return bc_error(BC_EUSAGE, "a process is stopped already");
	install_once();
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	/* Seize every thread first (a seized thread runs on): the stop begins at
	 * the interrupts, all sent at once, and lasts no listing or seizing. */
	int n = 0;
	bc_err *err = seize_listed(pid, path, 0, &n);
	clock_gettime(CLOCK_MONOTONIC, &g_t0);
	for (int i = 0; i < n && !err; i++)
		if (g_tid[i] && ptrace(PTRACE_INTERRUPT, g_tid[i], NULL, NULL) < 0 && errno == ESRCH)
			g_tid[i] = 0;
	for (int i = 0; i < n && !err; i++)
		if (g_tid[i])
			err = wait_stop(pid, i);
	/* Until a listing finds no new thread: a thread created before its parent
	 * stopped shows up in the next one; once all are stopped none is made. */
	for (int round = 0; round < 1000 && !err; round++) {
		int first = n;
		err = seize_listed(pid, path, 1, &n);
		for (int i = first; i < n && !err; i++)
			if (g_tid[i])
				err = wait_stop(pid, i);
		if (n == first)
			break;
	}
	int live = 0;
	for (int i = 0; i < g_n; i++)
		live += g_tid[i] != 0;
	if (!err && !live)
		err = bc_error(BC_EIO, "PID %d exited", (int)pid);
	if (!err && !(*tids = malloc((size_t)live * sizeof **tids)))
		err = bc_error(BC_ENOMEM, "out of memory");
	if (err) {
		stop_release();
		return err;
	}
	for (int i = 0; i < g_n; i++)
		if (g_tid[i])
			(*tids)[(*ntids)++] = g_tid[i];
	return NULL;
}
