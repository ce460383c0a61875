// SPDX-License-Identifier: GPL-2.0
/*
 * export-file.c - the exporter's file writer: the header, then per process its record,
 * its family's clusters and its encoded operations (format: replay/guest/ftr.h,
 * docs/guest-replay.md).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/export-int.h"

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void put_le(struct strbuf *sb, uint64_t v, unsigned int n)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	strbuf_add(sb, b, n);
}

int rp_export_finish(struct rp_export *x, struct strbuf *out, struct rp_export_stats *st)
{
	size_t i, start = out->len;
	uint32_t id;

	if (!x->nr_index) {
		rp_export_free(x);
		return fail("no event of a selected process to replay");
	}
	/* a family's clusters: every range any of its processes mapped, merged */
	for (i = 0; i < x->nr_index; i++) {
		struct xproc *p = &x->p[x->by_index[i]], *root = p;

		while (root->parent != UINT32_MAX)
			root = &x->p[root->parent];
		if (root == p)
			continue;
		if (!p->nr_mapped)	/* mapped is NULL while empty */
			continue;
		XGROW(root->mapped, root->cap_mapped, root->nr_mapped + p->nr_mapped);
		memcpy(root->mapped + root->nr_mapped, p->mapped,
		       p->nr_mapped * sizeof(*p->mapped));
		root->nr_mapped += p->nr_mapped;
		p->nr_mapped = 0;
	}
	strbuf_add(out, FTR_MAGIC, 4);
	put_le(out, FTR_VERSION, 1);
	put_le(out, x->in.page_shift, 1);
	put_le(out, 0, 2);
	put_le(out, x->nr_index, 4);
	put_le(out, 0, 4);
	put_le(out, (uint64_t)x->in.trace_id, 8);
	put_le(out, x->st.touches, 8);
	for (i = 0; i < x->nr_index; i++) {
		struct xproc *p = &x->p[x->by_index[i]];
		const struct rp_proc_info *ip = &x->in.procs[x->by_index[i]];
		size_t n = 0, k, clen = strnlen(ip->comm, FTR_COMM_MAX);
		uint64_t prev = 0;
		uint8_t cl = (uint8_t)clen;

		id = x->by_index[i];
		xput_varint(out, i);
		xput_varint(out, p->parent == UINT32_MAX ? 0 : (uint64_t)x->p[p->parent].index + 1);
		xput_varint(out, id);
		xput_varint(out, ftr_zigzag(ip->pid));
		strbuf_add(out, &cl, 1);
		strbuf_add(out, ip->comm, clen);
		if (p->parent == UINT32_MAX) {
			x->st.families++;
			if (p->nr_mapped)	/* mapped is NULL while empty */
				qsort(p->mapped, p->nr_mapped, sizeof(*p->mapped), cmp_range);
			for (k = 0; k < p->nr_mapped; k++) {
				if (n && p->mapped[k].start <= p->mapped[n - 1].end) {
					if (p->mapped[k].end > p->mapped[n - 1].end)
						p->mapped[n - 1].end = p->mapped[k].end;
				} else {
					p->mapped[n++] = p->mapped[k];
				}
			}
		}
		xput_varint(out, n);
		for (k = 0; k < n; k++) {
			xput_varint(out, p->mapped[k].start - prev);
			xput_varint(out, p->mapped[k].end - p->mapped[k].start);
			prev = p->mapped[k].end;
		}
		x->st.clusters += n;
		xput_varint(out, p->nr_ops);
		xput_varint(out, p->ops.len);
		strbuf_add(out, p->ops.buf, p->ops.len);
	}
	x->st.procs = x->nr_index;
	x->st.bytes = out->len - start;
	*st = x->st;
	rp_export_free(x);
	return 0;
}
