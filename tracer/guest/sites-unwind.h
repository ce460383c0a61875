/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sites-unwind.h - unwinding a thread stopped in a system call, for the call-site tracer:
 * libunwind's remote unwinder driven by our own accessors (registers from one
 * PTRACE_GETREGS, memory by the 4 KiB chunk with process_vm_readv or /proc/PID/mem,
 * unwind tables and names from sites-elf.c, /proc/PID/maps read again only when a traced
 * call changed the file mappings). docs/sites.md, "Unwinding" and "Cost".
 *
 * Not thread-safe: one unwind at a time (the tracer is single-threaded).
 */
#ifndef FT_SITES_UNWIND_H
#define FT_SITES_UNWIND_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct ft_frame {
	uint64_t ip;
	const char *module;	/* path as /proc/PID/maps shows it, NULL: in no file mapping */
	uint64_t module_off;	/* file offset of ip in module, bytes */
	const char *proc;	/* function symbol, NULL: none known (stripped) */
	uint64_t proc_off;	/* ip - the symbol's address, bytes */
};

/* What the tracer did, for the side file's last line (bench/sites-overhead.sh). */
struct ft_unwind_stats {
	unsigned long unwinds;
	unsigned long frames;
	unsigned long page_reads;	/* 4 KiB chunks read (process_vm_readv or /proc/PID/mem) */
	unsigned long peeks;		/* PTRACE_PEEKDATA fallbacks (a chunk not readable whole) */
	unsigned long maps_reads;	/* /proc/PID/maps reads */
	unsigned long snapshots;	/* stacks read at a stop, to unwind after the resume */
	unsigned long late_reads;	/* writable chunks read after the thread ran again */
	uint64_t unwind_ns;		/* CLOCK_MONOTONIC time spent unwinding and naming */
};

extern struct ft_unwind_stats ft_unwind_stats;

/* Before the workload starts: the address spaces of its first processes. */
void ft_unwind_init(void);
/*
 * tgid is a new process or image (after its exec): what its first unwind would set up
 * (its slot, /proc/TGID/mem), done now. Call it with the thread running again: then it
 * costs the workload nothing.
 */
void ft_unwind_prepare(pid_t tgid);
/*
 * Unwind thread tid of process tgid, stopped with registers r, into f[0..max).
 * The frames' strings stay valid until the next call of any ft_unwind_* function.
 * Return: "ok" (the outermost frame reached) or why it stopped (docs/sites.md).
 */
const char *ft_unwind(pid_t tgid, pid_t tid, const struct user_regs_struct *r,
		      struct ft_frame *f, int max, int *nr);

/*
 * Return: 1 if tgid's file mappings stay as they are while its call nr with arguments a
 * runs, and the call cannot unmap the stack above sp (the stack pointer at the call): its
 * thread can then be resumed before it is unwound, from ft_unwind_snapshot()'s copy.
 */
int ft_unwind_during_call(pid_t tgid, long nr, const unsigned long a[6], uint64_t sp);
/*
 * Begin an unwind of thread tid of tgid, stopped with stack pointer sp: read the stack's
 * chunks from sp's up now, so that the next ft_unwind() of tgid can run after the thread
 * was resumed. Return: 0, or -1 (nothing of the stack readable: ft_unwind still works,
 * from live memory).
 */
int ft_unwind_snapshot(pid_t tgid, pid_t tid, uint64_t sp);
/*
 * A traced call of tgid was let run (its result is not known): file mappings may change.
 * After the call's unwind.
 */
void ft_unwind_after_call(pid_t tgid, long nr, const unsigned long a[6]);
/* child is a new process; shares_mm: it may share parent's address space (vfork, CLONE_VM). */
void ft_unwind_fork(pid_t parent, pid_t child, int shares_mm);

/* tgid exec'ed: a new address space. */
void ft_unwind_exec(pid_t tgid);

/* tgid's leader ended: forget the process. */
void ft_unwind_exit(pid_t tgid);

#endif
