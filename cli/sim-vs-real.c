// SPDX-License-Identifier: GPL-2.0
/*
 * sim-vs-real.c - the simulator against real guests: for each policy replayed in a guest
 * (`foliotrace guest replay`), the simulated metrics against those counted in the guest's
 * own trace, with the error in percent. See sim-vs-real.h and docs/guest-replay.md.
 *
 * The real side reads only the guest trace: the replayed processes are found by the pids
 * the replayer printed (trace_meta replay_map), the replayed memory by the address ranges
 * it placed (recorded range + offset); the replayer's own faults lie outside them. Peak
 * RSS is rebuilt from the guest trace's faults and zaps with the same accounting the
 * simulator uses (docs/metrics.md): a fault maps 2^order pages, the zero page is not RSS,
 * a fork copies the parent's pages into the child, MADV_FREE keeps pages mapped.
 *
 * Tuned for: guest traces of up to a few million events; the page model is one
 * open-addressing table keyed by (process, page).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/runs.h"
#include "cli/sim-vs-real.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/filter.h"
#include "replay/run.h"

/* ---- the replay map ---- */

struct map_proc {
	uint32_t index;		/* position in the replay file */
	uint32_t proc_id;	/* recorded process */
	int64_t pid;		/* guest tgid that replayed it */
	int32_t parent;		/* index, -1 for a family root */
	uint32_t root;		/* index of its family's root */
};

struct map_cluster {
	uint32_t root;		/* family (index of its root) */
	uint64_t start, end;	/* replayed addresses, bytes */
};

struct rmap {
	struct map_proc *p;
	size_t nr_p, cap_p;
	struct map_cluster *c;
	size_t nr_c, cap_c;
};

static const char *kv(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? p + strlen(key) : NULL;
}

