// SPDX-License-Identifier: GPL-2.0
/*
 * policy-thp.c - thp: THP "always" with use_zero_page=1. A write fault maps a 2M folio with
 * a PMD when the aligned 2M range lies inside the VMA and is entirely absent, else 4K; a read
 * under the same conditions maps the huge zero page (RP_POL_PMD, handled by the engine).
 */
#include <stdio.h>

#include "lib/error.h"
#include "replay/policy.h"

static int thp_parse(struct rp_policy *p, const char *args)
{
	if (args)
		return fail("thp takes no argument");
	snprintf(p->spec, sizeof(p->spec), "thp");
	return 0;
}

static unsigned int thp_orders(const struct rp_policy *p, void *state,
			       const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	out[0] = RP_PMD_ORDER;
	return 1;
}

/* the kernel's own THP: the guest runner sets transparent_hugepage, not the order knob */
static int thp_knob(const struct rp_policy *p, char *buf, size_t len)
{
	snprintf(buf, len, "thp");
	return 0;
}

const struct rp_policy_ops rp_policy_thp = {
	.name = "thp",
	.grammar = "thp",
	.flags = RP_POL_PMD,
	.parse = thp_parse,
	.orders = thp_orders,
	.knob = thp_knob,
};
