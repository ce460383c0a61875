// SPDX-License-Identifier: GPL-2.0
/*
 * pdecode.c - decode the pieces of a trace in threads, merge them in the muxer's order;
 * see pdecode.h.
 *
 * Threads: the caller (merge, collector, SQLite) and up to PDEC_MAX_THREADS decoders.
 * libbabeltrace2 objects are not thread-safe, their reference counts included: each
 * decoder owns its graph, and building or destroying a graph (which takes references on
 * the shared component classes) happens under bt_lock. Library code here reports errors
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

static pthread_mutex_t bt_lock = PTHREAD_MUTEX_INITIALIZER;

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
static int plan_pieces(struct plan *pl, const char *dir)
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

/* ---- decoders ---- */

static uint64_t *rec_words(struct piece *p, size_t n)
{
	uint64_t *w;

	XGROW(p->rec, p->cap_rec, p->nr_rec + n);
	w = p->rec + p->nr_rec;
	p->nr_rec += n;
	return w;
}

static uint64_t add_string(struct piece *p, const char *s)
{
	size_t n = strlen(s) + 1, at = p->nr_strs;

	XGROW(p->strs, p->cap_strs, p->nr_strs + n);
	memcpy(p->strs + at, s, n);
	p->nr_strs += n;
	return at + 1;
}

/* One event into p->rec; Return: 0, or -1 (an unusable class or timestamp). */
static int capture_event(struct piece *p, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_event_class *cls = bt_event_borrow_class_const(event);
	struct collect_val vals[COLLECT_MAX_FIELDS];
	struct evclass *ec = ft_evclass_find(&p->ecs, cls);
	uint64_t ts, *w;
	unsigned int k;

	if (!ec) {
		/* resolving may call fail(): one thread at a time, the cause dropped */
		pthread_mutex_lock(&bt_lock);
		ec = ft_evclass_get(&p->ecs, msg, event);
		if (!ec)
			error_clear();
		pthread_mutex_unlock(&bt_lock);
		if (!ec)
			return -1;
	}
	if (ec->has_clock) {
		int64_t ns;

		if (bt_clock_snapshot_get_ns_from_origin(
			    bt_message_event_borrow_default_clock_snapshot_const(msg), &ns) !=
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
			return -1;
		ts = (uint64_t)ns;
	} else {
		ts = 0;
	}
	if (ec->kind == CK_OTHER) {
		w = rec_words(p, 2);
	} else {
		ft_evclass_read(ec, event, vals);
		w = rec_words(p, 2 + ec->nr_fields);
		for (k = 0; k < ec->nr_fields; k++)
			w[2 + k] = ec->type[k] == EVF_STRING ?
				   (vals[k].s ? add_string(p, vals[k].s) : 0) : vals[k].u;
		/* add_string may have moved nothing of rec: w stays valid */
	}
	w[0] = ts;
	w[1] = (uint64_t)(ec - p->ecs.v);
	return 0;
}

static int capture_message(struct piece *p, const bt_message *msg)
{
	const bt_stream *stream;
	uint64_t n;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return capture_event(p, msg);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		stream = bt_message_stream_beginning_borrow_stream_const(msg);
		if (p->bt_stream)
			return -1;	/* one stream per piece */
		p->bt_stream = stream;
		p->stream_id = bt_stream_get_id(stream);
		p->class_id = bt_stream_class_get_id(bt_stream_borrow_class_const(stream));
		return 0;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (bt_message_discarded_events_get_count(msg, &n) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			p->discarded += n;
		return 0;
	default:
		return 0;
	}
}

static bt_component_class_initialize_method_status
cap_initialize(bt_self_component_sink *self, bt_self_component_sink_configuration *conf,
	       const bt_value *params, void *init_data)
{
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), init_data);
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void cap_finalize(bt_self_component_sink *self)
{
	struct piece *p = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	bt_message_iterator_put_ref(p->it);
	p->it = NULL;
}

