// SPDX-License-Identifier: GPL-2.0
/*
 * misbehave.c - a plugin that goes wrong on purpose, as ARGS says (tests/cli/plugin.sh):
 *	order:N		the Nth get_order call returns order 9 (2M), outside the allowed mask
 *	segv:N		the Nth get_order call writes to address 8: SIGSEGV
 *	fpe:N		the Nth get_order call divides by zero: SIGFPE
 *	abort:N		the Nth get_order call calls abort(): SIGABRT
 *	init		init writes to address 8
 * Before the Nth call it asks for 16K, so earlier batches run as mthp:16K would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/foliotrace/policy.h"

/* per load: one shared object loaded under several specs shares its globals */
struct how {
	char what[8];
	unsigned long n;
	unsigned long calls;	/* get_order calls so far (a test plugin may count in ctx) */
};

static volatile int zero;
static int *volatile wild = (int *)8;	/* never mapped: a SIGSEGV */

static int misbehave_init(const char *args, void **ctx, char *canon, size_t canon_len,
			  char *err, size_t err_len)
{
	if (args && !strcmp(args, "init"))
		*wild = 1;
	struct how h = { .n = 0 };

	if (!args || sscanf(args, "%7[a-z]:%lu", h.what, &h.n) != 2) {
		snprintf(err, err_len, "misbehave wants order:N, segv:N, fpe:N, abort:N or init");
		return -1;
	}
	*ctx = malloc(sizeof(h));	/* kept until exit, as foliotrace keeps the plugin */
	if (!*ctx)
		return -1;
	memcpy(*ctx, &h, sizeof(h));
	return 0;
}

/* the division by zero is the point: UBSan (make check-asan) must let it fault */
__attribute__((no_sanitize("undefined")))
static unsigned long misbehave_get_order(void *ctx, const struct ft_vma *vma, uint64_t addr,
					 enum ft_alloc_kind type, unsigned long orders)
{
	struct how *h = ctx;

	if (++h->calls != h->n)
		return 1UL << 2;
	if (!strcmp(h->what, "order"))
		return 1UL << 9;
	if (!strcmp(h->what, "segv"))
		*wild = 1;
	if (!strcmp(h->what, "fpe"))
		return h->n / (unsigned long)zero;
	if (!strcmp(h->what, "abort"))
		abort();
	return 1UL << 2;
}

const struct ft_policy ft_policy = {
	.abi_version = FT_POLICY_ABI_VERSION,
	.size = sizeof(struct ft_policy),
	.name = "misbehave",
	.init = misbehave_init,
	.get_order = misbehave_get_order,
};
