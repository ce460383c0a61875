// SPDX-License-Identifier: GPL-2.0
/*
 * ivmap.c - the interval map (lib/ivmap.c): hand-made cases, then a differential test
 * against a naive model, one cell per key of a small key space, driven by random sets,
 * removes, merges and copies.
 *
 * The naive model holds per key whether it is mapped, its value and the id of the
 * ivmap_set() that painted it (ids are fresh per set). The map's intervals must then be
 * exactly the model's maximal runs of consecutive keys with one id: a set makes one
 * interval, a remove inside one leaves two (split by a gap), and merging relabels the right
 * run with the left one's id and value. Checked after every operation: the invariant
 * (sorted, non-empty, disjoint), that structure, ivmap_find() and ivmap_lower() at every key.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/ivmap.h"
#include "tests/unit/rng.h"
#include "tests/unit/tap.h"

#define KEYS	200		/* the model's key space [0, KEYS) */
#define OPS	20000		/* random operations per map */

struct naive {
	int mapped[KEYS];
	uint64_t val[KEYS];
	uint64_t id[KEYS];	/* the painting set's */
};

static uint64_t next_id = 1;

static void naive_set(struct naive *n, uint64_t s, uint64_t e, uint64_t val)
{
	uint64_t k, id = next_id++;

	for (k = s; k < e; k++) {
		n->mapped[k] = 1;
		n->val[k] = val;
		n->id[k] = id;
	}
}

static void naive_remove(struct naive *n, uint64_t s, uint64_t e)
{
	uint64_t k;

	for (k = s; k < e; k++)
		n->mapped[k] = 0;
}

/* merge by value parity, as the exporter merges by VMA class */
static int same_parity(uint64_t a, uint64_t b)
{
	return (a & 1) == (b & 1);
}

static void naive_merge(struct naive *n)
{
	uint64_t k, j, old;

	for (k = 1; k < KEYS; k++) {
		if (!n->mapped[k - 1] || !n->mapped[k] || n->id[k] == n->id[k - 1] ||
		    !same_parity(n->val[k - 1], n->val[k]))
			continue;
		old = n->id[k];
		for (j = k; j < KEYS && n->mapped[j] && n->id[j] == old; j++) {
			n->id[j] = n->id[k - 1];
			n->val[j] = n->val[k - 1];
		}
	}
}

/* The map against the model; Return: NULL, or what differs. */
static const char *compare(const struct ivmap *m, const struct naive *n)
{
	size_t i = 0, runs = 0;
	uint64_t k;

	for (i = 0; i < m->n; i++) {
		if (m->v[i].start >= m->v[i].end)
			return "an empty interval";
		if (i && m->v[i - 1].end > m->v[i].start)
			return "intervals out of order or overlapping";
		if (m->v[i].end > KEYS)
			return "an interval past the key space";
	}
	for (k = 0; k < KEYS; k++) {
		ssize_t f = ivmap_find(m, k);
		size_t lo = ivmap_lower(m, k);

		if (n->mapped[k] != (f >= 0))
			return "find() disagrees on whether a key is mapped";
		if (f >= 0 && m->v[f].val != n->val[k])
			return "find() gives another value";
		if (lo > m->n || (lo < m->n && m->v[lo].end <= k) ||
		    (lo > 0 && m->v[lo - 1].end > k))
			return "lower() is not the first interval ending after the key";
		if (n->mapped[k] && (!k || !n->mapped[k - 1] || n->id[k - 1] != n->id[k])) {
			/* a run starts here: it must be an interval, exactly */
			uint64_t e = k;

			while (e < KEYS && n->mapped[e] && n->id[e] == n->id[k])
				e++;
			if (f < 0 || m->v[f].start != k || m->v[f].end != e)
				return "an interval is not the model's run";
			runs++;
		}
	}
	return runs == m->n ? NULL : "more intervals than the model's runs";
}

