// SPDX-License-Identifier: GPL-2.0
/*
 * sites.c - store the call-site tracer's side file and attribute anonymous faults to the
 * calls that mapped their addresses; see sites.h and docs/sites.md.
 *
 * One pass: the side file's records (calls, forks, execs, on the guest's CLOCK_MONOTONIC
 * plus the trace clock's offset) are merged in time order with the trace's event stream.
 * A side file of version 2 gives each call's entry only: its time and result are those of
 * the thread's next exit of that call in the trace's sys_exit rows (pair_exits()), and a
 * call with none (its thread died in it) is dropped.
 * Each traced process keeps an address map: sorted, non-overlapping ranges, each owned by
 * the last call that mapped it (mmap of anonymous memory, mremap's destination, brk's
 * growth); file mmaps, munmap, brk's shrink and exec take ranges away, fork copies the map.
 * An anon_fault of a traced process goes to the owner of its address, or to the process's
 * '[no call]' row when nothing owns it. Every touch (anon_fault, anon_zero_wp, anon_cow) is
 * also looked up and stored as runs of event ordinals per owner (site_touch), so replay
 * charges a policy's faults to the sites `query sites` names, without a second attribution.
 *
 * Tuned for: thousands of calls and millions of faults; a lookup is a binary search in the
 * process's map, touched pages are counted in one open-addressing hash set.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "tracer/idmap.h"
#include "tracer/sites.h"

struct frame {
	char *line;		/* its copy of the F line, which module and proc point into */
	uint64_t ip, module_offset, proc_offset;
	const char *module;	/* NULL: no file mapping */
	const char *proc;	/* NULL: no name */
};

struct stack {
	const char *key;	/* the frame lines and status as written: the identity */
	struct frame *frames;
	int nr_frames;
	const char *status;
	int site_depth;		/* -1: [unknown] */
	int64_t stack_id;
	int used;		/* calls stored with it: a stack of dropped calls only is not */
};

struct call {
	uint64_t ts;		/* trace clock, ns: when it returned */
	uint64_t entry;		/* version 2: when it was entered (ts before pair_exits()) */
	int pid, tid;
	const char *name;
	uint64_t arg[6];
	int64_t result;
	int stack;		/* index in stacks */
	uint64_t start, end;	/* anonymous range mapped; start == end: none */
	uint64_t end_ts;	/* 0: still mapped */
	uint64_t faults, touched;
	int dropped;		/* version 2: no exit paired, neither applied nor stored */
};

/* A record of the timeline: a call (index), a fork or an exec. */
struct rec {
	uint64_t ts;
	char type;		/* 'C', 'K', 'X' */
	int pid, child;
	int call;
	size_t line;		/* its position in the side file: sort_recs()'s tie-break */
};

/* A system call's exit from the trace (sys_exit), to pair with a version 2 call. */
struct sys_exit {
	int tid;
	uint64_t ts;		/* trace clock, ns */
	int64_t ret;
	const char *call;	/* one of sys_calls[] */
};

struct range {
	uint64_t start, end;
	int owner;		/* call index */
};

struct proc {
	int pid;
	struct range *r;
	size_t nr, cap;
	int64_t brk;		/* current break, -1 unknown */
	uint64_t nocall_faults, nocall_touched;
	uint64_t last_ts;	/* last event of any of its mms, ns */
};

struct pidmap {
	int64_t proc_id;
	int pid;
};

/* Consecutive events [first, end) whose touches all have one owner (site_touch). */
struct span {
	uint64_t first, end;	/* event ordinals */
	size_t owner;		/* call index, or nr_calls + process index ('none' row) */
};

struct sites {
	struct call *calls;
	size_t nr_calls, cap_calls;
	struct stack *stacks;
	size_t nr_stacks, cap_stacks;
	struct rec *recs;
	size_t nr_recs, cap_recs, next_rec;
	struct proc *procs;
	size_t nr_procs, cap_procs;
	struct idmap proc_index;	/* pid -> index in procs; made by the first proc_get() */
	struct idmap stack_index;	/* hash of a stack's key -> index in stacks (multimap) */
	struct pidmap *pm;
	size_t nr_pm;
	uint64_t page_size;
	struct idmap seen;	/* set of owner << 40 | page number (values unused) */
	regex_t skip;
	struct span *spans;	/* in event order */
	size_t nr_spans, cap_spans;
	uint64_t ev_seq;	/* ordinal of the event on_event() sees */
	int span_open;		/* the last span may grow: no foreign touch since */
	int64_t *row_id;	/* site_call.call_id per owner, after write_calls() */
	int version;		/* of the side file: 1 results inline, 2 from sys_exit */
};

/* --- the side file ---------------------------------------------------------------- */

static int split(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return line ? -1 : n;
}

