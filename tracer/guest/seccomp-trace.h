/* SPDX-License-Identifier: GPL-2.0 */
/*
 * seccomp-trace.h - the seccomp filter the guest's ptrace tracers install in the process
 * they trace before it execs (ft-sites: the mapping calls; ft-launch -m: execve and
 * execveat; bench/sites-stops.c: mmap and munmap): SECCOMP_RET_TRACE, a
 * PTRACE_EVENT_SECCOMP stop at the call's entry, for the given calls of the native ABI,
 * SECCOMP_RET_ALLOW for every other call and every call of another ABI. A process under
 * it with no tracer that set PTRACE_O_TRACESECCOMP gets ENOSYS from those calls.
 */
#ifndef FT_SECCOMP_TRACE_H
#define FT_SECCOMP_TRACE_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

#if defined(__x86_64__)
#define FT_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FT_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#else
#error "seccomp-trace.h: x86_64 and arm64 only"
#endif

#define FT_SECCOMP_MAX_CALLS 8	/* calls one filter traces, at most */

/*
 * seccomp_trace_calls - install the filter for the n (at most FT_SECCOMP_MAX_CALLS) call
 * numbers nr. The caller sets no_new_privs first unless it has CAP_SYS_ADMIN.
 * Return: 0, or -1 (errno).
 */
static inline int seccomp_trace_calls(const unsigned int *nr, unsigned int n)
{
	struct sock_filter f[4 + 2 * FT_SECCOMP_MAX_CALLS + 1] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FT_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	};
	struct sock_fprog prog = { .filter = f };
	unsigned int i, len = 4;

	if (n > FT_SECCOMP_MAX_CALLS) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < n; i++) {
		/* this call: trace it; another: skip to the next test */
		f[len++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr[i], 0, 1);
		f[len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	}
	f[len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)len;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
}

#endif /* FT_SECCOMP_TRACE_H */
