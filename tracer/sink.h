/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sink.h - sink.foliotrace.sqlite, the babeltrace2 sink component class that stores a trace
 * in a trace database. One input port "in" (connect a muxer so events arrive in timestamp
 * order). Parameters:
 *
 *	path	string, required: the trace database (created if missing)
 *	input	string, optional: the CTF directory ingested; its header/ is loaded into
 *		trace_meta and it identifies traces without a CTF UUID
 *	partial	string, optional: the streams missing from the input (tracer/ctfcheck.h);
 *		the trace is stored with trace.partial = 1, trace_meta missing_streams, and
 *		the identity "<uuid>+partial:<partial>", so the complete trace, ingested
 *		later, is not taken for it (docs/schema.md)
 *
 * The same methods serve the plugin (tracer/plugin.c, for the babeltrace2 CLI) and
 * `foliotrace ingest`, which creates the class with ft_sink_class_create() and passes a
 * struct ft_sink_result as initialize method data to learn the outcome.
 */
#ifndef FT_TRACER_SINK_H
#define FT_TRACER_SINK_H

#include <stdint.h>
#include <babeltrace2/babeltrace.h>

struct ft_sink_result {
	int64_t trace_id;	/* trace row written, or the one already holding the trace */
	int duplicate;		/* 1: the trace was already stored, nothing written */
	uint64_t events;	/* events read, all types */
	uint64_t anon_records;	/* records in the event stream */
	uint64_t progress;	/* events read and rows written so far: a heartbeat that
				 * tracer/ingest.c's watchdog reads from another process */
};

bt_component_class_initialize_method_status
ft_sink_initialize(bt_self_component_sink *self, bt_self_component_sink_configuration *conf,
		   const bt_value *params, void *init_data);
void ft_sink_finalize(bt_self_component_sink *self);
bt_component_class_sink_graph_is_configured_method_status
ft_sink_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status ft_sink_consume(bt_self_component_sink *self);

/*
 * The sink's work without a babeltrace2 graph around it, for tracer/pdecode.c, which
 * decodes elsewhere and feeds the events in the muxer's order. ft_sink_new() opens the
 * database (Return: NULL, error set); ft_sink_begin() claims the trace identity from a
 * stream of the trace (Return: 0 started, 1 already stored: nothing to do, -1);
 * ft_sink_event() takes one event of class ec (of s's class cache, ft_sink_classes())
 * whose fields, unless ec->kind is CK_OTHER, are in vals; an event of many records
 * (CK_FAULT_BATCH) is counted by ft_sink_count() at its own time, then each record is
 * given to ft_sink_record() at the record's time with its fields in vals (tracer/
 * fault-batch.h); ft_sink_discarded() adds a
 * discarded-events count; ft_sink_end() finishes and commits (Return: 0 or -1);
 * ft_sink_free() rolls back whatever was not committed.
 */
struct ft_sink;
struct evclass;
struct collect_val;
struct ft_sink *ft_sink_new(const char *path, const char *input, const char *partial,
			    struct ft_sink_result *result);
int ft_sink_begin(struct ft_sink *s, const bt_stream *stream);
int ft_sink_event(struct ft_sink *s, struct evclass *ec, uint64_t ts,
		  const struct collect_val *vals);
void ft_sink_count(struct ft_sink *s, struct evclass *ec, uint64_t ts);
int ft_sink_record(struct ft_sink *s, struct evclass *ec, uint64_t ts,
		   const struct collect_val *vals);
void ft_sink_discarded(struct ft_sink *s, uint64_t n);
struct evclass_cache *ft_sink_classes(struct ft_sink *s);
int64_t ft_sink_trace_id(const struct ft_sink *s);
int ft_sink_end(struct ft_sink *s);
void ft_sink_free(struct ft_sink *s);

/*
 * Before ft_sink_end(): store the call-site side file sites (NULL: none; skip: the site
 * skip regex, NULL for the default) with the trace, in its transaction
 * (ft_sites_store_in()). The component's parameters "sites" and "site_skip" set the same.
 */
void ft_sink_set_sites(struct ft_sink *s, const char *sites, const char *skip);

/* The class, for a graph built in-process; Return: a new reference, or NULL. */
bt_component_class_sink *ft_sink_class_create(void);

#endif /* FT_TRACER_SINK_H */
