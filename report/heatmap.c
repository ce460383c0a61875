// SPDX-License-Identifier: GPL-2.0
/*
 * heatmap.c - the address x time heat maps; see heatmap.h.
 *
 * Addresses: a process's VMA shapes with faults, overlapping shapes (a stack or heap that
 * grew) merged into regions, each cut into min(its 2M ranges, HM_REGION_ROWS) equal
 * bands. The gaps between regions are not drawn (an address space spans 128 TiB; its
 * faults a few MiB). More than HM_ROWS bands: the regions with the fewest faults are left
 * out and counted in a note. Time: HM_COLS equal columns of the event stream's span, as
 * the series. Cost: one decode of the stream and a compare per event; the chart is at
 * most HM_ROWS x HM_COLS cells whatever the trace's length.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/busiest.h"
#include "db/ftdb.h"
#include "db/series.h"
#include "lib/error.h"
#include "lib/fmt.h"
#include "lib/xalloc.h"
#include "replay/load.h"
#include "report/heatmap.h"
#include "report/svg.h"

#define SZ_2M		(2ULL << 20)
#define LABEL_W		250	/* px, band labels */
#define CELL_W		5	/* px per time column */
#define ROW_H		9	/* px per band */
#define DENS_W		110	/* px, density column */
#define TOP		40	/* px, title and legend */
#define BOTTOM		22	/* px, time axis */
#define VM_READ		0x1ULL
#define VM_WRITE	0x2ULL
#define VM_EXEC		0x4ULL
#define VM_GROWSDOWN	0x100ULL

struct region {
	uint64_t start, end, flags;	/* bytes; flags of its first shape */
	int64_t faults;			/* recorded, as the vma rows count them */
	unsigned int row0, rows;	/* its bands: [row0, row0 + rows) */
	int shown;
};

struct pmap {
	struct ftdb_busy_proc p;
	struct region *r;
	int nr;
	unsigned int rows;		/* bands drawn */
	uint32_t *cell;			/* rows x HM_COLS fault counts */
	uint64_t *band;			/* faults per band */
	uint32_t *band_site;		/* rows x nr_slots, NULL without sites */
	uint64_t faults;		/* FAULT events of the process in the stream */
	int hidden;			/* regions left out */
	int64_t hidden_faults;
};

struct pass {
	struct pmap *m;
	int n;
	uint64_t t0, width;		/* ns: stream start, per column */
	const struct rp_loaded *l;	/* site slots, or NULL */
	uint32_t cursor;
	uint64_t ord;			/* ordinal of the event, as ingest counted */
};

static int cmp_faults(const void *a, const void *b)
{
	const struct region *x = *(const struct region *const *)a;
	const struct region *y = *(const struct region *const *)b;

	return x->faults < y->faults ? 1 : x->faults > y->faults ? -1 :
	       x->start < y->start ? -1 : x->start > y->start;
}

/* The regions and bands of m from its VMA shapes v (by start). */
static void layout(struct pmap *m, const struct ftdb_busy_vma *v, int nv)
{
	struct region **by;
	unsigned int total = 0, row = 0;
	int i;

	m->r = xcalloc((size_t)nv + 1, sizeof(*m->r));
	for (i = 0; i < nv; i++) {
		struct region *c = m->nr ? &m->r[m->nr - 1] : NULL;

		if (c && v[i].start <= c->end) {	/* overlaps: a shape of the same VMA */
			if (v[i].end > c->end)
				c->end = v[i].end;
			c->faults += v[i].faults;
			continue;
		}
		m->r[m->nr++] = (struct region){ v[i].start, v[i].end, v[i].flags, v[i].faults,
						 0, 0, 0 };
	}
	by = xcalloc((size_t)m->nr + 1, sizeof(*by));
	for (i = 0; i < m->nr; i++) {
		uint64_t r2m = (m->r[i].end - m->r[i].start + SZ_2M - 1) / SZ_2M;

		m->r[i].rows = r2m < HM_REGION_ROWS ? (unsigned int)r2m : HM_REGION_ROWS;
		by[i] = &m->r[i];
	}
	qsort(by, (size_t)m->nr, sizeof(*by), cmp_faults);
	for (i = 0; i < m->nr; i++) {
		if (total + by[i]->rows > HM_ROWS) {
			m->hidden++;
			m->hidden_faults += by[i]->faults;
			continue;
		}
		by[i]->shown = 1;
		total += by[i]->rows;
	}
	free(by);
	for (i = 0; i < m->nr; i++)
		if (m->r[i].shown) {
			m->r[i].row0 = row;
			row += m->r[i].rows;
		}
	m->rows = row;
}

