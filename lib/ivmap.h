/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ivmap.h - a sorted map of disjoint half-open intervals [start, end) of u64 keys, each with
 * a u64 value: an address space as its owners paint it. Setting an interval replaces what
 * it covers, removing one splits the intervals at its edges; nothing is merged unless the
 * caller asks (ivmap_merge()).
 *
 * Users: the call-site attribution's per-process ownership map (tracer/sites-owner.c:
 * bytes, value a call index) and the exporter's model of the replayer's mappings
 * (replay/export-model.c: pages, value vm_flags, merged by class as the kernel merges
 * VMAs). The keys' unit is the caller's. replay/policy-persite.c's painting of site
 * ranges is the same operation (one map per process, ivmap_set() in call order, the order
 * as value) and could use it.
 *
 * Invariant, after every call: v[0, n) sorted by start, v[i].start < v[i].end <=
 * v[i + 1].start. Tuned for: tens to thousands of intervals per map, looked up far more
 * often than changed; a lookup is a binary search, a change one memmove (O(n)).
 */
#ifndef FT_LIB_IVMAP_H
#define FT_LIB_IVMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ivmap_entry {
	uint64_t start;		/* first key */
	uint64_t end;		/* one past the last key */
	uint64_t val;		/* the caller's: an owner, flags */
};

struct ivmap {
	struct ivmap_entry *v;	/* NULL while nothing was ever set */
	size_t n, cap;		/* entries used, allocated */
};

#define IVMAP_INIT { NULL, 0, 0 }

/* Index of the first interval ending after key (n if none): where a walk of key.. starts. */
size_t ivmap_lower(const struct ivmap *m, uint64_t key);

/* Index of the interval holding key, or -1. */
ssize_t ivmap_find(const struct ivmap *m, uint64_t key);

/* Take [start, end) out of m, splitting the intervals at its edges. start >= end: nothing. */
void ivmap_remove(struct ivmap *m, uint64_t start, uint64_t end);

/* Map [start, end) to val, replacing what was there. start >= end: nothing. */
void ivmap_set(struct ivmap *m, uint64_t start, uint64_t end, uint64_t val);

/*
 * ivmap_merge - join each pair of touching intervals (a.end == b.start) for which
 * same(a.val, b.val) holds; the joined interval keeps the left one's value.
 */
void ivmap_merge(struct ivmap *m, int (*same)(uint64_t a, uint64_t b));

/* Make dst a copy of src (dst's old intervals dropped, its array reused). */
void ivmap_copy(struct ivmap *dst, const struct ivmap *src);

/* Free m's array; m is then empty and may be used again. */
void ivmap_release(struct ivmap *m);

#endif /* FT_LIB_IVMAP_H */
