// SPDX-License-Identifier: GPL-2.0
/*
 * sitefile.c - parse the call-site tracer's side file; see sitefile.h for the format.
 *
 * Tuned for: tens of thousands of calls and stacks; a stack is looked up by the hash of its
 * text, a process by its pid.
 */
#include <errno.h>
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

/* s in full as a number of base (-10: signed decimal); Return: 0 or -1. */
static int num(const char *s, int base, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = base == -10 ? (uint64_t)strtoll(s, &end, 10) : strtoull(s, &end, base);
	return errno || end == s || *end ? -1 : 0;
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
	uint64_t ts, pid, tid, res = 0, nf;
	int k, stack;

	/* version 2: the result is the exit's, "-" here */
	if (split(lines[*i], fl, 14) != 14 || num(fl[1], 10, &ts) || num(fl[2], 10, &pid) ||
	    num(fl[3], 10, &tid) || num(fl[12], 10, &nf) || nf > nr - *i - 1 ||
	    (f->version == 1 ? num(fl[11], -10, &res) : strcmp(fl[11], "-")))
		return fail("malformed call line %zu", *i + 1);
	f->calls = xgrow(f->calls, &f->cap_calls, f->nr_calls + 1, sizeof(*f->calls));
	c = &f->calls[f->nr_calls];
	memset(c, 0, sizeof(*c));
	for (k = 0; k < 6; k++)
		if (num(fl[5 + k], 16, &c->arg[k]))
			return fail("malformed call line %zu", *i + 1);
	c->ts = ts + offset;
	c->entry = c->ts;
	c->pid = (int)pid;
	c->tid = (int)tid;
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

int ft_sitefile_parse(struct sitefile *f, char *buf, uint64_t offset)
{
	char **lines = NULL, *p, *fl[5];
	size_t nr = 0, cap = 0, i;
	uint64_t ts, pid, child, last = 0;
	int ret = -1;

	ft_idmap_init(&f->stack_index);
	ft_idmap_init(&f->pid_seen);
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
	f->version = lines[0][2] - '0';
	for (i = 1; i < nr; i++) {
		switch (lines[i][0]) {
		case 'C':
			if (parse_call(f, lines, &i, nr, offset))
				goto out;
			ts = f->calls[f->nr_calls - 1].ts;
			break;
		case 'K':
			if (split(lines[i], fl, 5) != 5 || num(fl[1], 10, &ts) ||
			    num(fl[2], 10, &pid) || num(fl[3], 10, &child)) {
				fail("malformed fork line %zu", i + 1);
				goto out;
			}
			ts += offset;
			add_rec(f, 'K', ts, (int)pid, (int)child, -1);
			name_pid(f, (int)child);
			break;
		case 'X':
			if (split(lines[i], fl, 4) != 4 || num(fl[1], 10, &ts) ||
			    num(fl[2], 10, &pid)) {
				fail("malformed exec line %zu", i + 1);
				goto out;
			}
			ts += offset;
			add_rec(f, 'X', ts, (int)pid, 0, -1);
			name_pid(f, (int)pid);
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
