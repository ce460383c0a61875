// SPDX-License-Identifier: GPL-2.0
/*
 * policy-faultaround.c - faultaround:N, Mateusz Guzik's proposal: a write fault maps every
 * absent page of the aligned N-page window around it (clipped to the VMA), each an order-0
 * allocation, zeroed; no physical contiguity. The window itself is applied by the engine
 * (p->window); reads map the 4K zero page like every policy. Simulation only: the 6.1
 * guest kernel has no fault-around for anonymous memory (no knob hook).
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/error.h"
#include "replay/policy.h"

static int faultaround_parse(struct rp_policy *p, const char *args)
{
	char *end;
	long n;

	if (!args)
		return fail("faultaround needs a window: faultaround:N (N = 2..512 pages)");
	n = strtol(args, &end, 10);
	if (*end || end == args || *args == '+' || *args == '-')
		return fail("window '%s' is not a number", args);
	if (n < 2 || n > 512 || (n & (n - 1)))
		return fail("window must be a power of two 2..512 pages");
	p->window = (unsigned int)n;
	snprintf(p->spec, sizeof(p->spec), "faultaround:%u", p->window);
	return 0;
}

const struct rp_policy_ops rp_policy_faultaround = {
	.name = "faultaround",
	.grammar = "faultaround:N (N = 2..512 pages, power of two)",
	.parse = faultaround_parse,
};
