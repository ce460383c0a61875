/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pageset.h - a hash map from a page key to a small non-zero value, the one page set of
 * replay/: the pages the recording showed present per process (export), the guest
 * measurement's page model per process (measure), the mapcounts of pages shared after
 * fork (sim.c, keyed by pfn).
 *
 * Open addressing with linear probing and backward-shift deletion (no tombstones, so
 * probe chains stay short after many deletions); at most half full. A value of 0 means
 * absent: values stored are never 0. Lookups are inline: the simulator calls them per COW.
 */
#ifndef FT_REPLAY_PAGESET_H
#define FT_REPLAY_PAGESET_H

#include <stddef.h>
#include <stdint.h>

#define RP_PS_PAGE_BITS 44		/* page numbers below 2^44: 64 TiB of 4K pages */
#define RP_PS_PAGE_MASK ((1ULL << RP_PS_PAGE_BITS) - 1)
#define RP_PS_ALL_PAGES (1ULL << RP_PS_PAGE_BITS)	/* hi bound: every page */

struct rp_pageset {
	uint64_t *key;			/* key + 1; 0 = empty slot */
	uint32_t *val;			/* value of the slot, never 0 */
	uint64_t cap;			/* slots, power of two; 0 before the first insert */
	uint64_t nr;			/* keys held, at most cap / 2 */
};

/* A (process, page) key. */
static inline uint64_t rp_ps_key(uint32_t proc, uint64_t page)
{
	return (uint64_t)proc << RP_PS_PAGE_BITS | (page & RP_PS_PAGE_MASK);
}

/*
 * Home slot of a stored key (key + 1): the low bits of a multiplication by an odd
 * constant, a bijection on them, so keys that differ only in their low bits (the pfns of
 * one block, the pages of one range) never share a home.
 */
static inline uint64_t rp_ps_home(const struct rp_pageset *t, uint64_t stored)
{
	return (stored * 0x9e3779b97f4a7c15ULL) & (t->cap - 1);
}

/* Slot index of key, or -1 if absent. */
static inline int64_t rp_pageset_slot(const struct rp_pageset *t, uint64_t key)
{
	uint64_t i;

	if (!t->cap)
		return -1;
	for (i = rp_ps_home(t, key + 1); t->key[i]; i = (i + 1) & (t->cap - 1))
		if (t->key[i] == key + 1)
			return (int64_t)i;
	return -1;
}

/* Value of key, 0 if absent. */
static inline uint32_t rp_pageset_get(const struct rp_pageset *t, uint64_t key)
{
	int64_t i = rp_pageset_slot(t, key);

	return i < 0 ? 0 : t->val[i];
}

/* Double the table (or make its first 1024 slots), keeping every entry. */
void rp_pageset_grow(struct rp_pageset *t);

/* Insert key, known to be absent (rp_pageset_slot() said -1), with val (non-zero). */
static inline void rp_pageset_add(struct rp_pageset *t, uint64_t key, uint32_t val)
{
	uint64_t i;

	if ((t->nr + 1) * 2 > t->cap)
		rp_pageset_grow(t);
	for (i = rp_ps_home(t, key + 1); t->key[i]; i = (i + 1) & (t->cap - 1))
		;
	t->key[i] = key + 1;
	t->val[i] = val;
	t->nr++;
}

/* Remove the entry in slot i (from rp_pageset_slot()). */
static inline void rp_pageset_del_slot(struct rp_pageset *t, uint64_t i)
{
	uint64_t j, home, mask = t->cap - 1;

	t->key[i] = 0;
	t->nr--;
	/* shift back every later entry of the chain that may not sit past the hole */
	for (j = (i + 1) & mask; t->key[j]; j = (j + 1) & mask) {
		home = rp_ps_home(t, t->key[j]);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->key[i] = t->key[j];
			t->val[i] = t->val[j];
			t->key[j] = 0;
			i = j;
		}
	}
}

/* Insert key with val (non-zero), or overwrite its value. */
void rp_pageset_set(struct rp_pageset *t, uint64_t key, uint32_t val);
/* Remove key; Return: the value it had, 0 if absent. */
uint32_t rp_pageset_del(struct rp_pageset *t, uint64_t key);
void rp_pageset_release(struct rp_pageset *t);

struct rp_page_val {
	uint64_t page;
	uint32_t val;
};

/*
 * rp_pageset_take - remove the (proc, page) keys of proc with page in [lo, hi) and list
 * them in *out (grown as needed, capacity *cap), in no particular order.
 * Return: how many.
 */
size_t rp_pageset_take(struct rp_pageset *t, uint32_t proc, uint64_t lo, uint64_t hi,
		       struct rp_page_val **out, size_t *cap);

/*
 * rp_pageset_copy_proc - a fork: process child gets every (parent, page) key of t, with
 * its value; out and cap are rp_pageset_take()'s scratch. Return: how many keys.
 */
size_t rp_pageset_copy_proc(struct rp_pageset *t, uint32_t child, uint32_t parent,
			    struct rp_page_val **out, size_t *cap);

#endif /* FT_REPLAY_PAGESET_H */