static bt_component_class_sink_graph_is_configured_method_status
cap_graph_is_configured(bt_self_component_sink *self)
{
	struct piece *p = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	if (bt_message_iterator_create_from_sink_component(self,
			bt_self_component_sink_borrow_input_port_by_name(self, "in"), &p->it) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static bt_component_class_sink_consume_method_status cap_consume(bt_self_component_sink *self)
{
	struct piece *p = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	bt_message_array_const msgs;
	uint64_t count, i;
	int rc = 0;

	switch (bt_message_iterator_next(p->it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (i = 0; i < count; i++) {
		if (!rc)
			rc = capture_message(p, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return rc ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR :
		    BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

/* Copy len bytes at off of fd into the new file path; Return: 0 or -1. */
static int copy_range(int fd, uint64_t off, uint64_t len, const char *path)
{
	int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	loff_t in_off = (loff_t)off;
	int ret = -1;

	if (out < 0)
		return -1;
	while (len) {
		ssize_t n = copy_file_range(fd, &in_off, out, NULL, len, 0);

		if (n <= 0)
			goto out;
		len -= (uint64_t)n;
	}
	ret = 0;
out:
	close(out);
	return ret;
}

/*
 * The piece's directory: the metadata (a link), its packets (a link to the stream file
 * when the piece is all of it, else a copy) and their index entries, offsets rebased.
 * Return: 0 or -1.
 */
static int make_piece_dir(const struct plan *pl, const struct piece *p, struct strbuf *dir)
{
	const struct pstream *s = &pl->streams[p->stream];
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	unsigned char *idx = NULL;
	size_t idx_len;
	int fd = -1, ret = -1;

	strbuf_addf(dir, "%s/%u", pl->root, p->id);
	strbuf_addf(&a, "%s/index", dir->buf);
	if (mkdir(dir->buf, 0700) || mkdir(a.buf, 0700))
		goto out;
	strbuf_reset(&a);
	strbuf_addf(&a, "%s/metadata", pl->dir);
	strbuf_addf(&b, "%s/metadata", dir->buf);
	if (symlink(a.buf, b.buf))
		goto out;
	strbuf_reset(&a);
	strbuf_reset(&b);
	strbuf_addf(&a, "%s/%s", pl->dir, s->name);
	strbuf_addf(&b, "%s/%s", dir->buf, s->name);
	if (p->len == s->size) {
		if (symlink(a.buf, b.buf))
			goto out;
	} else {
		fd = open(a.buf, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || copy_range(fd, p->off, p->len, b.buf))
			goto out;
	}
	ft_lttng_index_slice(&s->idx, p->first, p->nr, p->off, &idx, &idx_len);
	strbuf_reset(&b);
	strbuf_addf(&b, "%s/index/%s.idx", dir->buf, s->name);
	{
		int ifd = open(b.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (ifd < 0)
			goto out;
		if (write(ifd, idx, idx_len) != (ssize_t)idx_len) {
			close(ifd);
			goto out;
		}
		close(ifd);
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(idx);
	strbuf_release(&a);
	strbuf_release(&b);
	return ret;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* Decode piece p into its buffers; Return: 0 or -1. */
static int decode_piece(struct plan *pl, struct piece *p)
{
	struct strbuf dir = STRBUF_INIT;
	const bt_component_source *src;
	const bt_component_sink *sink;
	bt_value *params = NULL, *inputs;
	bt_graph_run_status st;
	int ret = -1;

	ft_evclass_cache_init(&p->ecs);
	pthread_mutex_lock(&pl->lock);
	if (pl->nr_pool) {
		pl->nr_pool--;
		p->rec = pl->pool[pl->nr_pool].rec;
		p->cap_rec = pl->pool[pl->nr_pool].cap;
	}
	pthread_mutex_unlock(&pl->lock);
	if (make_piece_dir(pl, p, &dir))
		goto out;
	pthread_mutex_lock(&bt_lock);
	p->graph = bt_graph_create(0);
	params = bt_value_map_create();
	if (!p->graph || !params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, dir.buf) ||
	    bt_graph_add_source_component(p->graph, pl->src_cls, "src", params,
					  BT_LOGGING_LEVEL_NONE, &src) ||
	    bt_component_source_get_output_port_count(src) != 1 ||
	    bt_graph_add_sink_component_with_initialize_method_data(p->graph, pl->cap_cls,
				"capture", NULL, p, BT_LOGGING_LEVEL_NONE, &sink) ||
	    bt_graph_connect_ports(p->graph,
				   bt_component_source_borrow_output_port_by_index_const(src, 0),
				   bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		pthread_mutex_unlock(&bt_lock);
		goto out;
	}
	pthread_mutex_unlock(&bt_lock);
	do {
		st = bt_graph_run(p->graph);
		if (st == BT_GRAPH_RUN_STATUS_AGAIN)
			usleep(1000);
	} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	if (st == BT_GRAPH_RUN_STATUS_OK && p->bt_stream)
		ret = 0;
out:
	bt_current_thread_clear_error();
	bt_value_put_ref(params);
	if (dir.len)
		nftw(dir.buf, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	strbuf_release(&dir);
	return ret;
}

/*
 * The next piece to decode, under pl->lock: first the current (oldest unmerged) piece of a
 * stream that has none decoding, so the merge can always go on; then, while fewer than
 * nr_threads pieces are ahead of the merge, the next piece of the stream that starts
 * earliest. NULL: none now (*all set when every piece is handed out).
 */
static struct piece *pick(struct plan *pl, int *all)
{
	struct piece *best = NULL;
	unsigned int i, ahead = 0;
	int current = 0;

	*all = 1;
	for (i = 0; i < pl->nr_streams; i++) {
		const struct pstream *s = &pl->streams[i];

		if (s->dispatched > s->released + 1)
			ahead += s->dispatched - s->released - 1;
	}
	for (i = 0; i < pl->nr_streams; i++) {
		const struct pstream *s = &pl->streams[i];
		struct piece *p;
		int cur;

		if (s->dispatched == s->nr_pieces)
			continue;
		*all = 0;
		p = &pl->pieces[s->first_piece + s->dispatched];
		cur = s->dispatched == s->released;
		if (!cur && ahead >= pl->nr_threads)
			continue;
		if (!best || cur > current || (cur == current && p->begin < best->begin)) {
			best = p;
			current = cur;
		}
	}
	if (best)
		pl->streams[best->stream].dispatched++;
	return best;
}

static void *decoder(void *arg)
{
	struct plan *pl = arg;
	struct piece *p;
	int all, rc;

	pthread_mutex_lock(&pl->lock);
	for (;;) {
		if (pl->stop)
			break;
		p = pick(pl, &all);
		if (!p) {
			if (all)
				break;
			pthread_cond_wait(&pl->work, &pl->lock);
			continue;
		}
		p->state = PS_RUNNING;
		pthread_mutex_unlock(&pl->lock);
		rc = decode_piece(pl, p);
		pthread_mutex_lock(&pl->lock);
		p->state = rc ? PS_FAILED : PS_DONE;
		pthread_cond_broadcast(&pl->done);
	}
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

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
	pthread_mutex_lock(&bt_lock);
	bt_graph_put_ref(p->graph);
	pthread_mutex_unlock(&bt_lock);
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

static void free_plan(struct plan *pl)
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
		nftw(pl->root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
		free(pl->root);
	}
	bt_component_class_sink_put_ref(pl->cap_cls);
}

/* FT_TEST_INGEST_PIECES_LOG=FILE: the tests learn that this path stored the trace */
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

static bt_component_class_sink *capture_class(void)
{
	bt_component_class_sink *cls = bt_component_class_sink_create("capture", cap_consume);

	if (cls && (bt_component_class_sink_set_initialize_method(cls, cap_initialize) ||
		    bt_component_class_sink_set_finalize_method(cls, cap_finalize) ||
		    bt_component_class_sink_set_graph_is_configured_method(cls,
						cap_graph_is_configured))) {
		bt_component_class_sink_put_ref(cls);
		return NULL;
	}
	return cls;
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
	    plan_pieces(pl, gp->ctf_dirs[0]))
		goto out;
	if (ft_graph_find_plugins(&ctf, &utils))
		goto out;
	pl->src_cls = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	pl->cap_cls = capture_class();
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
		if (!pthread_create(&th[i], NULL, decoder, pl))
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
	free_plan(pl);
	free(pl);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return ret;
}
