// SPDX-License-Identifier: GPL-2.0
/*
 * sink.c - the sink.foliotrace.sqlite component class: babeltrace2 messages in, one trace
 * database transaction out; see sink.h.
 *
 * Life of a run: initialize opens the database; the first message carrying a stream claims
 * the trace identity (CTF UUID) and opens the transaction; events feed collect.c; the end of
 * the input commits. Any failure appends a cause (our cause chain, then SQLite's message)
 * and returns an error status; finalize rolls back whatever was not committed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "tracer/collect.h"
#include "tracer/evclass.h"
#include "tracer/fault-batch.h"
#include "tracer/header.h"
#include "tracer/sink.h"
#include "tracer/sites.h"
#include "db/store.h"

struct ft_sink {
	/* babeltrace2 component (NULL when driven by tracer/pdecode.c) */
	bt_self_component *self;
	bt_message_iterator *it;
	char *path;			/* database */
	char *input;			/* CTF directory, or NULL */
	char *partial;			/* missing streams of a partial trace, or NULL */
	char *sites;			/* call-site side file stored with the trace, or NULL */
	char *site_skip;		/* its site skip regex, NULL for the default */
	struct ftdb_store store;
	struct collect col;
	struct evclass_cache ecs;
	int started;			/* trace row inserted, transaction open */
	uint64_t header_discarded;	/* discarded_events from header/ */
	struct ft_sink_result *result;	/* caller's, or NULL (plugin) */
	struct ft_sink_result own;	/* used when result is NULL */
	unsigned int delay_us;		/* FT_TEST_INGEST_DELAY_US: per event, tests only */
};

/* Move our cause chain into babeltrace2's, as one cause of this component. */
static void push_cause(struct ft_sink *s)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self, "%s", error_text());
	error_clear();
}

static const char *param_string(const bt_value *params, const char *key)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, key);

	return v && bt_value_is_string(v) ? bt_value_string_get(v) : NULL;
}

struct ft_sink *ft_sink_new(const char *path, const char *input, const char *partial,
			    struct ft_sink_result *result)
{
	struct ft_sink *s = xcalloc(1, sizeof(*s));
	const char *delay = getenv("FT_TEST_INGEST_DELAY_US");

	ft_evclass_cache_init(&s->ecs);
	s->result = result ? result : &s->own;
	memset(s->result, 0, sizeof(*s->result));
	if (!path) {
		fail("missing parameter path (the trace database), e.g. -p 'path=\"x.db\"'");
		goto fail;
	}
	s->path = xstrdup(path);
	s->input = input ? xstrdup(input) : NULL;
	s->partial = partial && *partial ? xstrdup(partial) : NULL;
	s->delay_us = delay ? (unsigned int)atoi(delay) : 0;
	if (ftdb_store_open(&s->store, s->path))
		goto fail;
	s->store.beat = &s->result->progress;
	ft_collect_init(&s->col, &s->store);
	return s;
fail:
	ft_sink_free(s);
	return NULL;
}

void ft_sink_free(struct ft_sink *s)
{
	if (!s)
		return;
	bt_message_iterator_put_ref(s->it);
	if (s->store.db) {
		ft_collect_release(&s->col);
		ftdb_store_close(&s->store);	/* rolls back an unfinished trace */
	}
	ft_evclass_cache_release(&s->ecs);
	free(s->path);
	free(s->input);
	free(s->partial);
	free(s->sites);
	free(s->site_skip);
	free(s);
}

void ft_sink_set_sites(struct ft_sink *s, const char *sites, const char *skip)
{
	free(s->sites);
	free(s->site_skip);
	s->sites = sites ? xstrdup(sites) : NULL;
	s->site_skip = skip ? xstrdup(skip) : NULL;
}

