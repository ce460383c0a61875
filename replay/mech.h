/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mech.h - the "+mechanism" part of a policy spec (docs/policies.md, "Mechanisms"):
 * POLICY+khugepaged[:...]+shrinker[:...]+limit:SIZE, or +collapse[:...] in khugepaged's
 * place, parsed into struct rp_mech (replay/replay.h) by replay/mech.c. The simulator
 * runs them in replay/sim-mech.c, the oracle its own naive twin.
 */
#ifndef FT_REPLAY_MECH_H
#define FT_REPLAY_MECH_H

#include <stddef.h>

#include "replay/replay.h"

/* The kernel's defaults (mm/khugepaged.c, khugepaged_init(); 4K pages) */
#define RP_MECH_MAX_PTES_NONE	511	/* HPAGE_PMD_NR - 1 */
#define RP_MECH_PAGES_TO_SCAN	4096	/* HPAGE_PMD_NR * 8 */
#define RP_MECH_SCAN_MS		10000	/* khugepaged_scan_sleep_millisecs */
#define RP_MECH_MAX_PTES_SHARED	256	/* HPAGE_PMD_NR / 2: not a grammar option */

/* "+khugepaged[...], +collapse[...], +shrinker[...], +limit:SIZE": the "known:" of errors */
#define RP_MECH_GRAMMAR \
	"+khugepaged[:max_ptes_none=N,pages=N,scan_ms=N], " \
	"+collapse[:max_ptes_none=0|511,pages=N,scan_ms=N], +shrinker[:max_ptes_none=N], " \
	"+limit:SIZE"

/*
 * Offset in spec of the '+' that starts its mechanisms, strlen(spec) if it has none: the
 * first '+' followed by a mechanism's name and ':', '+' or the end, so a persite file name
 * may hold a '+' elsewhere. A '+' after a policy name without arguments ("thp+x") starts
 * them too, so that an unknown mechanism is named as one.
 */
size_t rp_mech_split(const char *spec);
/*
 * rp_mech_parse - tail ("+shrinker:max_ptes_none=409+limit:512M", starting with '+') into
 * *m (zeroed first). Return: 0, or fail() naming the bad part (unknown, repeated or out of
 * range), without the spec: the caller adds "bad policy 'SPEC': ".
 */
int rp_mech_parse(const char *tail, struct rp_mech *m);
/*
 * rp_mech_collapse - the orders of a +collapse (m->mthp set by rp_mech_parse) from the
 * fault-time policy's enabled sizes (orders, bit N = order N: the kernel's per-size
 * "enabled", which khugepaged collapses to): those of RP_MIN_COLLAPSE_ORDER and up into
 * m->collapse_orders; the PMD order alone is +khugepaged (m->mthp cleared). Nothing
 * without +collapse. Return: 0, or fail() if no order is left or max_ptes_none is not 0
 * or 511 with an mTHP order.
 */
int rp_mech_collapse(struct rp_mech *m, unsigned int orders);
/*
 * The canonical "+..." of m appended to the string in buf (len bytes in all): khugepaged,
 * shrinker, limit in that order, options only where they differ from the kernel's default.
 * Return: 0, or fail() if it does not fit.
 */
int rp_mech_format(const struct rp_mech *m, char *buf, size_t len);

/*
 * rp_mech_guest_knobs - what a 6.12 guest sets for m (docs/guest.md, "Memory limit and THP
 * knobs"): one "NAME VALUE" line each, NAME a file under /sys/kernel/mm/transparent_hugepage/
 * (khugepaged/max_ptes_none, khugepaged/pages_to_scan, khugepaged/scan_sleep_millisecs:
 * m's values, the kernel's defaults when not given; shrink_underused 1 with +shrinker, 0
 * without), and with +limit "memory.max BYTES", the workload's cgroup. khugepaged itself
 * runs in the guest with or without +khugepaged: the kernel has no knob to stop it while
 * THP is enabled. Return: 0, or -1 with fail() if buf (len bytes) is too small.
 */
int rp_mech_guest_knobs(const struct rp_mech *m, char *buf, size_t len);

static inline int rp_mech_any(const struct rp_mech *m)
{
	return m->khugepaged || m->shrinker || m->limit_pages;
}

#endif /* FT_REPLAY_MECH_H */