static int parse_map(const char *text, struct rmap *m)
{
	const char *line = text;
	size_t i;

	while (line && *line) {
		const char *a, *b, *c, *d;
		uint64_t off;

		if (!strncmp(line, "FTREPLAY proc=", 14)) {
			a = kv(line, " proc=");
			b = kv(line, " proc_id=");
			c = kv(line, " pid=");
			d = kv(line, " parent=");
			if (!a || !b || !c || !d)
				return error("bad replay_map line: %.80s", line);
			XGROW(m->p, m->cap_p, m->nr_p + 1);
			m->p[m->nr_p].index = (uint32_t)strtoul(a, NULL, 10);
			m->p[m->nr_p].proc_id = (uint32_t)strtoul(b, NULL, 10);
			m->p[m->nr_p].pid = strtoll(c, NULL, 10);
			m->p[m->nr_p].parent = (int32_t)strtol(d, NULL, 10);
			m->nr_p++;
		} else if (!strncmp(line, "FTREPLAY_CLUSTER ", 17)) {
			a = kv(line, " proc=");
			b = kv(line, " start=");
			c = kv(line, " end=");
			d = kv(line, " offset=");
			if (!a || !b || !c || !d)
				return error("bad replay_map line: %.80s", line);
			XGROW(m->c, m->cap_c, m->nr_c + 1);
			m->c[m->nr_c].root = (uint32_t)strtoul(a, NULL, 10);
			off = (uint64_t)strtoll(d, NULL, 10);
			m->c[m->nr_c].start = strtoull(b, NULL, 16) + off;
			m->c[m->nr_c].end = strtoull(c, NULL, 16) + off;
			m->nr_c++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	/* roots: follow parents (parents precede their children in the file) */
	for (i = 0; i < m->nr_p; i++) {
		struct map_proc *p = &m->p[i];
		size_t k;

		p->root = p->index;
		for (k = 0; k < m->nr_p && p->parent >= 0; k++) {
			if (m->p[k].index == (uint32_t)p->parent) {
				p->root = m->p[k].root;
				break;
			}
		}
	}
	return 0;
}

/* ---- the page model: (guest proc_id, page) -> zero page or not ---- */

#define PG_ZERO 1
#define PG_MEM 2

struct pages {
	uint64_t *key;		/* proc_id << 44 | page, + 1; 0 = empty */
	uint8_t *st;		/* PG_ZERO or PG_MEM */
	uint64_t cap, nr;	/* cap is a power of two */
};

static inline uint64_t pkey(uint32_t proc, uint64_t page)
{
	return ((uint64_t)proc << 44 | (page & ((1ULL << 44) - 1))) + 1;
}

static inline uint64_t phash(uint64_t k)
{
	return (k * 0x9e3779b97f4a7c15ULL) >> 17;
}

static uint8_t *pages_get(struct pages *t, uint64_t k)
{
	uint64_t i;

	if (!t->cap)
		return NULL;
	for (i = phash(k) & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
		if (t->key[i] == k)
			return &t->st[i];
	return NULL;
}

static void pages_put_raw(struct pages *t, uint64_t k, uint8_t st)
{
	uint64_t i;

	for (i = phash(k) & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
		;
	t->key[i] = k;
	t->st[i] = st;
	t->nr++;
}

/* Insert or overwrite. */
static void pages_set(struct pages *t, uint64_t k, uint8_t st)
{
	uint8_t *s = pages_get(t, k);

	if (s) {
		*s = st;
		return;
	}
	if ((t->nr + 1) * 2 > t->cap) {
		uint64_t *ok = t->key, oc = t->cap, i;
		uint8_t *os = t->st;

		t->cap = oc ? oc * 2 : 4096;
		t->key = xcalloc(t->cap, sizeof(*t->key));
		t->st = xcalloc(t->cap, 1);
		t->nr = 0;
		for (i = 0; i < oc; i++)
			if (ok[i])
				pages_put_raw(t, ok[i], os[i]);
		free(ok);
		free(os);
	}
	pages_put_raw(t, k, st);
}

/* Delete; Return: the state it had, 0 if absent. */
static uint8_t pages_del(struct pages *t, uint64_t k)
{
	uint64_t i, j, home;
	uint8_t *s = pages_get(t, k), was;

	if (!s)
		return 0;
	i = (uint64_t)(s - t->st);
	was = *s;
	t->key[i] = 0;
	t->nr--;
	for (j = (i + 1) & (t->cap - 1); t->key[j]; j = (j + 1) & (t->cap - 1)) {
		home = phash(t->key[j]) & (t->cap - 1);
		if (((j - home) & (t->cap - 1)) >= ((j - i) & (t->cap - 1))) {
			t->key[i] = t->key[j];
			t->st[i] = t->st[j];
			t->key[j] = 0;
			i = j;
		}
	}
	return was;
}

struct kst {
	uint64_t page;
	uint8_t st;
};

/* Entries of proc in pages [lo, hi), removed from the table into *out. */
static size_t pages_take(struct pages *t, uint32_t proc, uint64_t lo, uint64_t hi,
			 struct kst **out, size_t *cap)
{
	size_t n = 0;
	uint64_t i, pg;

	if (hi - lo <= t->nr + 64) {
		for (pg = lo; pg < hi; pg++) {
			uint8_t st = pages_del(t, pkey(proc, pg));

			if (st) {
				XGROW(*out, *cap, n + 1);
				(*out)[n].page = pg;
				(*out)[n++].st = st;
			}
		}
		return n;
	}
	for (i = 0; i < t->cap; i++) {
		uint64_t k = t->key[i];

		if (!k || (k - 1) >> 44 != proc)
			continue;
		pg = (k - 1) & ((1ULL << 44) - 1);
		if (pg < lo || pg >= hi)
			continue;
		XGROW(*out, *cap, n + 1);
		(*out)[n].page = pg;
		(*out)[n++].st = t->st[i];
	}
	for (i = 0; i < n; i++)
		pages_del(t, pkey(proc, (*out)[i].page));
	return n;
}

/* ---- walking the guest trace ---- */

#define MAX_ORDER_SEEN 16

struct lat {
	uint64_t *v;
	size_t n, cap;
};

struct real {
	uint64_t faults, zero_wp, cow, zeroed_pages, fb[FT_FB_NR], alloc[MAX_ORDER_SEEN];
	uint64_t rss, peak;		/* pages */
	struct lat lat[MAX_ORDER_SEEN];	/* latency_ns of new-folio faults by order */
};

struct walk {
	const struct rmap *m;
	int32_t *root_of;		/* guest proc_id -> family root index, -1 untracked */
	uint32_t nr_procs;
	unsigned int shift;
	struct pages pg;
	struct kst *tmp;
	size_t tmp_cap;
	struct real r;
};

static int in_family(const struct walk *w, uint32_t root, uint64_t addr)
{
	size_t i;

	for (i = 0; i < w->m->nr_c; i++)
		if (w->m->c[i].root == root && addr >= w->m->c[i].start && addr < w->m->c[i].end)
			return 1;
	return 0;
}

static void rss_add(struct walk *w, uint64_t n)
{
	w->r.rss += n;
	if (w->r.rss > w->r.peak)
		w->r.peak = w->r.rss;
}

static void map_page(struct walk *w, uint32_t proc, uint64_t page, uint8_t st)
{
	uint8_t *s = pages_get(&w->pg, pkey(proc, page));

	if (s && *s == PG_MEM)
		return;
	if (st == PG_MEM)
		rss_add(w, 1);
	pages_set(&w->pg, pkey(proc, page), st);
}

static void unmap(struct walk *w, uint32_t proc, uint64_t lo, uint64_t hi)
{
	size_t n = pages_take(&w->pg, proc, lo, hi, &w->tmp, &w->tmp_cap), i;

	for (i = 0; i < n; i++)
		if (w->tmp[i].st == PG_MEM)
			w->r.rss--;
}

static int on_event(const struct ft_event *ev, void *arg)
{
	struct walk *w = arg;
	uint64_t page = ev->addr >> w->shift, n, i, lo, hi;
	int32_t root;

	if (ev->proc_id >= w->nr_procs || (root = w->root_of[ev->proc_id]) < 0)
		return 0;
	switch (ev->kind) {
	case FT_EV_FAULT:
		if (!in_family(w, (uint32_t)root, ev->addr))
			return 0;
		w->r.faults++;
		if (ev->reason && ev->reason < FT_FB_NR)
			w->r.fb[ev->reason]++;
		if (!ev->nr_ptes)
			return 0;
		n = 1ULL << ev->order;
		if (ev->flags & FT_EVF_ZERO_PAGE) {
			for (i = 0, lo = page & ~(n - 1); i < n; i++)
				map_page(w, ev->proc_id, lo + i, PG_ZERO);
			return 0;
		}
		w->r.zeroed_pages += n;
		if (ev->order < MAX_ORDER_SEEN) {
			struct lat *l = &w->r.lat[ev->order];

			w->r.alloc[ev->order]++;
			XGROW(l->v, l->cap, l->n + 1);
			l->v[l->n++] = ev->aux;
		}
		for (i = 0, lo = page & ~(n - 1); i < n; i++)
			map_page(w, ev->proc_id, lo + i, PG_MEM);
		return 0;
	case FT_EV_ZERO_WP:
	case FT_EV_COW:
		if (!in_family(w, (uint32_t)root, ev->addr))
			return 0;
		w->r.alloc[0]++;
		if (ev->kind == FT_EV_COW) {
			w->r.cow++;
		} else {
			w->r.faults++;
			w->r.zero_wp++;
			w->r.zeroed_pages++;
		}
		/* a page never seen mapped (e.g. of a private file mapping) is counted, not
		 * mapped: nothing would ever unmap it (as the simulator does) */
		if (pages_get(&w->pg, pkey(ev->proc_id, page)))
			map_page(w, ev->proc_id, page, PG_MEM);
		return 0;
	case FT_EV_ZAP:
		lo = page;
		hi = (ev->end + (1ULL << w->shift) - 1) >> w->shift;
		if (ev->reason == FT_ZAP_FREE)
			return 0;
		if (ev->reason == FT_ZAP_EXIT) {
			lo = 0;
			hi = 1ULL << 44;
		}
		if (ev->reason == FT_ZAP_MREMAP && ev->aux) {
			size_t k, nt = pages_take(&w->pg, ev->proc_id, lo, hi, &w->tmp,
						  &w->tmp_cap);
			uint64_t dst = ev->aux >> w->shift;
			struct kst *moved = xmalloc((nt + 1) * sizeof(*moved));

			memcpy(moved, w->tmp, nt * sizeof(*moved));
			unmap(w, ev->proc_id, dst, dst + (hi - lo));
			for (k = 0; k < nt; k++)
				pages_set(&w->pg, pkey(ev->proc_id, dst + moved[k].page - lo),
					  moved[k].st);
			free(moved);
			return 0;
		}
		unmap(w, ev->proc_id, lo, hi);
		return 0;
	case FT_EV_MM_DUP: {
		uint32_t parent = (uint32_t)ev->aux;
		size_t k, nt;
		struct kst *copy;

		if (parent >= w->nr_procs || w->root_of[parent] < 0)
			return 0;
		nt = pages_take(&w->pg, parent, 0, 1ULL << 44, &w->tmp, &w->tmp_cap);
		copy = xmalloc((nt + 1) * sizeof(*copy));
		memcpy(copy, w->tmp, nt * sizeof(*copy));
		for (k = 0; k < nt; k++) {
			pages_set(&w->pg, pkey(parent, copy[k].page), copy[k].st);
			map_page(w, ev->proc_id, copy[k].page, copy[k].st);
		}
		free(copy);
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- reading the database ---- */

static char *meta(sqlite3 *db, int64_t trace_id, const char *key)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(db, "SELECT value FROM trace_meta WHERE trace_id = ? AND key = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/*
 * Real metrics of a guest replay: processes of the replay map whose recorded process is
 * selected (comm/pid of the original trace), their events inside their family's ranges.
 */
static int measure(sqlite3 *db, int64_t trace_id, int64_t guest_id, const char *comm,
		   int64_t pid, struct real *r, unsigned int *shift)
{
	struct rmap m = { 0 };
	struct walk w = { 0 };
	sqlite3_stmt *st = NULL;
	char *text = meta(db, guest_id, "replay_map");
	int64_t max_proc = 0, page_size = 4096;
	uint8_t *sel = NULL;
	uint32_t nsel_max = 0;
	int ret = -1, rc;
	size_t i;

	if (!text)
		return error("guest trace %lld has no replay_map in trace_meta",
			     (long long)guest_id);
	if (parse_map(text, &m))
		goto out;
	/* recorded processes selected */
	if (sqlite3_prepare_v2(db, "SELECT coalesce(max(proc_id), 0) FROM process WHERE "
			       "trace_id = ?", -1, &st, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		nsel_max = (uint32_t)sqlite3_column_int64(st, 0) + 1;
	sqlite3_finalize(st);
	sel = xcalloc(nsel_max + 1, 1);
	if (sqlite3_prepare_v2(db, "SELECT proc_id FROM process WHERE trace_id = ?1 AND "
			       "(?2 IS NULL OR comm = ?2) AND (?3 < 0 OR pid = ?3)", -1, &st,
			       NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, trace_id);
	if (comm)
		sqlite3_bind_text(st, 2, comm, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, pid);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id >= 0 && id < nsel_max)
			sel[id] = 1;
	}
	sqlite3_finalize(st);

	/* guest processes: by the pid the replayer printed */
	if (sqlite3_prepare_v2(db, "SELECT coalesce(page_size, 4096), (SELECT coalesce(max("
			       "proc_id), 0) FROM process WHERE trace_id = ?1) FROM trace WHERE "
			       "trace_id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, guest_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		page_size = sqlite3_column_int64(st, 0);
		max_proc = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	w.shift = (unsigned int)__builtin_ctzll((uint64_t)(page_size > 0 ? page_size : 4096));
	w.nr_procs = (uint32_t)max_proc + 1;
	w.root_of = xmalloc(w.nr_procs * sizeof(*w.root_of));
	for (i = 0; i < w.nr_procs; i++)
		w.root_of[i] = -1;
	if (sqlite3_prepare_v2(db, "SELECT proc_id, pid FROM process WHERE trace_id = ?", -1,
			       &st, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, guest_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), gpid = sqlite3_column_int64(st, 1);

		for (i = 0; i < m.nr_p; i++)
			if (m.p[i].pid == gpid && m.p[i].proc_id < nsel_max &&
			    sel[m.p[i].proc_id] && id >= 0 && id <= max_proc)
				w.root_of[id] = (int32_t)m.p[i].root;
	}
	sqlite3_finalize(st);
	st = NULL;
	w.m = &m;
	if (ftdb_stream_foreach(db, guest_id, on_event, &w))
		goto out;
	*r = w.r;
	memset(&w.r, 0, sizeof(w.r));	/* latency arrays now belong to *r */
	*shift = w.shift;
	ret = 0;
	goto out;
sql_error:
	error("cannot read trace %lld: %s", (long long)guest_id, sqlite3_errmsg(db));
	sqlite3_finalize(st);
out:
	for (i = 0; i < MAX_ORDER_SEEN; i++)
		free(w.r.lat[i].v);
	free(w.pg.key);
	free(w.pg.st);
	free(w.tmp);
	free(w.root_of);
	free(sel);
	free(m.p);
	free(m.c);
	free(text);
	return ret;
}

/* Latest sim run of policy (frag none, filter): totals into *c; 0 if found, 1 if none. */
static int load_sim(sqlite3 *db, int64_t trace_id, const char *policy, const char *filter,
		    int64_t *run_id, struct rp_counters *c)
{
	sqlite3_stmt *st;
	int found = 0;

	memset(c, 0, sizeof(*c));
	if (sqlite3_prepare_v2(db, "SELECT max(run_id) FROM replay_run WHERE trace_id = ?1 AND "
			       "kind = 'sim' AND frag = 'none' AND policy = ?2 AND "
			       "coalesce(filter, '') = ?3", -1, &st, NULL) != SQLITE_OK)
		return error("cannot read replay runs: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, filter, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*run_id = sqlite3_column_int64(st, 0);
		found = 1;
	}
	sqlite3_finalize(st);
	if (!found)
		return 1;
	if (sqlite3_prepare_v2(db, "SELECT name, value FROM replay_metric WHERE run_id = ? AND "
			       "proc_id IS NULL", -1, &st, NULL) != SQLITE_OK)
		return error("cannot read replay metrics: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, *run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int m = rp_metric_lookup((const char *)sqlite3_column_text(st, 0));

		if (m >= 0)
			c->v[m] = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

/* Simulate one policy now (frag none, this selection) and store it. */
static int simulate(sqlite3 *db, int64_t trace_id, const char *policy, const char *comm,
		    int64_t pid, int64_t *run_id, struct rp_counters *c)
{
	struct rp_run_result res;
	struct rp_run_opts o = { 0 };
	struct rp_trace_info info;
	struct rp_policy p;

	if (rp_policy_parse(policy, &p))
		return -1;
	o.pol = &p;
	o.nr_pol = 1;
	o.frag = RP_FRAG_NONE;
	o.comm = comm;
	o.pid = pid;
	o.store = 1;
	if (rp_replay_db(db, trace_id, &o, &res, &info))
		return error("cannot simulate %s", policy);
	*run_id = res.run_id;
	*c = res.total;
	fprintf(stderr, "foliotrace: no simulation of %s%s%s: simulated now (replay run %lld)\n",
		policy, info.filter[0] ? ", " : "", info.filter, (long long)res.run_id);
	return 0;
}

/* ---- output ---- */

static void row(struct out_table *t, const char *policy, const char *metric, int have_sim,
		uint64_t sim, int have_real, uint64_t real, const char *kind)
{
	out_text(t, policy);
	out_text(t, metric);
	if (have_sim)
		out_int(t, (int64_t)sim);
	else
		out_null(t);
	if (have_real)
		out_int(t, (int64_t)real);
	else
		out_null(t);
	if (have_sim && have_real && sim)
		out_real(t, (double)llround(((double)real - (double)sim) * 1e5 / (double)sim) /
			    1e3);
	else if (have_sim && have_real && !real)
		out_real(t, 0);
	else
		out_null(t);
	out_text(t, kind);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as `foliotrace query latency`. */
static uint64_t rank(const struct lat *l, double pct)
{
	size_t r = (size_t)ceil(pct / 100.0 * (double)l->n);

	return l->v[r ? r - 1 : 0];
}

static void guest_rows(struct out_table *t, const char *policy, const struct rp_counters *s,
		       struct real *r, unsigned int shift)
{
	static const unsigned int order_metrics[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	char name[64];
	unsigned int k, i;

	row(t, policy, "faults", 1, s->v[RP_M_FAULTS], 1, r->faults, "guest");
	row(t, policy, "peak_rss_bytes", 1, s->v[RP_M_PEAK_RSS], 1, r->peak << shift, "guest");
	row(t, policy, "zeroed_bytes", 1, s->v[RP_M_ZEROED], 1, r->zeroed_pages << shift,
	    "guest");
	row(t, policy, "zero_wp_faults", 1, s->v[RP_M_ZERO_WP], 1, r->zero_wp, "guest");
	row(t, policy, "cow_faults", 1, s->v[RP_M_COW], 1, r->cow, "guest");
	for (k = 1; k < FT_FB_NR; k++) {
		snprintf(name, sizeof(name), "fallback_%s", ft_fallback_name(k));
		row(t, policy, name, 1, s->v[RP_M_FB_0 + k], 1, r->fb[k], "guest");
	}
	for (i = 0; i < sizeof(order_metrics) / sizeof(order_metrics[0]); i++) {
		k = order_metrics[i];
		if (!s->v[RP_M_ALLOC_0 + k] && !r->alloc[k])
			continue;
		snprintf(name, sizeof(name), "alloc_order_%u", k);
		row(t, policy, name, 1, s->v[RP_M_ALLOC_0 + k], 1, r->alloc[k], "guest");
	}
	for (k = 0; k < MAX_ORDER_SEEN; k++) {
		struct lat *l = &r->lat[k];

		if (!l->n)
			continue;
		qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
		snprintf(name, sizeof(name), "fault_latency_p50_ns_order_%u", k);
		row(t, policy, name, 0, 0, 1, rank(l, 50), "guest");
		snprintf(name, sizeof(name), "fault_latency_p99_ns_order_%u", k);
		row(t, policy, name, 0, 0, 1, rank(l, 99), "guest");
	}
}

int sim_vs_real(const char *dbpath, int64_t want_trace, const char *comm, int64_t pid,
		enum out_format format)
{
	static const char *const cols[] = { "policy", "metric", "sim", "real", "error_pct",
					    "kind" };
	struct guest_run {
		int64_t run_id, guest_id;
		char policy[64], filter[160];
	} *runs = NULL;
	size_t nr = 0, cap = 0, i;
	char filter[160], fcomm[128];
	int64_t trace_id, fpid;
	struct out_table t;
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	int ret = -1, rc;

	if (ftdb_open(dbpath, FTDB_WRITE, &db))
		return -1;
	if (ftdb_pick_trace(db, want_trace, &trace_id))
		goto out_db;
	if (sqlite3_prepare_v2(db, "SELECT run_id, guest_trace_id, policy, coalesce(filter, '') "
			       "FROM replay_run r WHERE trace_id = ?1 AND kind = 'guest' AND "
			       "guest_trace_id IS NOT NULL AND run_id = (SELECT max(run_id) FROM "
			       "replay_run s WHERE s.trace_id = r.trace_id AND "
			       "s.kind = 'guest' AND s.policy = r.policy) ORDER BY run_id", -1, &st,
			       NULL) != SQLITE_OK) {
		error("cannot read replay runs: %s", sqlite3_errmsg(db));
		goto out_db;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(runs, cap, nr + 1);
		runs[nr].run_id = sqlite3_column_int64(st, 0);
		runs[nr].guest_id = sqlite3_column_int64(st, 1);
		snprintf(runs[nr].policy, sizeof(runs[nr].policy), "%s",
			 (const char *)sqlite3_column_text(st, 2));
		snprintf(runs[nr].filter, sizeof(runs[nr].filter), "%s",
			 (const char *)sqlite3_column_text(st, 3));
		nr++;
	}
	sqlite3_finalize(st);
	if (!nr) {
		error("no guest replay of trace %lld: run foliotrace guest replay DB --policy P "
		      "first", (long long)trace_id);
		goto out_db;
	}
	/* the selection compared: the one asked for, else that of the newest guest replay */
	if (comm || pid >= 0) {
		runs_filter(filter, sizeof(filter), comm, pid);
		snprintf(fcomm, sizeof(fcomm), "%s", comm ? comm : "");
		fpid = pid;
	} else {
		struct rp_filter f;

		snprintf(filter, sizeof(filter), "%s", runs[nr - 1].filter);
		if (rp_filter_parse(filter, &f))
			goto out_db;
		snprintf(fcomm, sizeof(fcomm), "%s", f.has_comm ? f.comm : "");
		fpid = f.pid;
	}

	out_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < nr; i++) {
		struct rp_counters sim;
		struct real real;
		unsigned int shift = 12, k;
		int64_t sim_run = 0;

		/* a replay of more processes covers a narrower selection, not the reverse */
		if (runs[i].filter[0] && strcmp(runs[i].filter, filter)) {
			warning("guest replay run %lld (%s) replayed only %s, not %s: left out",
				(long long)runs[i].run_id, runs[i].policy, runs[i].filter,
				filter[0] ? filter : "every process");
			continue;
		}
		rc = load_sim(db, trace_id, runs[i].policy, filter, &sim_run, &sim);
		if (rc < 0)
			goto out_table;
		if (rc > 0 && simulate(db, trace_id, runs[i].policy, fcomm[0] ? fcomm : NULL,
				       fpid, &sim_run, &sim))
			goto out_table;
		if (measure(db, trace_id, runs[i].guest_id, fcomm[0] ? fcomm : NULL, fpid, &real,
			    &shift))
			goto out_table;
		guest_rows(&t, runs[i].policy, &sim, &real, shift);
		for (k = 0; k < MAX_ORDER_SEEN; k++)
			free(real.lat[k].v);
	}

	/* simulation-only policies: their latest run with this selection, no real value */
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT policy FROM replay_run WHERE trace_id = ?1 "
			       "AND kind = 'sim' AND frag = 'none' AND coalesce(filter, '') = ?2 "
			       "ORDER BY policy", -1, &st, NULL) != SQLITE_OK) {
		error("cannot read replay runs: %s", sqlite3_errmsg(db));
		goto out_table;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, filter, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *spec = (const char *)sqlite3_column_text(st, 0);
		struct rp_policy p;
		struct rp_counters sim;
		int64_t sim_run;

		if (rp_policy_parse(spec, &p)) {
			error_clear();
			continue;
		}
		if (rp_policy_in_guest(&p))
			continue;
		if (load_sim(db, trace_id, spec, filter, &sim_run, &sim))
			continue;
		row(&t, spec, "faults", 1, sim.v[RP_M_FAULTS], 0, 0, "sim-only");
		row(&t, spec, "peak_rss_bytes", 1, sim.v[RP_M_PEAK_RSS], 0, 0, "sim-only");
		row(&t, spec, "zeroed_bytes", 1, sim.v[RP_M_ZEROED], 0, 0, "sim-only");
	}
	sqlite3_finalize(st);

	if (format == OUT_TABLE)
		printf("trace %lld%s%s: simulation (frag none) against guest replays; error_pct = "
		       "(real - sim) / sim * 100; kind sim-only: the 6.1 guest knob cannot express "
		       "the policy\n\n", (long long)trace_id, filter[0] ? ", " : "", filter);
	out_print(&t, format, stdout);
	ret = 0;
out_table:
	out_release(&t);
out_db:
	free(runs);
	ftdb_close(db);
	return ret;
}
