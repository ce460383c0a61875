// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-policy.c - libFuzzer harness for the policy grammar (rp_policy_parse,
 * docs/policies.md): any byte string is refused with an error or parsed; a parsed spec's
 * canonical form parses again to itself, and names no whitespace or control character.
 * Built and run by tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/replay.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_policy p, q;
	char *spec = fuzz_text(data, size);
	size_t i;

	if (rp_policy_parse(spec, &p)) {
		error_clear();
	} else {
		for (i = 0; p.spec[i]; i++)
			if ((unsigned char)p.spec[i] <= ' ' || p.spec[i] == 0x7f)
				abort();	/* canonical specs are printable, no blank */
		if (rp_policy_parse(p.spec, &q) || strcmp(p.spec, q.spec))
			abort();	/* canonical form must be a fixed point */
		if (p.ops != q.ops || p.window != q.window || memcmp(&p.mech, &q.mech, sizeof(p.mech)))
			abort();
	}
	free(spec);
	return 0;
}
