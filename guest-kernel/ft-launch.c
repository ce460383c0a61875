// SPDX-License-Identifier: GPL-2.0
/*
 * ft-launch.c - start the recorded workload in the guest and say which pid is its root.
 *
 *	ft-launch -p PIDFILE [-r ROOT] [-d DIR] [-e ENVFILE] [-m PAGEMAPFILE] -- PATH ARGV0 [ARG...]
 *
 * Runs in the guest's initramfs (static, part of the bundled set), started by /init after
 * tracing began. It enters ROOT (chroot) and DIR, replaces the environment with ENVFILE's
 * NAME=VALUE lines when given, then forks: the child execs PATH with argv ARGV0 ARG...,
 * the parent writes the child's pid to PIDFILE (opened before the chroot, so it lands
 * outside it) and exits with the child's status (128 + signal if it was killed).
 *
 * Why fork rather than exec: the workload must be a process tree of its own, rooted at a
 * pid that is only ever the workload. Every mm of that pid and of its descendants is the
 * workload's; the launcher's own mm (and the copy of it that fork makes for the child,
 * before the exec) belong to the guest's setup. The collector marks them apart from the
 * pid written here (header/workload_pid, docs/guest.md).
 *
 * -m: each workload address space's page map at its end (its exit, or an exec replacing
 * it), into PAGEMAPFILE (launch-pagemap.h);
 * ft-launch then waits for every process of the tree, not only the root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch-pagemap.h"

static void usage(void)
{
	fputs("usage: ft-launch -p PIDFILE [-r ROOT] [-d DIR] [-e ENVFILE] [-m PAGEMAPFILE] -- "
	      "PATH ARGV0 [ARG...]\n", stderr);
	exit(2);
}

/* Replace the environment with the NAME=VALUE lines of path. */
static int load_env(const char *path)
{
	static char buf[1 << 16];	/* the whole file; putenv keeps pointers into it */
	ssize_t n, len = 0;
	char *line, *nl;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0 || len == (ssize_t)sizeof(buf) - 1)
		return -1;
	buf[len] = '\0';
	clearenv();
	for (line = buf; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		else
			*nl = '\0';
		if (strchr(line, '=') && putenv(line))
			return -1;
		if (!nl[1])
			break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL, *root = NULL, *dir = NULL, *envfile = NULL, *pagemap = NULL;
	struct pagemap_ctx pm;
	int c, fd, status;
	pid_t pid;

	while ((c = getopt(argc, argv, "+p:r:d:e:m:")) != -1) {
		switch (c) {
		case 'p': pidfile = optarg; break;
		case 'r': root = optarg; break;
		case 'd': dir = optarg; break;
		case 'e': envfile = optarg; break;
		case 'm': pagemap = optarg; break;
		default: usage();
		}
	}
	if (!pidfile || argc - optind < 2)
		usage();
	fd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "ft-launch: cannot create %s: %s\n", pidfile, strerror(errno));
		return 125;
	}
	if (pagemap && pagemap_open(&pm, pagemap)) {
		fprintf(stderr, "ft-launch: cannot open %s, /proc or /proc/kpageflags: %s\n",
			pagemap, strerror(errno));
		return 125;
	}
	if (envfile && load_env(envfile)) {
		fprintf(stderr, "ft-launch: cannot read the environment %s\n", envfile);
		return 125;
	}
	/* a host program starts as from a login shell's default, not init's umask 0 */
	if (root)
		umask(022);
	if (root && (chroot(root) || chdir("/"))) {
		fprintf(stderr, "ft-launch: cannot enter the root %s: %s\n", root, strerror(errno));
		return 125;
	}
	if (dir && chdir(dir)) {
		fprintf(stderr, "ft-launch: cannot enter %s: %s\n", dir, strerror(errno));
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ft-launch: fork: %s\n", strerror(errno));
		return 125;
	}
	if (!pid) {
		if (pagemap && pagemap_child()) {
			fprintf(stderr, "ft-launch: cannot trace the workload for -m: %s\n",
				strerror(errno));
			_exit(125);
		}
		execv(argv[optind], argv + optind + 1);
		fprintf(stderr, "ft-launch: cannot execute %s: %s\n", argv[optind],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	dprintf(fd, "%d\n", (int)pid);
	close(fd);
	if (pagemap) {
		status = pagemap_supervise(&pm, pid);
		if (status < 0)
			return 125;
	} else {
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return 125;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
