// SPDX-License-Identifier: GPL-2.0
/*
 * pdecode-plan.c - the parallel decoder's plan: which stream files can be cut (an index
 * whose packets tile the file), into pieces of about PDEC_PIECE_BYTES at packet
 * boundaries; and the plan's release. See pdecode.c.
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
#include "tracer/lttng-index.h"
#include "tracer/pdecode-int.h"
#include "tracer/pdecode.h"

/* Bytes of packet i of s. */
static uint64_t packet_bytes(const struct pstream *s, uint64_t i)
{
	struct lttng_index_entry e;

	ft_lttng_index_entry(&s->idx, i, &e);
	return e.packet_size / 8;
}

/*
 * A stream file the parallel path can cut: an index whose packets tile the file from byte
 * 0 and report no discarded events. Return: 0 (s filled), or -1 (not cuttable; the error
 * set, if any, is the caller's to clear: the serial graph reads the stream instead).
 */
static int load_stream(const char *dir, const char *name, uint64_t size, struct pstream *s)
{
	struct strbuf path = STRBUF_INIT;
	struct lttng_index_entry e;
	uint64_t i, at = 0;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	strbuf_addf(&path, "%s/index/%s.idx", dir, name);
	if (ft_lttng_index_read(&s->idx, path.buf, path.buf))
		goto out;
	for (i = 0; i < s->idx.nr; i++) {
		ft_lttng_index_entry(&s->idx, i, &e);
		if (e.offset != at || !e.packet_size || e.packet_size % 8 || e.discarded)
			goto out;
		at += e.packet_size / 8;
	}
	if (at != size)
		goto out;
	s->name = xstrdup(name);
	s->size = size;
	s->nr_pieces = (unsigned int)s->idx.nr;	/* packets, for now: plan() groups them */
	ret = 0;
out:
	if (ret)
		ft_lttng_index_release(&s->idx);
	strbuf_release(&path);
	return ret;
}

static uint64_t piece_bytes(void)
{
	const char *env = getenv("FT_TEST_INGEST_PIECE_BYTES");

	return env && *env ? strtoull(env, NULL, 10) : PDEC_PIECE_BYTES;
}

/* Cut the streams of dir into pieces; Return: 0, or 1 (not for this path). */
int ft_pd_plan_pieces(struct plan *pl, const char *dir)
{
	uint64_t target = piece_bytes();
	struct dirent *de;
	DIR *d;
	unsigned int i;
	int ret = 1;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus < 2 || !realpath(dir, pl->dir) || !(d = opendir(pl->dir)))
		return 1;
	while ((de = readdir(d))) {
		struct strbuf path = STRBUF_INIT;
		struct stat sb;
		int bad;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata") ||
		    !strcmp(de->d_name, "index"))
			continue;
		strbuf_addf(&path, "%s/%s", pl->dir, de->d_name);
		bad = lstat(path.buf, &sb) || !S_ISREG(sb.st_mode);
		strbuf_release(&path);
		if (bad || pl->nr_streams == PDEC_MAX_STREAMS)
			goto out;
		if (!sb.st_size)
			continue;	/* babeltrace2 skips an empty stream file too */
		if (load_stream(pl->dir, de->d_name, (uint64_t)sb.st_size,
				&pl->streams[pl->nr_streams]))
			goto out;
		pl->nr_streams++;
	}
	for (i = 0; i < pl->nr_streams; i++) {
		struct pstream *s = &pl->streams[i];
		uint64_t packets = s->nr_pieces, p = 0;
		struct lttng_index_entry e;

		s->first_piece = pl->nr_pieces;
		s->nr_pieces = 0;
		while (p < packets) {
			struct piece *pc;
			uint64_t start = p, bytes = 0;

			/* whole packets, at least one, up to target bytes */
			do
				bytes += packet_bytes(s, p);
			while (++p < packets && bytes + packet_bytes(s, p) <= target);
			pl->pieces = xrealloc(pl->pieces, (pl->nr_pieces + 1) * sizeof(*pl->pieces));
			pc = &pl->pieces[pl->nr_pieces];
			memset(pc, 0, sizeof(*pc));
			pc->stream = i;
			pc->id = pl->nr_pieces++;
			pc->first = start;
			pc->nr = p - start;
			ft_lttng_index_entry(&s->idx, start, &e);
			pc->off = e.offset;
			pc->len = bytes;
			pc->begin = e.ts_begin;
			s->nr_pieces++;
		}
	}
	if (pl->nr_pieces >= 2) {
		pl->nr_threads = (unsigned int)(cpus < PDEC_MAX_THREADS ? cpus : PDEC_MAX_THREADS);
		ret = 0;
	}
out:
	closedir(d);
	return ret;
}

int ft_pd_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

void ft_pd_free_plan(struct plan *pl)
{
	unsigned int i;

	for (i = 0; i < pl->nr_pieces; i++) {
		struct piece *p = &pl->pieces[i];

		if (p->graph) {
			bt_graph_put_ref(p->graph);
			ft_evclass_cache_release(&p->ecs);
		}
		free(p->rec);
		free(p->strs);
	}
	free(pl->pieces);
	for (i = 0; i < pl->nr_pool; i++)
		free(pl->pool[i].rec);
	for (i = 0; i < pl->nr_streams; i++) {
		free(pl->streams[i].name);
		ft_lttng_index_release(&pl->streams[i].idx);
	}
	if (pl->root) {
		nftw(pl->root, ft_pd_rm_one, 8, FTW_DEPTH | FTW_PHYS);
		free(pl->root);
	}
	bt_component_class_sink_put_ref(pl->cap_cls);
}

/* FT_TEST_INGEST_PIECES_LOG=FILE: the tests learn that this path stored the trace */