/* The region of a in m (shown or not), or NULL. Regions are sorted and disjoint. */
static const struct region *region_of(const struct pmap *m, uint64_t a)
{
	int lo = 0, hi = m->nr;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (m->r[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr && m->r[lo].start <= a ? &m->r[lo] : NULL;
}

static int on_event(const struct ftdb_event *ev, void *arg)
{
	struct pass *ps = arg;
	uint64_t ord = ps->ord++;
	const struct region *r;
	struct pmap *m = NULL;
	unsigned int band, col;
	int i;

	if (ev->kind != FTDB_EV_FAULT)
		return 0;
	for (i = 0; i < ps->n; i++)
		if ((uint64_t)ps->m[i].p.proc_id == ev->proc_id)
			m = &ps->m[i];
	if (!m)
		return 0;
	m->faults++;
	r = region_of(m, ev->addr);
	if (!r || !r->shown)
		return 0;
	band = r->row0 + (unsigned int)((ev->addr - r->start) * r->rows / (r->end - r->start));
	col = (unsigned int)((ev->ts - ps->t0) / ps->width);
	if (col >= HM_COLS)
		col = HM_COLS - 1;
	m->cell[band * HM_COLS + col]++;
	m->band[band]++;
	if (m->band_site)
		m->band_site[band * ps->l->nr_slots + rp_touch_slot(ps->l, &ps->cursor, ord)]++;
	return 0;
}

/* White to dark orange by log(1 + c) / log(1 + max). */
static void heat_color(char *buf, size_t len, uint32_t c, uint32_t max)
{
	static const double lo[3] = { 0xfe, 0xe6, 0xce }, hi[3] = { 0x7f, 0x27, 0x04 };
	double f = max ? log1p(c) / log1p(max) : 0;

	snprintf(buf, len, "#%02x%02x%02x", (int)(lo[0] + (hi[0] - lo[0]) * f),
		 (int)(lo[1] + (hi[1] - lo[1]) * f), (int)(lo[2] + (hi[2] - lo[2]) * f));
}

/* "0x7f12345000 rw- 8.0M [stack]": a region's label. */
static void region_label(char *buf, size_t len, const struct region *r)
{
	char sz[32];

	fmt_bytes(sz, sizeof(sz), r->end - r->start);
	snprintf(buf, len, "0x%llx %c%c%c %s%s", (unsigned long long)r->start,
		 r->flags & VM_READ ? 'r' : '-', r->flags & VM_WRITE ? 'w' : '-',
		 r->flags & VM_EXEC ? 'x' : '-', sz, r->flags & VM_GROWSDOWN ? " [stack]" : "");
}

/* The busiest site of band b, or NULL. */
static const char *band_site(const struct pmap *m, const struct rp_loaded *l, unsigned int b)
{
	uint32_t k, best = 0;

	if (!m->band_site)
		return NULL;
	for (k = 1; k < l->nr_slots; k++)
		if (m->band_site[b * l->nr_slots + k] > m->band_site[b * l->nr_slots + best])
			best = k;
	return m->band_site[b * l->nr_slots + best] ? l->slot_site[best] : NULL;
}

static void fmt_ms(char *buf, size_t len, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else
		snprintf(buf, len, "%.1f ms", ns / 1e6);
}

static void draw(struct strbuf *sb, const struct pmap *m, const struct pass *ps,
		 const char *prefix)
{
	int w = LABEL_W + HM_COLS * CELL_W + 8 + DENS_W + 60;
	int h = TOP + (int)m->rows * ROW_H + BOTTOM;
	const struct svg_series leg[1] = { { "faults per cell (darker: more, log scale)",
					     "#d94801", NULL } };
	uint32_t max = 0;
	unsigned int b, c;
	char id[96], title[160], buf[160], t0[32], t1[32];
	int i;

	for (b = 0; b < m->rows * HM_COLS; b++)
		if (m->cell[b] > max)
			max = m->cell[b];
	snprintf(id, sizeof(id), "%sheat-%lld", prefix, (long long)m->p.proc_id);
	snprintf(title, sizeof(title), "Where the faults land: pid %lld %s (process %lld), "
		 "address against time", (long long)m->p.pid, m->p.comm,
		 (long long)m->p.proc_id);
	svg_header(sb, id, title, w, h, leg, 1, LABEL_W);
	strbuf_addf(sb, "<g class=\"heat\" data-proc=\"%lld\" data-faults=\"%llu\" data-rows=\"%u\">"
		    "</g>\n", (long long)m->p.proc_id, (unsigned long long)m->faults, m->rows);
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"lg\">touched per page</text>\n",
		    LABEL_W + HM_COLS * CELL_W + 8, TOP - 4);
	for (i = 0; i < m->nr; i++) {
		const struct region *r = &m->r[i];
		int y = TOP + (int)r->row0 * ROW_H;

		if (!r->shown)
			continue;
		region_label(buf, sizeof(buf), r);
		strbuf_addf(sb, "<line x1=\"0\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#bbb\"/>"
			    "<text x=\"%d\" y=\"%d\" class=\"rl\" text-anchor=\"end\">", w, y, y,
			    LABEL_W - 6, y + 9);
		html_esc(sb, buf);
		strbuf_addstr(sb, "</text>\n");
	}
	for (b = 0; b < m->rows; b++) {
		const struct region *r = NULL;
		uint64_t lo, hi, pages;
		const char *site = band_site(m, ps->l, b);
		double frac;

		for (i = 0; i < m->nr; i++)
			if (m->r[i].shown && b >= m->r[i].row0 && b < m->r[i].row0 + m->r[i].rows)
				r = &m->r[i];
		lo = r->start + (r->end - r->start) * (b - r->row0) / r->rows;
		hi = r->start + (r->end - r->start) * (b - r->row0 + 1) / r->rows;
		pages = (hi - lo + RP_PAGE_SIZE - 1) / RP_PAGE_SIZE;
		if (site && b == r->row0) {
			strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"vl\" text-anchor=\"end\">",
				    LABEL_W - 6, TOP + (int)b * ROW_H + 18);
			html_esc(sb, site);
			strbuf_addstr(sb, "</text>\n");
		}
		for (c = 0; c < HM_COLS; c++) {
			uint32_t n = m->cell[b * HM_COLS + c];

			if (!n)
				continue;
			heat_color(buf, sizeof(buf), n, max);
			fmt_ms(t0, sizeof(t0), (double)c * (double)ps->width);
			fmt_ms(t1, sizeof(t1), (double)(c + 1) * (double)ps->width);
			strbuf_addf(sb, "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" "
				    "height=\"%d\" fill=\"%s\"><title>0x%llx-0x%llx, %s-%s: %u "
				    "faults</title></rect>", LABEL_W + (int)c * CELL_W,
				    TOP + (int)b * ROW_H, CELL_W, ROW_H - 1, buf,
				    (unsigned long long)lo, (unsigned long long)hi, t0, t1, n);
		}
		frac = pages ? (double)m->band[b] / (double)pages : 0;
		strbuf_addf(sb, "\n<rect class=\"dens\" x=\"%d\" y=\"%d\" width=\"%.1f\" "
			    "height=\"%d\" fill=\"#6baed6\"><title>0x%llx-0x%llx: %llu faults "
			    "over %llu pages (%.1f%%)", LABEL_W + HM_COLS * CELL_W + 8,
			    TOP + (int)b * ROW_H, (frac > 1 ? 1 : frac) * DENS_W + 0.5, ROW_H - 1,
			    (unsigned long long)lo, (unsigned long long)hi,
			    (unsigned long long)m->band[b], (unsigned long long)pages, 100 * frac);
		if (site) {
			strbuf_addstr(sb, "; busiest site ");
			html_esc(sb, site);
		}
		strbuf_addstr(sb, "</title></rect>\n");
	}
	fmt_ms(t1, sizeof(t1), (double)HM_COLS * (double)ps->width);
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"vl\">0</text><text x=\"%d\" y=\"%d\" "
		    "class=\"vl\" text-anchor=\"end\">%s</text>\n", LABEL_W, h - 6,
		    LABEL_W + HM_COLS * CELL_W, h - 6, t1);
	strbuf_addstr(sb, "</svg>\n");
	if (m->hidden)
		strbuf_addf(sb, "<p class=\"note\">%d more VMA regions of pid %lld with %lld "
			    "faults are not drawn.</p>\n", m->hidden, (long long)m->p.pid,
			    (long long)m->hidden_faults);
}

