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
enum ft_ev_kind {
	FT_EV_FAULT = 0,	/* anon_fault */
	FT_EV_ALLOC = 1,	/* anon_alloc */
	FT_EV_ZERO_WP = 2,	/* anon_zero_wp */
	FT_EV_COW = 3,		/* anon_cow */
	FT_EV_ZAP = 4,		/* anon_zap */
	FT_EV_MM_DUP = 5,	/* anon_mm_dup */
	FT_EV_NR_KINDS
};

/* anon_fault.fallback; the kernel's enum anon_fallback, see docs/events.md. */
enum ft_fallback {
	FT_FB_NONE = 0,
	FT_FB_VMA_EDGE = 1,
	FT_FB_PTE_POPULATED = 2,
	FT_FB_ALLOC_FAILED = 3,
	FT_FB_NOHUGEPAGE = 4,
	FT_FB_UFFD = 5,
	FT_FB_RACE = 6,
	FT_FB_READ = 7,
	FT_FB_NR
};

/* anon_zap.cause; the kernel's enum anon_zap_cause. 0 is never emitted. */
enum ft_zap_cause {
	FT_ZAP_MUNMAP = 1,
	FT_ZAP_DONTNEED = 2,
	FT_ZAP_FREE = 3,
	FT_ZAP_MREMAP = 4,
	FT_ZAP_EXIT = 5,
	FT_ZAP_NR
};

#define FT_EVF_WRITE		0x01	/* FAULT: write fault */
#define FT_EVF_ZERO_PAGE	0x02	/* FAULT: zero page mapped */
#define FT_EVF_SUCCESS		0x04	/* ALLOC: allocation succeeded */

/*
 * One decoded record. Which fields mean something depends on kind; unused fields are 0.
 */
struct ft_event {
	uint64_t ts;		/* ns of the trace clock (absolute, as in the CTF trace) */
	uint64_t addr;		/* FAULT/ZERO_WP/COW: address (page aligned); ALLOC: block
				 * start; ZAP: range start; MM_DUP: 0 */
	uint64_t end;		/* ZAP: range end (exclusive); else 0 */
	uint64_t aux;		/* FAULT/ZERO_WP/COW: latency_ns; ALLOC: pfn;
				 * ZAP: new_addr (mremap) ; MM_DUP: parent proc_id */
	uint32_t proc_id;	/* process.proc_id of the mm */
	uint32_t vma_id;	/* FAULT: vma.vma_id; else 0 */
	uint16_t nr_ptes;	/* FAULT: page-table entries written */
	uint8_t kind;		/* enum ft_ev_kind */
	uint8_t flags;		/* FT_EVF_* */
	uint8_t order;		/* FAULT: mapped order; ALLOC: order asked */
	uint8_t reason;		/* FAULT: enum ft_fallback; ZAP: enum ft_zap_cause */
	uint16_t tid_lo;	/* FAULT/ZERO_WP/COW: tid - pid of the task (0 for the main
				 * thread), truncated to 16 bits; informational only */
};

/* Maximum events per chunk; a chunk is one BLOB in event_chunk. */
#define FT_CHUNK_EVENTS 65536

/*
 * Encoder: append events in stream order; a chunk is ready when ft_enc_full() or at the end.
 * The encoder owns a growing buffer; ft_enc_data()/ft_enc_size() are valid until the next
 * ft_enc_add() or ft_enc_reset().
 */
struct ft_enc {
	uint8_t *buf;		/* encoded bytes */
	size_t len;		/* bytes used */
	size_t cap;		/* bytes allocated */
	uint32_t nr;		/* events in this chunk */
	uint64_t first_ts;	/* ns, first event of the chunk */
	uint64_t last_ts;	/* ns, last event of the chunk */
	struct ft_event prev;	/* previous event of the chunk: delta base */
};

void ft_enc_init(struct ft_enc *e);
void ft_enc_release(struct ft_enc *e);
/* Start a new chunk (keeps the buffer). */
void ft_enc_reset(struct ft_enc *e);
/* Return: 0, or -1 on allocation failure. */
int ft_enc_add(struct ft_enc *e, const struct ft_event *ev);
static inline int ft_enc_full(const struct ft_enc *e)
{
	return e->nr >= FT_CHUNK_EVENTS;
}

/*
 * Decoder over one chunk blob. Return of ft_dec_next: 1 and *ev filled, 0 at the end of the
 * chunk, -1 if the blob is malformed (truncated or an unknown kind).
 */
struct ft_dec {
	const uint8_t *p;	/* next byte */
	const uint8_t *end;	/* one past the blob */
	struct ft_event prev;	/* previous event: delta base */
};

void ft_dec_init(struct ft_dec *d, const void *blob, size_t len);
int ft_dec_next(struct ft_dec *d, struct ft_event *ev);

const char *ft_fallback_name(unsigned int reason);	/* "vma_edge", ...; "?" if unknown */

/*
 * Latencies are u64 in the trace but int64 in every output (SQL, JSON): a value above
 * INT64_MAX (292 years; only a damaged trace holds one) is saturated to INT64_MAX, never
 * wrapped to a negative number (docs/cli-json.md).
 */
static inline int64_t ft_ns_sat(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}
const char *ft_zap_cause_name(unsigned int cause);	/* "munmap", ...; "?" if unknown */
const char *ft_ev_kind_name(unsigned int kind);		/* "anon_fault", ... */

#endif /* FT_DB_STREAM_H */
