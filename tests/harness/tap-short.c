/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap-short.c - a C test whose plan is not met: tap.h's done_testing() must fail it.
 * expect: FAIL # planned 3 tests but ran 1
 */
#include "tests/unit/tap.h"

int main(void)
{
	plan(3);
	ok(1, "a");
	return done_testing();
}
