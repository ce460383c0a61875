/* hello-anon: a static program foliotrace does not bundle, for tests/guest/record.sh.
 * Maps 1 MiB of anonymous memory, writes every page, prints how many. */
#include <stdio.h>
#include <sys/mman.h>

int main(void)
{
	size_t len = 1 << 20, off;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("hello-anon: mmap");
		return 1;
	}
	for (off = 0; off < len; off += 4096)
		p[off] = 1;
	printf("hello-anon: touched %zu pages\n", len / 4096);
	return 0;
}
