// SPDX-License-Identifier: GPL-2.0
/*
 * sitefile.c - parse the call-site tracer's side file; see sitefile.h for the format.
 *
 * Tuned for: tens of thousands of calls and stacks; a stack is looked up by the hash of its
 * text, a process by its pid.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "tracer/sitefile.h"

/* Split line at tabs into at most max fields; Return: their number, or -1 if more. */
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

/*
 * s in full as a number of base 10 or 16, digits only (no blank, sign or 0x), or with
 * base -10 a signed decimal: digits after an optional '-'. Return: 0, or -1 (empty, another
 * character, past 64 bits).
 */
static int num(const char *s, int base, uint64_t *v)
{
	const char *d = base == -10 && *s == '-' ? s + 1 : s;
	char *end;

	if (!*d)
		return -1;
	for (; *d; d++)
		if (!(*d >= '0' && *d <= '9') &&
		    !(base == 16 && ((*d >= 'a' && *d <= 'f') || (*d >= 'A' && *d <= 'F'))))
			return -1;
	errno = 0;
	*v = base == -10 ? (uint64_t)strtoll(s, &end, 10) : strtoull(s, &end, base);
	return errno || end == s || *end ? -1 : 0;
}

/* A process or thread id: decimal, at most INT_MAX. Return: 0, or -1 (malformed or past). */
static int id(const char *s, int *v, int *past)
{
	uint64_t u;

	*past = 0;
	if (num(s, 10, &u))
		return -1;
	if (u > INT_MAX) {
		*past = 1;
		return -1;
	}
	*v = (int)u;
	return 0;
}

/* TS plus the clock offset, in the trace clock's range (ns, at most INT64_MAX). */
static int add_offset(uint64_t ts, uint64_t offset, uint64_t *out)
{
	if (ts > (uint64_t)INT64_MAX || offset > (uint64_t)INT64_MAX - ts)
		return -1;
	*out = ts + offset;
	return 0;
}

/* Add pid to the list of processes named, once. */
static void name_pid(struct sitefile *f, int pid)
{
	uint64_t key = (uint32_t)pid;

	if (ft_idmap_get(&f->pid_seen, key) != IDMAP_NONE)
		return;
	ft_idmap_add(&f->pid_seen, key, 1);
	XGROW(f->pids, f->cap_pids, f->nr_pids + 1);
	f->pids[f->nr_pids++] = pid;
}

/* FNV-1a, 64 bits: a stack key's hash for stack_index (collisions are compared in full) */
static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

/* The stack of a call: F lines [from, from + n) of lines; deduplicated by its text. */
static int add_stack(struct sitefile *f, char **lines, size_t from, int n, const char *status)
{
	struct strbuf key = STRBUF_INIT;
	struct sf_stack *st;
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
	pos = ft_idmap_hash(hash);
	while ((i = ft_idmap_next(&f->stack_index, hash, &pos)) != IDMAP_NONE)
		if (!strcmp(f->stacks[i].key, key.buf)) {
			strbuf_release(&key);
			return (int)i;
		}
	ft_idmap_add(&f->stack_index, hash, (uint32_t)f->nr_stacks);
	f->stacks = xgrow(f->stacks, &f->cap_stacks, f->nr_stacks + 1, sizeof(*f->stacks));
	st = &f->stacks[f->nr_stacks];
	memset(st, 0, sizeof(*st));
	st->key = strbuf_detach(&key);
	st->status = xstrdup(status);
	st->frames = xcalloc((size_t)n + 1, sizeof(*st->frames));
	for (k = 0; k < n; k++) {
		char *fl[6], *copy = xstrdup(lines[from + k]);
		struct sf_frame *fr = &st->frames[k];

		fr->line = copy;
		st->nr_frames++;
		if (split(copy, fl, 6) != 6 || strcmp(fl[0], "F") || num(fl[1], 16, &fr->ip) ||
		    num(fl[3], 16, &fr->module_offset) || num(fl[5], 16, &fr->proc_offset)) {
			f->nr_stacks++;	/* released with the others */
			return fail("malformed frame line %zu", from + k + 1);
		}
		fr->module = strcmp(fl[2], "-") ? fl[2] : NULL;
		fr->proc = strcmp(fl[4], "-") ? fl[4] : NULL;
	}
	return (int)f->nr_stacks++;
}

static void add_rec(struct sitefile *f, char type, uint64_t ts, int pid, int child, int call)
{
	f->recs = xgrow(f->recs, &f->cap_recs, f->nr_recs + 1, sizeof(*f->recs));
	f->recs[f->nr_recs] = (struct sf_rec){ .ts = ts, .type = type, .pid = pid,
					       .child = child, .call = call, .line = f->nr_recs };
	f->nr_recs++;
}

