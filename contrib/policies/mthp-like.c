// SPDX-License-Identifier: GPL-2.0
/*
 * mthp-like.c - the built-in mthp policy as a plugin: plugin:PATH/mthp-like.so:SIZES with
 * SIZES as mthp's (16K,32K,64K: 8K..1M powers of two, K/M binary, an optional B, or plain
 * bytes; no duplicates). Every fault asks for every enabled order; the simulator tries
 * them largest first. tests/cli/plugin.sh requires its runs to equal mthp's on every
 * fixture, every metric. Canonical args: the sizes ascending, "16K,32K,64K".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/foliotrace/policy.h"

/* "16K" -> order 2; -1 and err set if not a power of two of 8K..1M */
static int size_order(const char *s, size_t len, char *err, size_t err_len)
{
	unsigned long long v = 0, mult = 1;
	size_t i = 0;
	int o;

	while (i < len && s[i] >= '0' && s[i] <= '9' && v < (1ULL << 40))
		v = v * 10 + (unsigned long long)(s[i++] - '0');
	if (i < len && (s[i] == 'K' || s[i] == 'k'))
		mult = 1ULL << 10, i++;
	else if (i < len && (s[i] == 'M' || s[i] == 'm'))
		mult = 1ULL << 20, i++;
	if (i < len && (s[i] == 'B' || s[i] == 'b'))
		i++;
	if (!len || i != len || !v || v >= (1ULL << 40))
		goto bad;
	v *= mult;
	for (o = 1; o <= 8; o++)
		if (v == (1ULL << (FT_PAGE_SHIFT + o)))
			return o;
bad:
	snprintf(err, err_len, "bad size '%.*s' (8K..1M, a power of two)", (int)len, s);
	return -1;
}

static int mthp_like_init(const char *args, void **ctx, char *canon, size_t canon_len,
			  char *err, size_t err_len)
{
	unsigned long mask = 0;
	const char *s = args, *e;
	size_t n = 0;
	int o;

	if (!args) {
		snprintf(err, err_len, "mthp-like needs sizes: mthp-like.so:16K,32K,64K");
		return -1;
	}
	for (;; s = e + 1) {
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		o = size_order(s, (size_t)(e - s), err, err_len);
		if (o < 0)
			return -1;
		if (mask & (1UL << o)) {
			snprintf(err, err_len, "size '%.*s' given twice", (int)(e - s), s);
			return -1;
		}
		mask |= 1UL << o;
		if (!*e)
			break;
	}
	for (o = 1; o <= 8; o++)
		if (mask & (1UL << o))
			n += (size_t)snprintf(canon + n, canon_len - n, "%s%uK", n ? "," : "",
					      4U << o);
	/* 1024K is 1M, as mthp writes it */
	if (mask & (1UL << 8))
		snprintf(canon + n - 5, canon_len - (n - 5), "1M");
	*ctx = (void *)mask;	/* the mask is the whole parameter: no allocation */
	return 0;
}

static unsigned long mthp_like_get_order(void *ctx, const struct ft_vma *vma, uint64_t addr,
					 enum ft_alloc_kind type, unsigned long orders)
{
	return (unsigned long)ctx & orders;
}

const struct ft_policy ft_policy = {
	.abi_version = FT_POLICY_ABI_VERSION,
	.size = sizeof(struct ft_policy),
	.name = "mthp-like",
	.init = mthp_like_init,
	.get_order = mthp_like_get_order,
};
