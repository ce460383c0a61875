/*
 * bench/mmap-unalign.c - an LD_PRELOAD shim that places anonymous mappings the way Linux
 * 6.1 did, for bench/host-mthp.sh's check of where its gap comes from (docs/benchmarks.md).
 *
 * Since 6.7 (and since 6.13 only for lengths that are a multiple of the PMD size, 2 MiB on
 * x86_64) the kernel aligns an anonymous mmap() without an address hint to 2 MiB; 6.1, the
 * guest kernel, places it next to the previous mapping, at whatever page offset that gives.
 * A program's own mmap() calls of such lengths (gcc's garbage collector maps 2 MiB chunks)
 * are asked here for one page more, which the kernel does not align, and the extra page, the
 * lowest, is unmapped again: top-down placement then gives the mapping the address 6.1 gives
 * it, right below the previous one (so the two merge into one VMA, as on 6.1). Calls that
 * glibc makes internally (malloc) do not go through this symbol and are left alone.
 *
 *   gcc -O2 -shared -fPIC -o mmap-unalign.so bench/mmap-unalign.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#define PMD_BYTES (2UL << 20)	/* the alignment 6.7+ gives, bytes (x86_64, arm64 4K) */

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static mmap_fn real;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p;

	if (!real) {
		real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
	}
	if (addr || !(flags & MAP_ANONYMOUS) || (flags & MAP_FIXED) || !len ||
	    len % PMD_BYTES) {
		return real(addr, len, prot, flags, fd, off);
	}
	p = real(NULL, len + page, prot, flags, fd, off);
	if (p == MAP_FAILED) {
		return p;
	}
	munmap(p, page);
	return p + page;
}
