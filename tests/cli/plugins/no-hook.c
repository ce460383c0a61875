// SPDX-License-Identifier: GPL-2.0
/* no-hook.c - ft_policy without get_order: refused at load (tests/cli/plugin.sh). */
#include "include/foliotrace/policy.h"

const struct ft_policy ft_policy = {
	.abi_version = FT_POLICY_ABI_VERSION,
	.size = sizeof(struct ft_policy),
	.name = "no-hook",
};
