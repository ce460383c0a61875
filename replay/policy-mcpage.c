// SPDX-License-Identifier: GPL-2.0
/*
 * policy-mcpage.c - mcpage:N, the mcpage RFC: the naturally aligned 2^N-page block around
 * the fault if it lies inside the VMA and all its PTEs are none, else 4K (no descent).
 * In a guest: the knob with order N alone.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/error.h"
#include "replay/policy.h"

static int mcpage_parse(struct rp_policy *p, const char *args)
{
	char *end;
	long n;

	if (!args)
		return fail("mcpage needs an order: mcpage:N with N = 1..%u", RP_MAX_FOLIO_ORDER);
	n = strtol(args, &end, 10);
	if (*end || end == args || *args == '+' || *args == '-')
		return fail("order '%s' is not a number", args);
	if (n < 1 || n > RP_MAX_FOLIO_ORDER)
		return fail("order must be 1..%u", RP_MAX_FOLIO_ORDER);
	p->order = (unsigned int)n;
	snprintf(p->spec, sizeof(p->spec), "mcpage:%u", p->order);
	return 0;
}

static unsigned int mcpage_orders(const struct rp_policy *p, void *state,
				  const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	out[0] = (uint8_t)p->order;
	return 1;
}

static int mcpage_knob(const struct rp_policy *p, char *buf, size_t len)
{
	snprintf(buf, len, "%u", p->order);
	return 0;
}

const struct rp_policy_ops rp_policy_mcpage = {
	.name = "mcpage",
	.grammar = "mcpage:N (N = 1.." RP_STR(RP_MAX_FOLIO_ORDER) ")",
	.parse = mcpage_parse,
	.orders = mcpage_orders,
	.knob = mcpage_knob,
};
