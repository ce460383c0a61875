// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-sitefile.c - libFuzzer harness for the call-site side file (sitefile_parse,
 * tracer/sitefile.h): any byte string is refused with an error or parsed; a parsed file's
 * records are in time order, name calls and stacks that exist, and its pids are distinct.
 * Built and run by tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "tracer/sitefile.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sitefile f = { 0 };
	char *buf = fuzz_text(data, size);
	size_t i, j;

	if (ft_sitefile_parse(&f, buf, size, 1000)) {
		error_clear();
	} else {
		if (f.version != 1 && f.version != 2)
			abort();
		for (i = 0; i < f.nr_recs; i++) {
			const struct sf_rec *r = &f.recs[i];

			if ((i && r->ts < f.recs[i - 1].ts) || r->ts < 1000 || r->line != i)
				abort();	/* in time order, offset added */
			if (r->type == 'C' && (r->call < 0 || (size_t)r->call >= f.nr_calls))
				abort();
		}
		for (i = 0; i < f.nr_calls; i++)
			if (f.calls[i].stack < 0 || (size_t)f.calls[i].stack >= f.nr_stacks)
				abort();
		for (i = 0; i < f.nr_pids; i++)
			for (j = 0; j < i; j++)
				if (f.pids[i] == f.pids[j])
					abort();
	}
	ft_sitefile_release(&f);
	free(buf);
	return 0;
}
