// SPDX-License-Identifier: GPL-2.0
/* spawn.c - run helper programs for the host side of a guest run; see spawn.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vm/spawn.h"
#include "lib/error.h"
#include "lib/strbuf.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Hand w the complete lines of *acc (a partial last line stays; all if flush), each
 * followed by a tick: what a line announces is on the share before the line is written,
 * so the tick after it shows at least that. Also the lines read after the program
 * exited (flush): it may exit before its last lines are read, and each still gets its
 * state (the caller's tick with exited set ends the display).
 */
static void give_lines(const struct vm_watch *w, struct strbuf *acc, int flush, double t0)
{
	size_t start = 0, i;

	for (i = 0; i < acc->len; i++) {
		if (acc->buf[i] != '\n')
			continue;
		acc->buf[i] = '\0';
		w->line(w->arg, acc->buf + start);
		w->tick(w->arg, now_s() - t0, 0);
		start = i + 1;
	}
	if (flush && start < acc->len) {
		w->line(w->arg, acc->buf + start);
		start = acc->len;
	}
	if (start) {
		memmove(acc->buf, acc->buf + start, acc->len - start);
		acc->len -= start;
		acc->buf[acc->len] = '\0';
	}
}

/*
 * Wait for pid, reading its stderr from fd for w. The pipe is polled with a timeout and
 * waitpid() asked without blocking, so a grandchild that keeps the pipe open after the
 * program exited (a daemon run.sh left behind) does not keep us waiting for EOF.
 */
static int watch(pid_t pid, int fd, const struct vm_watch *w, int *status)
{
	struct strbuf acc = STRBUF_INIT;
	double t0 = now_s(), last = t0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[4096];
	int open_ = 1, done = 0;
	ssize_t n;
	pid_t r;

	while (!done) {
		if (open_ && poll(&pfd, 1, (int)(w->interval_s * 1000)) > 0) {
			n = read(fd, buf, sizeof(buf));
			if (n > 0) {
				strbuf_add(&acc, buf, (size_t)n);
				give_lines(w, &acc, 0, t0);
			} else if (n == 0 || errno != EINTR) {
				open_ = 0;
			}
		} else if (!open_) {
			poll(NULL, 0, (int)(w->interval_s * 1000));
		}
		if (now_s() - last >= w->interval_s) {
			last = now_s();
			w->tick(w->arg, last - t0, 0);
		}
		r = waitpid(pid, status, WNOHANG);
		if (r < 0 && errno != EINTR) {
			strbuf_release(&acc);
			return fail("cannot wait for the program: %s", strerror(errno));
		}
		done = r == pid;
	}
	/* what it wrote just before exiting */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (open_ && (n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&acc, buf, (size_t)n);
	give_lines(w, &acc, 1, t0);
	w->tick(w->arg, now_s() - t0, 1);
	strbuf_release(&acc);
	return 0;
}

/*
 * argv[0] with stdin from /dev/null; its stdout into out if out, else inherited; its
 * stderr to w if w, else inherited.
 */
static int run(char *const argv[], struct strbuf *out, const struct vm_watch *w)
{
	int status, fd, pipefd[2] = { -1, -1 }, errfd[2] = { -1, -1 };
	char buf[4096];
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (out && pipe(pipefd))
		return fail("cannot make a pipe: %s", strerror(errno));
	if (w && pipe(errfd)) {
		if (out) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return fail("cannot make a pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		if (out) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		if (w) {
			close(errfd[0]);
			close(errfd[1]);
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
		if (w) {
			dup2(errfd[1], 2);
			close(errfd[0]);
			close(errfd[1]);
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
	if (w) {
		close(errfd[1]);
		n = watch(pid, errfd[0], w, &status);
		close(errfd[0]);
		if (n)
			return -1;
	} else {
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return fail("cannot wait for %s: %s", argv[0], strerror(errno));
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int vm_spawn(char *const argv[])
{
	return run(argv, NULL, NULL);
}

int vm_spawn_watch(char *const argv[], const struct vm_watch *w)
{
	return w ? run(argv, NULL, w) : vm_spawn(argv);
}

int vm_spawn_capture(char *const argv[], struct strbuf *out)
{
	return run(argv, out, NULL);
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
