/* SPDX-License-Identifier: GPL-2.0 */
/*
 * launch-pagemap.h - ft-launch -m FILE (run.sh --pagemap, docs/guest.md "Page maps at
 * exit"): each workload process's page map read at its exit, as tools/mm/thpmaps --cont
 * reads one, to count the 64K blocks arm64's contpte can fold, against the simulator's
 * contpte_runs_exit.
 *
 * ft-launch traces its child with ptrace, following forks and clones, and stops each
 * thread at its exit (PTRACE_O_TRACEEXIT): at the exit of an address space's last thread
 * the mm is still whole, so /proc/PID/pagemap and /proc/kpageflags give every anonymous
 * page's frame and folio. Only exits stop the workload (and forks, clones, execs, which
 * are continued at once), so the fault stream is unchanged. What it cannot see: an
 * address space replaced by exec (there is no stop before the old mm goes) and a vfork
 * child's exit (its mm is the parent's, which lives on); `--sites` traces the workload
 * with ptrace already, so the two do not combine.
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

/* pagemap_child - in the forked child, before its exec: become traced and stop. */
void pagemap_child(void);

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
