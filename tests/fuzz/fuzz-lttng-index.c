// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-lttng-index.c - libFuzzer harness for LTTng index files (lttng_index_parse,
 * tracer/lttng-index.h): any byte string is refused with an error or parsed; a parsed
 * index's entries fill it exactly, and the slice of all its entries rebased by 0 is the
 * input itself. Built and run by tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "tests/fuzz/fuzz.h"
#include "tracer/lttng-index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lttng_index ix;
	struct lttng_index_entry e;
	unsigned char *buf = malloc(size ? size : 1), *slice;
	size_t len;
	uint64_t i;

	memcpy(buf, data, size);
	if (ft_lttng_index_parse(&ix, buf, size, "fuzz.idx")) {
		error_clear();
	} else {
		if (LTTNG_INDEX_HEADER_LEN + ix.nr * ix.entry_len != size || ix.major != 1)
			abort();
		for (i = 0; i < ix.nr; i++)
			ft_lttng_index_entry(&ix, i, &e);
		ft_lttng_index_slice(&ix, 0, ix.nr, 0, &slice, &len);
		if (len != size || memcmp(slice, data, size))
			abort();
		free(slice);
	}
	ft_lttng_index_release(&ix);
	return 0;
}
