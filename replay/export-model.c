// SPDX-License-Identifier: GPL-2.0
/*
 * export-model.c - the exporter's model of the replayer's mappings, per process: a sorted
 * array of disjoint page intervals, each with the vm_flags of the recorded VMA it was made
 * for; adjacent intervals of one class merge, as the kernel merges anonymous VMAs.
 *
 * Tuned for: tens of entries per process (one per VMA it touched), looked up by binary
 * search.
 */
#include <string.h>

#include "lib/xalloc.h"
#include "replay/export-int.h"

/* First interval ending after page. */
size_t xmodel_lower(const struct model *m, uint64_t page)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->v[mid].end <= page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the interval holding page, or -1. */
ssize_t xmodel_find(const struct model *m, uint64_t page)
{
	size_t i = xmodel_lower(m, page);

	return i < m->n && m->v[i].start <= page ? (ssize_t)i : -1;
}

static void xmodel_insert_at(struct model *m, size_t i, struct ival iv)
{
	XGROW(m->v, m->cap, m->n + 1);
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = iv;
	m->n++;
}

/* Unmap [s, e) from the model, splitting intervals at the edges. */
void xmodel_remove(struct model *m, uint64_t s, uint64_t e)
{
	size_t i = xmodel_lower(m, s);

	while (i < m->n && m->v[i].start < e) {
		struct ival *iv = &m->v[i];

		if (iv->start < s && iv->end > e) {		/* hole in the middle */
			struct ival hi = { e, iv->end, iv->flags };

			iv->end = s;
			xmodel_insert_at(m, i + 1, hi);
			return;
		}
		if (iv->start < s) {
			iv->end = s;
			i++;
		} else if (iv->end > e) {
			iv->start = e;
			return;
		} else {
			memmove(iv, iv + 1, (m->n - i - 1) * sizeof(*m->v));
			m->n--;
		}
	}
}

/* Merge adjacent intervals of one class, as the kernel merges anonymous VMAs. */
static void xmodel_normalize(struct model *m)
{
	size_t i, o = 0;

	for (i = 0; i < m->n; i++) {
		if (o && m->v[o - 1].end == m->v[i].start &&
		    vclass(m->v[o - 1].flags) == vclass(m->v[i].flags))
			m->v[o - 1].end = m->v[i].end;
		else
			m->v[o++] = m->v[i];
	}
	m->n = o;
}

/* Map [s, e) with flags in the model, replacing what was there. */
void xmodel_set(struct model *m, uint64_t s, uint64_t e, uint64_t flags)
{
	struct ival iv = { s, e, flags };

	xmodel_remove(m, s, e);
	xmodel_insert_at(m, xmodel_lower(m, s), iv);
	xmodel_normalize(m);
}