static int num(const char *s, int base, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = base == -10 ? (uint64_t)strtoll(s, &end, 10) : strtoull(s, &end, base);
	return errno || end == s || *end ? -1 : 0;
}

/*
 * The process of pid, added if create (else NULL if unknown). Looked up per fault and per
 * side-file record: hashed, as a make -j of a big tree has thousands of processes.
 */
static struct proc *proc_get(struct sites *s, int pid, int create)
{
	uint64_t key = (uint32_t)pid;
	uint32_t i;

	if (!s->proc_index.slots)
		ft_idmap_init(&s->proc_index);
	i = ft_idmap_get(&s->proc_index, key);
	if (i != IDMAP_NONE)
		return &s->procs[i];
	if (!create)
		return NULL;
	ft_idmap_add(&s->proc_index, key, (uint32_t)s->nr_procs);
	s->procs = xgrow(s->procs, &s->cap_procs, s->nr_procs + 1, sizeof(*s->procs));
	memset(&s->procs[s->nr_procs], 0, sizeof(*s->procs));
	s->procs[s->nr_procs].pid = pid;
	s->procs[s->nr_procs].brk = -1;
	return &s->procs[s->nr_procs++];
}

/* The stack of a call: F lines [from, from + n) of lines; deduplicated by its text. */
/* FNV-1a, 64 bits: a stack key's hash for stack_index (collisions are compared in full) */
static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

static int add_stack(struct sites *s, char **lines, size_t from, int n, const char *status)
{
	struct strbuf key = STRBUF_INIT;
	struct stack *st;
	uint64_t hash;
	size_t pos;
	uint32_t i;
	int k;

	for (k = 0; k < n; k++) {
		strbuf_addstr(&key, lines[from + k]);
		strbuf_addch(&key, '\n');
	}
	strbuf_addstr(&key, status);
	/* one lookup per traced call: hashed, as a long run has tens of thousands of stacks */
	hash = str_hash(key.buf);
	if (!s->stack_index.slots)
		ft_idmap_init(&s->stack_index);
	pos = ft_idmap_hash(hash);
	while ((i = ft_idmap_next(&s->stack_index, hash, &pos)) != IDMAP_NONE)
		if (!strcmp(s->stacks[i].key, key.buf)) {
			strbuf_release(&key);
			return (int)i;
		}
	ft_idmap_add(&s->stack_index, hash, (uint32_t)s->nr_stacks);
	s->stacks = xgrow(s->stacks, &s->cap_stacks, s->nr_stacks + 1, sizeof(*s->stacks));
	st = &s->stacks[s->nr_stacks];
	memset(st, 0, sizeof(*st));
	st->key = strbuf_detach(&key);
	st->status = xstrdup(status);
	st->frames = xcalloc((size_t)n + 1, sizeof(*st->frames));
	for (k = 0; k < n; k++) {
		char *f[6], *copy = xstrdup(lines[from + k]);
		struct frame *fr = &st->frames[k];

		fr->line = copy;
		st->nr_frames++;
		if (split(copy, f, 6) != 6 || strcmp(f[0], "F") || num(f[1], 16, &fr->ip) ||
		    num(f[3], 16, &fr->module_offset) || num(f[5], 16, &fr->proc_offset)) {
			s->nr_stacks++;	/* released with the others */
			return fail("malformed frame line %zu", from + k + 1);
		}
		fr->module = strcmp(f[2], "-") ? f[2] : NULL;
		fr->proc = strcmp(f[4], "-") ? f[4] : NULL;
	}
	return (int)s->nr_stacks++;
}

static void add_rec(struct sites *s, char type, uint64_t ts, int pid, int child, int call)
{
	s->recs = xgrow(s->recs, &s->cap_recs, s->nr_recs + 1, sizeof(*s->recs));
	s->recs[s->nr_recs] = (struct rec){ .ts = ts, .type = type, .pid = pid,
					    .child = child, .call = call, .line = s->nr_recs };
	s->nr_recs++;
}

static int parse_call(struct sites *s, char **lines, size_t *i, size_t nr, uint64_t offset)
{
	char *f[14];
	struct call *c;
	uint64_t ts, pid, tid, res = 0, nf;
	int k, stack;

	/* version 2: the result is the exit's, "-" here */
	if (split(lines[*i], f, 14) != 14 || num(f[1], 10, &ts) || num(f[2], 10, &pid) ||
	    num(f[3], 10, &tid) || num(f[12], 10, &nf) || nf > nr - *i - 1 ||
	    (s->version == 1 ? num(f[11], -10, &res) : strcmp(f[11], "-")))
		return fail("malformed call line %zu", *i + 1);
	s->calls = xgrow(s->calls, &s->cap_calls, s->nr_calls + 1, sizeof(*s->calls));
	c = &s->calls[s->nr_calls];
	memset(c, 0, sizeof(*c));
	for (k = 0; k < 6; k++)
		if (num(f[5 + k], 16, &c->arg[k]))
			return fail("malformed call line %zu", *i + 1);
	c->ts = ts + offset;
	c->entry = c->ts;
	c->pid = (int)pid;
	c->tid = (int)tid;
	c->name = f[4];
	c->result = (int64_t)res;
	stack = add_stack(s, lines, *i + 1, (int)nf, f[13]);
	if (stack < 0)
		return -1;
	c->stack = stack;
	*i += nf;
	add_rec(s, 'C', c->ts, c->pid, 0, (int)s->nr_calls++);
	proc_get(s, c->pid, 1);
	return 0;
}

