// SPDX-License-Identifier: GPL-2.0
/*
 * frag.c - the allocation failure models behind struct rp_alloc (see frag.h), and the
 * /proc/buddyinfo parser that seeds the buddy model.
 *
 * Tuned for: millions of order-0 allocations and frees. The buddy model keeps one bitmap of
 * free block heads per order with a "lowest possibly non-zero word" hint, so taking the
 * lowest free block is a short scan and freeing with merges is a few bit tests.
 *
 * Seeding: the recorded free blocks of order k are laid out at pfns aligned to 2^(k+1), each
 * with a buddy that is not ours (memory the recorded system was using), so seeded blocks
 * never merge with each other, only with what the simulation frees back. Above them, aligned
 * to 2^RP_COMPACT_MAX_ORDER, lies the movable pool: the recorded system's LRU pages, busy
 * until compaction empties a block of it (frag.h). In a --fragment guest these pages were
 * allocated before the fragmenter took the rest of memory, so no pinned page shares their
 * blocks: all of the pool can become free blocks, none of the fragmented memory can.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/frag.h"

int rp_frag_parse(const char *name, enum rp_frag_kind *kind)
{
	if (!strcmp(name, "none")) {
		*kind = RP_FRAG_NONE;
		return 0;
	}
	if (!strcmp(name, "buddyinfo")) {
		*kind = RP_FRAG_BUDDYINFO;
		return 0;
	}
	return fail("bad frag model '%s': known models are none, buddyinfo", name);
}

const char *rp_frag_name(enum rp_frag_kind kind)
{
	return kind == RP_FRAG_BUDDYINFO ? "buddyinfo" : "none";
}

int rp_buddyinfo_check(const uint64_t free_blocks[RP_MAX_ORDER + 1], uint64_t max_pages)
{
	uint64_t limit = max_pages && max_pages < RP_BUDDY_MAX_PAGES ? max_pages
								      : RP_BUDDY_MAX_PAGES;
	uint64_t pages = 0;
	int k;

	/* limit < 2^63, so neither the shift nor the sum below can wrap once checked */
	for (k = 0; k <= RP_MAX_ORDER; k++) {
		if (free_blocks[k] > (limit >> k) || (free_blocks[k] << k) > limit - pages)
			return fail("implausible buddyinfo: order %d count %llu: more free "
				     "pages than the %llu %s", k,
				     (unsigned long long)free_blocks[k],
				     (unsigned long long)limit,
				     limit == max_pages ? "pages of the recorded memory"
							: "pages the buddy model holds");
		pages += free_blocks[k] << k;
	}
	return 0;
}

int rp_buddyinfo_parse(const char *text, uint64_t max_pages,
		       uint64_t free_blocks[RP_MAX_ORDER + 1])
{
	const char *line = text;
	int lines = 0;

	memset(free_blocks, 0, sizeof(uint64_t) * (RP_MAX_ORDER + 1));
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512], zone[32];
		int node, pos = 0, o;
		char *p;

		if (len >= sizeof(buf))
			return fail("buddyinfo line too long");
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl ? nl + 1 : NULL;
		if (!len || strspn(buf, " \t\r") == len)
			continue;
		if (sscanf(buf, "Node %d, zone %31s %n", &node, zone, &pos) != 2 || !pos)
			return fail("bad buddyinfo line '%s'", buf);
		p = buf + pos;
		for (o = 0; o <= RP_MAX_ORDER; o++) {
			char *end;
			unsigned long long c;

			p += strspn(p, " \t");
			/* strtoull() takes "-5" as 2^64-5: counts are plain digits */
			if (*p < '0' || *p > '9')
				return fail("bad buddyinfo line '%s': %d counts, want %d", buf, o,
					     RP_MAX_ORDER + 1);
			errno = 0;
			c = strtoull(p, &end, 10);
			if (errno == ERANGE || c > RP_BUDDY_MAX_PAGES)
				return fail("implausible buddyinfo: order %d count %.*s", o,
					     (int)(end - p), p);
			if (strcmp(zone, "DMA"))
				free_blocks[o] += c;	/* <= 2^32 per zone: no wrap */
			if (free_blocks[o] > RP_BUDDY_MAX_PAGES)
				return fail("implausible buddyinfo: order %d count %llu (all "
					     "zones)", o, (unsigned long long)free_blocks[o]);
			p = end;
		}
		lines++;
	}
	if (!lines)
		return fail("empty buddyinfo");
	return rp_buddyinfo_check(free_blocks, max_pages);
}

