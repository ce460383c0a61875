// SPDX-License-Identifier: GPL-2.0
/*
 * pf-loop - map, write every page, unmap, repeated (as will-it-scale page_fault1).
 *
 * Exercises the fault path and the zap path in a steady state: every loop's pages are
 * fresh first touches (anon_fault) that are all torn down by munmap (anon_zap cause
 * munmap), and the allocator gets back what it just gave, so the same PFNs tend to be
 * reused. Each loop maps through wl_map_aligned(), so each VMA is 2M aligned and the
 * fault count under a given policy is the same in every loop and every run.
 */
#include "wl-common.h"

#include <getopt.h>

static const char usage[] = "[--size S (default 16M)] [--loops N (default 8)]";

/*
 * One loop: map @size bytes, write one byte per page of the first @touch bytes, unmap.
 * Return: 0, or -1 with a message.
 */
static __attribute__((noinline)) int one_loop(size_t size, size_t touch, size_t page)
{
	volatile unsigned char *p = wl_map_aligned(size);
	size_t off;

	if (!p) {
		return wl_error("cannot map %zu bytes: %s", size, strerror(errno));
	}
	for (off = 0; off < touch; off += page) {
		p[off] = 1;
	}
	if (munmap((void *)p, size)) {
		return wl_error("munmap: %s", strerror(errno));
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "loops", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t page = wl_page_size();
	uint64_t size = 16 << 20, loops = 8, i;
	struct wl_faults before, delta;
	int c;

	wl_prog = "pf-loop";
	while ((c = wl_getopt(argc, argv, opts, usage, 0)) != -1) {
		switch (c) {
		case 's':
			size = wl_opt_size("--size", optarg);
			break;
		case 'l':
			loops = wl_opt_u64("--loops", optarg);
			break;
		}
	}
	wl_check_pages("--size", size);

	/* A pass that touches nothing faults in the code of one_loop(), mmap() and munmap()
	 * outside the measurement, and adds no anonymous fault to the trace. */
	if (one_loop(page, 0, page)) {
		exit(1);
	}
	wl_faults_warmup();
	before = wl_faults_now();
	for (i = 0; i < loops; i++) {
		if (one_loop(size, size, page)) {
			exit(1);
		}
	}
	delta = wl_faults_since(before);

	if (wl_result("size=%" PRIu64 " loops=%" PRIu64 " touched=%" PRIu64
		      " minflt=%ld majflt=%ld status=0",
		      size, loops, loops * (size / page), delta.minflt, delta.majflt)) {
		exit(1);
	}
	return 0;
}