static int parse_call(struct sitefile *f, char **lines, size_t *i, size_t nr, uint64_t offset)
{
	char *fl[14];
	struct sf_call *c;
	uint64_t ts, res = 0, nf;
	int k, stack, pid, tid, past = 0, tpast = 0;

	/* version 2: the result is the exit's, "-" here */
	if (split(lines[*i], fl, 14) != 14 || num(fl[1], 10, &ts) ||
	    num(fl[12], 10, &nf) || nf > nr - *i - 1 ||
	    (f->version == 1 ? num(fl[11], -10, &res) : strcmp(fl[11], "-")))
		return fail("malformed call line %zu", *i + 1);
	if (id(fl[2], &pid, &past) || id(fl[3], &tid, &tpast))
		return past || tpast ? fail("malformed call line %zu: %s %s past %d", *i + 1,
					past ? "PID" : "TID", past ? fl[2] : fl[3], INT_MAX) :
				   fail("malformed call line %zu", *i + 1);
	if (add_offset(ts, offset, &ts))
		return fail("malformed call line %zu: time %s past %lld ns with the clock offset",
			    *i + 1, fl[1], (long long)INT64_MAX);
	f->calls = xgrow(f->calls, &f->cap_calls, f->nr_calls + 1, sizeof(*f->calls));
	c = &f->calls[f->nr_calls];
	memset(c, 0, sizeof(*c));
	for (k = 0; k < 6; k++)
		if (num(fl[5 + k], 16, &c->arg[k]))
			return fail("malformed call line %zu", *i + 1);
	c->ts = ts;
	c->entry = c->ts;
	c->pid = pid;
	c->tid = tid;
	c->name = fl[4];
	c->result = (int64_t)res;
	stack = add_stack(f, lines, *i + 1, (int)nf, fl[13]);
	if (stack < 0)
		return -1;
	c->stack = stack;
	*i += nf;
	add_rec(f, 'C', c->ts, c->pid, 0, (int)f->nr_calls++);
	name_pid(f, c->pid);
	return 0;
}

/*
 * A K (fork, pids at fl[2] and fl[3]) or X (exec, pid at fl[2]) record of line n, its
 * fields split in fl: the record added. Return: 0 or -1 (error set).
 */
static int parse_proc(struct sitefile *f, char type, char **fl, size_t n, uint64_t offset,
		      uint64_t *ts)
{
	const char *what = type == 'K' ? "fork" : "exec";
	int pid, child = 0, past = 0, past2 = 0;

	if (num(fl[1], 10, ts) || id(fl[2], &pid, &past) ||
	    (type == 'K' && id(fl[3], &child, &past2))) {
		if (past || past2)
			return fail("malformed %s line %zu: %s %s past %d", what, n,
				    past ? "PID" : "CHILD_PID", past ? fl[2] : fl[3], INT_MAX);
		return fail("malformed %s line %zu", what, n);
	}
	if (add_offset(*ts, offset, ts))
		return fail("malformed %s line %zu: time %s past %lld ns with the clock offset",
			    what, n, fl[1], (long long)INT64_MAX);
	add_rec(f, type, *ts, pid, child, -1);
	name_pid(f, type == 'K' ? child : pid);
	return 0;
}

int ft_sitefile_parse(struct sitefile *f, char *buf, size_t len, uint64_t offset)
{
	char **lines = NULL, *p, *fl[5], *stop = buf + len;
	size_t nr = 0, cap = 0, i;
	uint64_t ts, last = 0;
	int ret = -1;

	ft_idmap_init(&f->stack_index);
	ft_idmap_init(&f->pid_seen);
	for (p = buf; p < stop; ) {
		char *nl = memchr(p, '\n', (size_t)(stop - p));

		if (!nl)
			break;	/* a last line cut short (the guest died): not a record */
		if (memchr(p, '\0', (size_t)(nl - p))) {
			fail("malformed line %zu: a NUL byte", nr + 1);
			goto out;
		}
		*nl = '\0';
		lines = xgrow(lines, &cap, nr + 1, sizeof(*lines));
		lines[nr++] = p;
		p = nl + 1;
	}
	if (!nr || (strncmp(lines[0], "V\t1\t", 4) && strncmp(lines[0], "V\t2\t", 4))) {
		fail("not a call-site side file of version 1 or 2");
		goto out;
	}
	f->version = lines[0][2] - '0';
	for (i = 1; i < nr; i++) {
		switch (lines[i][0]) {
		case 'C':
			if (parse_call(f, lines, &i, nr, offset))
				goto out;
			ts = f->calls[f->nr_calls - 1].ts;
			break;
		case 'K':
			if (split(lines[i], fl, 5) != 5) {
				fail("malformed fork line %zu", i + 1);
				goto out;
			}
			if (parse_proc(f, 'K', fl, i + 1, offset, &ts))
				goto out;
			break;
		case 'X':
			if (split(lines[i], fl, 4) != 4) {
				fail("malformed exec line %zu", i + 1);
				goto out;
			}
			if (parse_proc(f, 'X', fl, i + 1, offset, &ts))
				goto out;
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

void ft_sitefile_release(struct sitefile *f)
{
	size_t i;

	for (i = 0; i < f->nr_stacks; i++) {
		int k;

		for (k = 0; k < f->stacks[i].nr_frames; k++)
			free(f->stacks[i].frames[k].line);
		free((char *)f->stacks[i].key);
		free((char *)f->stacks[i].status);
		free(f->stacks[i].frames);
	}
	free(f->stacks);
	free(f->calls);
	free(f->recs);
	free(f->pids);
	ft_idmap_release(&f->stack_index);
	ft_idmap_release(&f->pid_seen);
	memset(f, 0, sizeof(*f));
}
