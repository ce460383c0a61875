/* SPDX-License-Identifier: GPL-2.0 */
/*
 * launch-pagemap.h - ft-launch -m FILE (run.sh --pagemap, docs/guest.md "Page maps at
 * exit"): each workload process's page map read at its exit, as tools/mm/thpmaps --cont
 * reads one, to count the 64K blocks arm64's contpte can fold, against the simulator's
 * contpte_runs_exit.
 *
 * ft-launch traces its child with ptrace, following forks, vforks and clones, and stops
 * each thread at its exit (PTRACE_O_TRACEEXIT) and at each exec call's entry (a seccomp
 * filter returning SECCOMP_RET_TRACE for execve and execveat): at the exit of an address
 * space's last thread, and at the entry of an exec that replaces it, the mm is still
 * whole, so /proc/PID/pagemap and /proc/kpageflags give every anonymous page's frame and
 * folio. The line read at an exec's entry is written only if the exec succeeds. A vfork
 * child's exec or exit ends no address space (its mm is its parent's): none is read.
 * Only those stops (and forks, clones, which are continued at once) stop the workload,
 * so the fault stream is unchanged. What it cannot see: a CLONE_VM child that is neither
 * a thread nor a vfork child (its exit is read as if its mm were its own); `--sites`
 * traces the workload with ptrace already, so the two do not combine.
 */
#ifndef FT_LAUNCH_PAGEMAP_H
#define FT_LAUNCH_PAGEMAP_H

#include <sys/types.h>

struct pagemap_ctx {
	int out;		/* the FILE lines go to */
	int proc;		/* /proc, opened before any chroot */
	int kpageflags;		/* /proc/kpageflags */
};

/* pagemap_open - the files, before ft-launch enters a root. Return: 0, or -1 (errno). */
int pagemap_open(struct pagemap_ctx *c, const char *path);

/*
 * pagemap_child - in the forked child, before its exec: a seccomp filter that stops every
 * exec call at its entry (for its tracer), then become traced and stop.
 * Return: 0, or -1 (errno; the child must not go on: an untraced exec would fail).
 */
int pagemap_child(void);

/*
 * pagemap_supervise - trace child (stopped in pagemap_child()) and every process it
 * starts until child exits; at each address space's end one line
 *	PAGEMAP pid=N comm=NAME anon_pages=N contpte_blocks=N
 * anon_pages: present anonymous pages; contpte_blocks: 64K-aligned virtual blocks of 16
 * present anonymous PTEs mapping 16 consecutive frames, the first 64K-aligned, of one
 * folio smaller than the PMD size (PMD-mapped THPs are not PTE runs).
 * Return: child's wait status, or -1 (errno) if waiting failed.
 */
int pagemap_supervise(struct pagemap_ctx *c, pid_t child);

#endif /* FT_LAUNCH_PAGEMAP_H */
