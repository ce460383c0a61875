// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - the trace loader; see load.h. Its queries: the trace row, the largest ids,
 * the processes with their selection computed in SQL (their shadows then in C, from
 * the parents), the VMAs, the site slots and their touch spans.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/load.h"

static void free_slots(struct rp_loaded *t)
{
	uint32_t i;

	for (i = 0; i < t->nr_slots; i++) {
		free(t->slot_site[i]);
		free(t->slot_module[i]);
	}
	free(t->slot_site);
	free(t->slot_module);
	t->slot_site = t->slot_module = NULL;
	t->nr_slots = 0;
}

void rp_load_release(struct rp_loaded *t)
{
	free_slots(t);
	free(t->touch);
	free(t->vmas);
	free(t->procs);
	memset(t, 0, sizeof(*t));
}

void rp_load_trace(const struct rp_loaded *l, struct rp_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->vmas = l->vmas;
	t->nr_vmas = l->nr_vmas;
	t->nr_procs = l->nr_procs;
	t->nr_site_slots = l->nr_slots;
	t->slot_sites = (const char *const *)l->slot_site;
}

uint32_t rp_touch_slot(const struct rp_loaded *l, uint32_t *cursor, uint64_t ord)
{
	while (*cursor < l->nr_touch && l->touch[*cursor].end <= ord)
		(*cursor)++;
	if (*cursor < l->nr_touch && l->touch[*cursor].first <= ord)
		return l->touch[*cursor].slot;
	return 0;
}

/* Order of (site, module) as SQLite's ORDER BY site, site_module: NULL first, then bytes. */
static int slot_cmp(const char *site, const char *module, const char *s2, const char *m2)
{
	int c = strcmp(site, s2);

	if (c)
		return c;
	if (!module || !m2)
		return !!module - !!m2;
	return strcmp(module, m2);
}

