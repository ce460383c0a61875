// SPDX-License-Identifier: GPL-2.0
/*
 * pdecode.c - decode the pieces of a trace in threads, merge them in the muxer's order;
 * see pdecode.h. The plan is pdecode-plan.c's, the decoder threads pdecode-decode.c's;
 * this file merges their records into the sink and runs the whole.
 *
 * Threads: the caller (merge, collector, SQLite) and up to PDEC_MAX_THREADS decoders.
 * libbabeltrace2 objects are not thread-safe, their reference counts included: each
 * decoder owns its graph, and building or destroying a graph (which takes references on
 * the shared component classes) happens under ft_pd_bt_lock (pdecode-int.h). Errors go
 * through lib/error.h, which is not thread-safe either: a decoder never calls fail(); a
 * failed piece makes the whole ingest go to the serial graph instead.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "tracer/evclass.h"
#include "tracer/fault-batch.h"
#include "tracer/lttng-index.h"
#include "tracer/pdecode-int.h"
#include "tracer/pdecode.h"

/* ---- merge ---- */

struct cursor {
	struct piece *p;		/* current piece, decoded; NULL: stream finished */
	size_t pos;			/* next word of p->rec */
	/*
	 * p's class index -> index of the sink's class. Not a pointer: the sink's array
	 * grows (and moves) when a later piece brings a class of a name not seen yet (the
	 * sites channel's syscall events)
	 */
	uint32_t *map;
};

static void release_piece(struct plan *pl, struct piece *p)
{
	pthread_mutex_lock(&ft_pd_bt_lock);
	bt_graph_put_ref(p->graph);
	pthread_mutex_unlock(&ft_pd_bt_lock);
	p->graph = NULL;
	p->bt_stream = NULL;
	ft_evclass_cache_release(&p->ecs);
	free(p->strs);
	p->strs = NULL;
	pthread_mutex_lock(&pl->lock);
	if (pl->nr_pool < sizeof(pl->pool) / sizeof(pl->pool[0])) {
		pl->pool[pl->nr_pool].rec = p->rec;
		pl->pool[pl->nr_pool++].cap = p->cap_rec;
	} else {
		free(p->rec);
	}
	p->rec = NULL;
	pl->streams[p->stream].released++;
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->lock);
}

/* Wait until p is decoded; Return: 0, or -1 (it failed). */
static int wait_piece(struct plan *pl, struct piece *p)
{
	enum piece_state st;

	pthread_mutex_lock(&pl->lock);
	while (p->state == PS_PENDING || p->state == PS_RUNNING)
		pthread_cond_wait(&pl->done, &pl->lock);
	st = p->state;
	pthread_mutex_unlock(&pl->lock);
	return st == PS_DONE ? 0 : -1;
}

/* The sink's class of each of p's classes, by name (a graph has classes of its own). */
static uint32_t *map_classes(struct ft_sink *s, struct piece *p)
{
	struct evclass_cache *classes = ft_sink_classes(s);
	uint32_t *map = xcalloc(p->ecs.nr + 1, sizeof(*map));
	size_t i;

	for (i = 0; i < p->ecs.nr; i++)
		map[i] = (uint32_t)(ft_evclass_named(classes, &p->ecs.v[i]) - classes->v);
	return map;
}

/*
 * Move cursor c of stream i to a piece with an event left, or to the end of the stream.
 * Return: 0, or -1 (a piece failed).
 */
static int advance(struct plan *pl, struct ft_sink *s, struct cursor *c, unsigned int i)
{
	struct pstream *st = &pl->streams[i];

	while (c->p && c->pos >= c->p->nr_rec) {
		unsigned int next = (unsigned int)(c->p - pl->pieces) + 1;

		ft_sink_discarded(s, c->p->discarded);
		release_piece(pl, c->p);
		free(c->map);
		c->map = NULL;
		c->p = next < st->first_piece + st->nr_pieces ? &pl->pieces[next] : NULL;
		c->pos = 0;
		if (c->p) {
			if (wait_piece(pl, c->p))
				return -1;
			c->map = map_classes(s, c->p);
		}
	}
	return 0;
}

/* A batch event at c (capture_batch()'s entry): counted, its records fed. */
static int feed_batch(struct ft_sink *s, struct cursor *c, struct evclass *ec)
{
	const uint64_t *w = c->p->rec + c->pos, *r;
	struct collect_val vals[COLLECT_MAX_FIELDS];
	uint64_t i, n = w[2];
	unsigned int k;

	c->pos += 3 + n * FB_REC_WORDS;
	ft_sink_count(s, ec, w[0]);
	memset(vals, 0, sizeof(vals));
	for (i = 0; i < n; i++) {
		r = w + 3 + i * FB_REC_WORDS;
		for (k = 0; k < FB_REC_WORDS - 1; k++)
			vals[k].u = r[k];
		if (ft_sink_record(s, ec, r[FB_REC_WORDS - 1], vals))
			return -1;
	}
	return 0;
}

