// SPDX-License-Identifier: GPL-2.0
/*
 * ft-sites.c - the in-guest call-site tracer: runs a workload under ptrace, stops it only
 * on the system calls that shape anonymous memory, and writes each call with the caller's
 * stack to a side file (docs/sites.md).
 *
 *	ft-sites -o FILE -- CMD [ARG...]
 *
 * A seccomp filter installed in the workload before exec returns SECCOMP_RET_TRACE for
 * mmap, munmap, mremap, brk and madvise and SECCOMP_RET_ALLOW for everything else, so the
 * other system calls never stop. PTRACE_O_TRACEFORK|VFORK|CLONE|EXEC follow every
 * process and thread the workload creates (no TRACEEXIT: an ending thread needs no stop,
 * its end is seen by waitpid). The seccomp stop, at the call's entry, is the only stop a
 * call makes: the arguments are read and the stack is unwound (sites-unwind.c:
 * libunwind's remote unwinder with our own accessors, unwind tables from .eh_frame), and
 * the thread goes on with PTRACE_CONT. A call that cannot change what the unwinder reads
 * (ft_unwind_during_call) is resumed first, its stack copied at the stop and unwound
 * from the copy while the thread runs; others are unwound first. The call's result and
 * the time it returned are not seen here: the kernel trace records each mapping call's
 * exit (LTTng's syscall_exit_* events with the tid, on the trace's clock), and ingest
 * pairs them with the calls of this file (docs/sites.md). A call's timestamp here is its
 * entry, CLOCK_MONOTONIC, the clock of LTTng's kernel trace (ktime_get_mono_fast_ns),
 * read at the stop: before its exit event on the same clock.
 *
 * Side file, text, one record a line, tab-separated (its reader and the format's
 * reference: tracer/sitefile.h):
 *	V	2	TRACER_PID
 *	C	TS	PID	TID	CALL	A0..A5 (6 fields, hex)	-	NFRAMES	STATUS
 *	F	IP	MODULE	MODULE_OFFSET	PROC	PROC_OFFSET	(NFRAMES lines follow a C)
 *	K	TS	PID	CHILD_PID	fork|vfork		(a new process; threads are not listed)
 *	X	TS	PID	exec				(the address space was replaced)
 *	E	TS	PID	TID	STATUS	STATS...	(the root workload ended; last line)
 * PID is the thread group id; "-" stands where version 1 wrote the result (version 1:
 * a stop at the call's exit, TS its exit). STATUS is "ok" (unwound to the outermost frame) or the
 * reason the unwinding stopped (docs/sites.md); the frames before it are kept. Addresses
 * and offsets are hex, MODULE is "-" for an address in no file mapping, PROC is "-" when
 * no function symbol covers the address (stripped module). STATS are the tracer's own
 * counters, NAME=VALUE each (stops, busy_us, unwinds, frames, unwind_us, page_reads,
 * peeks, maps_reads, regs_us and resume_us: busy_us's time in PTRACE_GETREGS(ET) and in
 * PTRACE_CONT, max_stop_us: the longest stop, overlapped: calls unwound after their
 * thread was resumed, late_reads: stack chunks such an unwind read beyond the copy): what
 * its work cost (bench/sites-overhead.sh prints them).
 *
 * Static (libc, libunwind, liblzma) so it runs in the guest's initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

#include "seccomp-trace.h"
#include "sites-elf.h"
#include "sites-unwind.h"


#define MAX_FRAMES	64	/* frames kept per stack; deeper stacks end with "too_deep" */
#define MAX_TASKS	4096	/* threads traced at once */

/* One traced thread: its thread group, and the call it is stopped in. */
struct task {
	pid_t tid;		/* 0: free slot */
	pid_t tgid;
	int started;		/* its first SIGSTOP (a new task's) has been seen */
};

static struct task tasks[MAX_TASKS];
static FILE *out;
static unsigned long nr_stops;	/* ptrace stops the tracer handled */
static uint64_t busy_ns;	/* time from a stop's waitpid to its PTRACE_CONT */
static uint64_t regs_ns;	/* of which in PTRACE_GETREGS(ET) */
static uint64_t resume_ns;	/* in PTRACE_CONT */
static uint64_t max_stop_ns;	/* the longest stop, waitpid to resume */
static unsigned long nr_overlapped;	/* calls unwound after their thread was resumed */
static char *frames;		/* formatted "F" lines of the call being written */
static size_t frames_len, frames_cap;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "ft-sites: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(126);
}

static struct task *task_get(pid_t tid, int create)
{
	struct task *free_slot = NULL;
	int i;

