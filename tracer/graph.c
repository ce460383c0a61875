// SPDX-License-Identifier: GPL-2.0
/*
 * graph.c - the babeltrace2 graph of an ingest; see graph.h. The sink does the work in one
 * transaction; this file builds the graph and turns babeltrace2's error causes into ours.
 */
#include <string.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "tracer/graph.h"
#include "tracer/pdecode.h"

/*
 * Append babeltrace2's error causes to ours, oldest first, each on one line. Causes from
 * the library itself ("component initialization method failed: status=ERROR, comp-addr=")
 * only restate the component's own cause with addresses, so they are left out.
 */
static void take_bt_error(void)
{
	const bt_error *err = bt_current_thread_take_error();
	struct strbuf msg = STRBUF_INIT;
	uint64_t i, n;

	if (!err)
		return;
	n = bt_error_get_cause_count(err);
	/* cause 0 is the root; the last one is the most recent context */
	for (i = 0; i < n; i++) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(err, i);
		char *p;

		strbuf_reset(&msg);
		switch (bt_error_cause_get_actor_type(c)) {
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
			strbuf_addf(&msg, "%s: ",
				    bt_error_cause_component_actor_get_component_name(c));
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
			strbuf_addf(&msg, "%s: ",
				    bt_error_cause_message_iterator_actor_get_component_name(c));
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT_CLASS:
			break;
		default:
			if (n > 1)
				continue;
		}
		strbuf_addstr(&msg, bt_error_cause_get_message(c));
		for (p = msg.buf; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		while (msg.len && msg.buf[msg.len - 1] == ' ')
			msg.buf[--msg.len] = '\0';
		if (msg.len)
			fail("%s", msg.buf);
	}
	strbuf_release(&msg);
	bt_error_release(err);
}

/*
 * The ctf and utils plugins of the installed babeltrace2, found in one scan of the plugin
 * directories (each bt_plugin_find() call would load every plugin file again).
 */
int ft_graph_find_plugins(const bt_plugin **ctf, const bt_plugin **utils)
{
	const bt_plugin_set *set = NULL;
	uint64_t i, n;

	if (bt_plugin_find_all(BT_TRUE, BT_FALSE, BT_TRUE, BT_TRUE, BT_FALSE, &set) !=
	    BT_PLUGIN_FIND_ALL_STATUS_OK) {
		take_bt_error();
		return fail("no babeltrace2 plugins found (package babeltrace2)");
	}
	n = bt_plugin_set_get_plugin_count(set);
	for (i = 0; i < n; i++) {
		const bt_plugin *p = bt_plugin_set_borrow_plugin_by_index_const(set, i);

		if (!*ctf && !strcmp(bt_plugin_get_name(p), "ctf")) {
			*ctf = p;
			bt_plugin_get_ref(p);
		} else if (!*utils && !strcmp(bt_plugin_get_name(p), "utils")) {
			*utils = p;
			bt_plugin_get_ref(p);
		}
	}
	bt_plugin_set_put_ref(set);
	if (!*ctf || !*utils)
		return fail("babeltrace2 plugin %s not found (package babeltrace2)",
			     *ctf ? "utils" : "ctf");
	return 0;
}

/* Connect every output port of src to a fresh input port of the muxer, the muxer to sink. */
static int connect_all(bt_graph *graph, const bt_component_source *src,
		       const bt_component_filter *mux, const bt_component_sink *sink)
{
	uint64_t i, n = bt_component_source_get_output_port_count(src);

	if (!n)
		return fail("no trace stream found");
	for (i = 0; i < n; i++) {
		/* the muxer adds a new input port each time one gets connected */
		if (bt_graph_connect_ports(graph,
				bt_component_source_borrow_output_port_by_index_const(src, i),
				bt_component_filter_borrow_input_port_by_index_const(mux, i),
				NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return fail("cannot connect the trace streams");
	}
	if (bt_graph_connect_ports(graph, bt_component_filter_borrow_output_port_by_name_const(
					   mux, "out"),
				   bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		return fail("cannot connect the sink");
	return 0;
}

int ft_graph_run(const struct ft_graph_params *p, struct ft_sink_result *res)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	const bt_component_class_source *src_cls;
	const bt_component_class_filter *mux_cls;
	bt_component_class_sink *sink_cls = NULL;
	const bt_component_source *src;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_value *src_params = NULL, *sink_params = NULL, *inputs;
	bt_graph *graph = NULL;
	bt_graph_run_status st;
	size_t i;
	int rc, ret = -1;

	rc = ft_pdecode_run(p, res);
	if (rc <= 0)
		return rc;
	if (ft_graph_find_plugins(&ctf, &utils))
		goto out;
	src_cls = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	mux_cls = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	if (!src_cls || !mux_cls) {
		fail("babeltrace2 has no %s", src_cls ? "filter.utils.muxer" : "source.ctf.fs");
		goto out;
	}
	sink_cls = ft_sink_class_create();
	graph = sink_cls ? bt_graph_create(0) : NULL;
	if (!graph)
		goto out;
	src_params = bt_value_map_create();
	sink_params = bt_value_map_create();
	if (!src_params || !sink_params ||
	    bt_value_map_insert_empty_array_entry(src_params, "inputs", &inputs) ||
	    bt_value_map_insert_string_entry(sink_params, "path", p->db) ||
	    bt_value_map_insert_string_entry(sink_params, "input", p->input) ||
	    (p->partial && bt_value_map_insert_string_entry(sink_params, "partial", p->partial)) ||
	    (p->sites && bt_value_map_insert_string_entry(sink_params, "sites", p->sites)) ||
	    (p->site_skip &&
	     bt_value_map_insert_string_entry(sink_params, "site_skip", p->site_skip))) {
		fail("out of memory");
		goto out;
	}
	for (i = 0; i < p->nr_ctf_dirs; i++) {
		if (bt_value_array_append_string_element(inputs, p->ctf_dirs[i])) {
			fail("out of memory");
			goto out;
		}
	}
	if (bt_graph_add_source_component(graph, src_cls, "src", src_params,
					  BT_LOGGING_LEVEL_NONE, &src)) {
		take_bt_error();
		fail("cannot read a CTF trace in %s", p->input);
		goto out;
	}
	if (bt_graph_add_filter_component(graph, mux_cls, "muxer", NULL, BT_LOGGING_LEVEL_NONE,
					  &mux) ||
	    bt_graph_add_sink_component_with_initialize_method_data(graph, sink_cls, "sink",
				sink_params, res, BT_LOGGING_LEVEL_NONE, &sink)) {
		take_bt_error();
		goto out;
	}
	if (connect_all(graph, src, mux, sink)) {
		take_bt_error();
		goto out;
	}
	do {
		st = bt_graph_run(graph);
		if (st == BT_GRAPH_RUN_STATUS_AGAIN)
			usleep(1000);
	} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		take_bt_error();
		goto out;
	}
	ret = 0;
out:
	/* destroying the graph finalizes the sink: an unfinished trace is rolled back */
	bt_graph_put_ref(graph);
	bt_value_put_ref(src_params);
	bt_value_put_ref(sink_params);
	bt_component_class_sink_put_ref(sink_cls);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return ret;
}