/* One event at c; Return: ft_sink_event()'s. */
static int feed(struct ft_sink *s, struct cursor *c)
{
	const uint64_t *w = c->p->rec + c->pos;
	const struct evclass *local = &c->p->ecs.v[w[1]];
	struct evclass *ec = &ft_sink_classes(s)->v[c->map[w[1]]];
	struct collect_val vals[COLLECT_MAX_FIELDS];
	unsigned int k;

	if (local->kind == CK_OTHER) {
		c->pos += 2;
		return ft_sink_event(s, ec, w[0], NULL);
	}
	if (local->kind == CK_FAULT_BATCH)
		return feed_batch(s, c, ec);
	for (k = 0; k < local->nr_fields; k++) {
		if (local->type[k] == EVF_STRING) {
			vals[k].u = 0;
			vals[k].s = w[2 + k] ? c->p->strs + w[2 + k] - 1 : NULL;
		} else {
			vals[k].u = w[2 + k];
			vals[k].s = NULL;
		}
	}
	c->pos += 2 + local->nr_fields;
	return ft_sink_event(s, ec, w[0], vals);
}

/* a before b in the muxer's order (pieces of different streams) */
static int before(const struct cursor *a, const struct cursor *b)
{
	uint64_t ta = a->p->rec[a->pos], tb = b->p->rec[b->pos];

	if (ta != tb)
		return ta < tb;
	if (a->p->class_id != b->p->class_id)
		return a->p->class_id < b->p->class_id;
	return a->p->stream_id < b->p->stream_id;
}

/* Return: 0 stored, 1 already stored, -1 failed (a piece, or the sink: go serial). */
static int merge(struct plan *pl, struct ft_sink *s)
{
	struct cursor cur[PDEC_MAX_STREAMS];
	unsigned int i, n = pl->nr_streams;
	int rc, ret = -1, begun = 0;

	memset(cur, 0, sizeof(cur));
	for (i = 0; i < n; i++) {
		cur[i].p = &pl->pieces[pl->streams[i].first_piece];
		if (wait_piece(pl, cur[i].p))
			goto out;
		cur[i].map = map_classes(s, cur[i].p);
		if (!begun) {
			/* the trace's identity: any stream of it (the serial sink takes the first) */
			rc = ft_sink_begin(s, cur[i].p->bt_stream);
			if (rc) {
				ret = rc > 0 ? 1 : -1;
				goto out;
			}
			begun = 1;
		}
		if (advance(pl, s, &cur[i], i))
			goto out;
	}
	for (;;) {
		struct cursor *best = NULL, *second = NULL;
		unsigned int b = 0;

		for (i = 0; i < n; i++) {
			if (!cur[i].p)
				continue;
			if (!best || before(&cur[i], best)) {
				second = best;
				best = &cur[i];
				b = i;
			} else if (!second || before(&cur[i], second)) {
				second = &cur[i];
			}
		}
		if (!best)
			break;
		/* a run of the best stream while it stays before the runner-up */
		do {
			if (feed(s, best))
				goto out;
		} while (best->pos < best->p->nr_rec && (!second || before(best, second)));
		if (advance(pl, s, best, b))
			goto out;
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free(cur[i].map);
	return ret;
}

static void log_pieces(const struct plan *pl)
{
	const char *path = getenv("FT_TEST_INGEST_PIECES_LOG");
	FILE *f = path && *path ? fopen(path, "a") : NULL;

	if (!f)
		return;
	fprintf(f, "pieces=%u streams=%u threads=%u\n", pl->nr_pieces, pl->nr_streams,
		pl->nr_threads);
	fclose(f);
}



int ft_pdecode_run(const struct ft_graph_params *gp, struct ft_sink_result *res)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	pthread_t th[PDEC_MAX_THREADS];
	struct plan *pl = xcalloc(1, sizeof(*pl));
	struct ft_sink *s = NULL;
	unsigned int i, started = 0;
	int ret = 1, rc;

	if (!gp->scratch || gp->nr_ctf_dirs != 1 || gp->partial || getenv("FT_INGEST_SERIAL") ||
	    ft_pd_plan_pieces(pl, gp->ctf_dirs[0]))
		goto out;
	if (ft_graph_find_plugins(&ctf, &utils))
		goto out;
	pl->src_cls = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	pl->cap_cls = ft_pd_capture_class();
	pl->root = xmalloc(strlen(gp->scratch) + 16);
	sprintf(pl->root, "%s/pieces", gp->scratch);
	if (!pl->src_cls || !pl->cap_cls || mkdir(pl->root, 0700)) {
		free(pl->root);
		pl->root = NULL;
		goto out;
	}
	s = ft_sink_new(gp->db, gp->input, NULL, res);
	if (!s)
		goto out;
	ft_sink_set_sites(s, gp->sites, gp->site_skip);
	pthread_mutex_init(&pl->lock, NULL);
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->done, NULL);
	for (i = 0; i < pl->nr_threads; i++)
		if (!pthread_create(&th[i], NULL, ft_pd_decoder, pl))
			started++;
	if (!started)
		goto stop;
	rc = merge(pl, s);
	if (rc == 1) {
		res->duplicate = 1;
		res->trace_id = ft_sink_trace_id(s);
		ret = 0;
	} else if (!rc && !ft_sink_end(s)) {
		ret = 0;
	}
	if (!ret)
		log_pieces(pl);
stop:
	pthread_mutex_lock(&pl->lock);
	pl->stop = 1;
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->lock);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&pl->lock);
	pthread_cond_destroy(&pl->work);
	pthread_cond_destroy(&pl->done);
out:
	if (ret)
		error_clear();	/* the serial graph does it again and says what went wrong */
	ft_sink_free(s);
	ft_pd_free_plan(pl);
	free(pl);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return ret;
}

