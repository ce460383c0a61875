// SPDX-License-Identifier: GPL-2.0
/*
 * ft-replayer.c - the in-guest replayer: re-runs a recorded trace's anonymous memory
 * behaviour, read from a guest replay file (replay/guest/ftr.h, docs/guest-replay.md),
 * under whatever order policy the guest kernel's knob is set to.
 *
 *	ft-replayer [--check] FILE
 *
 * Each process of the file that was not forked in the recording is replayed in its own
 * child of the replayer, one after another; a FORK operation forks the replaying process,
 * the child replays the forked process to its end and the parent waits for it, then goes
 * on. A process first places its family's address ranges (clusters): at the recorded
 * addresses if they are free (MAP_FIXED_NOREPLACE), else at an offset that is a multiple
 * of the PMD size, so every block the kernel may map keeps its alignment. Then it performs
 * the operations in order: a TOUCH reads or writes one byte at the page's first byte, MAP,
 * PROTECT, MUNMAP, DONTNEED, FREE and MREMAP call the system call of the same name.
 *
 * Output (stdout), one line each, for the host to find the replayed memory in the guest's
 * trace (the host stores these lines as the trace_meta key replay_map):
 *	FTREPLAY proc=INDEX proc_id=RECORDED_ID pid=GUEST_TGID parent=INDEX|-1
 *	FTREPLAY_CLUSTER proc=INDEX start=0xADDR end=0xADDR offset=BYTES
 *	RESULT ft-replayer pid=.. procs=.. touches=.. ops=.. relocated=.. failed=.. status=0|1
 * A failed operation prints "FTREPLAY_ERROR proc=INDEX op=NAME ...: errno text" and ends
 * that process with status 1.
 *
 * Static, libc only, no allocation once a process replays: a malloc could take address
 * space a later MAP needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ftr.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MADV_FREE
#define MADV_FREE 8
#endif

#define MAX_CLUSTERS 4096
#define MAX_PIECES 1024		/* VMAs one replayed mremap() may span (move_pieces()) */

struct cluster {
	uint64_t start;		/* recorded, bytes */
	uint64_t end;		/* recorded, bytes, exclusive */
	int64_t offset;		/* replayed address - recorded address, bytes */
};

static const uint8_t *file;
static size_t file_len;
static struct ftr_header hdr;
static struct ftr_proc *procs;
static unsigned int shift;
static uint64_t pmd_size;	/* bytes mapped by one page-table page: alignment kept */
static struct cluster clusters[MAX_CLUSTERS];
static unsigned int nr_clusters, last_cluster;

/* Print one line with write(2): no stdio buffer to share across fork. */
__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, (size_t)n) < 0)
		return;
}

static void die(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ft-replayer: %s\n", buf);
	exit(1);
}

static int read_file(const char *path)
{
	struct stat sb;
	uint8_t *buf;
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &sb))
		die("cannot open %s: %s", path, strerror(errno));
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf)
		die("out of memory for %s", path);
	while (got < (size_t)sb.st_size) {
		n = read(fd, buf + got, (size_t)sb.st_size - got);
		if (n <= 0)
			die("cannot read %s: %s", path, n ? strerror(errno) : "short file");
		got += (size_t)n;
	}
	close(fd);
	file = buf;
	file_len = got;
	return 0;
}

/* Decode the header and every process record; validate every operation. */
static void load(const char *path)
{
	const uint8_t *p, *end;
	uint32_t i;

	read_file(path);
	if (ftr_read_header(file, file_len, &hdr))
		die("%s is not a guest replay file of version %d", path, FTR_VERSION);
	procs = calloc(hdr.nr_procs ? hdr.nr_procs : 1, sizeof(*procs));
	if (!procs)
		die("out of memory");
	p = file + FTR_HEADER_SIZE;
	end = file + file_len;
	for (i = 0; i < hdr.nr_procs; i++) {
		const uint8_t *o;
		uint64_t last = 0, n = 0;
		struct ftr_op op;
		int r;

		if (ftr_read_proc(&p, end, i, &procs[i]))
			die("%s: process record %u is malformed", path, i);
		if (procs[i].parent != FTR_NO_PARENT && procs[i].parent >= i)
			die("%s: process %u is forked by a later process", path, i);
		for (o = procs[i].ops; (r = ftr_op_next(&o, procs[i].ops_end, &last, &op)) > 0;
		     n++)
			if (op.kind == FTR_OP_FORK && (op.arg <= i || op.arg >= hdr.nr_procs))
				die("%s: process %u forks a bad process %llu", path, i,
				    (unsigned long long)op.arg);
		if (r < 0 || n != procs[i].nr_ops)
			die("%s: operations of process %u are malformed", path, i);
	}
	if (p != end)
		die("%s: %zu bytes after the last process", path, (size_t)(end - p));
	shift = hdr.page_shift;
	/* a page-table page holds page_size / 8 entries */
	pmd_size = 1ULL << (shift + shift - 3);
}