/* Parse the whole side file (buf is modified and kept: the strings point into it). */
static int parse(struct sites *s, char *buf, uint64_t offset)
{
	char **lines = NULL, *p, *f[5];
	size_t nr = 0, cap = 0, i;
	uint64_t ts, pid, child, last = 0;
	int ret = -1;

	for (p = buf; *p; ) {
		char *nl = strchr(p, '\n');

		if (!nl)
			break;	/* a last line cut short (the guest died): not a record */
		*nl = '\0';
		lines = xgrow(lines, &cap, nr + 1, sizeof(*lines));
		lines[nr++] = p;
		p = nl + 1;
	}
	if (!nr || (strncmp(lines[0], "V\t1\t", 4) && strncmp(lines[0], "V\t2\t", 4))) {
		fail("not a call-site side file of version 1 or 2");
		goto out;
	}
	s->version = lines[0][2] - '0';
	for (i = 1; i < nr; i++) {
		switch (lines[i][0]) {
		case 'C':
			if (parse_call(s, lines, &i, nr, offset))
				goto out;
			ts = s->calls[s->nr_calls - 1].ts;
			break;
		case 'K':
			if (split(lines[i], f, 5) != 5 || num(f[1], 10, &ts) ||
			    num(f[2], 10, &pid) || num(f[3], 10, &child)) {
				fail("malformed fork line %zu", i + 1);
				goto out;
			}
			ts += offset;
			add_rec(s, 'K', ts, (int)pid, (int)child, -1);
			proc_get(s, (int)child, 1);
			break;
		case 'X':
			if (split(lines[i], f, 4) != 4 || num(f[1], 10, &ts) ||
			    num(f[2], 10, &pid)) {
				fail("malformed exec line %zu", i + 1);
				goto out;
			}
			ts += offset;
			add_rec(s, 'X', ts, (int)pid, 0, -1);
			proc_get(s, (int)pid, 1);
			break;
		case 'E':
			continue;
		default:
			fail("malformed line %zu: unknown record '%c'", i + 1, lines[i][0]);
			goto out;
		}
		if (ts < last) {
			fail("line %zu: time goes backwards", i + 1);
			goto out;
		}
		last = ts;
	}
	ret = 0;
out:
	free(lines);
	return ret;
}

/* --- version 2: each call's exit from the trace ------------------------------------ */

static const char *const sys_calls[] = { "mmap", "munmap", "mremap", "brk", "madvise" };

/* The trace's sys_exit rows of the five calls, by thread then time. Return: 0 or -1. */
static int load_exits(sqlite3 *h, int64_t trace_id, struct sys_exit **v, size_t *nr)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	unsigned int k;
	int rc;

	*v = NULL;
	*nr = 0;
	if (sqlite3_prepare_v2(h, "SELECT tid, ts, call, ret FROM sys_exit WHERE trace_id = ? "
			       "ORDER BY tid, ts", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the system call exits: %s", sqlite3_errmsg(h));
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *call = (const char *)sqlite3_column_text(st, 2);

		for (k = 0; k < sizeof(sys_calls) / sizeof(*sys_calls); k++)
			if (call && !strcmp(call, sys_calls[k]))
				break;
		if (k == sizeof(sys_calls) / sizeof(*sys_calls))
			continue;
		*v = xgrow(*v, &cap, *nr + 1, sizeof(**v));
		(*v)[(*nr)++] = (struct sys_exit){ .tid = sqlite3_column_int(st, 0),
			.ts = (uint64_t)sqlite3_column_int64(st, 1),
			.ret = sqlite3_column_int64(st, 3), .call = sys_calls[k] };
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 :
	       fail("cannot read the system call exits: %s", sqlite3_errmsg(h));
}

/* Index of the first exit of v[0, nr) after (tid, ts) in (tid, ts) order. */
static size_t exit_after(const struct sys_exit *v, size_t nr, int tid, uint64_t ts)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].tid < tid || (v[mid].tid == tid && v[mid].ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * Version 2: give each call (entry time in c->ts) the time and result of its exit, the
 * first sys_exit of the same thread and call after its entry and before the thread's next
 * call's entry (a thread is in one system call at a time); drop a call that has none (its
 * thread died in it: the range never reached the program). Then the records are put in
 * time order again, stably: forks and execs keep their times. Return: 0 or -1.
 */