bt_component_class_initialize_method_status
ft_sink_initialize(bt_self_component_sink *self_sink,
		   bt_self_component_sink_configuration *conf, const bt_value *params,
		   void *init_data)
{
	bt_self_component *self = bt_self_component_sink_as_self_component(self_sink);
	struct ft_sink *s = ft_sink_new(param_string(params, "path"),
					param_string(params, "input"),
					param_string(params, "partial"), init_data);

	if (!s)
		goto fail;
	ft_sink_set_sites(s, param_string(params, "sites"), param_string(params, "site_skip"));
	s->self = self;
	if (bt_self_component_sink_add_input_port(self_sink, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		fail("cannot add the input port");
		ft_sink_free(s);
		goto fail;
	}
	bt_self_component_set_data(self, s);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
fail:
	/* finalize is not called after a failed initialize */
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self, "%s", error_text());
	error_clear();
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void ft_sink_finalize(bt_self_component_sink *self_sink)
{
	ft_sink_free(bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink)));
}

bt_component_class_sink_graph_is_configured_method_status
ft_sink_graph_is_configured(bt_self_component_sink *self_sink)
{
	struct ft_sink *s = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink));
	bt_self_component_port_input *port =
		bt_self_component_sink_borrow_input_port_by_name(self_sink, "in");

	if (bt_message_iterator_create_from_sink_component(self_sink, port, &s->it) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
			"cannot create a message iterator on the input port");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void format_uuid(char *buf, const uint8_t *u)
{
	sprintf(buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		u[13], u[14], u[15]);
}

/* The CTF environment (kernel_release, sysname, ...) as trace_meta "env.NAME" rows. */
static int store_env(struct ft_sink *s, const bt_trace *trace, int have_kernel)
{
	uint64_t i, n = bt_trace_get_environment_entry_count(trace);
	struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const bt_value *v;
		const char *name;

		bt_trace_borrow_environment_entry_by_index_const(trace, i, &name, &v);
		strbuf_reset(&key);
		strbuf_reset(&val);
		strbuf_addf(&key, "env.%s", name);
		if (bt_value_is_string(v))
			strbuf_addstr(&val, bt_value_string_get(v));
		else if (bt_value_is_signed_integer(v))
			strbuf_addf(&val, "%lld", (long long)bt_value_integer_signed_get(v));
		else
			continue;
		ret = ftdb_store_meta(&s->store, key.buf, val.buf);
		if (!ret && !have_kernel && !strcmp(name, "kernel_release"))
			ret = ftdb_store_trace_column(&s->store, "kernel", val.buf);
	}
	strbuf_release(&key);
	strbuf_release(&val);
	return ret;
}

/*
 * The trace clock's offset from its origin, ns (trace_meta clock_offset_ns): timestamps are
 * stored from the origin (the epoch for LTTng), and a side file on the guest's raw
 * CLOCK_MONOTONIC (docs/sites.md) adds it to merge in order.
 */
static int store_clock_offset(struct ft_sink *s, const bt_stream *stream)
{
	const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(stream));
	char buf[32];
	int64_t ns;

	if (!cc || bt_clock_class_cycles_to_ns_from_origin(cc, 0, &ns) !=
			   BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK)
		return 0;
	snprintf(buf, sizeof(buf), "%lld", (long long)ns);
	return ftdb_store_meta(&s->store, "clock_offset_ns", buf);
}

int ft_sink_begin(struct ft_sink *s, const bt_stream *stream)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const uint8_t *uuid = bt_trace_get_uuid(trace);
	char buf[40], *id;
	int have_kernel = 0, rc;

	if (uuid) {
		format_uuid(buf, uuid);
		id = xstrdup(buf);
	} else if (s->input) {
		id = ft_header_files_id(s->input);
		if (!id)
			return -1;
	} else {
		return fail("the trace has no UUID: give its directory as parameter input");
	}
	if (s->partial) {
		char *full = xmalloc(strlen(id) + strlen(s->partial) + 10);

		sprintf(full, "%s+partial:%s", id, s->partial);
		free(id);
		id = full;
	}
	rc = ftdb_store_begin(&s->store, id, s->input);
	free(id);
	if (rc)
		return rc;
	s->started = 1;
	if (s->input && ft_header_load(&s->store, s->input, &have_kernel, &s->header_discarded))
		return -1;
	if (s->partial && (ftdb_store_trace_int(&s->store, "partial", 1) ||
			   ftdb_store_meta(&s->store, "missing_streams", s->partial)))
		return -1;
	if (s->input)
		ft_collect_set_workload(&s->col, (int32_t)ft_header_int(s->input, "workload_pid", 0));
	/* kernel patch 0006: one event per fault, its allocations in its own fields (the
	 * packed probe's in info, as the records of patch 0008's batches) */
	if (ft_evclass_trace_has_field(bt_trace_borrow_class_const(trace), "anon_fault",
				    "alloc_orders") ||
	    ft_evclass_trace_has_field(bt_trace_borrow_class_const(trace), "anon_fault", "info") ||
	    ft_evclass_trace_has_field(bt_trace_borrow_class_const(trace), "anon_fault_batch",
				    "info"))
		ft_collect_set_fault_allocs(&s->col, s->input ? (uint64_t)ft_header_int(s->input,
							       "page_size", 4096) : 4096);
	if (store_clock_offset(s, stream))
		return -1;
	return store_env(s, trace, have_kernel);
}