/* ---- address placement ---- */

static void *try_fixed(uint64_t addr, uint64_t len)
{
	void *m = mmap((void *)addr, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	if ((uint64_t)m != addr) {	/* a kernel that took it as a hint */
		munmap(m, len);
		return NULL;
	}
	return m;
}

/*
 * Place the clusters of family root: each at its recorded address if free, else at the
 * lowest address of a fresh reservation that is congruent to it modulo the PMD size.
 * All are held PROT_NONE until every one is placed, so two cannot land on each other,
 * then released: the MAP operations take them with MAP_FIXED_NOREPLACE.
 */
static int place(const struct ftr_proc *root)
{
	const uint8_t *p = root->clusters;
	uint64_t prev = 0, page, n;
	unsigned int i;

	nr_clusters = 0;
	last_cluster = 0;
	if (root->nr_clusters > MAX_CLUSTERS) {
		say("FTREPLAY_ERROR proc=%u op=place: %u clusters, at most %d", root->index,
		    root->nr_clusters, MAX_CLUSTERS);
		return -1;
	}
	for (i = 0; i < root->nr_clusters; i++) {
		struct cluster *c = &clusters[nr_clusters];
		uint64_t len, addr, g;
		void *m;

		if (ftr_cluster_next(&p, root->clusters_end, &prev, &page, &n))
			return -1;
		c->start = page << shift;
		c->end = (page + n) << shift;
		len = c->end - c->start;
		/* recorded addresses beyond this machine's address space are relocated too */
		if (c->end >> shift == page + n && try_fixed(c->start, len)) {
			c->offset = 0;
			nr_clusters++;
			continue;
		}
		m = mmap(NULL, len + pmd_size, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED) {
			say("FTREPLAY_ERROR proc=%u op=place start=0x%llx len=%llu: %s",
			    root->index, (unsigned long long)c->start, (unsigned long long)len,
			    strerror(errno));
			return -1;
		}
		g = (uint64_t)m;
		addr = g + ((c->start - g) & (pmd_size - 1));
		if (addr > g)
			munmap(m, addr - g);
		if (g + pmd_size > addr)
			munmap((void *)(addr + len), g + pmd_size - addr);
		c->offset = (int64_t)(addr - c->start);
		nr_clusters++;
	}
	for (i = 0; i < nr_clusters; i++) {
		struct cluster *c = &clusters[i];

		munmap((void *)(c->start + (uint64_t)c->offset), c->end - c->start);
		say("FTREPLAY_CLUSTER proc=%u start=0x%llx end=0x%llx offset=%lld", root->index,
		    (unsigned long long)c->start, (unsigned long long)c->end,
		    (long long)c->offset);
	}
	return 0;
}

/* Replayed address of a recorded one; 0 if it lies in no cluster (a bad file). */
static inline uint64_t xlate(uint64_t addr)
{
	const struct cluster *c = &clusters[last_cluster];
	unsigned int lo = 0, hi = nr_clusters;

	if (nr_clusters && addr >= c->start && addr < c->end)
		return addr + (uint64_t)c->offset;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (clusters[mid].end <= addr) {
			lo = mid + 1;
		} else if (clusters[mid].start > addr) {
			hi = mid;
		} else {
			last_cluster = mid;
			return addr + (uint64_t)clusters[mid].offset;
		}
	}
	return 0;
}

/* ---- operations ---- */

static int prot_of(uint64_t flags)
{
	return (flags & FTR_VM_READ ? PROT_READ : 0) | (flags & FTR_VM_WRITE ? PROT_WRITE : 0) |
	       (flags & FTR_VM_EXEC ? PROT_EXEC : 0);
}

