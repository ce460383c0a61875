// SPDX-License-Identifier: GPL-2.0
/*
 * sites-stops.c - what one traced mapping call costs the workload under ft-sites'
 * mechanism (seccomp SECCOMP_RET_TRACE + ptrace), without any unwinding: a static program
 * run in the guest by bench/sites-stops.sh (docs/sites.md, "Cost").
 *
 *	sites-stops [N]
 *
 * A child maps, touches and unmaps one 4 KiB page N times (2N traced calls) and times
 * its loop with CLOCK_MONOTONIC; the parent traces it the way ft-sites does, one mode at
 * a time. Per mode one line:
 *	STOPS mode=NAME calls=2N ns_per_call=X extra_ns_per_call=Y
 * extra = (loop time - the untraced loop's) / calls: what the tracing adds per call.
 * Modes, each also "-cpu0" (tracer and child both pinned to CPU 0: one vCPU) and "-split"
 * (the child on CPU 0, the tracer on CPU 1: neither vCPU switches between them):
 *	plain		no tracer, no filter
 *	cont		seccomp stop, PTRACE_CONT: one stop per call
 *	regs		seccomp stop, PTRACE_GETREGS, PTRACE_CONT: ft-sites' one stop per call
 *	syscall		seccomp stop, GETREGS, PTRACE_SYSCALL; syscall-exit stop, GETREGS,
 *			PTRACE_CONT: the two stops per call ft-sites made before the
 *			kernel's syscall exit events gave the result (side file version 1)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

#include "../tracer/guest/seccomp-trace.h"

enum mode { PLAIN, CONT, REGS, SYSCALL };
static const char *const names[] = { "plain", "cont", "regs", "syscall" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Where tracer and child run: anywhere, both on CPU 0, or the child on 0, the tracer on 1. */
enum place { FREE, CPU0, SPLIT, NR_PLACES };
static const char *const place_names[NR_PLACES] = { "", "-cpu0", "-split" };

/* Pin the calling process to cpu, or, for cpu < 0, let it run anywhere. */
static void pin(int cpu)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (cpu < 0 ? i < sysconf(_SC_NPROCESSORS_ONLN) : i == cpu)
			CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int get_regs(pid_t pid)
{
#if defined(__x86_64__)
	struct user_regs_struct r;

	return (int)ptrace(PTRACE_GETREGS, pid, NULL, &r);
#else
	struct user_regs_struct r;
	struct iovec iov = { &r, sizeof(r) };

	return (int)ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov);
#endif
}

/* The child: filter (traced modes), then the loop; its time goes to the pipe. */
static void child(enum mode m, long n, int fd)
{
	static const unsigned int calls[] = { __NR_mmap, __NR_munmap };
	uint64_t t0, t;
	long i;

	if (m != PLAIN) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(1);
		raise(SIGSTOP);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || seccomp_trace_calls(calls, 2))
			_exit(1);
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		p[0] = 1;
		munmap((void *)p, 4096);
	}
	t = now_ns() - t0;
	if (write(fd, &t, sizeof(t)) != sizeof(t))
		_exit(1);
	_exit(0);
}

/* One run of mode m; return: the child's loop time, ns, or 0 on failure. */
static uint64_t run(enum mode m, long n, enum place place)
{
	int fds[2], status, in_call = 0;
	uint64_t t = 0;
	pid_t pid;

	if (pipe(fds))
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		if (place != FREE)
			pin(0);
		child(m, n, fds[1]);
	}
	close(fds[1]);
	pin(place == CPU0 ? 0 : place == SPLIT ? 1 : -1);
	if (m != PLAIN) {
		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
		    ptrace(PTRACE_SETOPTIONS, pid, NULL,
			   PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
			return 0;
		ptrace(PTRACE_CONT, pid, NULL, NULL);
		while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
			int seccomp = status >> 16 == PTRACE_EVENT_SECCOMP;
			int sysexit = WSTOPSIG(status) == (SIGTRAP | 0x80) && in_call;
			int sig = WSTOPSIG(status);

			if (seccomp && m >= REGS)
				get_regs(pid);
			if (seccomp && m == SYSCALL) {
				in_call = 1;
				ptrace(PTRACE_SYSCALL, pid, NULL, NULL);
				continue;
			}
			if (sysexit) {
				get_regs(pid);
				in_call = 0;
			}
			sig = seccomp || sysexit || sig == SIGTRAP ? 0 : sig;
			ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
		}
	}
	if (read(fds[0], &t, sizeof(t)) != sizeof(t))
		t = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return t;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	int place, m, rep;

	if (n <= 0) {
		fprintf(stderr, "usage: sites-stops [N]\n");
		return 2;
	}
	for (place = FREE; place < NR_PLACES; place++) {
		uint64_t best[4] = { 0 };

		/* 3 rounds, modes interleaved; the fastest of each (a loaded host only adds) */
		for (rep = 0; rep < 3; rep++) {
			for (m = PLAIN; m <= SYSCALL; m++) {
				uint64_t t = run(m, n, place);

				if (!t) {
					fprintf(stderr, "sites-stops: mode %s failed\n", names[m]);
					return 1;
				}
				if (!best[m] || t < best[m])
					best[m] = t;
			}
		}
		for (m = PLAIN; m <= SYSCALL; m++)
			printf("STOPS mode=%s%s calls=%ld ns_per_call=%.0f extra_ns_per_call=%.0f\n",
			       names[m], place_names[place], 2 * n, (double)best[m] / (2 * n),
			       ((double)best[m] - (double)best[PLAIN]) / (2 * n));
	}
	return 0;
}
