// SPDX-License-Identifier: GPL-2.0
/*
 * sites.c - store the call-site tracer's side file and attribute anonymous faults to the
 * calls that mapped their addresses; see sites.h and docs/sites.md.
 *
 * One pass: the side file (sitefile.h: calls, forks, execs, on the guest's CLOCK_MONOTONIC
 * plus the trace clock's offset) is parsed; a version 2 file gives each call's entry only,
 * and its time and result are those of the thread's next exit of that call in the trace's
 * sys_exit rows (sites-pair.c; a call with none, whose thread died in it, is dropped). The
 * records are then merged in time order with the trace's event stream over each traced
 * process's address map (sites-owner.c), which charges every touch (anon_fault,
 * anon_zero_wp, anon_cow) to the call owning its address, or to the process's '[no call]'
 * row; the touches are also stored as runs of event ordinals per owner (site_touch), so
 * replay charges a policy's faults to the sites `query sites` names, without a second
 * attribution. Here: each stack's site (the skip regex) and the rows, through db/sites.h.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "tracer/ctflayout.h"
#include "tracer/sites-int.h"
#include "tracer/sites.h"

/*
 * Does the skip regex match name, with GCC's clone suffixes (".part.0") removed? A name is
 * matched on its first 511 bytes.
 */
static int skipped(const regex_t *skip, const char *name)
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
	return !regexec(skip, buf, 0, NULL, 0);
}

/* Each stack's site frame: site_depth[i] of stacks[i], -1 for [unknown] (xcalloc'd). */
static int *find_sites(const struct sitefile *f, const regex_t *skip)
{
	int *site_depth = xcalloc(f->nr_stacks + 1, sizeof(*site_depth));
	size_t i;
	int k;

	for (i = 0; i < f->nr_stacks; i++) {
		const struct sf_stack *st = &f->stacks[i];

		site_depth[i] = -1;
		for (k = 0; k < st->nr_frames; k++) {
			const struct sf_frame *fr = &st->frames[k];
			const char *base = fr->module ? strrchr(fr->module, '/') : NULL;

			if (fr->module && skipped(skip, base ? base + 1 : fr->module))
				continue;
			if (fr->proc && skipped(skip, fr->proc))
				continue;
			/* an unnamed frame in an unnamed place is no site */
			if (!fr->proc && !fr->module)
				continue;
			site_depth[i] = k;
			break;
		}
	}
	return site_depth;
}

/*
 * The rows: the stacks of stored calls with their frames, the calls in the records' order
 * (by time: a dropped call has no record left), each process's '[no call]' row, then the
 * touch spans, which name those rows. Return: 0 or -1 (w aborted by the caller).
 */
static int write_rows(struct ftdb_sites_writer *w, const struct sitefile *f,
		      const struct site_owners *o, const int *site_depth, uint64_t last_ts)
{
	int64_t *stack_id = xcalloc(f->nr_stacks + 1, sizeof(*stack_id));
	int64_t *row_id = xcalloc(f->nr_calls + o->nr_procs + 1, sizeof(*row_id));
	int *used = xcalloc(f->nr_stacks + 1, sizeof(*used));
	size_t i, r;
	int k, ret = -1;

	/* a stack of dropped calls only is not stored */
	for (i = 0; i < f->nr_calls; i++)
		if (!f->calls[i].dropped)
			used[f->calls[i].stack]++;
	for (i = 0; i < f->nr_stacks; i++) {
		const struct sf_stack *st = &f->stacks[i];
		struct ftdb_site_stack row = { st->nr_frames, st->status, site_depth[i] };

		if (!used[i])
			continue;
		if (ftdb_site_stack_add(w, &row, &stack_id[i]))
			goto out;
		for (k = 0; k < st->nr_frames; k++) {
			const struct sf_frame *fr = &st->frames[k];
			struct ftdb_site_frame frow = { k, fr->ip, fr->module, fr->module_offset,
							fr->proc, fr->proc_offset };

			if (ftdb_site_frame_add(w, stack_id[i], &frow))
				goto out;
		}
	}
	for (r = 0; r < f->nr_recs; r++) {
		const struct sf_call *c;
		const struct sf_stack *sk;
		const struct sf_frame *fr;
		struct ftdb_site_call row;

		if (f->recs[r].type != 'C')
			continue;
		i = (size_t)f->recs[r].call;
		c = &f->calls[i];
		sk = &f->stacks[c->stack];
		fr = site_depth[c->stack] >= 0 ? &sk->frames[site_depth[c->stack]] : NULL;
		row = (struct ftdb_site_call){
			.ts = c->ts, .pid = c->pid, .tid = c->tid, .call = c->name,
			.result = c->result, .start = c->start, .end = c->end,
			.end_ts = c->end_ts ? c->end_ts : last_ts, .stack_id = stack_id[c->stack],
			.site = fr ? (fr->proc ? fr->proc : "[unnamed]") : "[unknown]",
			.site_module = fr ? fr->module : NULL, .has_site_offset = fr != NULL,
			.site_offset = fr ? fr->module_offset : 0, .faults = c->faults,
			.touched_pages = c->touched };
		memcpy(row.arg, c->arg, sizeof(row.arg));
		if (ftdb_site_call_add(w, &row, &row_id[i]))
			goto out;
	}
	for (i = 0; i < o->nr_procs; i++) {
		const struct owner_proc *p = &o->procs[i];

		if (ftdb_site_nocall_add(w, p->pid, p->nocall_faults, p->nocall_touched,
					 &row_id[f->nr_calls + i]))
			goto out;
	}
	for (i = 0; i < o->nr_spans; i++)
		if (ftdb_site_touch_add(w, o->spans[i].first, o->spans[i].end,
					row_id[o->spans[i].owner]))
			goto out;
	ret = 0;
out:
	free(stack_id);
	free(row_id);
	free(used);
	return ret;
}