/* the LRU counters of /proc/vmstat: what compaction's migration scanner can isolate */
static const char *const lru_keys[] = {
	"nr_inactive_anon", "nr_active_anon", "nr_inactive_file", "nr_active_file",
};

int rp_vmstat_movable(const char *text, uint64_t max_pages, uint64_t *pages)
{
	uint64_t limit = max_pages && max_pages < RP_BUDDY_MAX_PAGES ? max_pages
								      : RP_BUDDY_MAX_PAGES;
	const char *line = text;
	unsigned int seen = 0;

	*pages = 0;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t name = strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_");
		const char *p = line + name;
		unsigned long long v;
		unsigned int i;
		char *end;

		if (!len || strspn(line, " \t\r") >= len) {
			line = nl ? nl + 1 : NULL;
			continue;
		}
		if (!name || name >= len || (*p != ' ' && *p != '\t'))
			return fail("bad vmstat line '%.*s': want 'name value'", (int)len, line);
		p += strspn(p, " \t");
		/* strtoull() takes "-5" as 2^64-5: counts are plain digits */
		if (*p < '0' || *p > '9')
			return fail("bad vmstat line '%.*s': want 'name value'", (int)len, line);
		errno = 0;
		v = strtoull(p, &end, 10);
		if ((size_t)(end + strspn(end, " \t\r") - line) != len)
			return fail("bad vmstat line '%.*s': want 'name value'", (int)len, line);
		for (i = 0; i < sizeof(lru_keys) / sizeof(lru_keys[0]); i++) {
			if (strlen(lru_keys[i]) != name || strncmp(line, lru_keys[i], name))
				continue;
			if (seen & (1U << i))
				return fail("bad vmstat: %s twice", lru_keys[i]);
			seen |= 1U << i;
			/* *pages <= limit < 2^63 before the test: no wrap */
			if (errno == ERANGE || v > limit - *pages)
				return fail("implausible vmstat: %s %.*s: more LRU pages than the "
					     "%llu %s", lru_keys[i], (int)(end - p), p,
					     (unsigned long long)limit,
					     limit == max_pages ? "pages of the recorded memory"
								: "pages the buddy model holds");
			*pages += v;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

static void map_set(struct rp_alloc *a, unsigned int k, uint64_t idx)
{
	uint64_t w = idx >> 6;

	a->map[k][w] |= 1ULL << (idx & 63);
	a->nr_free[k]++;
	if (w < a->hint[k])
		a->hint[k] = w;
}

static void map_clear(struct rp_alloc *a, unsigned int k, uint64_t idx)
{
	a->map[k][idx >> 6] &= ~(1ULL << (idx & 63));
	a->nr_free[k]--;
}

static int map_test(const struct rp_alloc *a, unsigned int k, uint64_t idx)
{
	if ((idx >> 6) >= a->words[k])
		return 0;
	return (a->map[k][idx >> 6] >> (idx & 63)) & 1;
}

int rp_alloc_init(struct rp_alloc *a, enum rp_frag_kind kind,
		  const uint64_t free_blocks[RP_MAX_ORDER + 1], uint64_t movable)
{
	uint64_t cursor = 0, pages = 0, i;
	int k;

	memset(a, 0, sizeof(*a));
	a->kind = kind;
	if (kind != RP_FRAG_BUDDYINFO)
		return 0;
	/* the seed may not come from rp_buddyinfo_parse(): the bitmaps are sized from it */
	if (rp_buddyinfo_check(free_blocks, 0))
		return -1;
	for (k = RP_MAX_ORDER; k >= 0; k--) {
		cursor += free_blocks[k] << (k + 1);
		pages += free_blocks[k] << k;
	}
	if (movable > RP_BUDDY_MAX_PAGES - pages)
		return fail("implausible movable pool: %llu pages beside %llu free pages, more "
			     "than the %llu pages the buddy model holds",
			     (unsigned long long)movable, (unsigned long long)pages,
			     (unsigned long long)RP_BUDDY_MAX_PAGES);
	/* the pool: < 2^33 + 8 + 2^32, so no wrap */
	a->pool_next = (cursor + (1ULL << RP_COMPACT_MAX_ORDER) - 1) &
		       ~((1ULL << RP_COMPACT_MAX_ORDER) - 1);
	a->pool_end = a->pool_next + movable;
	cursor = a->pool_end;
	a->nr_pfns = cursor;
	for (k = 0; k <= RP_MAX_ORDER; k++) {
		a->words[k] = ((cursor >> k) >> 6) + 1;
		a->map[k] = xcalloc(a->words[k], sizeof(uint64_t));
	}
	cursor = 0;
	for (k = RP_MAX_ORDER; k >= 0; k--) {
		for (i = 0; i < free_blocks[k]; i++) {
			map_set(a, (unsigned int)k, cursor >> k);
			cursor += 2ULL << k;	/* the upper half is the busy buddy */
		}
	}
	/* overflow pfns start above the managed range, 2^RP_MAX_ORDER aligned */
	a->next = (a->nr_pfns + (1ULL << RP_MAX_ORDER)) & ~((1ULL << RP_MAX_ORDER) - 1);
	return 0;
}

void rp_alloc_release(struct rp_alloc *a)
{
	int k;

	for (k = 0; k <= RP_MAX_ORDER; k++)
		free(a->map[k]);
	memset(a, 0, sizeof(*a));
}

uint64_t rp_alloc_overflow(struct rp_alloc *a, unsigned int order)
{
	uint64_t n = 1ULL << order;
	uint64_t pfn = (a->next + n - 1) & ~(n - 1);

	a->next = pfn + n + 1;	/* a gap: separate blocks are never adjacent */
	return pfn;
}

static int64_t map_first(struct rp_alloc *a, unsigned int k)
{
	uint64_t w;

	if (!a->nr_free[k])
		return -1;
	for (w = a->hint[k]; w < a->words[k]; w++) {
		if (a->map[k][w]) {
			a->hint[k] = w;
			return (int64_t)((w << 6) + (uint64_t)__builtin_ctzll(a->map[k][w]));
		}
	}
	a->hint[k] = a->words[k];
	return -1;
}

/*
 * Direct compaction for a failed order-k request (frag.h): the next 2^k-aligned pool block,
 * its pages migrated into 2^k free pages. Only called once no free block of order >= k is
 * left, so those pages come from blocks below order k, as the kernel's free scanner takes
 * them (fast_isolate_freepages() searches the orders below the request's).
 */
static int compact(struct rp_alloc *a, unsigned int order, uint64_t *pfn)
{
	uint64_t n = 1ULL << order, at = (a->pool_next + n - 1) & ~(n - 1), free = 0, dst, i;
	unsigned int k;

	if (order < 1 || order > RP_COMPACT_MAX_ORDER || at + n > a->pool_end)
		return -1;
	for (k = 0; k <= RP_MAX_ORDER; k++)
		free += a->nr_free[k] << k;
	if (free < n)
		return -1;
	for (i = 0; i < n; i++)
		(void)rp_alloc_buddy_get(a, 0, &dst);	/* free >= n: cannot fail */
	a->pool_next = at + n;
	*pfn = at;
	return 0;
}

int rp_alloc_buddy_get(struct rp_alloc *a, unsigned int order, uint64_t *pfn)
{
	unsigned int k;
	int64_t idx = -1;

	for (k = order; k <= RP_MAX_ORDER; k++) {
		idx = map_first(a, k);
		if (idx >= 0)
			break;
	}
	if (idx < 0)
		return compact(a, order, pfn);
	map_clear(a, k, (uint64_t)idx);
	*pfn = (uint64_t)idx << k;
	while (k > order) {
		k--;
		map_set(a, k, (*pfn >> k) + 1);	/* upper half becomes free */
	}
	return 0;
}

void rp_alloc_buddy_put(struct rp_alloc *a, uint64_t pfn)
{
	unsigned int k = 0;

	while (k < RP_MAX_ORDER && map_test(a, k, (pfn >> k) ^ 1)) {
		map_clear(a, k, (pfn >> k) ^ 1);
		pfn &= ~(1ULL << k);
		k++;
	}
	map_set(a, k, pfn >> k);
}
