// SPDX-License-Identifier: GPL-2.0
/* mthp-stats.c - the kernel's per-size mTHP counters of a guest trace; see mthp-stats.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/traces.h"
#include "lib/error.h"
#include "replay/mthp-stats.h"

const char *const rp_mthp_counter_names[RP_NR_MTHP_COUNTERS] = {
	[RP_MTHP_ANON_FAULT_ALLOC] = "anon_fault_alloc",
	[RP_MTHP_ANON_FAULT_FALLBACK] = "anon_fault_fallback",
	[RP_MTHP_ANON_FAULT_FALLBACK_CHARGE] = "anon_fault_fallback_charge",
};

/* The order of a size such as "64kB" in pages of page_size bytes; -1 if none. */
static int size_order(const char *size, int64_t page_size)
{
	char *end;
	unsigned long long kb;
	int order;

	errno = 0;
	kb = strtoull(size, &end, 10);
	if (errno || end == size || strcmp(end, "kB") || page_size <= 0 || kb > (1ull << 40))
		return -1;
	for (order = 1; order <= RP_PMD_ORDER; order++)
		if (kb * 1024 == (unsigned long long)page_size << order)
			return order;
	return -1;
}

/*
 * Parse one header file into v[order][counter] (lines of other counters are skipped: the
 * kernel has more, swpout, split, nr_anon, ...). Return: 0, or -1 with fail().
 */
static int parse(const char *key, const char *text, int64_t page_size,
		 uint64_t v[][RP_NR_MTHP_COUNTERS], int *has)
{
	const char *p = text;
	unsigned int line = 0;

	while (*p) {
		char size[32], name[64];
		unsigned long long val;
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[160];
		int order, c, n;

		line++;
		if (len >= sizeof(buf))
			return fail("header %s line %u: longer than %zu bytes", key, line,
				    sizeof(buf) - 1);
		memcpy(buf, p, len);
		buf[len] = '\0';
		p += len + (nl != NULL);
		if (!len)
			continue;
		if (sscanf(buf, "%31s %63s %llu%n", size, name, &val, &n) != 3 || buf[n])
			return fail("header %s line %u: not SIZE NAME VALUE", key, line);
		order = size_order(size, page_size);
		if (order < 0)
			return fail("header %s line %u: %s is not a folio size of %" PRId64
				    "-byte pages", key, line, size, page_size);
		has[order] = 1;
		for (c = 0; c < RP_NR_MTHP_COUNTERS; c++)
			if (!strcmp(name, rp_mthp_counter_names[c]))
				v[order][c] = val;
	}
	return 0;
}

int rp_mthp_stats_load(sqlite3 *db, int64_t trace_id, int64_t page_size,
		       struct rp_mthp_stats *out)
{
	uint64_t before[RP_PMD_ORDER + 1][RP_NR_MTHP_COUNTERS] = { { 0 } };
	int has_before[RP_PMD_ORDER + 1] = { 0 };
	char *b = NULL, *a = NULL;
	int ret = -1, k, c;

	memset(out, 0, sizeof(*out));
	if (ftdb_trace_meta(db, trace_id, "mthp_stats.before", &b) ||
	    ftdb_trace_meta(db, trace_id, "mthp_stats.after", &a))
		goto out;
	if (!a || !b) {
		ret = 0;
		goto out;
	}
	if (parse("mthp_stats.before", b, page_size, before, has_before) ||
	    parse("mthp_stats.after", a, page_size, out->delta, out->has))
		goto out;
	for (k = 0; k <= RP_PMD_ORDER; k++) {
		if (has_before[k] != out->has[k]) {
			fail("header mthp_stats.before and .after list different sizes");
			goto out;
		}
		for (c = 0; c < RP_NR_MTHP_COUNTERS; c++) {
			if (out->delta[k][c] < before[k][c]) {
				fail("header mthp_stats: %s of order %d went down (%" PRIu64
				     " to %" PRIu64 ")", rp_mthp_counter_names[c], k,
				     before[k][c], out->delta[k][c]);
				goto out;
			}
			out->delta[k][c] -= before[k][c];
		}
	}
	out->present = 1;
	ret = 0;
out:
	free(a);
	free(b);
	if (ret)
		fail("cannot read the per-size counters of trace %lld", (long long)trace_id);
	return ret;
}
