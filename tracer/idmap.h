/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idmap.h - open-addressing hash multimap from a 64-bit key to a 32-bit index, for the
 * collector's per-event lookups (mm -> process, pid -> process, VMA shape -> vma, event
 * class -> its cache). Keys may repeat: ft_idmap_next() walks every value stored under a key
 * in no particular order; callers that keep one value per key use ft_idmap_set().
 *
 * Invariants: capacity is a power of two, at most half full; a value is never
 * IDMAP_NONE. No deletion (the collector only ever adds).
 */
#ifndef FT_TRACER_IDMAP_H
#define FT_TRACER_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define IDMAP_NONE UINT32_MAX

struct idmap_slot {
	uint64_t key;
	uint32_t val;		/* IDMAP_NONE: empty */
};

struct idmap {
	struct idmap_slot *slots;
	size_t mask;		/* capacity - 1 */
	size_t nr;		/* slots used */
};

void ft_idmap_init(struct idmap *m);
void ft_idmap_release(struct idmap *m);
/* Add a (key, val) pair, even if key is present. */
void ft_idmap_add(struct idmap *m, uint64_t key, uint32_t val);
/* Replace the value of the first pair with key, or add it. */
void ft_idmap_set(struct idmap *m, uint64_t key, uint32_t val);

static inline uint64_t ft_idmap_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

/*
 * Iterate the values under key: start with *pos = ft_idmap_hash(key) and call until it
 * returns IDMAP_NONE.
 */
static inline uint32_t ft_idmap_next(const struct idmap *m, uint64_t key, size_t *pos)
{
	for (;; (*pos)++) {
		const struct idmap_slot *s = &m->slots[*pos & m->mask];

		if (s->val == IDMAP_NONE)
			return IDMAP_NONE;
		if (s->key == key) {
			(*pos)++;
			return s->val;
		}
	}
}

static inline uint32_t ft_idmap_get(const struct idmap *m, uint64_t key)
{
	size_t pos = ft_idmap_hash(key);

	return ft_idmap_next(m, key, &pos);
}

#endif /* FT_TRACER_IDMAP_H */
