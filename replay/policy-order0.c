// SPDX-License-Identifier: GPL-2.0
/* policy-order0.c - order0: every fault maps one 4K page. The baseline. */
#include <stdio.h>

#include "lib/error.h"
#include "replay/policy.h"

static int order0_parse(struct rp_policy *p, const char *args)
{
	if (args)
		return fail("order0 takes no argument");
	snprintf(p->spec, sizeof(p->spec), "order0");
	return 0;
}

static int order0_knob(const struct rp_policy *p, char *buf, size_t len)
{
	snprintf(buf, len, "none");
	return 0;
}

const struct rp_policy_ops rp_policy_order0 = {
	.name = "order0",
	.grammar = "order0",
	.flags = RP_POL_4K,
	.parse = order0_parse,
	.knob = order0_knob,
};
