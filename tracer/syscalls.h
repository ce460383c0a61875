/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls.h - the system calls whose exits the trace's sites channel records (`lttng
 * enable-event -k -c sites --syscall mmap,munmap,mremap,brk,madvise`, docs/sites.md): the
 * calls the call-site tracer (tracer/guest/ft-sites.c) stops. One table for the collector,
 * which stores each syscall_exit_<name> event as a sys_exit row named <name>
 * (tracer/collect.c), and for the side file's pairing, which reads those rows back
 * (tracer/sites-pair.c).
 */
#ifndef FT_TRACER_SYSCALLS_H
#define FT_TRACER_SYSCALLS_H

/* X(UPPER, lower) per call, in this order: enum collect_kind's CK_SYS_* follow it */
#define FT_SYSCALLS(X) X(MMAP, mmap) X(MUNMAP, munmap) X(MREMAP, mremap) X(BRK, brk) \
	X(MADVISE, madvise)

enum ft_syscall {
#define FT_SYSCALL_ENUM(u, l) FT_SYS_##u,
	FT_SYSCALLS(FT_SYSCALL_ENUM)
#undef FT_SYSCALL_ENUM
	FT_SYS_NR
};

/* sys_exit.call of each: the system call's name ("mmap") */
extern const char *const ft_syscall_names[FT_SYS_NR];

/*
 * ft_syscall_lookup - the table's entry for a sys_exit.call value.
 * Return: its name in ft_syscall_names (a pointer that outlives every row), or NULL when
 * name is NULL or not one of the table's calls.
 */
const char *ft_syscall_lookup(const char *name);

#endif /* FT_TRACER_SYSCALLS_H */
