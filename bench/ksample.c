// SPDX-License-Identifier: GPL-2.0
/*
 * ksample.c - bench/host-time.sh's measure of one host run: `sh -c CMD` REP times in a row,
 * each in the kernel-time sampler of vm/ksample.h (a cgroup v2 group, cpu-clock sampled
 * per cpu every VM_KSAMPLE_PERIOD_NS); one line on stdout, the mean per invocation:
 *
 *	kernel_us user_us stime_us utime_us minflt sampled
 *
 * kernel_us and user_us the samples' (sampled 0: the rusage's), stime_us and utime_us the
 * rusage of the process tree (tick-split: the cross-check). CMD's output goes to /dev/null.
 *
 *   ksample REP CMD		exit 1 if CMD failed or could not be measured
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "vm/ksample.h"

int main(int argc, char **argv)
{
	struct vm_ksampler *k;
	struct vm_ksample ks;
	double sum[5] = { 0 };
	long rep, r;
	int st, fd, ret = 1;
	pid_t pid;

	if (argc != 3 || (rep = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: ksample REP CMD\n");
		return 2;
	}
	k = vm_ksample_open();
	if (!k)
		fprintf(stderr, "ksample: not sampled (%s): the rusage's system time\n",
			vm_ksample_why());
	for (r = 0; r < rep; r++) {
		pid = fork();
		if (pid < 0)
			goto out;
		if (pid == 0) {
			fd = open("/dev/null", O_RDWR);
			if (fd >= 0) {
				dup2(fd, 0);
				dup2(fd, 1);
				dup2(fd, 2);
			}
			if (vm_ksample_enter(k))
				_exit(126);
			execl("/bin/sh", "sh", "-c", argv[2], (char *)NULL);
			_exit(127);
		}
		if (vm_ksample_wait(k, pid, &st, &ks)) {
			fprintf(stderr, "ksample: %s\n", error_text());
			goto out;
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "ksample: the command failed (status %d): %s\n", st, argv[2]);
			goto out;
		}
		sum[0] += (double)ks.kernel_ns;
		sum[1] += (double)ks.user_ns;
		sum[2] += (double)ks.stime_ns;
		sum[3] += (double)ks.utime_ns;
		sum[4] += (double)ks.minflt;
	}
	printf("%.0f %.0f %.0f %.0f %.0f %d\n", sum[0] / 1e3 / rep, sum[1] / 1e3 / rep,
	       sum[2] / 1e3 / rep, sum[3] / 1e3 / rep, sum[4] / rep, k != NULL);
	ret = 0;
out:
	vm_ksample_close(k);
	return ret;
}