/* Random operations on m and its model, with merges if merging; Return: NULL or what. */
static const char *drive(struct ivmap *m, struct naive *n, int merging, size_t *sets,
			 size_t *removes, size_t *copies, size_t *peak)
{
	struct ivmap copy = IVMAP_INIT;
	const char *bad = NULL;
	int i;

	for (i = 0; i < OPS && !bad; i++) {
		uint64_t s = rnd() % (KEYS + 1), len = rnd() % 8 ? rnd() % 12 : rnd() % KEYS;
		uint64_t e = s + len > KEYS ? KEYS : s + len;
		unsigned int op = (unsigned int)(rnd() % 16);

		if (op < 9) {
			uint64_t val = rnd() % 4;

			ivmap_set(m, s, e, val);
			naive_set(n, s, e, val);
			if (merging) {
				ivmap_merge(m, same_parity);
				naive_merge(n);
			}
			(*sets)++;
		} else if (op < 15) {
			ivmap_remove(m, s, e);
			naive_remove(n, s, e);
			(*removes)++;
		} else {
			/* a copy, as a fork copies a map: then continue on the copy */
			ivmap_copy(&copy, m);
			ivmap_release(m);
			ivmap_copy(m, &copy);
			(*copies)++;
		}
		if (m->n > *peak)
			*peak = m->n;
		bad = compare(m, n);
	}
	ivmap_release(&copy);
	return bad;
}

int main(void)
{
	struct ivmap m = IVMAP_INIT, c = IVMAP_INIT;
	struct naive *n = calloc(1, sizeof(*n));
	size_t sets = 0, removes = 0, copies = 0, peak = 0;
	const char *bad;
	int merging;

	plan(16);
	rng = 0x2545f4914f6cdd1dull;

	/* hand-made cases */
	ok(ivmap_find(&m, 0) == -1 && ivmap_lower(&m, 5) == 0, "an empty map finds nothing");
	ivmap_set(&m, 10, 20, 1);
	ivmap_set(&m, 30, 40, 2);
	ok(m.n == 2 && ivmap_find(&m, 19) == 0 && ivmap_find(&m, 20) == -1 &&
	   ivmap_find(&m, 30) == 1 && ivmap_find(&m, 9) == -1, "intervals are half-open");
	ivmap_set(&m, 15, 35, 3);
	ok(m.n == 3 && m.v[0].end == 15 && m.v[1].start == 15 && m.v[1].end == 35 &&
	   m.v[1].val == 3 && m.v[2].start == 35 && m.v[2].val == 2,
	   "a set over two intervals cuts both and lies between them");
	ivmap_remove(&m, 16, 18);
	ok(m.n == 4 && m.v[1].start == 15 && m.v[1].end == 16 && m.v[2].start == 18 &&
	   m.v[2].val == 3, "a remove inside an interval splits it");
	ivmap_set(&m, 50, 50, 9);
	ivmap_remove(&m, 40, 10);
	ok(m.n == 4, "empty and reversed intervals change nothing");
	ivmap_remove(&m, 0, UINT64_MAX);
	ok(m.n == 0, "a remove of everything leaves nothing");
	ivmap_set(&m, UINT64_MAX - 10, UINT64_MAX, 7);
	ok(ivmap_find(&m, UINT64_MAX - 1) == 0 && ivmap_find(&m, UINT64_MAX) == -1,
	   "an interval up to the top key");
	ivmap_set(&m, 0, 4, 1);
	ivmap_set(&m, 4, 8, 3);
	ivmap_set(&m, 8, 12, 2);
	ivmap_merge(&m, same_parity);
	ok(m.n == 3 && m.v[0].start == 0 && m.v[0].end == 8 && m.v[0].val == 1 &&
	   m.v[1].start == 8, "merge joins touching intervals of one class, keeping the left value");
	ivmap_copy(&c, &m);
	ivmap_set(&c, 0, 100, 5);
	ok(c.n == 2 && m.n == 3 && m.v[0].end == 8, "a copy is independent of its source");
	ivmap_release(&m);
	ivmap_copy(&c, &m);
	ok(c.n == 0 && m.v == NULL, "copying an empty (released) map empties the copy");
	ivmap_release(&c);

	/* differential, without and with merging */
	for (merging = 0; merging < 2; merging++) {
		memset(n, 0, sizeof(*n));
		sets = removes = copies = peak = 0;
		bad = drive(&m, n, merging, &sets, &removes, &copies, &peak);
		ok(!bad, "%s: %d random operations agree with the naive model%s%s",
		   merging ? "merging" : "no merging", OPS, bad ? ": " : "", bad ? bad : "");
		ok(sets > OPS / 3 && removes > OPS / 4 && copies > OPS / 40,
		   "%s: every operation exercised (%zu sets, %zu removes, %zu copies)",
		   merging ? "merging" : "no merging", sets, removes, copies);
		ok(peak >= 10, "%s: up to %zu intervals at once", merging ? "merging" : "no merging",
		   peak);
		ivmap_release(&m);
	}
	free(n);
	return done_testing();
}
