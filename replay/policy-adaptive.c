// SPDX-License-Identifier: GPL-2.0
/*
 * policy-adaptive.c - adaptive[:max=SIZE], ours: a per-VMA order that follows the access
 * pattern. Each VMA starts at order 0. A write fault that lands within 2^cur pages after the
 * end of the block this VMA mapped last ("sequential": the program walked off the end of
 * what we gave it) raises the order by one, up to max; any other write fault ("sparse")
 * lowers it by one. The fault then asks for cur, cur-1, ..., 1 like mthp. Reads and touches
 * of present pages do not change the state. Default max=64K (arm64 contpte size); 8K..1M.
 *
 * State: one struct rp_adaptive_vma (16 bytes) per vma_id, a flat array. Simulation only
 * (no knob hook): the 6.1 guest kernel has no per-VMA order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/policy.h"

#define ADAPTIVE_DEFAULT_MAX 4	/* order 4 = 64K */

static int adaptive_parse(struct rp_policy *p, const char *args)
{
	char sz[16];
	unsigned int o = ADAPTIVE_DEFAULT_MAX;

	if (args) {
		if (strncmp(args, "max=", 4))
			return fail("unknown option '%s' (adaptive:max=SIZE)", args);
		if (rp_parse_size(args + 4, &o))
			return -1;
		if (o < 1 || o > RP_MAX_FOLIO_ORDER)
			return fail("max '%s' out of range 8K.." RP_MAX_FOLIO_SIZE, args + 4);
	}
	p->max_order = o;
	rp_format_size(o, sz, sizeof(sz));
	snprintf(p->spec, sizeof(p->spec), "adaptive:max=%s", sz);
	return 0;
}

struct adaptive_state {
	struct rp_adaptive_vma *vma;	/* indexed by vma_id */
	uint32_t nr;			/* entries */
	unsigned int max_order;
};

static void *adaptive_new(const struct rp_policy *p, const struct rp_trace *t)
{
	struct adaptive_state *st = xcalloc(1, sizeof(*st));

	st->nr = t->nr_vmas;
	st->vma = xcalloc(st->nr ? st->nr : 1, sizeof(*st->vma));
	st->max_order = p->max_order;
	return st;
}

static void adaptive_free(void *state)
{
	struct adaptive_state *st = state;

	if (st) {
		free(st->vma);
		free(st);
	}
}

static unsigned int adaptive_orders(const struct rp_policy *p, void *state,
				    const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	struct adaptive_state *st = state;
	struct rp_adaptive_vma *v;
	unsigned int n = 0, seq, up, down;
	int o;

	if (f->vma_id >= st->nr)
		return 0;
	v = &st->vma[f->vma_id];
	/* without branches: whether a fault is sequential is data, not a predictable pattern */
	seq = v->next && f->vpn - v->next < (1ULL << v->cur);
	up = v->cur + (v->cur < st->max_order);
	down = v->cur - (v->cur > 0);
	v->cur = (uint8_t)(seq ? up : down);
	for (o = v->cur; o >= 1; o--)
		out[n++] = (uint8_t)o;
	return n;
}

/*
 * The oracle's reading of the rule (docs/policies.md, "adaptive"), step by step and
 * deliberately not sharing code with adaptive_orders: 1. a fault in [next, next + 2^cur)
 * grows cur up to max, 2. any other shrinks it down to 0, 3. ask cur, cur - 1, ..., 1.
 */
static unsigned int adaptive_ref_orders(const struct rp_policy *p, void *state,
					const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	struct adaptive_state *st = state;
	unsigned int cur, k, n = 0;
	uint64_t next;

	if (f->vma_id == UINT32_MAX || f->vma_id >= st->nr)
		return 0;	/* no VMA to keep state for: 4K */
	next = st->vma[f->vma_id].next;
	cur = st->vma[f->vma_id].cur;
	if (next != 0 && f->vpn >= next && f->vpn - next < (1ULL << cur))
		cur = cur + 1 > p->max_order ? p->max_order : cur + 1;
	else
		cur = cur ? cur - 1 : 0;
	st->vma[f->vma_id].cur = (uint8_t)cur;
	for (k = cur; k >= 1; k--)
		out[n++] = (uint8_t)k;
	return n;
}

static void adaptive_mapped(void *state, const struct rp_fault *f, uint64_t first_vpn,
			    unsigned int order)
{
	struct adaptive_state *st = state;

	if (f->vma_id < st->nr)
		st->vma[f->vma_id].next = first_vpn + (1ULL << order);
}

const struct rp_policy_ops rp_policy_adaptive = {
	.name = "adaptive",
	.grammar = "adaptive[:max=SIZE] (SIZE = 8K.." RP_MAX_FOLIO_SIZE ", default 64K)",
	.parse = adaptive_parse,
	.orders = adaptive_orders,
	.mapped = adaptive_mapped,
	.state_new = adaptive_new,
	.state_free = adaptive_free,
	.ref_orders = adaptive_ref_orders,
};
