/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftr.h - the guest replay file ("FTR"): a recorded trace's anonymous memory behaviour, per
 * process, as the operations the in-guest replayer performs. Written by replay/export.c on
 * the host, read by replay/guest/ft-replayer.c in the guest (a static program that sees only
 * this header and libc), specified here and in docs/guest-replay.md ("File format").
 *
 * Header only and self-contained (no lib/, no db/): the replayer is built static for every
 * guest arch by the workloads rule of the Makefile.
 *
 * Layout: a 32-byte header, then nr_procs process records back to back. Integers in the
 * header are little-endian; everything after it is unsigned LEB128 (varint: 7 bits per
 * byte, low group first, at most 10 bytes). Addresses are in base pages (byte address >>
 * page_shift), so the file is the same on every arch with the same page size.
 *
 * A decoder never reads past the buffer: every function returns -1 on a truncated or
 * malformed input.
 */
#ifndef FT_REPLAY_GUEST_FTR_H
#define FT_REPLAY_GUEST_FTR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FTR_MAGIC	"FTRP"
#define FTR_VERSION	1
#define FTR_HEADER_SIZE	32
#define FTR_NO_PARENT	UINT32_MAX
#define FTR_COMM_MAX	15		/* TASK_COMM_LEN - 1 */

/* vm_flags bits the replayer reproduces (include/linux/mm.h, 6.1) */
#define FTR_VM_READ		0x1ULL
#define FTR_VM_WRITE		0x2ULL
#define FTR_VM_EXEC		0x4ULL
#define FTR_VM_NORESERVE	0x00200000ULL	/* MAP: map with MAP_NORESERVE (see below) */
#define FTR_VM_HUGEPAGE		0x20000000ULL
#define FTR_VM_NOHUGEPAGE	0x40000000ULL
/*
 * The part of vm_flags that tells two mappings apart for the replayer (and the kernel's
 * merge rule as far as the replayer can reproduce it). FTR_VM_NORESERVE is the exporter's
 * choice, not the recording's: the kernel never merges a VM_NORESERVE mapping with one
 * that is accounted (VM_ACCOUNT), and neither flag changes how an anonymous fault is
 * served, so a MAP next to a mapping the recording kept apart (a brk heap right after
 * .bss, which brk() never merges) gets the other state.
 */
#define FTR_VM_CLASS (FTR_VM_READ | FTR_VM_WRITE | FTR_VM_EXEC | FTR_VM_HUGEPAGE | \
		      FTR_VM_NOHUGEPAGE | FTR_VM_NORESERVE)

/*
 * Operations; values are stored, never renumber. The tag byte holds the kind in bits 0-3;
 * bit 4 is WRITE for TOUCH; other bits must be 0. Fields follow the tag, all varints.
 */
enum ftr_op_kind {
	FTR_OP_TOUCH = 0,	/* zigzag(page - previous touch page of this process): one
				 * byte read (or written, bit 4) at the page's first byte */
	FTR_OP_MAP = 1,		/* page, npages, vm_flags: mmap anonymous private there
				 * (MAP_NORESERVE if vm_flags has FTR_VM_NORESERVE) */
	FTR_OP_PROTECT = 2,	/* page, npages, vm_flags: mprotect/madvise to these flags */
	FTR_OP_MUNMAP = 3,	/* page, npages */
	FTR_OP_DONTNEED = 4,	/* page, npages: madvise(MADV_DONTNEED) */
	FTR_OP_FREE = 5,	/* page, npages: madvise(MADV_FREE) */
	FTR_OP_MREMAP = 6,	/* page, npages, new_page: move (MREMAP_FIXED) */
	FTR_OP_FORK = 7,	/* child index: fork, the child replays that process, wait */
	FTR_OP_EXIT = 8,	/* the process exits */
	FTR_OP_NR
};
#define FTR_TAG_WRITE 0x10

