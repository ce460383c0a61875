// SPDX-License-Identifier: GPL-2.0
/*
 * sites-owner.c - each traced process's address map, replayed in time order with the
 * trace's events, and every touch charged to the owner of its address; see sites-int.h
 * and docs/sites.md "Attribution".
 *
 * A map holds sorted, non-overlapping ranges (lib/ivmap.h), each owned by the last call
 * that mapped it (mmap of anonymous memory, mremap's destination, brk's growth); file
 * mmaps, munmap, brk's shrink and exec take ranges away, fork copies the map (shared, and
 * copied only when one of the two changes it: 10,000 forks of a process of 10,000 ranges
 * hold one map, not 10,000: issue 23 item 4). A touch of a
 * traced process goes to the owner of its address, or to the process's '[no call]' row
 * when nothing owns it.
 *
 * Tuned for: thousands of calls and millions of faults; a lookup is a binary search in the
 * process's map, touched pages are counted in one open-addressing hash set.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "tracer/sites-int.h"

/*
 * The process of pid, added if create (else NULL if unknown). Looked up per fault and per
 * record: hashed, as a make -j of a big tree has thousands of processes.
 */
static struct owner_proc *proc_get(struct site_owners *o, int pid, int create)
{
	uint64_t key = (uint32_t)pid;
	uint32_t i;

	i = ft_idmap_get(&o->proc_index, key);
	if (i != IDMAP_NONE)
		return &o->procs[i];
	if (!create)
		return NULL;
	ft_idmap_add(&o->proc_index, key, (uint32_t)o->nr_procs);
	o->procs = xgrow(o->procs, &o->cap_procs, o->nr_procs + 1, sizeof(*o->procs));
	memset(&o->procs[o->nr_procs], 0, sizeof(*o->procs));
	o->procs[o->nr_procs].pid = pid;
	o->procs[o->nr_procs].brk = -1;
	return &o->procs[o->nr_procs++];
}

void ft_owners_init(struct site_owners *o, struct sitefile *f, uint64_t page_size,
		 const struct ftdb_sites_pid *pm, size_t nr_pm)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->f = f;
	o->page_size = page_size;
	o->pm = pm;
	o->nr_pm = nr_pm;
	ft_idmap_init(&o->proc_index);
	ft_idmap_init(&o->seen);
	for (i = 0; i < f->nr_pids; i++)
		proc_get(o, f->pids[i], 1);
}

static const struct ivmap empty_map = IVMAP_INIT;

/* p's map, to read. */
static const struct ivmap *map_of(const struct owner_proc *p)
{
	return p->map ? &p->map->m : &empty_map;
}

/* p's map, to change: its own, copied first if shared. */
static struct ivmap *map_own(struct owner_proc *p)
{
	struct owner_map *m;

	if (p->map && p->map->refs == 1)
		return &p->map->m;
	m = xcalloc(1, sizeof(*m));
	m->refs = 1;
	if (p->map) {
		ivmap_copy(&m->m, &p->map->m);
		p->map->refs--;
	}
	p->map = m;
	return &m->m;
}

/* p's map goes (exec, exit of the maps): freed with its last user. */
static void map_drop(struct owner_proc *p)
{
	if (p->map && !--p->map->refs) {
		ivmap_release(&p->map->m);
		free(p->map);
	}
	p->map = NULL;
}

/* Take [start, end) out of p's map; calls losing a range end at ts. */
static void map_remove(struct site_owners *o, struct owner_proc *p, uint64_t start,
		       uint64_t end, uint64_t ts)
{
	const struct ivmap *m = map_of(p);
	struct sf_call *calls = o->f->calls;
	size_t j;

	for (j = ivmap_lower(m, start); j < m->n && m->v[j].start < end; j++)
		if (!calls[m->v[j].val].end_ts)
			calls[m->v[j].val].end_ts = ts;
	if (j > ivmap_lower(m, start))	/* nothing there: nothing to copy */
		ivmap_remove(map_own(p), start, end);
}

static uint64_t page_up(const struct site_owners *o, uint64_t a)
{
	return (a + o->page_size - 1) & ~(o->page_size - 1);
}

static void map_set(struct owner_proc *p, uint64_t start, uint64_t end, uint64_t val)
{
	if (start < end)
		ivmap_set(map_own(p), start, end, val);
}

#define MAP_ANONYMOUS_FLAG	0x20	/* MAP_ANONYMOUS, the same on x86_64 and arm64 */

/* A call's effect on its process's map. */
static void apply_call(struct site_owners *o, int idx)
{
	struct sf_call *c = &o->f->calls[idx];
	struct owner_proc *p = proc_get(o, c->pid, 1);
	int failed = c->result < 0 && c->result > -4096;
	uint64_t r = (uint64_t)c->result;

	if (!strcmp(c->name, "mmap") && !failed) {
		if (c->arg[3] & MAP_ANONYMOUS_FLAG) {
			c->start = r;
			c->end = r + page_up(o, c->arg[1]);
			map_set(p, c->start, c->end, (uint64_t)idx);
		} else {
			map_remove(o, p, r, r + page_up(o, c->arg[1]), c->ts);
		}
	} else if (!strcmp(c->name, "munmap") && !failed) {
		map_remove(o, p, c->arg[0], c->arg[0] + page_up(o, c->arg[1]), c->ts);
	} else if (!strcmp(c->name, "mremap") && !failed) {
		uint64_t old = c->arg[0], old_len = page_up(o, c->arg[1]);
		uint64_t new_len = page_up(o, c->arg[2]);

		if (r == old && new_len > old_len) {
			c->start = old + old_len;	/* grown in place: only the new part */
			c->end = old + new_len;
		} else if (r != old) {
			map_remove(o, p, old, old + old_len, c->ts);
			c->start = r;
			c->end = r + new_len;
		} else {
			map_remove(o, p, old + new_len, old + old_len, c->ts);
		}
		map_set(p, c->start, c->end, (uint64_t)idx);
	} else if (!strcmp(c->name, "brk")) {
		/* brk returns the break, old or new: never an error code */
		if (p->brk >= 0 && r > (uint64_t)p->brk) {
			c->start = page_up(o, (uint64_t)p->brk);
			c->end = page_up(o, r);
			map_set(p, c->start, c->end, (uint64_t)idx);
		} else if (p->brk >= 0 && r < (uint64_t)p->brk) {
			map_remove(o, p, page_up(o, r), page_up(o, (uint64_t)p->brk), c->ts);
		}
		p->brk = (int64_t)r;
	}
	if (c->start >= c->end)
		c->start = c->end = 0;
}

