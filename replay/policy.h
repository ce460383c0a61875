/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - what a policy implements: one struct rp_policy_ops rp_policy_<name> per
 * replay/policy-<name>.c, listed once in the table of replay/policy.c. How to write one:
 * docs/policies.md.
 *
 * A policy only *chooses*: for a write fault on an absent page it returns the orders it
 * would like, largest first. The engine (replay/sim.c) checks each in turn exactly as the
 * patched kernel does (block inside the VMA, every PTE of it none, the allocation succeeds)
 * and maps the first that passes, else 4K. Reads, the zero page, MADV_NOHUGEPAGE, zaps and
 * all accounting are the engine's, so every policy is modelled with the same kernel rules.
 */
#ifndef FT_REPLAY_POLICY_H
#define FT_REPLAY_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "replay/replay.h"

/* A fault the policy is asked about. Page numbers are addresses >> RP_PAGE_SHIFT. */
struct rp_fault {
	uint64_t vpn;		/* faulting page */
	uint64_t vma_start;	/* first page of the VMA */
	uint64_t vma_end;	/* one past the last page of the VMA */
	uint32_t vma_id;	/* dense id (index into rp_trace.vmas), for per-VMA state */
	uint32_t proc_id;
	/*
	 * Site slot of the touch that faults (< rp_trace.nr_site_slots: the slot its faults
	 * are charged to, docs/sites.md), 0 for a trace without slots or a feed without them
	 */
	uint32_t slot;
};

/*
 * Engine flags (ops->flags): what the simulator and the oracle do differently for a policy
 * beyond the orders it asks for. A policy without flags maps PTEs, and the engine reports
 * fallback reasons like the patched kernel with a large order enabled.
 */
#define RP_POL_PMD	0x1	/* an order-9 candidate is a PMD mapping; a read of an absent,
				 * fitting 2M range maps the huge zero page (THP) */
#define RP_POL_4K	0x2	/* maps 4K only, like the kernel with no large order enabled:
				 * faults give no fallback reason (order0) */
#define RP_POL_SITES	0x4	/* decides by the fault's site slot (persite): replay refuses
				 * a trace with call sites but no site_touch attribution */

struct rp_policy_ops {
	const char *name;	/* the spec's name part: "mcpage" */
	/*
	 * The spec's template, a space, then its ranges: "mcpage:N (N = 1..8)". The template
	 * (up to the first space) is what usage, the "known:" list and --list-policies show.
	 */
	const char *grammar;
	unsigned int flags;	/* RP_POL_* */
	/*
	 * Parse the part after ':' (NULL if the spec has none) into p and write the canonical
	 * spec into p->spec. Return: 0, or fail() naming the bad part, without the spec
	 * (the caller prefixes "bad policy 'SPEC'"). The spec holds no whitespace or control
	 * character (checked before).
	 */
	int (*parse)(struct rp_policy *p, const char *args);
	/*
	 * Orders (each 1..RP_PMD_ORDER) to try for a write fault on an absent page, largest
	 * first. Return: how many were written to out (0: map 4K, no fallback counted).
	 * May be NULL (order0; faultaround, which sets p->window instead).
	 */
	unsigned int (*orders)(const struct rp_policy *p, void *state, const struct rp_fault *f,
			       uint8_t out[RP_PMD_ORDER]);
	/* Optional feedback after a write fault mapped [first_vpn, first_vpn + 2^order). */
	void (*mapped)(void *state, const struct rp_fault *f, uint64_t first_vpn,
		       unsigned int order);
	/* Optional per-simulator state (per-VMA arrays...); NULL return means none. */
	void *(*state_new)(const struct rp_policy *p, const struct rp_trace *t);
	void (*state_free)(void *state);
	/*
	 * Optional: the same decision as orders, read naively from docs/policies.md and
	 * written without sharing code with orders, for the naive oracle (replay/oracle.c),
	 * so the differential test checks the policy's decision too. Same contract and state
	 * as orders. NULL: the oracle asks orders (worth it when orders is a line or two).
	 */
	unsigned int (*ref_orders)(const struct rp_policy *p, void *state,
				   const struct rp_fault *f, uint8_t out[RP_PMD_ORDER]);
	/*
	 * Optional: the guest kernel's knob value for p (/sys/kernel/mm/anon_folio/orders:
	 * "none", "2", "2,3,4"; "thp" for the kernel's own THP) into buf. Return: 0, or 1 if
	 * this spec of the policy cannot be run in a guest (no fail() call: the caller words
	 * it). NULL: simulation only (the safe default: a policy is never sent to a guest whose
	 * kernel does not implement it).
	 */
	int (*knob)(const struct rp_policy *p, char *buf, size_t len);
	/*
	 * Optional: run fn(arg), a feed of this policy's simulator or oracle, under the
	 * policy's protection (plugin: a crash or a bad answer in the plugin ends fn early);
	 * fn NULL: only check that p can be replayed. Return: 0, or fail() naming what went
	 * wrong (the simulator must then not be fed again). rp_policy_guard() calls it.
	 */
	int (*guard)(const struct rp_policy *p, void (*fn)(void *arg), void *arg);
};

/* p->ops->guard(p, fn, arg), or fn(arg) and 0 for a policy without the hook. */
int rp_policy_guard(const struct rp_policy *p, void (*fn)(void *arg), void *arg);

/* "8" for RP_MAX_FOLIO_ORDER in a string literal (grammar texts) */
#define RP_STR_(x)	#x
#define RP_STR(x)	RP_STR_(x)

/*
 * rp_parse_size - "16K", "2M", "4096" (bytes; K and M are binary, case-insensitive) into
 * the order of that many 4K pages. Return: 0 and *order set, or fail() if not a power of
 * two of at least 4K.
 */
int rp_parse_size(const char *s, unsigned int *order);
/* Size of 2^order pages as "16K", "1M", "2M" into buf. */
void rp_format_size(unsigned int order, char *buf, size_t len);

/*
 * Adaptive policy decision, shared by the engine's policy and stated here so the oracle can
 * be checked against the documented rule (docs/policies.md, "adaptive"): per VMA, the order
 * grows by one when a write fault lands in [next, next + 2^cur) pages, where next is the page
 * after the previous block this VMA mapped, and shrinks by one otherwise.
 */
struct rp_adaptive_vma {
	uint64_t next;		/* page after the last block mapped in this VMA; 0 = none */
	uint8_t cur;		/* current order, 0..max_order */
};

#endif /* FT_REPLAY_POLICY_H */