static int pair_exits(struct sites *s, sqlite3 *h, int64_t trace_id)
{
	struct sys_exit *v;
	struct idmap next;	/* tid -> index of its call after the one being paired */
	size_t nr, i, r;

	if (!s->nr_calls)
		return 0;
	if (load_exits(h, trace_id, &v, &nr))
		return -1;
	if (!nr)
		return fail("the side file's calls need the trace's syscall exit events (sites "
			     "channel), which it does not have");
	ft_idmap_init(&next);
	for (i = s->nr_calls; i-- > 0; ) {
		struct call *c = &s->calls[i];
		uint32_t n = ft_idmap_get(&next, (uint32_t)c->tid);
		uint64_t bound = n == IDMAP_NONE ? UINT64_MAX : s->calls[n].entry;
		size_t e;

		ft_idmap_set(&next, (uint32_t)c->tid, (uint32_t)i);
		c->dropped = 1;
		for (e = exit_after(v, nr, c->tid, c->entry);
		     e < nr && v[e].tid == c->tid && v[e].ts < bound; e++) {
			if (strcmp(v[e].call, c->name))
				continue;
			c->ts = v[e].ts;
			c->result = v[e].ret;
			c->dropped = 0;
			break;
		}
	}
	ft_idmap_release(&next);
	free(v);
	for (i = r = 0; i < s->nr_recs; i++) {
		struct rec *rc = &s->recs[i];

		if (rc->type == 'C' && s->calls[rc->call].dropped)
			continue;
		if (rc->type == 'C')
			rc->ts = s->calls[rc->call].ts;
		s->recs[r++] = *rc;
	}
	s->nr_recs = r;
	qsort(s->recs, s->nr_recs, sizeof(*s->recs), rec_cmp);
	return 0;
}

/* --- sites ------------------------------------------------------------------------ */

/* Does the skip regex match name, with GCC's clone suffixes (".part.0") removed? */
static int skipped(struct sites *s, const char *name)
{
	char buf[512];
	char *dot;

	snprintf(buf, sizeof(buf), "%s", name);
	dot = strchr(buf, '.');
	while (dot && !(!strncmp(dot, ".part", 5) || !strncmp(dot, ".isra", 5) ||
			!strncmp(dot, ".constprop", 10) || !strncmp(dot, ".cold", 5)))
		dot = strchr(dot + 1, '.');
	if (dot)
		*dot = '\0';
	return !regexec(&s->skip, buf, 0, NULL, 0);
}

static void find_sites(struct sites *s)
{
	size_t i;
	int k;

	for (i = 0; i < s->nr_stacks; i++) {
		struct stack *st = &s->stacks[i];

		st->site_depth = -1;
		for (k = 0; k < st->nr_frames; k++) {
			const struct frame *f = &st->frames[k];
			const char *base = f->module ? strrchr(f->module, '/') : NULL;

			if (f->module && skipped(s, base ? base + 1 : f->module))
				continue;
			if (f->proc && skipped(s, f->proc))
				continue;
			/* an unnamed frame in an unnamed place is no site */
			if (!f->proc && !f->module)
				continue;
			st->site_depth = k;
			break;
		}
	}
}

/* --- address maps ----------------------------------------------------------------- */