static int advise(void *addr, uint64_t len, uint64_t flags)
{
	if ((flags & FTR_VM_NOHUGEPAGE) && madvise(addr, len, MADV_NOHUGEPAGE))
		return -1;
	if ((flags & FTR_VM_HUGEPAGE) && madvise(addr, len, MADV_HUGEPAGE))
		return -1;
	return 0;
}

/* Add [s, e) clipped to [a, a + len) to piece[]. Return: 0, or -1 (E2BIG: max reached). */
static int add_piece(uint64_t s, uint64_t e, uint64_t a, uint64_t len, uint64_t (*piece)[2],
		     int *n, int max)
{
	if (s < a)
		s = a;
	if (e > a + len)
		e = a + len;
	if (s >= e)
		return 0;
	if (*n == max) {
		errno = E2BIG;
		return -1;
	}
	piece[*n][0] = s;
	piece[(*n)++][1] = e;
	return 0;
}

/*
 * Each VMA of [a, a + len) as /proc/self/maps lists it, clipped to the range, into
 * piece[][2] (start, end), in address order. Return: how many, or -1 with errno. Only a
 * line's first field ("START-END", hex) is kept, read through a small buffer: no
 * allocation, no large .bss that could take address space a recorded range needs.
 */
static int vma_pieces(uint64_t a, uint64_t len, uint64_t (*piece)[2], int max)
{
	char buf[4096], head[48];
	size_t hl = 0;
	ssize_t got, i;
	int fd = open("/proc/self/maps", O_RDONLY), n = 0, skip = 0, ret = 0;

	if (fd < 0)
		return -1;
	while (!ret && (got = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < got && !ret; i++) {
			char *q;

			if (buf[i] != '\n') {
				if (buf[i] == ' ')
					skip = 1;
				else if (!skip && hl < sizeof(head) - 1)
					head[hl++] = buf[i];
				continue;
			}
			head[hl] = '\0';
			if (hl) {
				uint64_t s = strtoull(head, &q, 16);

				if (*q == '-')
					ret = add_piece(s, strtoull(q + 1, NULL, 16), a, len,
							piece, &n, max);
			}
			hl = 0;
			skip = 0;
		}
	}
	if (!ret && got < 0)
		ret = -1;
	close(fd);
	return ret ? -1 : n;	/* every line ends with a newline: none is left in head */
}

/*
 * The recording's one mremap() of [a, a + len) to b, where the replay holds that range as
 * several VMAs: a mapping the recording grew with mremap() is replayed as the moved part
 * and an mmap() beside it, which the kernel does not merge (a moved anonymous VMA keeps its
 * page offset, which the new one's does not continue), and 6.1 and 6.12 move one VMA a call
 * (a range over two is EFAULT; 6.17 moves several). Each VMA of the range goes to the same
 * offset from b, all listed before the first moves.
 */
static int move_pieces(uint64_t a, uint64_t len, uint64_t b)
{
	uint64_t piece[MAX_PIECES][2];
	int n = vma_pieces(a, len, piece, MAX_PIECES), i;

	if (n < 0)
		return -1;
	if (!n) {
		errno = EFAULT;
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t l = piece[i][1] - piece[i][0];

		if (mremap((void *)piece[i][0], l, l, MREMAP_MAYMOVE | MREMAP_FIXED,
			   (void *)(b + (piece[i][0] - a))) == MAP_FAILED)
			return -1;
	}
	return 0;
}

static void replay(uint32_t index);

