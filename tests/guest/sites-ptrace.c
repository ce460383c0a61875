// SPDX-License-Identifier: GPL-2.0
/*
 * sites-ptrace.c - a workload that itself uses ptrace, for tests/guest/sites-hostile.sh:
 * what `record --sites` does to a program that is a debugger of its own children.
 *
 * A forked child asks to be traced (PTRACE_TRACEME), the parent tries to attach to a
 * second child (PTRACE_ATTACH); each outcome is printed as "ok" or the errno's name.
 * Under the call-site tracer both processes are already traced, so both fail with EPERM;
 * without it both succeed and the parent acts as the debugger (waits for the stops,
 * detaches). Then each side maps and writes a known number of pages from a named
 * function: "EXPECT fn=NAME faults=N" (child_map 32, parent_map 16; order-0 faults).
 * Last line: "RESULT sites-ptrace pid=N traceme=E attach=E status=0".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE	4096ul

static const char *outcome(long r)
{
	return r == 0 ? "ok" : errno == EPERM ? "EPERM" : strerror(errno);
}

/* Map and write n pages; print the expected faults. */
static void touch(const char *fn, unsigned long n)
{
	char *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	unsigned long i;

	if (p == MAP_FAILED)
		exit(1);
	for (i = 0; i < n; i++)
		p[i * PAGE] = 1;
	printf("EXPECT fn=%s faults=%lu\n", fn, n);
	fflush(stdout);
}

__attribute__((noipa)) static void child_map(void)
{
	touch("child_map", 32);
}

__attribute__((noipa)) static void parent_map(void)
{
	touch("parent_map", 16);
}

int main(void)
{
	int fds[2], st;
	char traceme[32] = "?";
	const char *attach;
	pid_t a, b;
	long r;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (pipe(fds))
		return 1;
	a = fork();
	if (a < 0)
		return 1;
	if (a == 0) {
		const char *o;

		r = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		o = outcome(r);
		if (write(fds[1], o, strlen(o) + 1) < 0)
			_exit(1);
		child_map();
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], traceme, sizeof(traceme) - 1) <= 0)
		return 1;
	/* if TRACEME worked, the child's exit is reported to us as its tracer */
	if (waitpid(a, &st, 0) != a || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;

	b = fork();
	if (b < 0)
		return 1;
	if (b == 0) {
		for (;;)
			pause();
	}
	r = ptrace(PTRACE_ATTACH, b, NULL, NULL);
	attach = outcome(r);
	if (r == 0) {
		/* we are its debugger: wait for the attach stop, let it go */
		waitpid(b, &st, 0);
		ptrace(PTRACE_DETACH, b, NULL, NULL);
	}
	kill(b, SIGKILL);
	waitpid(b, &st, 0);
	parent_map();
	printf("RESULT sites-ptrace pid=%d traceme=%s attach=%s status=0\n", (int)getpid(),
	       traceme, attach);
	return 0;
}