	for (i = 0; i < MAX_TASKS; i++) {
		if (tasks[i].tid == tid)
			return &tasks[i];
		if (!tasks[i].tid && !free_slot)
			free_slot = &tasks[i];
	}
	if (!create || !free_slot)
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->tid = tid;
	free_slot->tgid = tid;
	return free_slot;
}

/* Thread group of a task, from /proc (a new task's stop can come before its parent's event). */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static const char *call_name(long nr)
{
	switch (nr) {
	case __NR_mmap: return "mmap";
	case __NR_munmap: return "munmap";
	case __NR_mremap: return "mremap";
	case __NR_brk: return "brk";
	case __NR_madvise: return "madvise";
	default: return "?";
	}
}

/* Append one "F" line to frames. Return: 1, or 0 if the frame does not fit a line. */
static int add_frame(const struct ft_frame *f)
{
	char line[4608];
	int n;

	n = snprintf(line, sizeof(line), "F\t%llx\t%s\t%llx\t%.255s\t%llx\n",
		     (unsigned long long)f->ip, f->module ? f->module : "-",
		     (unsigned long long)f->module_off, f->proc && *f->proc ? f->proc : "-",
		     f->proc && *f->proc ? (unsigned long long)f->proc_off : 0ull);
	if (n < 0 || n >= (int)sizeof(line))
		return 0;
	if (frames_len + (size_t)n + 1 > frames_cap) {
		frames_cap = (frames_cap + (size_t)n + 1) * 2;
		frames = realloc(frames, frames_cap);
		if (!frames)
			die("%s", "out of memory");
	}
	memcpy(frames + frames_len, line, (size_t)n + 1);
	frames_len += (size_t)n;
	return 1;
}

/*
 * Unwind thread t (registers r) and write its call nr(a) of time ts to the side file, a
 * "C" line and its frames. The frames' strings live until the next unwind of any thread:
 * formatted before the line is written, since the line holds their count.
 */
static void write_call(struct task *t, const struct user_regs_struct *r, uint64_t ts,
		       long nr, const unsigned long a[6])
{
	struct ft_frame f[MAX_FRAMES];
	const char *status;
	int i, n, lines = 0;

	status = ft_unwind(t->tgid, t->tid, r, f, MAX_FRAMES, &n);
	frames_len = 0;
	for (i = 0; i < n; i++)
		lines += add_frame(&f[i]);
	fprintf(out, "C\t%llu\t%d\t%d\t%s\t%lx\t%lx\t%lx\t%lx\t%lx\t%lx\t-\t%d\t%s\n",
		(unsigned long long)ts, t->tgid, t->tid, call_name(nr), a[0], a[1], a[2], a[3],
		a[4], a[5], lines, status);
	if (frames_len)
		fputs(frames, out);
}

/* Resume tid (PTRACE_CONT) with signal sig. */
static void resume(pid_t tid, int sig)
{
	uint64_t t0 = now_ns();

	ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
	resume_ns += now_ns() - t0;
}

#if defined(__x86_64__)
static long read_regs(pid_t tid, struct user_regs_struct *r)
{
	return ptrace(PTRACE_GETREGS, tid, NULL, r);
}

static void entry_args(const struct user_regs_struct *r, long *nr, unsigned long a[6])
{
	*nr = (long)r->orig_rax;
	a[0] = r->rdi; a[1] = r->rsi; a[2] = r->rdx;
	a[3] = r->r10; a[4] = r->r8; a[5] = r->r9;
}

static uint64_t stack_pointer(const struct user_regs_struct *r)
{
	return r->rsp;
}
#else
static long read_regs(pid_t tid, struct user_regs_struct *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov);
}

static void entry_args(const struct user_regs_struct *r, long *nr, unsigned long a[6])
{
	int i;

	*nr = (long)r->regs[8];
	for (i = 0; i < 6; i++)
		a[i] = r->regs[i];
}

static uint64_t stack_pointer(const struct user_regs_struct *r)
{
	return r->sp;
}
#endif

/* The stopped thread's registers, the time counted in regs_ns. Return: 0, or -1. */
static int get_regs(pid_t tid, struct user_regs_struct *r)
{
	uint64_t t0 = now_ns();
	long rc = read_regs(tid, r);

	regs_ns += now_ns() - t0;
	return rc ? -1 : 0;
}

/* Index the executable file at path, if it is one. */
static void index_file(const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (!access(path, X_OK) && realpath(path, real) && !stat(real, &st) &&
	    S_ISREG(st.st_mode))
		ft_elf_get(real, (unsigned long)st.st_dev, (unsigned long)st.st_ino);
}