static int do_op(const struct ftr_op *op)
{
	uint64_t a = xlate(op->page << shift), len = op->npages << shift, b;
	void *m;
	pid_t child;
	int st;

	if (!a && op->kind != FTR_OP_FORK && op->kind != FTR_OP_EXIT) {
		errno = EFAULT;
		return -1;
	}
	switch (op->kind) {
	case FTR_OP_TOUCH:
		if (op->write)
			*(volatile uint8_t *)a = 1;
		else
			(void)*(volatile uint8_t *)a;
		return 0;
	case FTR_OP_MAP:
		m = mmap((void *)a, len, prot_of(op->arg), MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE | (op->arg & FTR_VM_NORESERVE ? MAP_NORESERVE : 0),
			 -1, 0);
		if (m == MAP_FAILED)
			return -1;
		if ((uint64_t)m != a) {
			munmap(m, len);
			errno = EEXIST;
			return -1;
		}
		return advise(m, len, op->arg);
	case FTR_OP_PROTECT:
		if (mprotect((void *)a, len, prot_of(op->arg)))
			return -1;
		return advise((void *)a, len, op->arg);
	case FTR_OP_MUNMAP:
		return munmap((void *)a, len);
	case FTR_OP_DONTNEED:
		return madvise((void *)a, len, MADV_DONTNEED);
	case FTR_OP_FREE:
		return madvise((void *)a, len, MADV_FREE);
	case FTR_OP_MREMAP:
		b = xlate(op->arg << shift);
		if (!b) {
			errno = EFAULT;
			return -1;
		}
		m = mremap((void *)a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)b);
		if (m != MAP_FAILED)
			return 0;
		return errno == EFAULT ? move_pieces(a, len, b) : -1;
	case FTR_OP_FORK:
		child = fork();
		if (child < 0)
			return -1;
		if (!child)
			replay((uint32_t)op->arg);	/* does not return */
		if (waitpid(child, &st, 0) != child)
			return -1;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			say("FTREPLAY_ERROR proc=%llu op=exit: status %d",
			    (unsigned long long)op->arg,
			    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			errno = ECHILD;
			return -1;
		}
		return 0;
	default:	/* EXIT */
		_exit(0);
	}
}

/* Replay process index in this process, then exit. */
static void replay(uint32_t index)
{
	const struct ftr_proc *pr = &procs[index];
	const uint8_t *p = pr->ops;
	uint64_t last = 0;
	struct ftr_op op;

	say("FTREPLAY proc=%u proc_id=%u pid=%d parent=%d", index, pr->proc_id, (int)getpid(),
	    pr->parent == FTR_NO_PARENT ? -1 : (int)pr->parent);
	if (pr->parent == FTR_NO_PARENT && place(pr))
		_exit(1);
	while (ftr_op_next(&p, pr->ops_end, &last, &op) > 0) {
		if (do_op(&op)) {
			say("FTREPLAY_ERROR proc=%u op=%s page=0x%llx npages=%llu arg=0x%llx: %s",
			    index, ftr_op_name(op.kind), (unsigned long long)op.page,
			    (unsigned long long)op.npages, (unsigned long long)op.arg,
			    strerror(errno));
			_exit(1);
		}
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int check = 0, failed = 0, st;
	uint32_t i, families = 0;
	const char *path;

	if (argc == 3 && !strcmp(argv[1], "--check")) {
		check = 1;
		path = argv[2];
	} else if (argc == 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
		path = argv[1];
	} else {
		fprintf(argc == 2 ? stdout : stderr, "usage: ft-replayer [--check] FILE\n");
		return argc == 2 ? 0 : 2;
	}
	load(path);
	if (!check && (1UL << shift) != (unsigned long)sysconf(_SC_PAGESIZE))
		die("%s was recorded with %lu-byte pages, this system has %ld", path,
		    1UL << shift, sysconf(_SC_PAGESIZE));
	for (i = 0; i < hdr.nr_procs; i++)
		families += procs[i].parent == FTR_NO_PARENT;
	if (check) {
		printf("RESULT ft-replayer check=1 trace=%lld procs=%u families=%u touches=%llu "
		       "page_size=%lu status=0\n", (long long)hdr.trace_id, hdr.nr_procs, families,
		       (unsigned long long)hdr.nr_touches, 1UL << shift);
		return 0;
	}
	fflush(stdout);
	for (i = 0; i < hdr.nr_procs; i++) {
		pid_t child;

		if (procs[i].parent != FTR_NO_PARENT)
			continue;
		child = fork();
		if (child < 0)
			die("cannot fork: %s", strerror(errno));
		if (!child)
			replay(i);
		if (waitpid(child, &st, 0) != child)
			die("cannot wait for the replay of process %u: %s", i, strerror(errno));
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			say("FTREPLAY_ERROR proc=%u op=exit: status %d", i,
			    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			failed++;
		}
	}
	say("RESULT ft-replayer pid=%d trace=%lld procs=%u families=%u touches=%llu failed=%d "
	    "status=%d", (int)getpid(), (long long)hdr.trace_id, hdr.nr_procs, families,
	    (unsigned long long)hdr.nr_touches, failed, failed ? 1 : 0);
	return failed ? 1 : 0;
}
