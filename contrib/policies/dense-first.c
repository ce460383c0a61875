// SPDX-License-Identifier: GPL-2.0
/*
 * dense-first.c - large folios only for VMAs whose first faults were dense:
 * plugin:PATH/dense-first.so[:faults=N], N = 2..1000, default 16.
 *
 * The first N write faults of a VMA get 4K while the simulator's history of the VMA
 * (struct ft_vma_history) counts how many landed on the page right after the block mapped
 * before them (seq_faults). At fault N + 1 the VMA is judged once, for good: dense if at
 * least 3/4 of the N - 1 faults that could be sequential were, and then every later fault
 * asks for 64K, 32K, 16K (largest first, as mthp:16K,32K,64K); sparse VMAs stay at 4K.
 * The idea: a VMA that starts as a sequential fill (a heap growing, a buffer written
 * front to back) keeps filling, and one that starts scattered (a hash table, a sparse
 * array) wastes most of a large folio, so its bloat stays that of order0.
 *
 * The verdict is the per-VMA private state (ft_vma.priv, one byte); the parameter is ctx.
 * tests/unit/replay-plugin.c checks hand-computed streams against both engines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/foliotrace/policy.h"

enum verdict { UNDECIDED = 0, DENSE, SPARSE };

#define LARGE_ORDERS ((1UL << 2) | (1UL << 3) | (1UL << 4))	/* 16K, 32K, 64K */

static int dense_init(const char *args, void **ctx, char *canon, size_t canon_len, char *err,
		      size_t err_len)
{
	unsigned long n = 16;
	char *end;

	if (args) {
		if (strncmp(args, "faults=", 7) || args[7] < '0' || args[7] > '9')
			goto bad;
		n = strtoul(args + 7, &end, 10);
		if (*end || n < 2 || n > 1000)
			goto bad;
	}
	snprintf(canon, canon_len, "faults=%lu", n);
	*ctx = (void *)n;	/* the window is the whole parameter: no allocation */
	return 0;
bad:
	snprintf(err, err_len, "dense-first takes faults=N, N = 2..1000, not '%s'", args);
	return -1;
}

static unsigned long dense_get_order(void *ctx, const struct ft_vma *vma, uint64_t addr,
				     enum ft_alloc_kind type, unsigned long orders)
{
	unsigned long n = (unsigned long)ctx;
	unsigned char *v = vma->priv;

	if (*v == UNDECIDED) {
		if (vma->hist->faults < n)
			return 0;	/* still watching */
		/* 4 * seq >= 3 * (n - 1): at least 3/4 of the chances were sequential */
		*v = 4 * vma->hist->seq_faults >= 3 * (n - 1) ? DENSE : SPARSE;
	}
	return *v == DENSE ? LARGE_ORDERS & orders : 0;
}

const struct ft_policy ft_policy = {
	.abi_version = FT_POLICY_ABI_VERSION,
	.size = sizeof(struct ft_policy),
	.name = "dense-first",
	.vma_priv_size = 1,
	.init = dense_init,
	.get_order = dense_get_order,
};