/*
 * Index the executable files CMD names before CMD starts: CMD itself, found on PATH as
 * execvp finds it (ft-launch), and the absolute paths among its arguments (ft-launch's:
 * the workload). Their first unwinds then find the tables built: building them made those
 * unwinds the longest stops of a run (malloc-churn's tables: 0.27 ms on the host, many
 * times that under TCG), and now it is done before the workload's time begins. Keyed as maps
 * shows a file (real path, device, inode): a file another root shows under another path
 * or device (record's chrooted runs) is only not found, and indexed again later.
 */
static void index_ahead(char **argv)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];

	if (!strchr(argv[0], '/') && path) {
		while (*path) {
			size_t n = strcspn(path, ":");

			if (n && snprintf(file, sizeof(file), "%.*s/%s", (int)n, path, argv[0]) <
					 (int)sizeof(file) &&
			    !access(file, X_OK)) {
				index_file(file);
				break;
			}
			path += n + (path[n] == ':');
		}
	}
	for (; *argv; argv++)
		if (**argv == '/')
			index_file(*argv);
}

/*
 * Unwind the workload's process once before it runs, while it is still a copy of the
 * tracer stopped before its exec (the guest's trace does not count this mm as the
 * workload's: docs/guest.md). The first unwind of a run cost 13 ms under TCG (the
 * tracer's own code and data paged in, libunwind's caches allocated, maps read the first
 * time), and it was the workload's first call that waited. The counters start after it.
 */
static void warm_up(pid_t root)
{
	struct user_regs_struct r;
	struct ft_frame f[MAX_FRAMES];
	int n;

	ft_unwind_init();
	if (!get_regs(root, &r))
		ft_unwind(root, root, &r, f, MAX_FRAMES, &n);
	ft_unwind_exec(root);	/* its image is about to be replaced */
	memset(&ft_unwind_stats, 0, sizeof(ft_unwind_stats));
	regs_ns = 0;
}

/* The workload: stop for the tracer, install the filter, exec. */
static void child(char **argv)
{
	static const unsigned int calls[] = {
		__NR_mmap, __NR_munmap, __NR_mremap, __NR_brk, __NR_madvise
	};

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		die("PTRACE_TRACEME: %s", strerror(errno));
	raise(SIGSTOP);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    seccomp_trace_calls(calls, sizeof(calls) / sizeof(calls[0])))
		die("cannot install the seccomp filter: %s", strerror(errno));
	execvp(argv[0], argv);
	die("cannot run the workload: %s", strerror(errno));
}

/*
 * A mapping call's entry, its only stop: its arguments, its stack, and on it goes. Resumed
 * before the unwinding when that cannot change what the unwinder reads: the thread then
 * waits for the stop and the stack's copy only.
 */
static void on_seccomp_stop(struct task *t)
{
	struct user_regs_struct r;
	uint64_t ts = now_ns();
	unsigned long a[6];
	long nr;

	if (get_regs(t->tid, &r)) {
		resume(t->tid, 0);
		return;
	}
	entry_args(&r, &nr, a);
	if (ft_unwind_during_call(t->tgid, nr, a, stack_pointer(&r)) &&
	    !ft_unwind_snapshot(t->tgid, t->tid, stack_pointer(&r))) {
		nr_overlapped++;
		resume(t->tid, 0);
		write_call(t, &r, ts, nr, a);
	} else {
		write_call(t, &r, ts, nr, a);
		resume(t->tid, 0);
	}
	ft_unwind_after_call(t->tgid, nr, a);
}

/*
 * Enter the root of a workload that chrooted (ft-launch's host-root runs): libunwind opens
 * each module as /proc/PID/root + the path /proc/PID/maps shows, and that path is relative
 * to the reader's root, so both must be the same. Done once, at the first exec in another
 * root; the side file stays open.
 */
