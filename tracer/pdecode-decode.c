// SPDX-License-Identifier: GPL-2.0
/*
 * pdecode-decode.c - the parallel decoder's threads: each takes the next piece, builds
 * its directory (the metadata, its packets), runs a graph of the CTF source into a
 * capture sink that keeps each event as a record, and hands the piece to the merge.
 * A decoder never calls fail() (lib/error.h is not thread-safe): a failed piece makes
 * the whole ingest go to the serial graph. See pdecode.c.
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

pthread_mutex_t ft_pd_bt_lock = PTHREAD_MUTEX_INITIALIZER;

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

/*
 * A batch event at ts into p->rec, as one entry (the merge orders events by their own
 * times, as the muxer does): ts, its class, its record count n, then per record its
 * FB_REC_WORDS words (its packed fields, its own time: tracer/fault-batch.h).
 * Return: 0, or -1 (a damaged batch, which the serial sink the caller falls back to
 * names).
 */
static int capture_batch(struct piece *p, const struct evclass *ec, const bt_event *event,
			 uint64_t ts)
{
	struct collect_val vals[COLLECT_MAX_FIELDS];
	struct fault_batch b;
	uint64_t i, rts, *w;
	unsigned int k;

	if (ft_fault_batch_open(&b, ec, event))
		return -1;
	w = rec_words(p, 3 + b.nr * FB_REC_WORDS);
	w[0] = ts;
	w[1] = (uint64_t)(ec - p->ecs.v);
	w[2] = b.nr;
	for (i = 0; i < b.nr; i++) {
		uint64_t *r = w + 3 + i * FB_REC_WORDS;

		if (ft_fault_batch_record(&b, i, vals, &rts)) {
			p->nr_rec -= 3 + b.nr * FB_REC_WORDS;
			return -1;
		}
		for (k = 0; k < FB_REC_WORDS - 1; k++)
			r[k] = vals[k].u;
		r[FB_REC_WORDS - 1] = rts;
	}
	return 0;
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
		pthread_mutex_lock(&ft_pd_bt_lock);
		ec = ft_evclass_get(&p->ecs, msg, event);
		if (!ec)
			error_clear();
		pthread_mutex_unlock(&ft_pd_bt_lock);
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
	if (ec->kind == CK_FAULT_BATCH)
		return capture_batch(p, ec, event, ts);
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
	pthread_mutex_lock(&ft_pd_bt_lock);
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
		pthread_mutex_unlock(&ft_pd_bt_lock);
		goto out;
	}
	pthread_mutex_unlock(&ft_pd_bt_lock);
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
		nftw(dir.buf, ft_pd_rm_one, 8, FTW_DEPTH | FTW_PHYS);
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

void *ft_pd_decoder(void *arg)
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


bt_component_class_sink *ft_pd_capture_class(void)
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
