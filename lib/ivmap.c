// SPDX-License-Identifier: GPL-2.0
/* ivmap.c - a sorted map of disjoint intervals; see ivmap.h. */
#include <stdlib.h>
#include <string.h>

#include "lib/ivmap.h"
#include "lib/xalloc.h"

size_t ivmap_lower(const struct ivmap *m, uint64_t key)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].end <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

ssize_t ivmap_find(const struct ivmap *m, uint64_t key)
{
	size_t i = ivmap_lower(m, key);

	return i < m->n && m->v[i].start <= key ? (ssize_t)i : -1;
}

void ivmap_remove(struct ivmap *m, uint64_t start, uint64_t end)
{
	size_t i, j;
	struct ivmap_entry keep[2];
	size_t nk = 0;

	if (start >= end)
		return;
	i = ivmap_lower(m, start);
	for (j = i; j < m->n && m->v[j].start < end; j++)
		;
	if (i == j)
		return;
	/* [i, j) overlap [start, end): the first and last may keep a part outside it */
	if (m->v[i].start < start)
		keep[nk++] = (struct ivmap_entry){ m->v[i].start, start, m->v[i].val };
	if (m->v[j - 1].end > end)
		keep[nk++] = (struct ivmap_entry){ end, m->v[j - 1].end, m->v[j - 1].val };
	XGROW(m->v, m->cap, m->n + 2);
	memmove(&m->v[i + nk], &m->v[j], (m->n - j) * sizeof(*m->v));
	memcpy(&m->v[i], keep, nk * sizeof(*keep));
	m->n = m->n - (j - i) + nk;
}

void ivmap_set(struct ivmap *m, uint64_t start, uint64_t end, uint64_t val)
{
	size_t i;

	if (start >= end)
		return;
	ivmap_remove(m, start, end);
	i = ivmap_lower(m, start);
	XGROW(m->v, m->cap, m->n + 1);
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = (struct ivmap_entry){ start, end, val };
	m->n++;
}

void ivmap_merge(struct ivmap *m, int (*same)(uint64_t a, uint64_t b))
{
	size_t i, o = 0;

	for (i = 0; i < m->n; i++) {
		if (o && m->v[o - 1].end == m->v[i].start && same(m->v[o - 1].val, m->v[i].val))
			m->v[o - 1].end = m->v[i].end;
		else
			m->v[o++] = m->v[i];
	}
	m->n = o;
}

void ivmap_copy(struct ivmap *dst, const struct ivmap *src)
{
	dst->n = 0;
	if (!src->n)	/* src->v may be NULL */
		return;
	XGROW(dst->v, dst->cap, src->n);
	memcpy(dst->v, src->v, src->n * sizeof(*src->v));
	dst->n = src->n;
}

void ivmap_release(struct ivmap *m)
{
	free(m->v);
	*m = (struct ivmap)IVMAP_INIT;
}
