// SPDX-License-Identifier: GPL-2.0
/* spawn.c - run helper programs for the host side of a guest run; see spawn.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm/spawn.h"
#include "lib/error.h"
#include "lib/strbuf.h"

/* argv[0] with stdin from /dev/null; its stdout into out if out, else inherited */
static int run(char *const argv[], struct strbuf *out)
{
	int status, fd, pipefd[2] = { -1, -1 };
	char buf[4096];
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (out && pipe(pipefd))
		return fail("cannot make a pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		if (out) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return fail("cannot fork: %s", strerror(errno));
	}
	if (pid == 0) {
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 0);
			close(fd);
		}
		if (out) {
			dup2(pipefd[1], 1);
			close(pipefd[0]);
			close(pipefd[1]);
		}
		execv(argv[0], argv);
		fprintf(stderr, "foliotrace: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		close(pipefd[1]);
		while ((n = read(pipefd[0], buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			strbuf_add(out, buf, (size_t)n);
		}
		close(pipefd[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return fail("cannot wait for %s: %s", argv[0], strerror(errno));
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int vm_spawn(char *const argv[])
{
	return run(argv, NULL);
}

int vm_spawn_capture(char *const argv[], struct strbuf *out)
{
	return run(argv, out);
}

static char home[PATH_MAX] = ".";

void vm_set_home(const char *dir)
{
	snprintf(home, sizeof(home), "%s", dir);
}

const char *vm_home(void)
{
	return home;
}

const char *vm_path(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int slot;
	char *p = buf[slot++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", vm_home(), rel);
	return p;
}

const char *vm_bundled_path(const char *arch, const char *name)
{
	char rel[PATH_MAX];
	int tree = !access(vm_path("Makefile"), F_OK);

	snprintf(rel, sizeof(rel), "%sworkloads/%s/%s", tree ? "build/" : "", arch, name);
	return vm_path(rel);
}
