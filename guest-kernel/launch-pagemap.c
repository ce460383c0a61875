// SPDX-License-Identifier: GPL-2.0
/* launch-pagemap.c - page maps at each workload process's exit; see launch-pagemap.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch-pagemap.h"
#include "../tracer/guest/seccomp-trace.h"

#define PAGE_BYTES 4096ULL		/* the guests' page size (x86_64, arm64 4K) */
#define RUN_PAGES 16			/* a contpte block: 64K of 4K pages */
#define PMD_PAGES 512			/* the PMD size in pages */
#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)
/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_ANON 12
#define KPF_ZERO_PAGE 24
#define LINE_BYTES 192			/* one PAGEMAP line, at most */

int pagemap_open(struct pagemap_ctx *c, const char *path)
{
	c->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	c->proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c->kpageflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	return c->out < 0 || c->proc < 0 || c->kpageflags < 0 ? -1 : 0;
}

/*
 * Stop the caller and its descendants at each execve or execveat (seccomp-trace.h: a
 * PTRACE_EVENT_SECCOMP stop at the call's entry, the old mm still whole), which is why
 * pagemap_supervise() follows vforks too. Return: 0, or -1 (errno).
 */
static int stop_at_exec(void)
{
	static const unsigned int calls[] = { __NR_execve, __NR_execveat };

	if (!seccomp_trace_calls(calls, 2))
		return 0;
	/* without CAP_SYS_ADMIN the kernel asks for no_new_privs first */
	if (errno != EACCES || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return seccomp_trace_calls(calls, 2);
}

int pagemap_child(void)
{
	if (stop_at_exec())
		return -1;
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		return -1;
	raise(SIGSTOP);
	return 0;
}

static uint64_t kflags(struct pagemap_ctx *c, uint64_t pfn)
{
	uint64_t f = 0;

	if (pread(c->kpageflags, &f, sizeof(f), (off_t)(pfn * sizeof(f))) != sizeof(f))
		return 0;
	return f;
}

/* The order of the folio frame pfn belongs to: its head found backwards, its tails counted. */
static unsigned int folio_order(struct pagemap_ctx *c, uint64_t pfn)
{
	uint64_t head = pfn, n = 1;
	unsigned int order = 0;

	while (head && (kflags(c, head) & (1ULL << KPF_COMPOUND_TAIL)) && pfn - head < 2 * PMD_PAGES)
		head--;
	if (!(kflags(c, head) & (1ULL << KPF_COMPOUND_HEAD)))
		return 0;
	while (n < 2 * PMD_PAGES && (kflags(c, head + n) & (1ULL << KPF_COMPOUND_TAIL)))
		n++;
	while ((1ULL << (order + 1)) <= n)
		order++;
	return order;
}

/* One VMA [lo, hi) of pid's page map (pm): its anonymous pages and contpte blocks. */
static void scan_vma(struct pagemap_ctx *c, int pm, uint64_t lo, uint64_t hi,
		     unsigned long *pages, unsigned long *blocks)
{
	uint64_t va, e[RUN_PAGES];

	for (va = lo & ~(RUN_PAGES * PAGE_BYTES - 1); va < hi; va += RUN_PAGES * PAGE_BYTES) {
		unsigned int j, anon = 0, run = 1;
		off_t at = (off_t)(va / PAGE_BYTES * sizeof(uint64_t));

		if (pread(pm, e, sizeof(e), at) != sizeof(e))
			continue;
		for (j = 0; j < RUN_PAGES; j++) {
			uint64_t a = va + j * PAGE_BYTES, pfn = e[j] & PM_PFN_MASK, f;

			if (a < lo || a >= hi || !(e[j] & PM_PRESENT) || !pfn) {
				run = 0;
				continue;
			}
			f = kflags(c, pfn);
			if (!(f & (1ULL << KPF_ANON)) || (f & (1ULL << KPF_ZERO_PAGE))) {
				run = 0;
				continue;
			}
			anon++;
			if (j && (pfn != (e[0] & PM_PFN_MASK) + j ||
				  !(f & (1ULL << KPF_COMPOUND_TAIL))))
				run = 0;
			if (!j && (pfn % RUN_PAGES ||
				   !(f & (1ULL << KPF_COMPOUND_HEAD | 1ULL << KPF_COMPOUND_TAIL))))
				run = 0;
		}
		*pages += anon;
		if (run && folio_order(c, e[0] & PM_PFN_MASK) < 9)
			(*blocks)++;
	}
}

/* pid's address space now: one PAGEMAP line, into line (LINE_BYTES). */
static void read_map(struct pagemap_ctx *c, pid_t pid, char *out)
{
	char path[64], line[512], comm[64] = "?";
	unsigned long pages = 0, blocks = 0;
	FILE *maps;
	int pm, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%d/comm", (int)pid);
	fd = openat(c->proc, path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		comm[n > 0 ? n : 0] = '\0';
		comm[strcspn(comm, "\n ")] = '\0';
		close(fd);
	}
	snprintf(path, sizeof(path), "%d/maps", (int)pid);
	fd = openat(c->proc, path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%d/pagemap", (int)pid);
	pm = openat(c->proc, path, O_RDONLY | O_CLOEXEC);
	maps = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!maps || pm < 0) {
		snprintf(out, LINE_BYTES, "PAGEMAP pid=%d comm=%s error=%d\n", (int)pid, comm,
			 errno);
		goto out;
	}
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long lo, hi;

		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2)
			scan_vma(c, pm, lo, hi, &pages, &blocks);
	}
	snprintf(out, LINE_BYTES, "PAGEMAP pid=%d comm=%s anon_pages=%lu contpte_blocks=%lu\n",
		 (int)pid, comm, pages, blocks);
