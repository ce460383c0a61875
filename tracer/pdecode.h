/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdecode.h - ingest with the trace decoded in parallel: the same database as the serial
 * graph of graph.c, byte for byte, in less time on a multi-CPU machine.
 *
 * babeltrace2 decodes the data streams one after another behind its muxer. Here the
 * stream files are cut at packet boundaries (from their LTTng index) into pieces of
 * about PDEC_PIECE_BYTES; each piece is a CTF directory of its own (the metadata and the
 * piece's packets, copied, with an index rebased to them) decoded by its own babeltrace2
 * graph, source.ctf.fs -> a capture sink, in one of a few threads. The capture keeps what
 * the collector reads of each event (timestamp, class, the kind's fields). The calling
 * thread merges the pieces in the muxer's order (filter.utils.muxer of babeltrace2 2.0:
 * timestamp, then stream class id, then stream id; the pieces of one stream back to back)
 * into tracer/sink.c's collector and writer, which store exactly what the serial graph
 * stores.
 *
 * Memory: at most one piece per stream plus one per thread is held decoded (about 90 bytes
 * per event), whatever the trace's length.
 *
 * Only for what this reproduces exactly: one CTF directory, every stream file tiled by its
 * index, no events discarded (the counters of the index all 0: a cut stream would report
 * the events discarded before its first packet again), at most PDEC_MAX_STREAMS streams,
 * at least two pieces. Anything else, and any failure while decoding (a damaged trace),
 * goes to the serial graph, which gives the error messages.
 */
#ifndef FT_TRACER_PDECODE_H
#define FT_TRACER_PDECODE_H

#include "tracer/graph.h"

#define PDEC_PIECE_BYTES	(8u << 20)	/* CTF bytes a piece aims at (whole packets) */
#define PDEC_MAX_STREAMS	16
#define PDEC_MAX_THREADS	4

/*
 * ft_pdecode_run - ingest as graph.c's ft_graph_run() does, decoding in parallel.
 * Return: 0 (res filled), 1 not applicable or a piece failed to decode (nothing
 * committed, no error set: run the serial graph), -1 (error set; nothing committed).
 */
int ft_pdecode_run(const struct ft_graph_params *p, struct ft_sink_result *res);

#endif /* FT_TRACER_PDECODE_H */
