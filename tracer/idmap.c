// SPDX-License-Identifier: GPL-2.0
/* idmap.c - growth and insertion for the hash multimap of idmap.h. */
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "tracer/idmap.h"

static void alloc_slots(struct idmap *m, size_t cap)
{
	size_t i;

	m->slots = xmalloc(cap * sizeof(*m->slots));
	for (i = 0; i < cap; i++)
		m->slots[i].val = IDMAP_NONE;
	m->mask = cap - 1;
	m->nr = 0;
}

void ft_idmap_init(struct idmap *m)
{
	alloc_slots(m, 1024);
}

void ft_idmap_release(struct idmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static void put(struct idmap *m, uint64_t key, uint32_t val)
{
	size_t pos = ft_idmap_hash(key);

	while (m->slots[pos & m->mask].val != IDMAP_NONE)
		pos++;
	m->slots[pos & m->mask].key = key;
	m->slots[pos & m->mask].val = val;
	m->nr++;
}

void ft_idmap_add(struct idmap *m, uint64_t key, uint32_t val)
{
	if (2 * (m->nr + 1) > m->mask + 1) {
		struct idmap_slot *old = m->slots;
		size_t i, cap = m->mask + 1;

		alloc_slots(m, 2 * cap);
		for (i = 0; i < cap; i++)
			if (old[i].val != IDMAP_NONE)
				put(m, old[i].key, old[i].val);
		free(old);
	}
	put(m, key, val);
}

void ft_idmap_set(struct idmap *m, uint64_t key, uint32_t val)
{
	size_t pos = ft_idmap_hash(key);

	for (;; pos++) {
		struct idmap_slot *s = &m->slots[pos & m->mask];

		if (s->val == IDMAP_NONE)
			break;
		if (s->key == key) {
			s->val = val;
			return;
		}
	}
	ft_idmap_add(m, key, val);
}