out:
	if (maps)
		fclose(maps);
	else if (fd >= 0)
		close(fd);
	if (pm >= 0)
		close(pm);
}

/* Whether tid is the last thread of its process (its exit ends the address space). */
static int last_thread(struct pagemap_ctx *c, pid_t tid)
{
	char path[64], buf[4096], *t;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%d/status", (int)tid);
	fd = openat(c->proc, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	t = strstr(buf, "\nThreads:");
	return t && atoi(t + 9) == 1;
}

/*
 * What the supervisor keeps per traced thread: whether its creation was reported (by its
 * parent's fork, vfork or clone event; until then its first stop is held, since only
 * that event says whether it is a vfork child), whether it is a vfork child (its mm is its
 * parent's until it execs: its exec or exit ends no address space), and the line read at
 * its last exec call's entry, written when the exec succeeds (PTRACE_EVENT_EXEC) and
 * dropped at the thread's next other stop (the call failed and it went on).
 */
struct tracee {
	pid_t tid;
	unsigned int announced:1, started:1, held:1, vfork_child:1;
	char pending[LINE_BYTES];	/* "" if none */
};

struct tracees {
	struct tracee *v;
	size_t n, cap;
	pid_t child;			/* the workload's first process */
	int child_execd;		/* it has exec'd the workload (its mm is the workload's) */
};

/* tid's entry. Return: it, or NULL. */
static struct tracee *tracee_find(struct tracees *t, pid_t tid)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].tid == tid)
			return &t->v[i];
	return NULL;
}

/*
 * tid's entry, created if missing (moving every entry: earlier pointers to them are stale).
 * Return: the entry, or NULL (no memory).
 */
static struct tracee *tracee(struct tracees *t, pid_t tid)
{
	struct tracee *v = tracee_find(t, tid);

	if (v)
		return v;
	if (t->n == t->cap) {
		v = realloc(t->v, (t->cap ? 2 * t->cap : 16) * sizeof(*v));
		if (!v)
			return NULL;
		t->v = v;
		t->cap = t->cap ? 2 * t->cap : 16;
	}
	/* the first process's first stop was waited for before the loop */
	t->v[t->n] = (struct tracee){ .tid = tid, .announced = tid == t->child,
				      .started = tid == t->child };
	return &t->v[t->n++];
}

/* Forget tid (the last entry moves into its place). */
static void tracee_drop(struct tracees *t, pid_t tid)
{
	struct tracee *e = tracee_find(t, tid);

	if (e)
		*e = t->v[--t->n];
}

/* Whether thread e's address space is its own (not its vfork parent's, not ft-launch's). */
static int own_mm(const struct tracees *t, const struct tracee *e)
{
	return !e->vfork_child && (e->tid != t->child || t->child_execd);
}

/* The event stop of thread e (ptrace options as pagemap_supervise() sets them). */
static void on_event(struct pagemap_ctx *c, struct tracees *t, struct tracee *e, int event)
{
	char line[LINE_BYTES];
	unsigned long msg = 0;
	pid_t pid = e->tid;
	struct tracee *n;

	ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg);
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		n = tracee(t, (pid_t)msg);	/* e is stale from here */
		if (!n)
			break;
		n->announced = 1;
		n->vfork_child = event == PTRACE_EVENT_VFORK;
		if (n->held && !ptrace(PTRACE_CONT, n->tid, NULL, NULL))
			n->held = 0;
		break;
	case PTRACE_EVENT_SECCOMP:
		/* an exec call's entry: the mm it ends, if the call succeeds */
		if (own_mm(t, e))
			read_map(c, pid, e->pending);
		break;
	case PTRACE_EVENT_EXEC:
		/* msg: the thread that called exec (now pid, the thread group's leader) */
		n = tracee_find(t, (pid_t)msg);
		if (n && n->pending[0])
			dprintf(c->out, "%s", n->pending);
		e->pending[0] = '\0';
		e->vfork_child = 0;
		t->child_execd |= pid == t->child;
		if (n && n != e)
			tracee_drop(t, n->tid);	/* last: it may move e */
		break;
	case PTRACE_EVENT_EXIT:
		if (own_mm(t, e) && last_thread(c, pid)) {
			read_map(c, pid, line);
			dprintf(c->out, "%s", line);
		}
		break;
	}
}

int pagemap_supervise(struct pagemap_ctx *c, pid_t child)
{
	struct tracees t = { .child = child };
	int st, root = -1;
	struct tracee *e;
	pid_t pid;

	if (waitpid(child, &st, 0) < 0 || !WIFSTOPPED(st))
		return WIFSTOPPED(st) ? -1 : st;
	ptrace(PTRACE_SETOPTIONS, child, NULL,
	       (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK | PTRACE_O_TRACECLONE |
			      PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESECCOMP |
			      PTRACE_O_EXITKILL));
	ptrace(PTRACE_CONT, child, NULL, NULL);
	for (;;) {
		int sig, event;

		pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			free(t.v);
			return errno == ECHILD && root != -1 ? root : -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (pid == child)
				root = st;
			tracee_drop(&t, pid);
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		e = tracee(&t, pid);
		if (!e) {
			free(t.v);
			errno = ENOMEM;
			return -1;
		}
		sig = WSTOPSIG(st);
		event = st >> 16;
		/* any stop but a successful exec's after an exec call's entry: the call failed */
		if (event != PTRACE_EVENT_EXEC)
			e->pending[0] = '\0';
		if (event) {
			on_event(c, &t, e, event);
			sig = 0;	/* fork, clone, exec: the new tracee is followed */
		} else if (sig == SIGSTOP && !e->started) {
			/* a new tracee's first stop: held until its parent's event says what it is */
			e->started = 1;
			sig = 0;
			if (!e->announced) {
				e->held = 1;
				continue;
			}
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
}