/* The slot of (site, module) among slots 1..nr-1 (sorted), or 0 if none. O(log sites). */
static uint32_t find_slot(const struct rp_loaded *t, const char *site, const char *module)
{
	uint32_t lo = 1, hi = t->nr_slots;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = slot_cmp(site, module, t->slot_site[mid], t->slot_module[mid]);

		if (!c)
			return mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/*
 * The site slots and the touch spans of site_touch (the attribution ingest made, docs/
 * sites.md): slot i >= 1 is the i-th (site, site_module) in sorted order. Each touch run's
 * slot is found by binary search in the sorted slots: O(touches log sites). (A join on the
 * numbered distinct sites in SQL scanned them per touch run: 44 s at 2k sites and 100k runs.)
 */
static int load_slots(sqlite3 *db, struct rp_loaded *t)
{
	static const char slots_sql[] =
		"SELECT DISTINCT site, site_module FROM site_call WHERE trace_id = ?1 "
		"ORDER BY site, site_module";
	static const char touch_sql[] =
		"SELECT t.ev_first, t.ev_end, c.site, c.site_module FROM site_touch t "
		"JOIN site_call c USING (call_id) WHERE t.trace_id = ?1 ORDER BY t.ev_first";
	sqlite3_stmt *q;
	uint32_t cap = 0;
	size_t cap_s = 0, cap_m = 0;
	int rc;

	if (sqlite3_prepare_v2(db, slots_sql, -1, &q, NULL) != SQLITE_OK)
		return fail("cannot read the call sites: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, t->trace_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const unsigned char *m = sqlite3_column_text(q, 1);

		if (!t->nr_slots) {
			XGROW(t->slot_site, cap_s, 1);
			XGROW(t->slot_module, cap_m, 1);
			t->slot_site[0] = xstrdup("[untraced]");
			t->slot_module[0] = NULL;
			t->nr_slots = 1;
		}
		XGROW(t->slot_site, cap_s, t->nr_slots + 1);
		XGROW(t->slot_module, cap_m, t->nr_slots + 1);
		t->slot_site[t->nr_slots] = xstrdup((const char *)sqlite3_column_text(q, 0));
		t->slot_module[t->nr_slots++] = m ? xstrdup((const char *)m) : NULL;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return fail("cannot read the call sites: %s", sqlite3_errmsg(db));
	if (!t->nr_slots)
		return 0;
	if (sqlite3_prepare_v2(db, touch_sql, -1, &q, NULL) != SQLITE_OK)
		return fail("cannot read site_touch: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, t->trace_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *site = (const char *)sqlite3_column_text(q, 2);
		const char *m = (const char *)sqlite3_column_text(q, 3);

		if (t->nr_touch == cap) {
			cap = cap ? 2 * cap : 256;
			t->touch = xrealloc(t->touch, cap * sizeof(*t->touch));
		}
		t->touch[t->nr_touch].first = (uint64_t)sqlite3_column_int64(q, 0);
		t->touch[t->nr_touch].end = (uint64_t)sqlite3_column_int64(q, 1);
		t->touch[t->nr_touch++].slot = find_slot(t, site ? site : "", m);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return fail("cannot read site_touch: %s", sqlite3_errmsg(db));
	if (!t->nr_touch) {
		free_slots(t);	/* sites stored before schema 5: no slots */
		t->sites_without_touch = 1;
	}
	return 0;
}

int rp_load_head(sqlite3 *db, int64_t trace_id, struct rp_trace_head *h)
{
	sqlite3_stmt *q;
	int rc;

	memset(h, 0, sizeof(*h));
	if (sqlite3_prepare_v2(db, "SELECT coalesce(policy, ''), coalesce(arch, ''), "
			       "coalesce(page_size, 4096) FROM trace WHERE trace_id = ?", -1, &q,
			       NULL) != SQLITE_OK)
		return fail("cannot read trace %lld: %s", (long long)trace_id,
			     sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, trace_id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		snprintf(h->policy, sizeof(h->policy), "%s", sqlite3_column_text(q, 0));
		snprintf(h->arch, sizeof(h->arch), "%s", sqlite3_column_text(q, 1));
		h->page_size = sqlite3_column_int64(q, 2);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return fail("no trace %lld", (long long)trace_id);
	return 0;
}

/*
 * Mark the shadows (load.h) given each process's parent (0: none). A walk up the parents
 * from each process not yet decided, the whole path then marked with its answer: each
 * process is walked once, whatever the depth of the tree. A cycle (a damaged trace) ends a
 * walk as a root does.
 */
static void mark_shadows(struct rp_loaded *t, const uint32_t *parent)
{
	enum { UNKNOWN, NO, YES, ON_PATH };
	uint8_t *state = xcalloc(t->nr_procs, 1);
	uint32_t *path = xcalloc(t->nr_procs, sizeof(*path));
	uint32_t i, cur, n;
	uint8_t r;

	for (i = 1; i < t->nr_procs; i++) {
		for (n = 0, cur = i; cur && t->procs[cur].present && !t->procs[cur].selected &&
				     state[cur] == UNKNOWN; cur = parent[cur]) {
			state[cur] = ON_PATH;
			path[n++] = cur;
		}
		r = cur && t->procs[cur].present &&
		    (t->procs[cur].selected || state[cur] == YES) ? YES : NO;
		while (n--) {
			state[path[n]] = r;
			t->procs[path[n]].shadow = r == YES;
			t->nr_shadow += r == YES;
		}
	}
	free(state);
	free(path);
}

int rp_load(sqlite3 *db, int64_t trace_id, const struct rp_filter *sel, struct rp_loaded *t)
{
	uint32_t *parent = NULL;
	struct rp_filter all;
	sqlite3_stmt *q = NULL;
	int64_t max_proc, max_vma;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!sel) {
		rp_filter_set(&all, NULL, -1);
		sel = &all;
	}
	t->trace_id = trace_id;
	if (rp_load_head(db, trace_id, &t->head))
		return -1;
	t->page_size = t->head.page_size;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT coalesce(max(proc_id), 0) FROM process "
			       "WHERE trace_id = ?1), "
			       "(SELECT coalesce(max(v.vma_id), 0) FROM vma v JOIN process p USING "
			       "(proc_id) WHERE p.trace_id = ?1)", -1, &q, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(q, 1, trace_id);
	if (sqlite3_step(q) != SQLITE_ROW)
		goto sql_error;
	max_proc = sqlite3_column_int64(q, 0);
	max_vma = sqlite3_column_int64(q, 1);
	sqlite3_finalize(q);
	q = NULL;
	if (t->page_size > 0 && !(t->page_size & (t->page_size - 1)))
		t->page_shift = (unsigned int)__builtin_ctzll((uint64_t)t->page_size);
	t->nr_procs = (uint32_t)max_proc + 1;
	t->nr_vmas = (uint32_t)max_vma + 1;
	t->procs = xcalloc(t->nr_procs, sizeof(*t->procs));
	t->vmas = xcalloc(t->nr_vmas, sizeof(*t->vmas));

	parent = xcalloc(t->nr_procs, sizeof(*parent));
	if (sqlite3_prepare_v2(db, "SELECT proc_id, pid, coalesce(comm, ''), "
			       RP_FILTER_SQL ", coalesce(parent_proc_id, 0) FROM process WHERE "
			       "trace_id = ?1", -1, &q, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(q, 1, trace_id);
	if (sel->has_comm)
		sqlite3_bind_text(q, 2, sel->comm, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, sel->pid);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		struct rp_proc_info *p;

		if (id < 0 || id > max_proc)
			continue;
		p = &t->procs[id];
		p->pid = sqlite3_column_int64(q, 1);
		snprintf(p->comm, sizeof(p->comm), "%s", (const char *)sqlite3_column_text(q, 2));
		p->present = 1;
		p->selected = (uint8_t)sqlite3_column_int(q, 3);
		t->nr_selected += p->selected;
		t->nr_rows++;
		if (sqlite3_column_int64(q, 4) > 0 && sqlite3_column_int64(q, 4) <= max_proc)
			parent[id] = (uint32_t)sqlite3_column_int64(q, 4);
	}
	sqlite3_finalize(q);
	q = NULL;
	if (rc != SQLITE_DONE)
		goto sql_error;
	mark_shadows(t, parent);
	free(parent);
	parent = NULL;

	if (sqlite3_prepare_v2(db, "SELECT v.vma_id, v.start, v.end, v.flags FROM vma v JOIN "
			       "process p USING (proc_id) WHERE p.trace_id = ?", -1, &q,
			       NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(q, 1, trace_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);

		if (id < 0 || id > max_vma)
			continue;
		t->vmas[id].start = (uint64_t)sqlite3_column_int64(q, 1);
		t->vmas[id].end = (uint64_t)sqlite3_column_int64(q, 2);
		t->vmas[id].flags = (uint64_t)sqlite3_column_int64(q, 3);
	}
	sqlite3_finalize(q);
	q = NULL;
	if (rc != SQLITE_DONE)
		goto sql_error;
	if (load_slots(db, t))
		return fail("cannot read trace %lld's call sites", (long long)trace_id);
	return 0;
sql_error:
	fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	sqlite3_finalize(q);
	free(parent);
	rp_load_release(t);
	return -1;
}
