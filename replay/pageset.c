// SPDX-License-Identifier: GPL-2.0
/* pageset.c - the page set's growth and bulk operations; see pageset.h. */
#include <stdlib.h>

#include "lib/xalloc.h"
#include "replay/pageset.h"

void rp_pageset_grow(struct rp_pageset *t)
{
	uint64_t *ok = t->key, oc = t->cap, i;
	uint32_t *ov = t->val;

	t->cap = oc ? oc * 2 : 1024;
	t->key = xcalloc(t->cap, sizeof(*t->key));
	t->val = xcalloc(t->cap, sizeof(*t->val));
	t->nr = 0;
	for (i = 0; i < oc; i++)
		if (ok[i])
			rp_pageset_add(t, ok[i] - 1, ov[i]);
	free(ok);
	free(ov);
}

void rp_pageset_set(struct rp_pageset *t, uint64_t key, uint32_t val)
{
	int64_t i = rp_pageset_slot(t, key);

	if (i >= 0)
		t->val[i] = val;
	else
		rp_pageset_add(t, key, val);
}

uint32_t rp_pageset_del(struct rp_pageset *t, uint64_t key)
{
	int64_t i = rp_pageset_slot(t, key);
	uint32_t was;

	if (i < 0)
		return 0;
	was = t->val[i];
	rp_pageset_del_slot(t, (uint64_t)i);
	return was;
}

void rp_pageset_release(struct rp_pageset *t)
{
	free(t->key);
	free(t->val);
	t->key = NULL;
	t->val = NULL;
	t->cap = t->nr = 0;
}

size_t rp_pageset_take(struct rp_pageset *t, uint32_t proc, uint64_t lo, uint64_t hi,
		       struct rp_page_val **out, size_t *cap)
{
	size_t n = 0, k;
	uint64_t i, pg;

	/* a short range: probe each page; a long one: one scan of the table */
	if (hi - lo <= t->nr + 64) {
		for (pg = lo; pg < hi; pg++) {
			uint32_t v = rp_pageset_del(t, rp_ps_key(proc, pg));

			if (v) {
				XGROW(*out, *cap, n + 1);
				(*out)[n].page = pg;
				(*out)[n++].val = v;
			}
		}
		return n;
	}
	for (i = 0; i < t->cap; i++) {
		uint64_t key = t->key[i];

		if (!key || (key - 1) >> RP_PS_PAGE_BITS != proc)
			continue;
		pg = (key - 1) & RP_PS_PAGE_MASK;
		if (pg < lo || pg >= hi)
			continue;
		XGROW(*out, *cap, n + 1);
		(*out)[n].page = pg;
		(*out)[n++].val = t->val[i];
	}
	for (k = 0; k < n; k++)
		rp_pageset_del(t, rp_ps_key(proc, (*out)[k].page));
	return n;
}

size_t rp_pageset_copy_proc(struct rp_pageset *t, uint32_t child, uint32_t parent,
			    struct rp_page_val **out, size_t *cap)
{
	size_t n = rp_pageset_take(t, parent, 0, RP_PS_ALL_PAGES, out, cap), k;

	for (k = 0; k < n; k++) {
		rp_pageset_set(t, rp_ps_key(parent, (*out)[k].page), (*out)[k].val);
		rp_pageset_set(t, rp_ps_key(child, (*out)[k].page), (*out)[k].val);
	}
	return n;
}