/*
 * Read the side file path into buf: a regular file (a FIFO never blocks, a link to a
 * device is refused before it is read) of at most FT_SITES_MAX_BYTES. Return: 0 or -1.
 */
static int read_side(struct strbuf *buf, const char *path)
{
	struct stat sb;
	ssize_t n = 0;
	int fd;

	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && stat(path, &sb) && errno == ENOENT)
		return fail("%s is a symlink to nothing", path);
	fd = ft_ctf_open_regular(path, path, &sb);
	if (fd < 0)
		return -1;
	if (sb.st_size > FT_SITES_MAX_BYTES) {
		close(fd);
		return fail("%s: %lld bytes, more than a side file may hold (%lld)", path,
			    (long long)sb.st_size, (long long)FT_SITES_MAX_BYTES);
	}
	/* at most one byte past the limit: a file that grew since the fstat() is refused */
	strbuf_grow(buf, (size_t)sb.st_size + 1);
	while (buf->len <= FT_SITES_MAX_BYTES) {
		size_t want = FT_SITES_MAX_BYTES + 1 - buf->len;

		if (want > 65536)
			want = 65536;
		strbuf_grow(buf, want);
		n = read(fd, buf->buf + buf->len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf->len += (size_t)n;
		buf->buf[buf->len] = '\0';
	}
	close(fd);
	if (n < 0)
		return fail("cannot read %s: %s", path, strerror(errno));
	if (buf->len > FT_SITES_MAX_BYTES)
		return fail("%s: more than a side file may hold (%lld bytes)", path,
			    (long long)FT_SITES_MAX_BYTES);
	return 0;
}

/* Compile the regex and read the side file into buf; Return: 0 or -1. */
static int sites_open(regex_t *re, struct strbuf *buf, const char *path, const char *skip)
{
	char msg[256];
	int rc;

	rc = regcomp(re, skip ? skip : FT_SITES_SKIP_DEFAULT, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, re, msg, sizeof(msg));
		return fail("invalid site skip regex '%s': %s", skip, msg);
	}
	if (read_side(buf, path)) {
		regfree(re);
		return -1;
	}
	return 0;
}

int ft_sites_check(const char *path, const char *skip)
{
	struct sitefile f = { 0 };
	struct strbuf buf = STRBUF_INIT;
	regex_t re;
	int ret;

	if (sites_open(&re, &buf, path, skip))
		return -1;
	ret = ft_sitefile_parse(&f, buf.buf, buf.len, 0);
	regfree(&re);
	ft_sitefile_release(&f);
	strbuf_release(&buf);
	return ret ? fail("bad call-site side file %s", path) : 0;
}

/* The side file path stored for trace_id on h (db: its name in messages). Return: 0 or -1. */
static int store_on(sqlite3 *h, const char *db, int64_t trace_id, const char *path,
		    const char *skip)
{
	struct sitefile f = { 0 };
	struct site_owners o = { 0 };
	struct strbuf buf = STRBUF_INIT;
	struct ftdb_sites_trace t;
	struct ftdb_sites_writer w;
	struct ftdb_sites_pid *pm = NULL;
	size_t nr_pm = 0;
	int *site_depth = NULL;
	regex_t re;
	int ret = -1, rc;

	if (sites_open(&re, &buf, path, skip))
		return -1;
	if (ftdb_sites_trace(h, trace_id, &t) || ftdb_sites_pids(h, trace_id, &pm, &nr_pm))
		goto out;
	rc = ftdb_sites_stored(h, trace_id, db);
	if (rc) {
		ret = rc > 0 ? 0 : -1;	/* stored before */
		goto out;
	}
	rc = ft_sitefile_parse(&f, buf.buf, buf.len, t.clock_offset);
	ft_owners_init(&o, &f, t.page_size, pm, nr_pm);
	if (rc || (f.version == 2 && ft_sites_pair_exits(&f, h, trace_id)))
		goto out;
	site_depth = find_sites(&f, &re);
	if (ftdb_stream_foreach(h, trace_id, ft_owners_event, &o))
		goto out;
	ft_owners_finish(&o);
	if (ftdb_sites_begin(&w, h, trace_id))
		goto out;
	if (write_rows(&w, &f, &o, site_depth, t.last_ts)) {
		ftdb_sites_abort(&w);
		goto out;
	}
	if (ftdb_sites_commit(&w, skip ? skip : FT_SITES_SKIP_DEFAULT))
		goto out;
	ret = 0;
out:
	regfree(&re);
	ft_owners_release(&o);
	ft_sitefile_release(&f);
	free(site_depth);
	free(pm);
	strbuf_release(&buf);
	if (ret)
		fail("cannot store the call sites of %s", path);
	return ret;
}

int ft_sites_store_in(sqlite3 *h, const char *db, int64_t trace_id, const char *path,
		      const char *skip)
{
	return store_on(h, db, trace_id, path, skip);
}

int ft_sites_store(const char *db, int64_t trace_id, const char *path, const char *skip)
{
	sqlite3 *h = NULL;
	int ret;

	if (ftdb_open(db, FTDB_WRITE, &h))
		return fail("cannot store the call sites of %s", path);
	ret = store_on(h, db, trace_id, path, skip);
	ftdb_close(h);
	return ret;
}
