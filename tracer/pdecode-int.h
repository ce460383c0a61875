/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdecode-int.h - what the parallel decoder's three parts share: the plan of pieces
 * (pdecode-plan.c: the streams cut at packet boundaries), the decoder threads
 * (pdecode-decode.c: a graph per piece, its events captured as records) and the merge
 * in the muxer's order into the sink (pdecode.c). Not for use outside them.
 */
#ifndef FT_TRACER_PDECODE_INT_H
#define FT_TRACER_PDECODE_INT_H

#include <limits.h>
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include <babeltrace2/babeltrace.h>

#include "tracer/evclass.h"
#include "tracer/lttng-index.h"
#include "tracer/pdecode.h"


enum piece_state { PS_PENDING, PS_RUNNING, PS_DONE, PS_FAILED };

struct piece {
	unsigned int stream;		/* index in plan.streams */
	unsigned int id;		/* index in plan.pieces: its directory's name */
	uint64_t first, nr;		/* index entries (packets) */
	uint64_t off, len;		/* bytes of the stream file */
	uint64_t begin;			/* timestamp_begin of the first packet, clock cycles */
	enum piece_state state;
	bt_graph *graph;		/* kept until merged: the stream below lives in it */
	const bt_stream *bt_stream;	/* from its stream-beginning message */
	uint64_t class_id, stream_id;	/* the muxer's tie-break keys */
	struct evclass_cache ecs;	/* this graph's event classes */
	uint64_t *rec;			/* per event: ts, class index, the kind's fields */
	size_t nr_rec, cap_rec;		/* u64 words */
	char *strs;			/* string fields, NUL-terminated, by offset + 1 */
	size_t nr_strs, cap_strs;
	uint64_t discarded;		/* from discarded-events messages */
	bt_message_iterator *it;
};

struct pstream {
	char *name;			/* file name in the CTF directory */
	uint64_t size;			/* bytes */
	struct lttng_index idx;		/* its index file */
	unsigned int first_piece, nr_pieces;
	unsigned int dispatched;	/* pieces handed to a decoder, in order */
	unsigned int released;		/* pieces merged and freed, in order */
};

struct plan {
	char dir[PATH_MAX];		/* the CTF directory (resolved) */
	char *root;			/* private directory of the piece directories */
	struct pstream streams[PDEC_MAX_STREAMS];
	unsigned int nr_streams;
	struct piece *pieces;
	unsigned int nr_pieces;
	unsigned int nr_threads;
	const bt_component_class_source *src_cls;
	bt_component_class_sink *cap_cls;
	pthread_mutex_t lock;		/* dispatch state, piece states */
	pthread_cond_t work;		/* a piece was released, or stop */
	pthread_cond_t done;		/* a piece finished decoding */
	int stop;
	/*
	 * Record buffers of merged pieces, for the next ones: a fresh buffer costs a page
	 * fault and a cleared page per 4 KiB as it grows
	 */
	struct pbuf {
		uint64_t *rec;
		size_t cap;
	} pool[PDEC_MAX_STREAMS + PDEC_MAX_THREADS];
	unsigned int nr_pool;
};

/*
 * Building or destroying a graph takes references on the shared component classes, and
 * libbabeltrace2's reference counts are not thread-safe: every such step is under it.
 */
extern pthread_mutex_t ft_pd_bt_lock;

/* Cut the trace in dir into pieces (pdecode-plan.c). Return: 0, or -1: decode serially. */
int ft_pd_plan_pieces(struct plan *pl, const char *dir);
/* Everything pl holds: graphs, records, indexes, the piece directories. */
void ft_pd_free_plan(struct plan *pl);
/* nftw() callback removing a piece directory's entries. */
int ft_pd_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw);

/* The capture sink of a piece's graph (pdecode-decode.c). NULL if it cannot be made. */
bt_component_class_sink *ft_pd_capture_class(void);
/* A decoder thread: decodes pieces of pl until told to stop. */
void *ft_pd_decoder(void *arg);

#endif /* FT_TRACER_PDECODE_INT_H */
