// SPDX-License-Identifier: GPL-2.0
/*
 * policy-mthp.c - mthp:SIZE[,SIZE...], Linux 6.8+ multi-size THP for anonymous memory:
 * the largest enabled size whose aligned block fits the VMA, has all PTEs none and can be
 * allocated; then the next smaller enabled size; then 4K. Sizes 8K..1M (orders
 * 1..RP_MAX_FOLIO_ORDER). In a guest: the knob with every enabled order.
 */
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "replay/policy.h"

static int mthp_parse(struct rp_policy *p, const char *args)
{
	char buf[128], *tok, *save = NULL;
	size_t off;
	unsigned int o;

	if (!args)
		return fail("mthp needs sizes: mthp:16K,32K,64K (8K.." RP_MAX_FOLIO_SIZE ")");
	if (strlen(args) >= sizeof(buf))
		return fail("size list too long");
	snprintf(buf, sizeof(buf), "%s", args);
	if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
		return fail("empty size in '%s'", args);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (rp_parse_size(tok, &o))
			return -1;
		if (o < 1 || o > RP_MAX_FOLIO_ORDER)
			return fail("size '%s' out of range 8K.." RP_MAX_FOLIO_SIZE, tok);
		if (p->orders & (1U << o))
			return fail("size '%s' given twice", tok);
		p->orders |= 1U << o;
	}
	off = (size_t)snprintf(p->spec, sizeof(p->spec), "mthp:");
	for (o = 1; o <= RP_MAX_FOLIO_ORDER; o++) {
		if (p->orders & (1U << o)) {
			char sz[16];

			rp_format_size(o, sz, sizeof(sz));
			off += (size_t)snprintf(p->spec + off, sizeof(p->spec) - off, "%s%s",
						off > 5 ? "," : "", sz);
		}
	}
	return 0;
}

static unsigned int mthp_orders(const struct rp_policy *p, void *state,
				const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	unsigned int n = 0;
	int o;

	for (o = RP_MAX_FOLIO_ORDER; o >= 1; o--)
		if (p->orders & (1U << o))
			out[n++] = (uint8_t)o;
	return n;
}

static int mthp_knob(const struct rp_policy *p, char *buf, size_t len)
{
	unsigned int o;
	size_t n = 0;

	buf[0] = '\0';
	for (o = 1; o <= RP_MAX_FOLIO_ORDER && n < len; o++)
		if (p->orders & (1U << o))
			n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? "," : "", o);
	return 0;
}

const struct rp_policy_ops rp_policy_mthp = {
	.name = "mthp",
	.grammar = "mthp:SIZE[,SIZE...] (SIZE = 8K.." RP_MAX_FOLIO_SIZE ", powers of two)",
	.parse = mthp_parse,
	.orders = mthp_orders,
	.knob = mthp_knob,
};
