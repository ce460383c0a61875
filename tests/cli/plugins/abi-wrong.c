// SPDX-License-Identifier: GPL-2.0
/* abi-wrong.c - a plugin built for another ABI version: refused at load (tests/cli/plugin.sh). */
#include "include/foliotrace/policy.h"

static unsigned long any(void *ctx, const struct ft_vma *vma, uint64_t addr,
			 enum ft_alloc_kind type, unsigned long orders)
{
	return 0;
}

const struct ft_policy ft_policy = {
	.abi_version = FT_POLICY_ABI_VERSION + 1,
	.size = sizeof(struct ft_policy),
	.name = "abi-wrong",
	.get_order = any,
};