/* Index of the first range of p ending after addr. */
static size_t first_after(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Take [start, end) out of p's map; calls losing a range end at ts (if ts). */
static void map_remove(struct sites *s, struct proc *p, uint64_t start, uint64_t end,
		       uint64_t ts)
{
	size_t i = first_after(p, start), j;

	for (j = i; j < p->nr && p->r[j].start < end; j++)
		if (ts && !s->calls[p->r[j].owner].end_ts)
			s->calls[p->r[j].owner].end_ts = ts;
	if (i == j)
		return;
	{
		struct range head = p->r[i], tail = p->r[j - 1];
		struct range keep[2];
		int nk = 0;

		if (head.start < start)
			keep[nk++] = (struct range){ head.start, start, head.owner };
		if (tail.end > end)
			keep[nk++] = (struct range){ end, tail.end, tail.owner };
		p->r = xgrow(p->r, &p->cap, p->nr + 2, sizeof(*p->r));
		memmove(&p->r[i + nk], &p->r[j], (p->nr - j) * sizeof(*p->r));
		memcpy(&p->r[i], keep, (size_t)nk * sizeof(*keep));
		p->nr = p->nr - (j - i) + (size_t)nk;
	}
}

static void map_set(struct sites *s, struct proc *p, uint64_t start, uint64_t end, int owner)
{
	size_t i;

	if (start >= end)
		return;
	map_remove(s, p, start, end, 0);
	i = first_after(p, start);
	p->r = xgrow(p->r, &p->cap, p->nr + 1, sizeof(*p->r));
	memmove(&p->r[i + 1], &p->r[i], (p->nr - i) * sizeof(*p->r));
	p->r[i] = (struct range){ start, end, owner };
	p->nr++;
}

static uint64_t page_up(const struct sites *s, uint64_t a)
{
	return (a + s->page_size - 1) & ~(s->page_size - 1);
}

#define MAP_ANONYMOUS_FLAG	0x20	/* MAP_ANONYMOUS, the same on x86_64 and arm64 */
#define MREMAP_FIXED_FLAG	2

/* A call's effect on its process's map. */
static void apply_call(struct sites *s, int idx)
{
	struct call *c = &s->calls[idx];
	struct proc *p = proc_get(s, c->pid, 1);
	int failed = c->result < 0 && c->result > -4096;
	uint64_t r = (uint64_t)c->result;

	if (!strcmp(c->name, "mmap") && !failed) {
		if (c->arg[3] & MAP_ANONYMOUS_FLAG) {
			c->start = r;
			c->end = r + page_up(s, c->arg[1]);
			map_set(s, p, c->start, c->end, idx);
		} else {
			map_remove(s, p, r, r + page_up(s, c->arg[1]), c->ts);
		}
	} else if (!strcmp(c->name, "munmap") && !failed) {
		map_remove(s, p, c->arg[0], c->arg[0] + page_up(s, c->arg[1]), c->ts);
	} else if (!strcmp(c->name, "mremap") && !failed) {
		uint64_t old = c->arg[0], old_len = page_up(s, c->arg[1]);
		uint64_t new_len = page_up(s, c->arg[2]);

		if (r == old && new_len > old_len) {
			c->start = old + old_len;	/* grown in place: only the new part */
			c->end = old + new_len;
		} else if (r != old) {
			map_remove(s, p, old, old + old_len, c->ts);
			c->start = r;
			c->end = r + new_len;
		} else {
			map_remove(s, p, old + new_len, old + old_len, c->ts);
		}
		map_set(s, p, c->start, c->end, idx);
	} else if (!strcmp(c->name, "brk")) {
		/* brk returns the break, old or new: never an error code */
		if (p->brk >= 0 && r > (uint64_t)p->brk) {
			c->start = page_up(s, (uint64_t)p->brk);
			c->end = page_up(s, r);
			map_set(s, p, c->start, c->end, idx);
		} else if (p->brk >= 0 && r < (uint64_t)p->brk) {
			map_remove(s, p, page_up(s, r), page_up(s, (uint64_t)p->brk), c->ts);
		}
		p->brk = (int64_t)r;
	}
	if (c->start >= c->end)
		c->start = c->end = 0;
}

static void apply_rec(struct sites *s, const struct rec *rc)
{
	struct proc *p, *child;
	size_t i;

	switch (rc->type) {
	case 'C':
		apply_call(s, rc->call);
		break;
	case 'K':
		p = proc_get(s, rc->pid, 1);
		child = proc_get(s, rc->child, 1);
		p = proc_get(s, rc->pid, 1);	/* the array may have moved */
		child->nr = 0;
		child->r = xgrow(child->r, &child->cap, p->nr + 1, sizeof(*p->r));
		if (p->nr)	/* a parent with no range may have no array */
			memcpy(child->r, p->r, p->nr * sizeof(*p->r));
		child->nr = p->nr;
		child->brk = p->brk;
		break;
	case 'X':
		p = proc_get(s, rc->pid, 1);
		for (i = 0; i < p->nr; i++)
			if (!s->calls[p->r[i].owner].end_ts)
				s->calls[p->r[i].owner].end_ts = rc->ts;
		p->nr = 0;
		p->brk = -1;
		break;
	}
}

/* --- faults ----------------------------------------------------------------------- */

/* Add key to the touched set; Return: 1 if it was new. */
static int seen_add(struct sites *s, uint64_t key)
{
	if (ft_idmap_get(&s->seen, key) != IDMAP_NONE)
		return 0;
	ft_idmap_add(&s->seen, key, 1);
	return 1;
}

static int pid_of(const struct sites *s, int64_t proc_id)
{
	size_t lo = 0, hi = s->nr_pm;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->pm[mid].proc_id < proc_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nr_pm && s->pm[lo].proc_id == proc_id ? s->pm[lo].pid : -1;
}

/* Touch number seq of the stream belongs to owner: extend the last span or start one. */
static void span_add(struct sites *s, uint64_t seq, size_t owner)
{
	struct span *sp = s->nr_spans ? &s->spans[s->nr_spans - 1] : NULL;

	if (sp && s->span_open && sp->owner == owner) {
		sp->end = seq + 1;
		return;
	}
	s->spans = xgrow(s->spans, &s->cap_spans, s->nr_spans + 1, sizeof(*s->spans));
	s->spans[s->nr_spans++] = (struct span){ seq, seq + 1, owner };
	s->span_open = 1;
}

static int on_event(const struct ftdb_event *ev, void *arg)
{
	struct sites *s = arg;
	uint64_t block, npages, pg, owner_key, lo = 0, hi = UINT64_MAX;
	uint64_t *faults, *touched, seq = s->ev_seq++;
	struct proc *p;
	size_t i;

	while (s->next_rec < s->nr_recs && s->recs[s->next_rec].ts <= ev->ts)
		apply_rec(s, &s->recs[s->next_rec++]);
	if (ev->kind != FTDB_EV_FAULT && ev->kind != FTDB_EV_ZERO_WP && ev->kind != FTDB_EV_COW)
		return 0;
	p = proc_get(s, pid_of(s, ev->proc_id), 0);
	if (!p) {
		s->span_open = 0;	/* not a traced process (the tracer itself) */
		return 0;
	}
	i = first_after(p, ev->addr);
	if (i < p->nr && p->r[i].start <= ev->addr) {
		struct call *c = &s->calls[p->r[i].owner];

		faults = &c->faults;
		touched = &c->touched;
		owner_key = (uint64_t)p->r[i].owner;
		lo = p->r[i].start;
		hi = p->r[i].end;
	} else {
		faults = &p->nocall_faults;
		touched = &p->nocall_touched;
		owner_key = s->nr_calls + (size_t)(p - s->procs);
	}
	span_add(s, seq, (size_t)owner_key);
	if (ev->kind != FTDB_EV_FAULT)
		return 0;	/* counted by query sites: anon_fault events only */
	(*faults)++;
	if (!ev->nr_ptes)
		return 0;
	npages = 1ull << ev->order;
	block = ev->addr & ~(npages * s->page_size - 1);
	for (pg = 0; pg < npages; pg++) {
		uint64_t a = block + pg * s->page_size;

		if (a >= lo && a < hi)
			*touched += (uint64_t)seen_add(s, owner_key << 40 |
						       ((a / s->page_size) & ((1ull << 40) - 1)));
	}
	return 0;
}

/* --- the database ----------------------------------------------------------------- */

static int load_trace(struct sites *s, sqlite3 *h, int64_t trace_id, uint64_t *offset,
		      uint64_t *last_ts)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	if (sqlite3_prepare_v2(h, "SELECT (SELECT value FROM trace_meta WHERE trace_id = ?1 AND "
			       "key = 'clock_offset_ns'), page_size, last_ts FROM trace "
			       "WHERE trace_id = ?1", -1, &st, NULL) != SQLITE_OK)
		goto sql;
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		fail("trace %lld not found", (long long)trace_id);
		goto out;
	}
	if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		fail("trace %lld has no clock offset to place the calls on", (long long)trace_id);
		goto out;
	}
	*offset = (uint64_t)sqlite3_column_int64(st, 0);
	s->page_size = sqlite3_column_int64(st, 1) > 0 ? (uint64_t)sqlite3_column_int64(st, 1)
						       : 4096;
	*last_ts = (uint64_t)sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(h, "SELECT proc_id, pid, last_ts FROM process WHERE trace_id = ? "
			       "ORDER BY proc_id", -1, &st, NULL) != SQLITE_OK)
		goto sql;
	sqlite3_bind_int64(st, 1, trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t cap = s->nr_pm;

		s->pm = xgrow(s->pm, &cap, s->nr_pm + 1, sizeof(*s->pm));
		s->pm[s->nr_pm].proc_id = sqlite3_column_int64(st, 0);
		s->pm[s->nr_pm++].pid = sqlite3_column_int(st, 1);
	}
	if (rc != SQLITE_DONE)
		goto sql;
	ret = 0;
	goto out;
