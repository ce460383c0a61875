// SPDX-License-Identifier: GPL-2.0
/*
 * policy-knob.c - a policy of the grammar as the patched 6.1 guest kernel's knob.
 *
 * One grammar for the simulator and the guest (brief, "Policies"): the guest runner asks
 * this file (through `foliotrace guest knob SPEC`) what to write to
 * /sys/kernel/mm/anon_folio/orders, so a spec can never mean one thing offline and another
 * in a guest. The knob takes a list of orders 1..8 (docs/guest.md); THP is the kernel's own.
 */
#include <stdio.h>

#include "lib/error.h"
#include "replay/policy.h"

#define KNOB_MAX_ORDER 8	/* ANON_FOLIO_MAX_ORDER of the kernel patch */

int rp_policy_in_guest(const struct rp_policy *p)
{
	if (p->ops == &rp_policy_faultaround || p->ops == &rp_policy_adaptive)
		return 0;
	if (p->ops == &rp_policy_mthp && (p->orders >> (KNOB_MAX_ORDER + 1)))
		return 0;
	return 1;
}

int rp_policy_guest_knob(const struct rp_policy *p, char *buf, size_t len)
{
	unsigned int o;
	size_t n = 0;

	if (!rp_policy_in_guest(p))
		return error("policy '%s' is simulation-only: the 6.1 guest knob cannot express it",
			     p->spec);
	buf[0] = '\0';
	if (p->ops == &rp_policy_order0) {
		snprintf(buf, len, "none");
	} else if (p->ops == &rp_policy_thp) {
		snprintf(buf, len, "thp");
	} else if (p->ops == &rp_policy_mcpage) {
		snprintf(buf, len, "%u", p->order);
	} else if (p->ops == &rp_policy_mthp) {
		for (o = 1; o <= KNOB_MAX_ORDER && n < len; o++)
			if (p->orders & (1U << o))
				n += snprintf(buf + n, len - n, "%s%u", n ? "," : "", o);
	} else {
		return error("policy '%s' has no guest knob setting", p->spec);
	}
	return 0;
}