int ft_sink_end(struct ft_sink *s)
{
	struct collect *c = &s->col;
	struct evclass_cache *e = &s->ecs;
	size_t i, j;

	if (!s->started)
		return fail("no trace found in the input");
	if (ft_collect_finish(c))
		return -1;
	/* one row per event name, summed over the classes (streams) that carry it */
	for (i = 0; i < e->nr; i++) {
		uint64_t n = e->v[i].count;

		for (j = 0; j < i; j++)
			if (!strcmp(e->v[j].name, e->v[i].name))
				break;
		if (j < i)
			continue;
		for (j = i + 1; j < e->nr; j++)
			if (!strcmp(e->v[j].name, e->v[i].name))
				n += e->v[j].count;
		if (ftdb_store_count(&s->store, e->v[i].name, n))
			return -1;
	}
	if (c->events && (ftdb_store_trace_int(&s->store, "first_ts", (int64_t)c->first_ts) ||
			  ftdb_store_trace_int(&s->store, "last_ts", (int64_t)c->last_ts)))
		return -1;
	/* the header's count (from lttng) and the stream's can overlap: keep the larger */
	if (ftdb_store_trace_int(&s->store, "events", (int64_t)c->events) ||
	    ftdb_store_trace_int(&s->store, "discarded_events",
			    (int64_t)(c->discarded > s->header_discarded ? c->discarded :
				      s->header_discarded)))
		return -1;
	/* in the same transaction: a trace is never stored without its call sites */
	if (s->sites && ft_sites_store_in(s->store.db, s->path, s->store.trace_id, s->sites,
					  s->site_skip))
		return -1;
	if (ftdb_store_commit(&s->store))
		return -1;
	s->result->trace_id = s->store.trace_id;
	s->result->events = c->events;
	s->result->anon_records = c->seq;
	return 0;
}

void ft_sink_count(struct ft_sink *s, struct evclass *ec, uint64_t ts)
{
	ec->count++;
	s->result->progress++;
	if (!s->col.events++)
		s->col.first_ts = ts;
	s->result->events = s->col.events;	/* read as it grows: ingest's progress */
	s->col.last_ts = ts;
	if (s->delay_us)
		usleep(s->delay_us);
}

int ft_sink_event(struct ft_sink *s, struct evclass *ec, uint64_t ts,
		  const struct collect_val *vals)
{
	ft_sink_count(s, ec, ts);
	if (ec->kind == CK_OTHER)
		return 0;
	return ft_collect_event(&s->col, ec->kind, ts, vals);
}

int ft_sink_record(struct ft_sink *s, struct evclass *ec, uint64_t ts,
		   const struct collect_val *vals)
{
	/* a record is older than its event, which ft_sink_count() took: the trace begins
	 * with its first record, at the latest */
	if (ts < s->col.first_ts)
		s->col.first_ts = ts;
	return ft_collect_event(&s->col, ec->kind, ts, vals);
}

