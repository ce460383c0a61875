// SPDX-License-Identifier: GPL-2.0
/*
 * plugin.c - the babeltrace2 plugin "foliotrace" around the sink component class of
 * tracer/sink.c, so the babeltrace2 CLI can store a trace too:
 *
 *	babeltrace2 --plugin-path=build/plugins TRACE -c sink.foliotrace.sqlite -p 'path="x.db"'
 */
#include <babeltrace2/babeltrace.h>

#include "tracer/sink.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(foliotrace);
BT_PLUGIN_DESCRIPTION("foliotrace: anonymous memory traces into a trace database");
BT_PLUGIN_AUTHOR("foliotrace developers");
BT_PLUGIN_LICENSE("GPL-2.0");

BT_PLUGIN_SINK_COMPONENT_CLASS(sqlite, ft_sink_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(sqlite,
	"Store a trace (anon_* events, process names, event counts) in a foliotrace database");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(sqlite,
	"Parameters: path (string, required): the trace database; input (string, optional): "
	"the CTF directory, for its header/ and for traces without a UUID.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(sqlite, ft_sink_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(sqlite, ft_sink_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(sqlite, ft_sink_graph_is_configured);