static void follow_root(pid_t tid)
{
	char path[64], root[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/root", tid);
	n = readlink(path, root, sizeof(root) - 1);
	if (n <= 0)
		return;
	root[n] = '\0';
	if (!strcmp(root, "/"))
		return;
	if (chroot(path) || chdir("/"))
		fprintf(stderr, "ft-sites: cannot enter the workload's root %s: %s\n", root,
			strerror(errno));
}

static void on_event(struct task *t, int event)
{
	unsigned long msg = 0;

	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE: {
		struct task *n;

		ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg);
		n = task_get((pid_t)msg, 1);
		if (n)
			n->tgid = event == PTRACE_EVENT_CLONE ? tgid_of((pid_t)msg) : (pid_t)msg;
		/* vfork, or clone of a process (CLONE_VM unknown): may share the memory */
		if (n && n->tgid != t->tgid)
			ft_unwind_fork(t->tgid, n->tgid, event != PTRACE_EVENT_FORK);
		if (n && n->tgid != t->tgid)
			fprintf(out, "K\t%llu\t%d\t%d\t%s\n", (unsigned long long)now_ns(), t->tgid,
				(int)msg, event == PTRACE_EVENT_VFORK ? "vfork" : "fork");
		break;
	}
	case PTRACE_EVENT_EXEC:
		/*
		 * a thread other than the leader that execs takes the leader's id: the stop
		 * comes as the leader's, the process's only thread now (no /proc read)
		 */
		t->tgid = t->tid;
		ft_unwind_exec(t->tgid);	/* a new image at the same addresses */
		follow_root(t->tid);
		fprintf(out, "X\t%llu\t%d\texec\n", (unsigned long long)now_ns(), t->tgid);
		break;
	default:
		break;
	}
	resume(t->tid, 0);
	if (event == PTRACE_EVENT_EXEC)
		ft_unwind_prepare(t->tgid);	/* the new image's, while it runs */
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	int status, root_status = -1, i;
	pid_t root;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "--"))
			break;
		else
			i = argc;
	}
	if (!path || i + 1 >= argc) {
		fprintf(stderr, "usage: ft-sites -o FILE -- CMD [ARG...]\n");
		return 2;
	}
	argv += i + 1;
	out = fopen(path, "w");
	if (!out)
		die("cannot create the side file: %s", strerror(errno));
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	fprintf(out, "V\t2\t%d\n", getpid());
	index_ahead(argv);

	root = fork();
	if (root < 0)
		die("cannot fork: %s", strerror(errno));
	if (!root)
		child(argv);
	if (waitpid(root, &status, 0) != root || !WIFSTOPPED(status))
		die("%s", "the workload did not stop for the tracer");
	if (ptrace(PTRACE_SETOPTIONS, root, NULL,
		   PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		   PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL))
		die("PTRACE_SETOPTIONS: %s", strerror(errno));
	warm_up(root);
	task_get(root, 1)->started = 1;
	ptrace(PTRACE_CONT, root, NULL, NULL);

	for (;;) {
		pid_t tid = waitpid(-1, &status, __WALL);
		uint64_t t0 = now_ns();
		struct task *t;
		int sig;

		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break;	/* ECHILD: everything ended */
		}
		t = task_get(tid, 1);
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (tid == root)
				root_status = WIFEXITED(status) ? WEXITSTATUS(status) :
								  128 + WTERMSIG(status);
			if (t) {
				if (t->tid == t->tgid)
					ft_unwind_exit(t->tgid);
				memset(t, 0, sizeof(*t));
			}
			continue;
		}
		if (!WIFSTOPPED(status) || !t)
			continue;
		nr_stops++;
		sig = WSTOPSIG(status);
		if (status >> 16 == PTRACE_EVENT_SECCOMP) {
			on_seccomp_stop(t);
		} else if (status >> 16) {
			on_event(t, status >> 16);
		} else if (sig == SIGSTOP && !t->started) {
			/*
			 * the first stop of a new task: not a signal to deliver. Its thread
			 * group now, from /proc: a new thread can stop in its first call
			 * before its parent's clone event sets it, and a call recorded under
			 * the thread's own id maps a range no fault of the process finds
			 */
			t->started = 1;
			resume(tid, 0);
			/* read while it runs: its next stop is handled after this */
			t->tgid = tgid_of(tid);
			if (t->tgid == tid)
				ft_unwind_prepare(tid);	/* a new process's, while it runs */
		} else {
			resume(tid, sig == SIGTRAP ? 0 : sig);
		}
		t0 = now_ns() - t0;
		busy_ns += t0;
		if (t0 > max_stop_ns)
			max_stop_ns = t0;
	}
	fprintf(out, "E\t%llu\t%d\t%d\t%d\tstops=%lu\tbusy_us=%llu\tunwinds=%lu\tframes=%lu"
		"\tunwind_us=%llu\tpage_reads=%lu\tpeeks=%lu\tmaps_reads=%lu\tregs_us=%llu"
		"\tresume_us=%llu\tmax_stop_us=%llu\toverlapped=%lu\tlate_reads=%lu\n",
		(unsigned long long)now_ns(), root, root, root_status, nr_stops,
		(unsigned long long)busy_ns / 1000, ft_unwind_stats.unwinds, ft_unwind_stats.frames,
		(unsigned long long)ft_unwind_stats.unwind_ns / 1000, ft_unwind_stats.page_reads,
		ft_unwind_stats.peeks, ft_unwind_stats.maps_reads,
		(unsigned long long)regs_ns / 1000, (unsigned long long)resume_ns / 1000,
		(unsigned long long)max_stop_ns / 1000, nr_overlapped, ft_unwind_stats.late_reads);
	if (fclose(out))
		die("cannot write the side file: %s", strerror(errno));
	return root_status < 0 ? 126 : root_status;
}