/* The event's timestamp, ns from the clock's origin (0 without a clock). Return: 0 or -1. */
static int event_ts(const struct evclass *ec, const bt_message *msg, uint64_t *ts)
{
	int64_t ns;

	*ts = 0;
	if (!ec->has_clock)
		return 0;
	if (bt_clock_snapshot_get_ns_from_origin(
		    bt_message_event_borrow_default_clock_snapshot_const(msg), &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return fail("event %s: timestamp out of range", ec->name);
	*ts = (uint64_t)ns;
	return 0;
}

void ft_sink_discarded(struct ft_sink *s, uint64_t n)
{
	s->col.discarded += n;
}

int64_t ft_sink_trace_id(const struct ft_sink *s)
{
	return s->store.trace_id;
}

struct evclass_cache *ft_sink_classes(struct ft_sink *s)
{
	return &s->ecs;
}

/* A batch event at ts: counted once, each of its records collected at the record's time. */
static int on_batch(struct ft_sink *s, struct evclass *ec, const bt_event *event, uint64_t ts)
{
	struct collect_val vals[COLLECT_MAX_FIELDS];
	struct fault_batch b;
	const char *why = ft_fault_batch_open(&b, ec, event);
	uint64_t i, rts;

	if (why)
		return fail("trace damaged: event %s with %s", ec->name, why);
	ft_sink_count(s, ec, ts);
	for (i = 0; i < b.nr; i++) {
		why = ft_fault_batch_record(&b, i, vals, &rts);
		if (why)
			return fail("trace damaged: event %s with %s", ec->name, why);
		if (ft_sink_record(s, ec, rts, vals))
			return -1;
	}
	return 0;
}

static int on_event(struct ft_sink *s, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	struct evclass *ec = ft_evclass_get(&s->ecs, msg, event);
	struct collect_val vals[COLLECT_MAX_FIELDS];
	uint64_t ts;

	if (!ec || event_ts(ec, msg, &ts))
		return -1;
	if (ec->kind == CK_FAULT_BATCH)
		return on_batch(s, ec, event, ts);
	if (ec->kind != CK_OTHER)
		ft_evclass_read(ec, event, vals);
	return ft_sink_event(s, ec, ts, vals);
}

/* Return: 0 go on, 1 the trace is already stored (stop), -1 error. */
static int on_message(struct ft_sink *s, const bt_message *msg)
{
	uint64_t n;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		if (!s->started) {
			int rc = ft_sink_begin(s, bt_event_borrow_stream_const(
						 bt_message_event_borrow_event_const(msg)));
			if (rc)
				return rc;
		}
		return on_event(s, msg);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		if (!s->started)
			return ft_sink_begin(s, bt_message_stream_beginning_borrow_stream_const(msg));
		return 0;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (bt_message_discarded_events_get_count(msg, &n) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			ft_sink_discarded(s, n);
		return 0;
	default:
		return 0;
	}
}

bt_component_class_sink_consume_method_status ft_sink_consume(bt_self_component_sink *self_sink)
{
	struct ft_sink *s = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self_sink));
	bt_message_array_const msgs;
	uint64_t count, i;
	int rc = 0;

	switch (bt_message_iterator_next(s->it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		if (ft_sink_end(s)) {
			fail("cannot store the trace in %s", s->path);
			goto fail;
		}
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		fail("out of memory reading the trace");
		goto fail;
	default:
		fail("cannot read the trace");
		goto fail;
	}
	for (i = 0; i < count; i++) {
		if (!rc)
			rc = on_message(s, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	if (rc == 1) {
		s->result->duplicate = 1;
		s->result->trace_id = s->store.trace_id;
		if (s->result == &s->own)
			fprintf(stderr, "foliotrace: trace already stored in %s as trace %lld\n",
				s->path, (long long)s->store.trace_id);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	}
	if (rc < 0) {
		fail("cannot store the trace in %s", s->path);
		goto fail;
	}
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
fail:
	ftdb_store_rollback(&s->store);
	push_cause(s);
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
}

bt_component_class_sink *ft_sink_class_create(void)
{
	bt_component_class_sink *cls = bt_component_class_sink_create("sqlite", ft_sink_consume);

	if (!cls)
		return fail_null("cannot create the sink component class");
	if (bt_component_class_sink_set_initialize_method(cls, ft_sink_initialize) ||
	    bt_component_class_sink_set_finalize_method(cls, ft_sink_finalize) ||
	    bt_component_class_sink_set_graph_is_configured_method(cls,
								   ft_sink_graph_is_configured)) {
		bt_component_class_sink_put_ref(cls);
		return fail_null("cannot set up the sink component class");
	}
	return cls;
}
