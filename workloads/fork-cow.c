// SPDX-License-Identifier: GPL-2.0
/*
 * fork-cow - copy-on-write after fork.
 *
 * The parent maps SIZE (2M aligned) and writes every page: first-touch faults (anon_fault).
 * It forks (anon_mm_dup): both processes now share those pages write-protected. The child
 * writes every other page, starting with the first: each write copies a page the parent
 * still maps (anon_cow), then the child exits (anon_zap cause exit). The parent waits and
 * writes every page again: each is one write-protect fault, normally resolved by reusing
 * the page, since the child is gone and the parent is its only user.
 *
 * Each process prints its own RESULT line (the child's first) with the faults of its
 * measured phase only. Both check the contents: the child sees the parent's data in the
 * pages it did not write, and the parent sees none of the child's writes.
 */
#include "wl-common.h"

#include <getopt.h>
#include <sys/wait.h>

static const char usage[] = "[--size S (default 16M)]";

/* The measured phases: write @v to one byte every @stride bytes of [p, p + size). */
static __attribute__((noinline)) void fill(volatile unsigned char *p, size_t size,
					   size_t stride, unsigned char v)
{
	size_t off;

	for (off = 0; off < size; off += stride) {
		p[off] = v;
	}
}

/*
 * Return: 0 if the first byte of page i holds @even for even i and @odd for odd i, else -1
 * with a message. Reads mapped pages only: no fault.
 */
static int check(const unsigned char *p, size_t size, size_t page, unsigned char even,
		 unsigned char odd)
{
	size_t i;

	for (i = 0; i * page < size; i++) {
		unsigned char want = i % 2 ? odd : even;

		if (p[i * page] != want) {
			return wl_error("page %zu reads %u, want %u", i, p[i * page], want);
		}
	}
	return 0;
}

/* The child: COW-write the even pages, check, report. Never returns. */
static void __attribute__((noreturn)) child(unsigned char *p, size_t size, size_t page)
{
	struct wl_faults before, delta;
	int status;

	/* After fork the stack is copy-on-write and the text is not yet mapped in the child:
	 * fault both in before the first reading. */
	fill(p, 0, 2 * page, 2);
	wl_faults_warmup();
	before = wl_faults_now();
	fill(p, size, 2 * page, 2);
	delta = wl_faults_since(before);

	status = check(p, size, page, 2, 1) ? 1 : 0;
	if (wl_result("role=child size=%zu touched=%zu minflt=%ld majflt=%ld status=%d",
		      size, (size / page + 1) / 2, delta.minflt, delta.majflt,
		      status)) {
		exit(1);
	}
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t page = wl_page_size();
	uint64_t size = 16 << 20;
	struct wl_faults before, first, again;
	int c, wstatus, child_status, status = 0;
	unsigned char *p;
	pid_t pid;

	wl_prog = "fork-cow";
	while ((c = wl_getopt(argc, argv, opts, usage, 0)) != -1) {
		switch (c) {
		case 's':
			size = wl_opt_size("--size", optarg);
			break;
		}
	}
	wl_check_pages("--size", size);

	p = wl_map_aligned(size);
	if (!p) {
		wl_die("cannot map %" PRIu64 " bytes: %s", size, strerror(errno));
	}
	fill(p, 0, page, 1);
	wl_faults_warmup();
	before = wl_faults_now();
	fill(p, size, page, 1);
	first = wl_faults_since(before);

	fflush(stdout); /* nothing buffered may be printed twice */
	pid = fork();
	if (pid < 0) {
		wl_die("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		child(p, size, page);
	}
	if (waitpid(pid, &wstatus, 0) != pid) {
		wl_die("waitpid: %s", strerror(errno));
	}
	child_status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	if (check(p, size, page, 1, 1) || child_status) {
		status = 1;
	}

	/* Our stack became write-protected at fork too: fault it in first. */
	fill(p, 0, page, 3);
	wl_faults_warmup();
	before = wl_faults_now();
	fill(p, size, page, 3);
	again = wl_faults_since(before);

	if (wl_result("role=parent size=%" PRIu64 " touched=%" PRIu64
		      " minflt_first=%ld minflt=%ld majflt=%ld child_pid=%d child_status=%d"
		      " status=%d",
		      size, size / page, first.minflt, again.minflt,
		      first.majflt + again.majflt, (int)pid, child_status, status)) {
		exit(1);
	}
	return status;
}
