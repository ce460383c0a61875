// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - the trace loader; see load.h. What it reads, through db/: the trace row, the
 * largest ids, the processes (their selection, rp_filter_selects(), and their shadows,
 * from the parents), the VMAs, the site slots and their touch spans.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/sites.h"
#include "db/traces.h"
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
	t->cold_gap = rp_cold_gap(l->head.clock);
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

struct slots {
	struct rp_loaded *t;
	size_t cap_s, cap_m;
	uint32_t cap_t;
};

static int add_slot(const char *site, const char *module, void *arg)
{
	struct slots *x = arg;
	struct rp_loaded *t = x->t;

	if (!t->nr_slots) {	/* slot 0: the faults no traced call owns */
		XGROW(t->slot_site, x->cap_s, 1);
		XGROW(t->slot_module, x->cap_m, 1);
		t->slot_site[0] = xstrdup("[untraced]");
		t->slot_module[0] = NULL;
		t->nr_slots = 1;
	}
	XGROW(t->slot_site, x->cap_s, t->nr_slots + 1);
	XGROW(t->slot_module, x->cap_m, t->nr_slots + 1);
	t->slot_site[t->nr_slots] = xstrdup(site ? site : "");
	t->slot_module[t->nr_slots++] = module ? xstrdup(module) : NULL;
	return 0;
}

static int add_touch(uint64_t first, uint64_t end, const char *site, const char *module,
		     void *arg)
{
	struct slots *x = arg;
	struct rp_loaded *t = x->t;

	if (t->nr_touch == x->cap_t) {
		x->cap_t = x->cap_t ? 2 * x->cap_t : 256;
		t->touch = xrealloc(t->touch, x->cap_t * sizeof(*t->touch));
	}
	t->touch[t->nr_touch].first = first;
	t->touch[t->nr_touch].end = end;
	t->touch[t->nr_touch++].slot = find_slot(t, site ? site : "", module);
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
	struct slots x = { .t = t };

	if (ftdb_site_slots_each(db, t->trace_id, add_slot, &x))
		return -1;
	if (!t->nr_slots)
		return 0;
	if (ftdb_site_touch_each(db, t->trace_id, add_touch, &x))
		return -1;
	if (!t->nr_touch) {
		free_slots(t);	/* sites stored before schema 5: no slots */
		t->sites_without_touch = 1;
	}
	return 0;
}

int rp_load_head(sqlite3 *db, int64_t trace_id, struct rp_trace_head *h)
{
	struct ftdb_trace t;

	memset(h, 0, sizeof(*h));
	if (ftdb_trace_get(db, trace_id, &t))
		return -1;
	snprintf(h->policy, sizeof(h->policy), "%s", t.policy);
	snprintf(h->arch, sizeof(h->arch), "%s", t.arch);
	h->page_size = t.page_size ? t.page_size : 4096;	/* unknown: 4K */
	snprintf(h->clock, sizeof(h->clock), "%s", t.clock ? t.clock : "");
	ftdb_trace_release(&t);
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

/* What reading the processes needs: the trace's ids and the selection. */
struct procs {
	struct rp_loaded *t;
	const struct rp_filter *sel;
	uint32_t *parent;	/* per proc_id: its parent's, 0 none */
	int64_t max_proc, max_vma;
	int marked;		/* the trace marks its workload's processes */
};

static int mark_workload(const struct ftdb_proc_row *p, void *arg)
{
	struct procs *x = arg;

	x->marked |= p->workload == 1;
	return 0;
}

static int add_proc(const struct ftdb_proc_row *r, void *arg)
{
	struct procs *x = arg;
	struct rp_proc_info *p;

	if (r->proc_id < 0 || r->proc_id > x->max_proc)
		return 0;
	p = &x->t->procs[r->proc_id];
	p->pid = r->pid;
	snprintf(p->comm, sizeof(p->comm), "%s", r->comm);
	p->present = 1;
	p->selected = (uint8_t)rp_filter_selects(x->sel, r->comm, r->pid, r->workload,
						 x->marked);
	p->workload = x->marked && r->workload == 1;
	x->t->nr_selected += p->selected;
	x->t->nr_rows++;
	if (r->parent_proc_id > 0 && r->parent_proc_id <= x->max_proc)
		x->parent[r->proc_id] = (uint32_t)r->parent_proc_id;
	return 0;
}

static int add_vma(const struct ftdb_vma_row *v, void *arg)
{
	struct procs *x = arg;

	if (v->vma_id < 0 || v->vma_id > x->max_vma)
		return 0;
	x->t->vmas[v->vma_id].start = v->start;
	x->t->vmas[v->vma_id].end = v->end;
	x->t->vmas[v->vma_id].flags = v->flags;
	return 0;
}

int rp_load(sqlite3 *db, int64_t trace_id, const struct rp_filter *sel, struct rp_loaded *t)
{
	struct procs x = { .t = t };
	struct rp_filter all;

	memset(t, 0, sizeof(*t));
	if (!sel) {
		rp_filter_set(&all, NULL, -1);
		sel = &all;
	}
	x.sel = sel;
	t->trace_id = trace_id;
	if (rp_load_head(db, trace_id, &t->head))
		return -1;
	t->page_size = t->head.page_size;
	if (ftdb_trace_max_ids(db, trace_id, &x.max_proc, &x.max_vma))
		return -1;
	if (t->page_size > 0 && !(t->page_size & (t->page_size - 1)))
		t->page_shift = (unsigned int)__builtin_ctzll((uint64_t)t->page_size);
	t->nr_procs = (uint32_t)x.max_proc + 1;
	t->nr_vmas = (uint32_t)x.max_vma + 1;
	t->procs = xcalloc(t->nr_procs, sizeof(*t->procs));
	t->vmas = xcalloc(t->nr_vmas, sizeof(*t->vmas));
	x.parent = xcalloc(t->nr_procs, sizeof(*x.parent));
	if (ftdb_procs_each(db, trace_id, mark_workload, &x) ||
	    ftdb_procs_each(db, trace_id, add_proc, &x))
		goto fail;
	mark_shadows(t, x.parent);
	free(x.parent);
	x.parent = NULL;
	if (ftdb_vmas_each(db, trace_id, add_vma, &x))
		goto fail;
	if (load_slots(db, t))
		return fail("cannot read trace %lld's call sites", (long long)trace_id);
	return 0;
fail:
	free(x.parent);
	rp_load_release(t);
	return -1;
}
