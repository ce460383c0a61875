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
#include <sys/wait.h>
#include <unistd.h>

#include "launch-pagemap.h"

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

int pagemap_open(struct pagemap_ctx *c, const char *path)
{
	c->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	c->proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c->kpageflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	return c->out < 0 || c->proc < 0 || c->kpageflags < 0 ? -1 : 0;
}

void pagemap_child(void)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		raise(SIGSTOP);
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

/* pid's address space now: one PAGEMAP line. */
static void read_map(struct pagemap_ctx *c, pid_t pid)
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
		dprintf(c->out, "PAGEMAP pid=%d comm=%s error=%d\n", (int)pid, comm, errno);
		goto out;
	}
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long lo, hi;

		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2)
			scan_vma(c, pm, lo, hi, &pages, &blocks);
	}
	dprintf(c->out, "PAGEMAP pid=%d comm=%s anon_pages=%lu contpte_blocks=%lu\n", (int)pid,
		comm, pages, blocks);
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

int pagemap_supervise(struct pagemap_ctx *c, pid_t child)
{
	int st, root = -1;
	pid_t pid;

	if (waitpid(child, &st, 0) < 0 || !WIFSTOPPED(st))
		return WIFSTOPPED(st) ? -1 : st;
	ptrace(PTRACE_SETOPTIONS, child, NULL,
	       (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK | PTRACE_O_TRACECLONE |
			      PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
	ptrace(PTRACE_CONT, child, NULL, NULL);
	for (;;) {
		int sig, event;

		pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD && root != -1 ? root : -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (pid == child)
				root = st;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		event = st >> 16;
		if (event == PTRACE_EVENT_EXIT) {
			if (last_thread(c, pid))
				read_map(c, pid);
			sig = 0;
		} else if (event) {
			sig = 0;	/* fork, clone, exec: the new tracee is followed */
		} else if (sig == SIGSTOP) {
			sig = 0;	/* a new tracee's first stop */
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
}