sql:
	fail("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(h));
out:
	sqlite3_finalize(st);
	return ret;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static int step_done(sqlite3 *h, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : fail("cannot store the calls: %s", sqlite3_errmsg(h));
}

static int write_stacks(struct sites *s, sqlite3 *h, int64_t trace_id)
{
	sqlite3_stmt *ss = NULL, *sf = NULL;
	size_t i;
	int k, ret = -1;

	if (sqlite3_prepare_v2(h, "INSERT INTO site_stack(trace_id, nr_frames, status, "
			       "site_depth) VALUES (?, ?, ?, ?)", -1, &ss, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "INSERT INTO site_frame(stack_id, depth, ip, module, "
			       "module_offset, proc, proc_offset) VALUES (?, ?, ?, ?, ?, ?, ?)",
			       -1, &sf, NULL) != SQLITE_OK) {
		fail("cannot store the calls: %s", sqlite3_errmsg(h));
		goto out;
	}
	for (i = 0; i < s->nr_calls; i++)
		if (!s->calls[i].dropped)
			s->stacks[s->calls[i].stack].used++;
	for (i = 0; i < s->nr_stacks; i++) {
		struct stack *st = &s->stacks[i];

		if (!st->used)
			continue;
		sqlite3_bind_int64(ss, 1, trace_id);
		sqlite3_bind_int(ss, 2, st->nr_frames);
		sqlite3_bind_text(ss, 3, st->status, -1, SQLITE_STATIC);
		if (st->site_depth >= 0)
			sqlite3_bind_int(ss, 4, st->site_depth);
		if (step_done(h, ss))
			goto out;
		st->stack_id = sqlite3_last_insert_rowid(h);
		for (k = 0; k < st->nr_frames; k++) {
			const struct frame *f = &st->frames[k];

			sqlite3_bind_int64(sf, 1, st->stack_id);
			sqlite3_bind_int(sf, 2, k);
			sqlite3_bind_int64(sf, 3, (int64_t)f->ip);
			bind_text_or_null(sf, 4, f->module);
			sqlite3_bind_int64(sf, 5, (int64_t)f->module_offset);
			bind_text_or_null(sf, 6, f->proc);
			sqlite3_bind_int64(sf, 7, (int64_t)f->proc_offset);
			if (step_done(h, sf))
				goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(ss);
	sqlite3_finalize(sf);
	return ret;
}

static int write_calls(struct sites *s, sqlite3 *h, int64_t trace_id, uint64_t last_ts)
{
	sqlite3_stmt *st = NULL;
	size_t r, i;
	int k, ret = -1;

	s->row_id = xcalloc(s->nr_calls + s->nr_procs, sizeof(*s->row_id));
	if (sqlite3_prepare_v2(h, "INSERT INTO site_call(trace_id, ts, pid, tid, call, arg0, "
			       "arg1, arg2, arg3, arg4, arg5, result, start, end, end_ts, stack_id, "
			       "site, site_module, site_offset, faults, touched_pages) VALUES (?1, "
			       "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
			       "?17, ?18, ?19, ?20, ?21)", -1, &st, NULL) != SQLITE_OK) {
		fail("cannot store the calls: %s", sqlite3_errmsg(h));
		goto out;
	}
	/* in the records' order, i.e. by time: a dropped call has no record left */
	for (r = 0; r < s->nr_recs; r++) {
		const struct call *c;
		const struct stack *sk;
		const struct frame *f;

		if (s->recs[r].type != 'C')
			continue;
		i = (size_t)s->recs[r].call;
		c = &s->calls[i];
		sk = &s->stacks[c->stack];
		f = sk->site_depth >= 0 ? &sk->frames[sk->site_depth] : NULL;
		sqlite3_bind_int64(st, 1, trace_id);
		sqlite3_bind_int64(st, 2, (int64_t)c->ts);
		sqlite3_bind_int(st, 3, c->pid);
		sqlite3_bind_int(st, 4, c->tid);
		sqlite3_bind_text(st, 5, c->name, -1, SQLITE_STATIC);
		for (k = 0; k < 6; k++)
			sqlite3_bind_int64(st, 6 + k, (int64_t)c->arg[k]);
		sqlite3_bind_int64(st, 12, c->result);
		if (c->end > c->start) {
			sqlite3_bind_int64(st, 13, (int64_t)c->start);
			sqlite3_bind_int64(st, 14, (int64_t)c->end);
			sqlite3_bind_int64(st, 15, (int64_t)(c->end_ts ? c->end_ts : last_ts));
		}
		sqlite3_bind_int64(st, 16, sk->stack_id);
		bind_text_or_null(st, 17, f ? (f->proc ? f->proc : "[unnamed]") : "[unknown]");
		bind_text_or_null(st, 18, f ? f->module : NULL);
		if (f)
			sqlite3_bind_int64(st, 19, (int64_t)f->module_offset);
		sqlite3_bind_int64(st, 20, (int64_t)c->faults);
		sqlite3_bind_int64(st, 21, (int64_t)c->touched);
		if (step_done(h, st))
			goto out;
		s->row_id[i] = sqlite3_last_insert_rowid(h);
	}
	for (i = 0; i < s->nr_procs; i++) {
		const struct proc *p = &s->procs[i];

		sqlite3_bind_int64(st, 1, trace_id);
		sqlite3_bind_int(st, 3, p->pid);
		sqlite3_bind_text(st, 5, "none", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 17, "[no call]", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 20, (int64_t)p->nocall_faults);
		sqlite3_bind_int64(st, 21, (int64_t)p->nocall_touched);
		if (step_done(h, st))
			goto out;
		s->row_id[s->nr_calls + i] = sqlite3_last_insert_rowid(h);
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

/* The touch spans, after write_calls() gave every owner its call_id. */
static int write_spans(struct sites *s, sqlite3 *h, int64_t trace_id)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret = -1;

	if (sqlite3_prepare_v2(h, "INSERT INTO site_touch(trace_id, ev_first, ev_end, call_id) "
			       "VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
		fail("cannot store the calls: %s", sqlite3_errmsg(h));
		goto out;
	}
	for (i = 0; i < s->nr_spans; i++) {
		sqlite3_bind_int64(st, 1, trace_id);
		sqlite3_bind_int64(st, 2, (int64_t)s->spans[i].first);
		sqlite3_bind_int64(st, 3, (int64_t)s->spans[i].end);
		sqlite3_bind_int64(st, 4, s->row_id[s->spans[i].owner]);
		if (step_done(h, st))
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

static void sites_release(struct sites *s)
{
	size_t i;

	for (i = 0; i < s->nr_stacks; i++) {
		int k;

		for (k = 0; k < s->stacks[i].nr_frames; k++)
			free(s->stacks[i].frames[k].line);
		free((char *)s->stacks[i].key);
		free((char *)s->stacks[i].status);
		free(s->stacks[i].frames);
	}
	for (i = 0; i < s->nr_procs; i++)
		free(s->procs[i].r);
	free(s->stacks);
	free(s->calls);
	free(s->recs);
	free(s->procs);
	free(s->pm);
	free(s->spans);
	free(s->row_id);
	ft_idmap_release(&s->seen);
	ft_idmap_release(&s->proc_index);
	ft_idmap_release(&s->stack_index);
}

/* Compile the regex and read the side file into buf; Return: 0 or -1. */
static int sites_open(struct sites *s, struct strbuf *buf, const char *path, const char *skip)
{
	char msg[256];
	int rc;

	rc = regcomp(&s->skip, skip ? skip : FT_SITES_SKIP_DEFAULT, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &s->skip, msg, sizeof(msg));
		return fail("invalid site skip regex '%s': %s", skip, msg);
	}
	if (strbuf_read_file(buf, path) < 0) {
		regfree(&s->skip);
		return fail("cannot read %s: %s", path, strerror(errno));
	}
	return 0;
}

int ft_sites_check(const char *path, const char *skip)
{
	struct sites s = { 0 };
	struct strbuf buf = STRBUF_INIT;
	int ret;

	if (sites_open(&s, &buf, path, skip))
		return -1;
	ret = parse(&s, buf.buf, 0);
	regfree(&s.skip);
	sites_release(&s);
	strbuf_release(&buf);
	return ret ? fail("bad call-site side file %s", path) : 0;
}

int ft_sites_store(const char *db, int64_t trace_id, const char *path, const char *skip)
{
	struct sites s = { 0 };
	struct strbuf buf = STRBUF_INIT;
	uint64_t offset = 0, last_ts = 0;
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1, rc;

	if (sites_open(&s, &buf, path, skip))
		return -1;
	ft_idmap_init(&s.seen);
	if (ftdb_open(db, FTDB_WRITE, &h) || load_trace(&s, h, trace_id, &offset, &last_ts))
		goto out;
	if (sqlite3_prepare_v2(h, "SELECT count(*) FROM site_call WHERE trace_id = ?", -1, &st,
			       NULL) != SQLITE_OK) {
		fail("cannot read %s: %s", db, sqlite3_errmsg(h));
		goto out;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc) {
		ret = 0;	/* stored before */
		goto out;
	}
	if (parse(&s, buf.buf, offset) || (s.version == 2 && pair_exits(&s, h, trace_id)))
		goto out;
	find_sites(&s);
	rc = ftdb_stream_foreach(h, trace_id, on_event, &s);
	if (rc)
		goto out;
	while (s.next_rec < s.nr_recs)
		apply_rec(&s, &s.recs[s.next_rec++]);
	if (ftdb_exec(h, "BEGIN IMMEDIATE"))
		goto out;
	if (write_stacks(&s, h, trace_id) || write_calls(&s, h, trace_id, last_ts) ||
	    write_spans(&s, h, trace_id)) {
		ftdb_rollback(h);
		goto out;
	}
	st = NULL;
	if (sqlite3_prepare_v2(h, "INSERT OR REPLACE INTO trace_meta(trace_id, key, value) "
			       "VALUES (?, 'sites.skip', ?)", -1, &st, NULL) != SQLITE_OK) {
		fail("cannot store the calls: %s", sqlite3_errmsg(h));
		ftdb_rollback(h);
		goto out;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, skip ? skip : FT_SITES_SKIP_DEFAULT, -1, SQLITE_STATIC);
	rc = step_done(h, st);
	sqlite3_finalize(st);
	if (rc || ftdb_exec(h, "COMMIT")) {
		ftdb_rollback(h);
		goto out;
	}
	ret = 0;
out:
	ftdb_close(h);
	regfree(&s.skip);
	sites_release(&s);
	strbuf_release(&buf);
	if (ret)
		fail("cannot store the call sites of %s", path);
	return ret;
}