struct ftr_header {
	uint32_t version;	/* FTR_VERSION */
	uint32_t page_shift;	/* log2 of the base page size of the recording */
	uint32_t nr_procs;	/* process records that follow */
	int64_t trace_id;	/* trace.trace_id of the recording */
	uint64_t nr_touches;	/* TOUCH operations in the file, all processes */
};

/* One process record, decoded; pointers point into the file buffer. */
struct ftr_proc {
	uint32_t index;		/* position in the file, 0.. */
	uint32_t parent;	/* index of the process that forks it, FTR_NO_PARENT if it is
				 * replayed on its own (a child of the replayer) */
	uint32_t proc_id;	/* process.proc_id in the recorded trace */
	int64_t pid;		/* recorded tgid */
	char comm[FTR_COMM_MAX + 1];
	uint32_t nr_clusters;	/* address ranges of its family (only if parent is none) */
	const uint8_t *clusters;	/* encoded clusters, see ftr_cluster_next() */
	const uint8_t *clusters_end;
	uint64_t nr_ops;	/* operations */
	const uint8_t *ops;	/* encoded operations */
	const uint8_t *ops_end;
};

struct ftr_op {
	uint8_t kind;		/* enum ftr_op_kind */
	uint8_t write;		/* TOUCH: 1 for a write */
	uint64_t page;		/* TOUCH .. MREMAP: first page */
	uint64_t npages;	/* MAP..MREMAP: pages */
	uint64_t arg;		/* MAP/PROTECT: vm_flags; MREMAP: new page;
				 * FORK: child index */
};

/* ---- varints ---- */

