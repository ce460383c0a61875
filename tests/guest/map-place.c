/* map-place: where the kernel places anonymous mappings without an address hint, for
 * tests/guest/map-place.sh. Maps, in order, A (1 MiB), B (4 MiB, a multiple of the PMD
 * size) and C (4 MiB + 4 KiB, not a multiple), B with MAP_NORESERVE so that it merges with
 * neither neighbour (its VMA flags differ), writes the first page of each and prints
 * "MAP name start end" per mapping. Top-down placement puts each below the one before. */
#include <stdio.h>
#include <sys/mman.h>

static char *map(const char *name, size_t len, int extra)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra,
		       -1, 0);

	if (p == MAP_FAILED) {
		perror("map-place: mmap");
		return NULL;
	}
	p[0] = 1;
	printf("MAP %s 0x%lx 0x%lx\n", name, (unsigned long)p, (unsigned long)(p + len));
	return p;
}

int main(void)
{
	if (!map("A", 1UL << 20, 0) || !map("B", 4UL << 20, MAP_NORESERVE) ||
	    !map("C", (4UL << 20) + 4096, 0))
		return 1;
	return 0;
}
