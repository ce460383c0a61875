/* SPDX-License-Identifier: GPL-2.0 */
/*
 * graph.h - the babeltrace2 graph of an ingest, run in the calling process:
 * source.ctf.fs -> filter.utils.muxer -> our sink class (created in-process, no plugin
 * loading for it). tracer/ingest.c runs it in a child process; nothing else should call
 * it directly (babeltrace2 may abort or spin on a damaged trace).
 */
#ifndef FT_TRACER_GRAPH_H
#define FT_TRACER_GRAPH_H

#include <stddef.h>

#include <babeltrace2/babeltrace.h>

#include "tracer/sink.h"

struct ft_graph_params {
	const char *db;			/* trace database, created if missing */
	const char *input;		/* the ingested directory (header/, identity, trace.path) */
	char *const *ctf_dirs;		/* directories source.ctf.fs reads */
	size_t nr_ctf_dirs;
	const char *partial;		/* NULL, or the streams missing: store marked partial */
	const char *scratch;		/* NULL, or an empty private directory for pieces */
	const char *sites;		/* NULL, or the call-site side file stored with it */
	const char *site_skip;		/* its site skip regex, NULL for the default */
};

/*
 * ft_graph_run - build and run the graph; the sink stores the trace in one transaction.
 * babeltrace2's error causes become ours, one cause per line of theirs.
 * Return: 0 (res filled), or -1 (error set; nothing committed).
 */
int ft_graph_run(const struct ft_graph_params *p, struct ft_sink_result *res);

/*
 * The ctf and utils plugins of the installed babeltrace2 (new references).
 * Return: 0, or -1 (error set).
 */
int ft_graph_find_plugins(const bt_plugin **ctf, const bt_plugin **utils);

#endif /* FT_TRACER_GRAPH_H */
