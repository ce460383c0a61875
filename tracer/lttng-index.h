/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lttng-index.h - the one reader of LTTng's index files (index/<stream>.idx beside each
 * stream file of a trace; lttng-tools' src/common/index/ctf-index.h), used by the trace
 * checker (tracer/ctflayout.c) and the parallel decoder (tracer/pdecode.c).
 *
 * The format, every field big-endian:
 *
 *	header, 16 bytes:
 *	| offset | size | field            | value                                        |
 *	| 0      | u32  | magic            | 0xC1F1DCC1                                   |
 *	| 4      | u32  | index_major      | 1 (refused otherwise)                        |
 *	| 8      | u32  | index_minor      | 0 or 1 (any accepted)                        |
 *	| 12     | u32  | packet_index_len | bytes per entry: 56 (1.0), 72 (1.1)          |
 *
 *	then one entry per packet of the stream, in file order, packet_index_len bytes each;
 *	the fields read here (format 1.0's, a prefix of every later minor's):
 *	| offset | size | field            | unit                                         |
 *	| 0      | u64  | offset           | bytes: the packet's start in the stream file |
 *	| 8      | u64  | packet_size      | bits, header and padding included            |
 *	| 16     | u64  | content_size     | bits, <= packet_size                         |
 *	| 24     | u64  | timestamp_begin  | clock cycles of the stream's clock           |
 *	| 32     | u64  | timestamp_end    | clock cycles                                 |
 *	| 40     | u64  | events_discarded | events dropped in the stream so far          |
 *	| 48     | u64  | stream_id        | the stream class id                          |
 *
 * Limits of this reader: the file is 16 bytes to LTTNG_INDEX_FILE_MAX; an entry is
 * LTTNG_INDEX_ENTRY_MIN to LTTNG_INDEX_ENTRY_MAX bytes; the entries fill the file after the
 * header exactly (no partial entry). What the entries must say about the stream (packets
 * that follow each other, inside the file) is the callers' to check: the checker and the
 * decoder want different things of them.
 */
#ifndef FT_TRACER_LTTNG_INDEX_H
#define FT_TRACER_LTTNG_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define LTTNG_INDEX_MAGIC	0xc1f1dcc1u
#define LTTNG_INDEX_HEADER_LEN	16		/* bytes */
#define LTTNG_INDEX_ENTRY_MIN	56		/* bytes: the 7 u64 fields of format 1.0 */
#define LTTNG_INDEX_ENTRY_MAX	4096		/* bytes: far above any format LTTng wrote */
#define LTTNG_INDEX_FILE_MAX	(256u << 20)	/* bytes: 3.7 M entries of format 1.1 */

/* An index file, read whole. */
struct lttng_index {
	unsigned char *buf;	/* the file, header included (malloc'd) */
	size_t len;		/* bytes */
	uint32_t major, minor;	/* index format version */
	uint32_t entry_len;	/* bytes per entry */
	uint64_t nr;		/* entries */
};

/* The fields of one entry (the table above). */
struct lttng_index_entry {
	uint64_t offset;	/* bytes */
	uint64_t packet_size;	/* bits */
	uint64_t content_size;	/* bits */
	uint64_t ts_begin;	/* clock cycles */
	uint64_t ts_end;	/* clock cycles */
	uint64_t discarded;	/* events, cumulative in the stream */
	uint64_t stream_id;
};

/*
 * lttng_index_parse - check the header and the size of the len bytes at buf, named name
 * in messages, and fill ix. ix takes buf (malloc'd) on success and on failure alike:
 * release it with ft_lttng_index_release().
 * Return: 0, or -1 (error: "NAME: N bytes is no LTTng index" for a size outside the
 * limits, "NAME: bad LTTng index header" for a wrong magic, major version, entry length,
 * or entries that do not fill the file).
 */
int ft_lttng_index_parse(struct lttng_index *ix, unsigned char *buf, size_t len,
		      const char *name);

/*
 * lttng_index_read - read the index file at path (opened as ft_ctf_open_regular() opens a
 * trace's files, so a FIFO never blocks) and parse it; name is the path for messages.
 * Return: 0, or -1 (error set: missing, not a regular file, too large, unreadable, or as
 * ft_lttng_index_parse()). ix needs ft_lttng_index_release() either way.
 */
int ft_lttng_index_read(struct lttng_index *ix, const char *path, const char *name);

/* Entry i (< ix->nr) of ix into e. */
void ft_lttng_index_entry(const struct lttng_index *ix, uint64_t i, struct lttng_index_entry *e);

/*
 * lttng_index_slice - the bytes of an index file of entries [first, first + nr) of ix, with
 * ix's header and every entry's offset lowered by rebase bytes (the index of a piece of the
 * stream copied out from byte rebase: tracer/pdecode.c). Into *out (malloc'd), *len bytes.
 * Never calls fail(): decoder threads use it.
 */
void ft_lttng_index_slice(const struct lttng_index *ix, uint64_t first, uint64_t nr,
		       uint64_t rebase, unsigned char **out, size_t *len);

/* Free ix's buffer; ix is then empty. */
void ft_lttng_index_release(struct lttng_index *ix);

#endif /* FT_TRACER_LTTNG_INDEX_H */
