/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h - the anonymous event stream of a trace, as stored in event_chunk blobs.
 *
 * The collector (tracer/) encodes the anon_* events of a trace into chunks; replay (replay/)
 * and the query commands decode them. This is the only format the two share, so it is
 * specified here and in docs/schema.md ("event_chunk format") and nowhere else.
 *
 * Tuned for: hundreds of millions of faults, mostly sequential addresses within a process,
 * timestamps a few microseconds apart. A fault costs 6-10 bytes; decoding runs at hundreds of
 * millions of events per second so replay never waits on storage.
 */
#ifndef FT_DB_STREAM_H
#define FT_DB_STREAM_H

#include <stddef.h>
#include <stdint.h>

/* Kinds of records in the stream; values are stored, never renumber. */
enum ftdb_ev_kind {
	FTDB_EV_FAULT = 0,	/* anon_fault */
	FTDB_EV_ALLOC = 1,	/* anon_alloc */
	FTDB_EV_ZERO_WP = 2,	/* anon_zero_wp */
	FTDB_EV_COW = 3,		/* anon_cow */
	FTDB_EV_ZAP = 4,		/* anon_zap */
	FTDB_EV_MM_DUP = 5,	/* anon_mm_dup */
	FTDB_EV_NR_KINDS
};

/* anon_fault.fallback; the kernel's enum anon_fallback, see docs/events.md. */
enum ftdb_fallback {
	FTDB_FB_NONE = 0,
	FTDB_FB_VMA_EDGE = 1,
	FTDB_FB_PTE_POPULATED = 2,
	FTDB_FB_ALLOC_FAILED = 3,
	FTDB_FB_NOHUGEPAGE = 4,
	FTDB_FB_UFFD = 5,
	FTDB_FB_RACE = 6,
	FTDB_FB_READ = 7,
	FTDB_FB_NR
};

/* anon_zap.cause; the kernel's enum anon_zap_cause. 0 is never emitted. */
enum ftdb_zap_cause {
	FTDB_ZAP_MUNMAP = 1,
	FTDB_ZAP_DONTNEED = 2,
	FTDB_ZAP_FREE = 3,
	FTDB_ZAP_MREMAP = 4,
	FTDB_ZAP_EXIT = 5,
	FTDB_ZAP_NR
};

#define FTDB_EVF_WRITE		0x01	/* FAULT: write fault */
#define FTDB_EVF_ZERO_PAGE	0x02	/* FAULT: zero page mapped */
#define FTDB_EVF_SUCCESS		0x04	/* ALLOC: allocation succeeded */

/*
 * One decoded record. Which fields mean something depends on kind; unused fields are 0.
 */
struct ftdb_event {
	uint64_t ts;		/* ns of the trace clock (absolute, as in the CTF trace) */
	uint64_t addr;		/* FAULT/ZERO_WP/COW: address (page aligned); ALLOC: block
				 * start; ZAP: range start; MM_DUP: 0 */
	uint64_t end;		/* ZAP: range end (exclusive); else 0 */
	uint64_t aux;		/* FAULT/ZERO_WP/COW: latency_ns; ALLOC: pfn;
				 * ZAP: new_addr (mremap) ; MM_DUP: parent proc_id */
	uint32_t proc_id;	/* process.proc_id of the mm */
	uint32_t vma_id;	/* FAULT: vma.vma_id; else 0 */
	uint16_t nr_ptes;	/* FAULT: page-table entries written */
	uint8_t kind;		/* enum ftdb_ev_kind */
	uint8_t flags;		/* FTDB_EVF_* */
	uint8_t order;		/* FAULT: mapped order; ALLOC: order asked */
	uint8_t reason;		/* FAULT: enum ftdb_fallback; ZAP: enum ftdb_zap_cause */
	uint16_t tid_lo;	/* FAULT/ZERO_WP/COW: tid - pid of the task (0 for the main
				 * thread), truncated to 16 bits; informational only */
};

/* Maximum events per chunk; a chunk is one BLOB in event_chunk. */
#define FTDB_CHUNK_EVENTS 65536

/*
 * Encoder: append events in stream order; a chunk is ready when ftdb_enc_full() or at the end.
 * The encoder owns a growing buffer; ftdb_enc_data()/ftdb_enc_size() are valid until the next
 * ftdb_enc_add() or ftdb_enc_reset().
 */
struct ftdb_enc {
	uint8_t *buf;		/* encoded bytes */
	size_t len;		/* bytes used */
	size_t cap;		/* bytes allocated */
	uint32_t nr;		/* events in this chunk */
	uint64_t first_ts;	/* ns, first event of the chunk */
	uint64_t last_ts;	/* ns, last event of the chunk */
	struct ftdb_event prev;	/* previous event of the chunk: delta base */
};

void ftdb_enc_init(struct ftdb_enc *e);
void ftdb_enc_release(struct ftdb_enc *e);
/* Start a new chunk (keeps the buffer). */
void ftdb_enc_reset(struct ftdb_enc *e);
/* Return: 0, or -1 on allocation failure. */
int ftdb_enc_add(struct ftdb_enc *e, const struct ftdb_event *ev);
static inline int ftdb_enc_full(const struct ftdb_enc *e)
{
	return e->nr >= FTDB_CHUNK_EVENTS;
}

/*
 * Decoder over one chunk blob. Return of ftdb_dec_next: 1 and *ev filled, 0 at the end of the
 * chunk, -1 if the blob is malformed (truncated or an unknown kind).
 */
struct ftdb_dec {
	const uint8_t *p;	/* next byte */
	const uint8_t *end;	/* one past the blob */
	struct ftdb_event prev;	/* previous event: delta base */
};

void ftdb_dec_init(struct ftdb_dec *d, const void *blob, size_t len);
int ftdb_dec_next(struct ftdb_dec *d, struct ftdb_event *ev);

const char *ftdb_fallback_name(unsigned int reason);	/* "vma_edge", ...; "?" if unknown */

/*
 * Latencies are u64 in the trace but int64 in every output (SQL, JSON): a value above
 * INT64_MAX (292 years; only a damaged trace holds one) is saturated to INT64_MAX, never
 * wrapped to a negative number (docs/cli-json.md).
 */
static inline int64_t ftdb_ns_sat(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}
const char *ftdb_zap_cause_name(unsigned int cause);	/* "munmap", ...; "?" if unknown */
const char *ftdb_ev_kind_name(unsigned int kind);		/* "anon_fault", ... */

#endif /* FT_DB_STREAM_H */
