// SPDX-License-Identifier: GPL-2.0
/*
 * ksample.c - vm/ksample.h on this machine: a kernel-heavy command (dd copying 1.5 GiB of
 * /dev/zero to /dev/null: clear_user() in a read loop) measured by the sampler has kernel
 * time of the order of its rusage's system time and little user time; where the sampler
 * cannot be had (no cgroup v2, no perf events, not root) it says why and the measures are
 * the rusage's. Its group is gone after close. Bounds are loose: the load of a shared
 * machine moves both.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "tests/unit/tap.h"
#include "vm/ksample.h"

static int run(struct vm_ksampler *k, const char *cmd, int *st, struct vm_ksample *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (vm_ksample_enter(k))
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return vm_ksample_wait(k, pid, st, out);
}

int main(void)
{
	struct vm_ksampler *k;
	struct vm_ksample ks;
	char dir[4096] = "";
	struct stat sb;
	int st = -1;

	plan(6);
	k = vm_ksample_open();
	if (k)
		snprintf(dir, sizeof(dir), "%s", vm_ksample_dir(k));
	else
		diag("not sampled here: %s", vm_ksample_why());
	ok(k ? !stat(dir, &sb) && S_ISDIR(sb.st_mode) : !!*vm_ksample_why(),
	   k ? "a group of its own: %s" : "no sampler, and why: %s", k ? dir : vm_ksample_why());
	ok(run(k, "dd if=/dev/zero of=/dev/null bs=1M count=1536 2> /dev/null", &st, &ks) == 0 &&
	   WIFEXITED(st) && !WEXITSTATUS(st), "dd measured, exit 0");
	diag("sampled %d: kernel %.1f ms user %.1f ms, rusage system %.1f ms user %.1f ms",
	     ks.sampled, ks.kernel_ns / 1e6, ks.user_ns / 1e6, ks.stime_ns / 1e6,
	     ks.utime_ns / 1e6);
	ok(ks.sampled == !!k, "sampled as the sampler opened (%d)", ks.sampled);
	ok(ks.kernel_ns > ks.stime_ns / 2 && ks.kernel_ns < ks.stime_ns * 2 + 20000000,
	   "kernel time within a factor 2 of the rusage's system time");
	ok(ks.user_ns < ks.kernel_ns, "dd's user time below its kernel time");
	vm_ksample_close(k);
	ok(!*dir || stat(dir, &sb), "the group removed on close");
	return done_testing();
}
