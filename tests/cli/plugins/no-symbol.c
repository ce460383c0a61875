// SPDX-License-Identifier: GPL-2.0
/* no-symbol.c - a shared object without ft_policy: refused at load (tests/cli/plugin.sh). */
#include "include/foliotrace/policy.h"

const int ft_policy_missing = FT_POLICY_ABI_VERSION;
