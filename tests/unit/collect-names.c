// SPDX-License-Identifier: GPL-2.0
/*
 * collect-names.c - process names from sched_process_exec/fork/exit and the statedump
 * (tracer/collect.c): the kernel's rule (basename of the exec'd file, 15 characters), and
 * the one exception, a program that re-executes itself through /proc/{self,PID,
 * thread-self}/exe, which keeps the name it had instead of the kernel's "exe"
 * (docs/schema.md, process.comm). The expected names are written out by hand.
 */
#include <string.h>

#include "tests/unit/tap.h"
#include "tracer/collect.h"

static struct collect c;

static void ev(enum collect_kind k, const char *s, uint64_t a, uint64_t b, uint64_t d)
{
	struct collect_val v[4] = { { 0, s }, { a, NULL }, { b, NULL }, { d, NULL } };

	ft_collect_event(&c, k, 0, v);
}

static void exec_(int pid, const char *file) { ev(CK_EXEC, file, (uint64_t)pid, 0, 0); }
static void exit_(int pid, const char *comm) { ev(CK_EXIT, comm, (uint64_t)pid, 0, 0); }
static void fork_(int parent, int child, const char *comm)
{
	ev(CK_FORK, comm, (uint64_t)child, (uint64_t)child, (uint64_t)parent);
}

static const char *name(int pid)
{
	uint32_t i = ft_idmap_get(&c.comm_by_pid, (uint64_t)pid);

	return i == IDMAP_NONE ? "(none)" : c.comms[i];
}

static int is_name(int pid, const char *want)
{
	if (!strcmp(name(pid), want))
		return 1;
	diag("pid %d is '%s', want '%s'", pid, name(pid), want);
	return 0;
}

int main(void)
{
	plan(11);
	ft_collect_init(&c, NULL);
	exec_(10, "/usr/lib/foliotrace/malloc-churn");
	ok(is_name(10, "malloc-churn"), "an exec names the pid after the file's basename");
	exec_(10, "/proc/self/exe");
	ok(is_name(10, "malloc-churn"), "a re-exec through /proc/self/exe keeps the name");
	exit_(10, "exe");
	ok(is_name(10, "malloc-churn"), "  ... and the kernel's \"exe\" at exit does not rename it");
	fork_(10, 11, "exe");
	ok(is_name(11, "malloc-churn"), "a fork of the re-executed program takes its name");
	exec_(11, "/proc/11/exe");
	ok(is_name(11, "malloc-churn"), "a re-exec through /proc/PID/exe keeps the name");
	exec_(11, "/bin/a-very-long-program-name");
	ok(is_name(11, "a-very-long-pro"), "an exec of another file names it as the kernel does (15)");
	exit_(11, "exe");
	ok(is_name(11, "exe"), "  ... after which a kernel name \"exe\" is taken as it is");
	exec_(20, "/proc/thread-self/exe");
	ok(is_name(20, "exe"), "a re-exec of a pid never named before is \"exe\", as the kernel says");
	exec_(30, "/bin/sh");
	fork_(30, 31, "exe");
	ok(is_name(31, "exe"), "a fork named \"exe\" of a program that did not re-exec is \"exe\"");
	exec_(40, "/bin/sh");
	exec_(40, "/proc/selfish/exe");
	ok(is_name(40, "exe"), "/proc/selfish/exe is not /proc/self/exe");
	exec_(50, "/bin/worker");
	exec_(50, "/proc/self/exe");
	exit_(50, "renamed");
	ok(is_name(50, "renamed"), "a name set by the program itself (prctl) still applies");
	ft_collect_release(&c);
	return done_testing();
}
