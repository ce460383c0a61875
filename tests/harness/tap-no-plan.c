/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap-no-plan.c - a C test without a plan: tap.h's done_testing() must fail it.
 * expect: FAIL # no plan declared (1 tests ran)
 */
#include "tests/unit/tap.h"

int main(void)
{
	ok(1, "a");
	return done_testing();
}
