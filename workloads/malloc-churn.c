// SPDX-License-Identifier: GPL-2.0
/*
 * malloc-churn - glibc malloc/free churn with touched memory (as will-it-scale malloc1,
 * but with a mix of sizes and the memory written).
 *
 * A seeded PRNG drives a table of live blocks: each step frees a random slot's block, if
 * any, and allocates a new one there, 1 in 8 large (128K to 4M: glibc serves those with
 * mmap and gives them back with munmap) and the rest small (16 bytes to 4K: carved from
 * the brk heap, which grows and is trimmed). The first --touch-fraction of every block is
 * written, one byte per page. A loop ends when it has requested --size bytes, then frees
 * every block. So the trace holds many short-lived, not 2M-aligned VMAs of varied sizes
 * next to one long-lived heap VMA that grows and shrinks: the case where a fixed large
 * order often does not fit and where partially touched blocks cost bloat.
 *
 * Determinism: the sequence depends only on the seed, glibc's dynamic mmap threshold is
 * pinned (mallopt), and the program re-executes itself once with address-space
 * randomization off (personality ADDR_NO_RANDOMIZE), so the addresses, and hence which
 * blocks fit a policy's alignment, repeat from run to run. aslr=1 in the result says
 * that this failed and addresses were random.
 */
#include "wl-common.h"

#include <getopt.h>
#include <malloc.h>
#include <sys/personality.h>

static const char usage[] =
	"[--size S (default 128M)] [--loops N (default 4)] [--touch-fraction F (default 1.0)]"
	" [--seed X (default 1)]";

#define SLOTS 32                 /* live blocks at most */
#define MMAP_THRESHOLD (128 << 10) /* bytes: glibc's default, pinned */
#define SMALL_MAX 4096           /* bytes: small blocks are 16..SMALL_MAX */
#define LARGE_MAX (4 << 20)      /* bytes: large blocks are MMAP_THRESHOLD..LARGE_MAX */

struct stats {
	uint64_t allocs;        /* malloc calls */
	uint64_t large;         /* of those, >= MMAP_THRESHOLD bytes */
	uint64_t requested;     /* bytes asked of malloc */
	uint64_t touched_bytes; /* bytes of the blocks' touched prefixes */
	uint64_t writes;        /* one-byte writes done */
};

struct block {
	unsigned char *p; /* NULL if the slot is free */
	size_t size;      /* bytes */
};

/* Write one byte in every page of [p, p + len): each page start, and the last byte. */
static uint64_t touch(volatile unsigned char *p, size_t len, size_t page)
{
	uint64_t n = 0;
	size_t off;

	for (off = 0; off < len; off += page, n++) {
		p[off] = 1;
	}
	if (len) {
		p[len - 1] = 1;
		n++;
	}
	return n;
}

/* Free every live block; check first that glibc served exactly the large ones by mmap. */
static void free_all(struct block *slot, int *status)
{
	uint64_t large = 0;
	int i;

	for (i = 0; i < SLOTS; i++) {
		large += slot[i].p && slot[i].size >= MMAP_THRESHOLD;
	}
	if ((uint64_t)mallinfo2().hblks != large) {
		*status = wl_error("%zu blocks are mmapped, expected %" PRIu64,
				   mallinfo2().hblks, large);
	}
	for (i = 0; i < SLOTS; i++) {
		free(slot[i].p);
		slot[i].p = NULL;
	}
}

static void churn(uint64_t size, uint64_t loops, double fraction, uint64_t seed,
		  struct stats *st, int *status)
{
	static struct block slot[SLOTS];
	size_t page = wl_page_size();
	uint64_t rng = seed, loop, asked;

	for (loop = 0; loop < loops; loop++) {
		for (asked = 0; asked < size;) {
			struct block *b = &slot[wl_rand_below(&rng, SLOTS)];
			int large = wl_rand_below(&rng, 8) == 0;
			size_t len;

			free(b->p);
			if (large) {
				b->size = MMAP_THRESHOLD +
					  wl_rand_below(&rng, LARGE_MAX - MMAP_THRESHOLD + 1);
			} else {
				b->size = 16 + wl_rand_below(&rng, SMALL_MAX - 16 + 1);
			}
			b->p = malloc(b->size);
			if (!b->p) {
				wl_die("cannot allocate %zu bytes: %s", b->size, strerror(errno));
			}
			len = (size_t)(b->size * fraction);
			st->allocs++;
			st->large += large;
			st->requested += b->size;
			st->touched_bytes += len;
			st->writes += touch(b->p, len, page);
			asked += b->size;
		}
		free_all(slot, status);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "loops", required_argument, NULL, 'l' },
		{ "touch-fraction", required_argument, NULL, 'f' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t size = 128 << 20, loops = 4, seed = 1;
	int persona = personality(0xffffffff), c;
	struct wl_faults before, delta;
	struct stats st = { 0 };
	double fraction = 1.0;
	int status = 0;
	char *end;

	wl_prog = "malloc-churn";
	/* Re-execute once without ASLR; if that is refused, go on with random addresses. */
	if (persona != -1 && !(persona & ADDR_NO_RANDOMIZE) &&
	    personality((unsigned long)persona | ADDR_NO_RANDOMIZE) != -1) {
		execv("/proc/self/exe", argv);
		personality((unsigned long)persona);
	}
	while ((c = wl_getopt(argc, argv, opts, usage, 0)) != -1) {
		switch (c) {
		case 's':
			size = wl_opt_size("--size", optarg);
			break;
		case 'l':
			loops = wl_opt_u64("--loops", optarg);
			break;
		case 'f':
			fraction = strtod(optarg, &end);
			if (*end || end == optarg || !(fraction >= 0.0 && fraction <= 1.0)) {
				wl_error("--touch-fraction must be a number from 0 to 1");
				exit(2);
			}
			break;
		case 'S':
			seed = wl_opt_u64("--seed", optarg);
			break;
		}
	}
	/* Fixed thresholds: setting M_MMAP_THRESHOLD turns off glibc's dynamic threshold,
	 * which would otherwise rise after the first free of a large block and move later
	 * large blocks onto the heap. */
	if (!mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) ||
	    !mallopt(M_TRIM_THRESHOLD, MMAP_THRESHOLD)) {
		wl_die("mallopt refused the thresholds");
	}

	/* The heap is set up by the first malloc, outside the measurement. */
	free(malloc(1));
	wl_faults_warmup();
	before = wl_faults_now();
	churn(size, loops, fraction, seed, &st, &status);
	delta = wl_faults_since(before);

	if (wl_result("size=%" PRIu64 " loops=%" PRIu64 " fraction=%.3f seed=%" PRIu64
		      " allocs=%" PRIu64 " large=%" PRIu64 " small=%" PRIu64
		      " requested=%" PRIu64 " touched_bytes=%" PRIu64 " writes=%" PRIu64
		      " minflt=%ld majflt=%ld aslr=%d status=%d",
		      size, loops, fraction, seed, st.allocs, st.large, st.allocs - st.large,
		      st.requested, st.touched_bytes, st.writes, delta.minflt, delta.majflt,
		      !(personality(0xffffffff) & ADDR_NO_RANDOMIZE), status ? 1 : 0)) {
		exit(1);
	}
	return status ? 1 : 0;
}