static void apply_rec(struct site_owners *o, const struct sf_rec *rc)
{
	struct owner_proc *p, *child;
	const struct ivmap *m;
	size_t i;

	switch (rc->type) {
	case 'C':
		apply_call(o, rc->call);
		break;
	case 'K':
		p = proc_get(o, rc->pid, 1);
		child = proc_get(o, rc->child, 1);
		p = proc_get(o, rc->pid, 1);	/* the array may have moved */
		if (child != p) {
			map_drop(child);
			child->map = p->map;
			if (child->map)
				child->map->refs++;
		}
		child->brk = p->brk;
		break;
	case 'X':
		p = proc_get(o, rc->pid, 1);
		m = map_of(p);
		for (i = 0; i < m->n; i++)
			if (!o->f->calls[m->v[i].val].end_ts)
				o->f->calls[m->v[i].val].end_ts = rc->ts;
		map_drop(p);
		p->brk = -1;
		break;
	}
}

/* Add key to the touched set; Return: 1 if it was new. */
static int seen_add(struct site_owners *o, uint64_t key)
{
	if (ft_idmap_get(&o->seen, key) != IDMAP_NONE)
		return 0;
	ft_idmap_add(&o->seen, key, 1);
	return 1;
}

static int pid_of(const struct site_owners *o, int64_t proc_id)
{
	size_t lo = 0, hi = o->nr_pm;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->pm[mid].proc_id < proc_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->nr_pm && o->pm[lo].proc_id == proc_id ? o->pm[lo].pid : -1;
}

/* Touch number seq of the stream belongs to owner: extend the last span or start one. */
static void span_add(struct site_owners *o, uint64_t seq, size_t owner)
{
	struct owner_span *sp = o->nr_spans ? &o->spans[o->nr_spans - 1] : NULL;

	if (sp && o->span_open && sp->owner == owner) {
		sp->end = seq + 1;
		return;
	}
	o->spans = xgrow(o->spans, &o->cap_spans, o->nr_spans + 1, sizeof(*o->spans));
	o->spans[o->nr_spans++] = (struct owner_span){ seq, seq + 1, owner };
	o->span_open = 1;
}

int ft_owners_event(const struct ftdb_event *ev, void *arg)
{
	struct site_owners *o = arg;
	struct sitefile *f = o->f;
	uint64_t block, npages, pg, owner_key, lo = 0, hi = UINT64_MAX;
	uint64_t *faults, *touched, seq = o->ev_seq++;
	struct owner_proc *p;
	ssize_t i;

	while (o->next_rec < f->nr_recs && f->recs[o->next_rec].ts <= ev->ts)
		apply_rec(o, &f->recs[o->next_rec++]);
	if (ev->kind != FTDB_EV_FAULT && ev->kind != FTDB_EV_ZERO_WP && ev->kind != FTDB_EV_COW)
		return 0;
	p = proc_get(o, pid_of(o, ev->proc_id), 0);
	if (!p) {
		o->span_open = 0;	/* not a traced process (the tracer itself) */
		return 0;
	}
	i = ivmap_find(map_of(p), ev->addr);
	if (i >= 0) {
		const struct ivmap_entry *r = &map_of(p)->v[i];
		struct sf_call *c = &f->calls[r->val];

		faults = &c->faults;
		touched = &c->touched;
		owner_key = r->val;
		lo = r->start;
		hi = r->end;
	} else {
		faults = &p->nocall_faults;
		touched = &p->nocall_touched;
		owner_key = f->nr_calls + (size_t)(p - o->procs);
	}
	span_add(o, seq, (size_t)owner_key);
	if (ev->kind != FTDB_EV_FAULT)
		return 0;	/* counted by query sites: anon_fault events only */
	(*faults)++;
	if (!ev->nr_ptes)
		return 0;
	npages = 1ull << ev->order;
	block = ev->addr & ~(npages * o->page_size - 1);
	for (pg = 0; pg < npages; pg++) {
		uint64_t a = block + pg * o->page_size;

		if (a >= lo && a < hi)
			*touched += (uint64_t)seen_add(o, owner_key << 40 |
						       ((a / o->page_size) & ((1ull << 40) - 1)));
	}
	return 0;
}

void ft_owners_finish(struct site_owners *o)
{
	while (o->next_rec < o->f->nr_recs)
		apply_rec(o, &o->f->recs[o->next_rec++]);
}

void ft_owners_release(struct site_owners *o)
{
	size_t i;

	for (i = 0; i < o->nr_procs; i++)
		map_drop(&o->procs[i]);
	free(o->procs);
	free(o->spans);
	ft_idmap_release(&o->seen);
	ft_idmap_release(&o->proc_index);
	memset(o, 0, sizeof(*o));
}