static inline int ftr_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	unsigned int shift = 0;

	while (*p < end && shift < 70) {
		uint8_t b = *(*p)++;

		if (shift == 63 && (b & 0x7e))
			return -1;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

/* Append v to buf (at least 10 bytes free); Return: bytes written. */
static inline size_t ftr_put_varint(uint8_t *buf, uint64_t v)
{
	size_t n = 0;

	do {
		buf[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static inline uint64_t ftr_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t ftr_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint64_t ftr_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

/* ---- decoding ---- */

/* Return: 0 and *h filled, -1 if buf is not an FTR file of a version we read. */
static inline int ftr_read_header(const void *buf, size_t len, struct ftr_header *h)
{
	const uint8_t *p = buf;

	if (len < FTR_HEADER_SIZE || memcmp(p, FTR_MAGIC, 4))
		return -1;
	h->version = (uint32_t)ftr_le(p + 4, 1);
	h->page_shift = (uint32_t)ftr_le(p + 5, 1);
	h->nr_procs = (uint32_t)ftr_le(p + 8, 4);
	h->trace_id = (int64_t)ftr_le(p + 16, 8);
	h->nr_touches = ftr_le(p + 24, 8);
	if (h->version != FTR_VERSION || h->page_shift < 10 || h->page_shift > 20 ||
	    ftr_le(p + 6, 2) || ftr_le(p + 12, 4))
		return -1;
	return 0;
}

/*
 * Decode the process record at *p (the first one is at buf + FTR_HEADER_SIZE) and advance
 * *p past it. index is the position expected. Return: 0, or -1 if malformed.
 */
static inline int ftr_read_proc(const uint8_t **p, const uint8_t *end, uint32_t index,
				struct ftr_proc *pr)
{
	uint64_t v, n, i, len;

	memset(pr, 0, sizeof(*pr));
	if (ftr_get_varint(p, end, &v) || v != index)
		return -1;
	pr->index = index;
	if (ftr_get_varint(p, end, &v) || v > UINT32_MAX)
		return -1;
	pr->parent = v ? (uint32_t)(v - 1) : FTR_NO_PARENT;
	if (ftr_get_varint(p, end, &v) || v > UINT32_MAX)
		return -1;
	pr->proc_id = (uint32_t)v;
	if (ftr_get_varint(p, end, &v))
		return -1;
	pr->pid = ftr_unzigzag(v);
	if (*p >= end || **p > FTR_COMM_MAX || (size_t)(end - *p) < 1U + **p)
		return -1;
	len = *(*p)++;
	memcpy(pr->comm, *p, len);
	pr->comm[len] = '\0';
	*p += len;
	if (ftr_get_varint(p, end, &n) || n > UINT32_MAX)
		return -1;
	pr->nr_clusters = (uint32_t)n;
	pr->clusters = *p;
	for (i = 0; i < 2 * n; i++)
		if (ftr_get_varint(p, end, &v))
			return -1;
	pr->clusters_end = *p;
	if (ftr_get_varint(p, end, &pr->nr_ops) || ftr_get_varint(p, end, &len) ||
	    len > (uint64_t)(end - *p))
		return -1;
	pr->ops = *p;
	pr->ops_end = *p + len;
	*p += len;
	return 0;
}

/*
 * Clusters: nr_clusters pairs (gap, npages), where the cluster's first page is the end of
 * the previous cluster (0 for the first) plus gap. Clusters are disjoint, ascending and
 * never adjacent (adjacent ranges are one cluster). *prev_end carries the previous end.
 */
static inline int ftr_cluster_next(const uint8_t **p, const uint8_t *end, uint64_t *prev_end,
				   uint64_t *page, uint64_t *npages)
{
	uint64_t gap;

	if (ftr_get_varint(p, end, &gap) || ftr_get_varint(p, end, npages) || !*npages)
		return -1;
	*page = *prev_end + gap;
	if (*page < *prev_end || *page + *npages < *page)
		return -1;
	*prev_end = *page + *npages;
	return 0;
}

/*
 * Next operation of a process. *last_touch is the previous TOUCH page (0 at the start).
 * Return: 1 and *op filled, 0 at the end of the operations, -1 if malformed.
 */
static inline int ftr_op_next(const uint8_t **p, const uint8_t *end, uint64_t *last_touch,
			      struct ftr_op *op)
{
	uint8_t tag;
	uint64_t v;

	if (*p >= end)
		return 0;
	memset(op, 0, sizeof(*op));
	tag = *(*p)++;
	op->kind = tag & 0x0f;
	if (op->kind >= FTR_OP_NR || (tag & 0xe0) || ((tag & FTR_TAG_WRITE) && op->kind))
		return -1;
	switch (op->kind) {
	case FTR_OP_TOUCH:
		if (ftr_get_varint(p, end, &v))
			return -1;
		op->write = !!(tag & FTR_TAG_WRITE);
		op->page = *last_touch + (uint64_t)ftr_unzigzag(v);
		*last_touch = op->page;
		return 1;
	case FTR_OP_MAP:
	case FTR_OP_PROTECT:
	case FTR_OP_MREMAP:
		if (ftr_get_varint(p, end, &op->page) || ftr_get_varint(p, end, &op->npages) ||
		    ftr_get_varint(p, end, &op->arg) || !op->npages)
			return -1;
		return 1;
	case FTR_OP_MUNMAP:
	case FTR_OP_DONTNEED:
	case FTR_OP_FREE:
		if (ftr_get_varint(p, end, &op->page) || ftr_get_varint(p, end, &op->npages) ||
		    !op->npages)
			return -1;
		return 1;
	case FTR_OP_FORK:
		return ftr_get_varint(p, end, &op->arg) ? -1 : 1;
	default:	/* EXIT */
		return 1;
	}
}

static inline const char *ftr_op_name(unsigned int kind)
{
	static const char *const names[FTR_OP_NR] = {
		"touch", "map", "protect", "munmap", "dontneed", "free", "mremap", "fork", "exit"
	};

	return kind < FTR_OP_NR ? names[kind] : "?";
}

#endif /* FT_REPLAY_GUEST_FTR_H */
