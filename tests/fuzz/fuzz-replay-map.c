// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-replay-map.c - libFuzzer harness for header/replay_map (rp_replay_map_parse), the
 * replayer's key=value lines (FTREPLAY proc=... proc_id=... pid=... parent=...,
 * FTREPLAY_CLUSTER proc=... start=... end=... offset=...) that `guest replay` stores in
 * trace_meta and the measurement reads back. Every process's root must be a process of
 * the map or itself. Built and run by tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/measure.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_replay_map m = { 0 };
	char *text = fuzz_text(data, size);
	size_t i, k;

	if (rp_replay_map_parse(text, &m)) {
		error_clear();
	} else {
		for (i = 0; i < m.nr_p; i++) {
			if (m.p[i].root == m.p[i].index)
				continue;
			for (k = 0; k < m.nr_p && m.p[k].index != m.p[i].root; k++)
				;
			if (k == m.nr_p)
				abort();	/* a root that is no process of the map */
		}
	}
	rp_replay_map_release(&m);
	free(text);
	return 0;
}
