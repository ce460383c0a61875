// SPDX-License-Identifier: GPL-2.0
/*
 * mthp.c - a plugin named like a built-in policy (tests/cli/plugin.sh): always 16K, its
 * args kept as given. Its runs are "plugin:mthp[:ARGS]", never the built-in's "mthp:...".
 */
#include "include/foliotrace/policy.h"

static unsigned long always_16k(void *ctx, const struct ft_vma *vma, uint64_t addr,
				enum ft_alloc_kind type, unsigned long orders)
{
	return (1UL << 2) & orders;
}

const struct ft_policy ft_policy = {
	.abi_version = FT_POLICY_ABI_VERSION,
	.size = sizeof(struct ft_policy),
	.name = "mthp",
	.get_order = always_16k,
};