int report_heatmaps(struct strbuf *sb, sqlite3 *db, int64_t trace_id, int64_t pid,
		    const char *comm, const char *prefix)
{
	struct ftdb_busy_proc p[HM_PROCS];
	struct pmap m[HM_PROCS];
	struct pass ps = { .m = m };
	struct rp_loaded l;
	uint64_t first, last;
	int n, i, ret = -1, loaded = 0;

	memset(m, 0, sizeof(m));
	n = ftdb_busiest_procs(db, trace_id, pid, comm, p, HM_PROCS);
	if (n < 0 || ftdb_stream_span(db, trace_id, &first, &last))
		return -1;
	strbuf_addstr(sb, "<h2>Where the faults land</h2>\n");
	if (!n) {
		strbuf_addstr(sb, "<p class=\"note\">No process of the trace has a fault.</p>\n");
		return 0;
	}
	if (rp_load(db, trace_id, NULL, &l))	/* the one attribution of touches to sites */
		return -1;
	loaded = 1;
	ps.l = l.nr_slots ? &l : NULL;
	ps.t0 = first;
	ps.width = (last - first + HM_COLS) / HM_COLS;	/* ceil((span + 1) / cols) */
	if (!ps.width)
		ps.width = 1;
	for (i = 0; i < n; i++) {
		struct ftdb_busy_vma *v;
		int nv = ftdb_proc_vmas(db, p[i].proc_id, &v);

		if (nv < 0)
			goto out;
		m[i].p = p[i];
		layout(&m[i], v, nv);
		free(v);
		m[i].cell = xcalloc((size_t)m[i].rows * HM_COLS + 1, sizeof(*m[i].cell));
		m[i].band = xcalloc((size_t)m[i].rows + 1, sizeof(*m[i].band));
		if (ps.l)
			m[i].band_site = xcalloc((size_t)m[i].rows * l.nr_slots + 1,
						 sizeof(*m[i].band_site));
		ps.n = i + 1;
	}
	if (ftdb_stream_foreach(db, trace_id, on_event, &ps))
		goto out;
	for (i = 0; i < n; i++)
		draw(sb, &m[i], &ps, prefix);
	strbuf_addf(sb, "<p class=\"note\">The recorded faults (anon_fault) of the %s, binned "
		    "by address band and trace time (%d columns); each VMA region (shapes that "
		    "grew merged) is cut into at most %d bands, one per 2M below that, gaps "
		    "between regions not drawn. The right column is the band's faults over its "
		    "pages: a short bar is a sparse band, whose never-touched pages a large "
		    "order would allocate as bloat.%s</p>\n",
		    n > 1 ? "busiest processes" : "process", HM_COLS, HM_REGION_ROWS,
		    ps.l ? " Labels under an address name the band's busiest call site." : "");
	ret = 0;
out:
	for (i = 0; i < HM_PROCS; i++) {
		free(m[i].r);
		free(m[i].cell);
		free(m[i].band);
		free(m[i].band_site);
	}
	if (loaded)
		rp_load_release(&l);
	return ret;
}
