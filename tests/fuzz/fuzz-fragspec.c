// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-fragspec.c - libFuzzer harness for the --fragment grammar (guest-kernel/fragspec.h,
 * ft_fragspec_parse, shared by the CLI and the in-guest fragmenter): any byte string is
 * refused with a reason or parsed into values in range, each key given at most once; the
 * canonical spec of what was parsed parses to the same values. Built and run by
 * tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest-kernel/fragspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(const char *s, const char *key)
{
	int n = 0;

	for (; (s = strstr(s, key)); s++)
		n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_fragspec f, g;
	const char *why = NULL;
	char *spec = strndup((const char *)data, size), canon[96];

	if (ft_fragspec_parse(spec, &f, &why)) {
		if (!why || !*why)
			abort();	/* a refusal always says why */
	} else {
		if (f.order < 0 || f.order > 9 || f.pct < 0 || f.pct > 100 ||
		    f.seed > 0xffffffffUL)
			abort();
		if (count(spec, "order:") != 1 || count(spec, "pct:") > 1 ||
		    count(spec, "seed:") > 1)
			abort();	/* a key twice is refused, never "the last wins" */
		snprintf(canon, sizeof(canon), "order:%d%s%.0d,seed:%lu", f.order,
			 f.pct ? ",pct:" : "", f.pct, f.seed);
		if (ft_fragspec_parse(canon, &g, &why) || g.order != f.order ||
		    g.pct != f.pct || g.seed != f.seed)
			abort();
	}
	free(spec);
	return 0;
}
