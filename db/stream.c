// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - the event_chunk codec: delta + varint records behind one tag byte each.
 *
 * The byte format is specified in docs/schema.md ("event_chunk format"); this file is its
 * only implementation. Tuned for runs of faults of one process on consecutive pages a few
 * microseconds apart: such a fault is a tag byte, a 2-byte time delta, a 1-byte address
 * delta and a 2-3 byte latency.
 *
 * Delta base: encoder and decoder keep the same struct ftdb_event "prev", in which each field
 * holds the value of the last record of the chunk that carried it (ts, proc_id: every record;
 * addr: every record but MM_DUP; vma_id: FAULT; aux: ALLOC with a pfn, since the buddy
 * allocator mostly hands out consecutive frames). A chunk starts from an all-zero base.
 */
#include <stdlib.h>
#include <string.h>

#include "db/stream.h"
#include "lib/xalloc.h"

#define FT_CHUNK_FORMAT 1	/* first byte of every chunk blob */

/* Tag byte: bits 0-2 kind, bit 3 common to all kinds, bits 4-7 per kind. */
#define TAG_KIND_MASK	0x07
#define TAG_SAME_PROC	0x08	/* proc_id equals the base; else a zigzag delta follows */
#define TAG_F_WRITE	0x10	/* FAULT */
#define TAG_F_ZERO	0x20	/* FAULT */
#define TAG_F_SAME_VMA	0x40	/* FAULT: vma_id equals the base */
#define TAG_F_EXT	0x80	/* FAULT: order, reason, nr_ptes, tid_lo follow */
#define TAG_A_SUCCESS	0x10	/* ALLOC */
#define TAG_A_NO_PFN	0x20	/* ALLOC: pfn is 0 (a failure): no pfn delta follows */
#define TAG_W_TID	0x10	/* ZERO_WP, COW: tid_lo follows */
#define TAG_Z_NEWADDR	0x10	/* ZAP: new_addr follows */

/* Tag bits each kind may use; any other set bit makes a record malformed. */
static const uint8_t tag_allowed[FTDB_EV_NR_KINDS] = {
	[FTDB_EV_FAULT] = 0xff,
	[FTDB_EV_ALLOC] = TAG_KIND_MASK | TAG_SAME_PROC | TAG_A_SUCCESS | TAG_A_NO_PFN,
	[FTDB_EV_ZERO_WP] = TAG_KIND_MASK | TAG_SAME_PROC | TAG_W_TID,
	[FTDB_EV_COW] = TAG_KIND_MASK | TAG_SAME_PROC | TAG_W_TID,
	[FTDB_EV_ZAP] = TAG_KIND_MASK | TAG_SAME_PROC | TAG_Z_NEWADDR,
	[FTDB_EV_MM_DUP] = TAG_KIND_MASK | TAG_SAME_PROC,
};

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * An address relative to a base: the varint v = zigzag((addr - base) / 4096) << 1 when the
 * difference is a multiple of 4096 (v even), else v = 1 followed by addr as a plain varint.
 */
static inline uint8_t *put_addr(uint8_t *p, uint64_t base, uint64_t addr)
{
	uint64_t d = addr - base;

	if (!(d & 0xfff))
		return put_varint(p, zigzag((int64_t)d >> 12) << 1);
	*p++ = 1;
	return put_varint(p, addr);
}

/* Longest record: tag, 4 varints of 10 bytes, 2 addresses of 11, 2 bytes, 2 varints. */
#define MAX_RECORD 96

void ftdb_enc_init(struct ftdb_enc *e)
{
	memset(e, 0, sizeof(*e));
	ftdb_enc_reset(e);
}

void ftdb_enc_release(struct ftdb_enc *e)
{
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

void ftdb_enc_reset(struct ftdb_enc *e)
{
	if (!e->buf) {
		e->cap = 1 << 16;
		e->buf = xmalloc(e->cap);
	}
	e->buf[0] = FT_CHUNK_FORMAT;
	e->len = 1;
	e->nr = 0;
	e->first_ts = 0;
	e->last_ts = 0;
	memset(&e->prev, 0, sizeof(e->prev));
}

int ftdb_enc_add(struct ftdb_enc *e, const struct ftdb_event *ev)
{
	struct ftdb_event *b = &e->prev;
	uint8_t *p, *tag;

	if (ev->kind >= FTDB_EV_NR_KINDS)
		return -1;
	if (e->len + MAX_RECORD > e->cap) {
		e->cap *= 2;
		e->buf = xrealloc(e->buf, e->cap);
	}
	p = e->buf + e->len;
	tag = p++;
	*tag = ev->kind;
	if (ev->proc_id == b->proc_id)
		*tag |= TAG_SAME_PROC;
	else
		p = put_varint(p, zigzag((int64_t)ev->proc_id - (int64_t)b->proc_id));

	switch (ev->kind) {
	case FTDB_EV_FAULT:
		if (ev->flags & FTDB_EVF_WRITE)
			*tag |= TAG_F_WRITE;
		if (ev->flags & FTDB_EVF_ZERO_PAGE)
			*tag |= TAG_F_ZERO;
		if (ev->vma_id == b->vma_id)
			*tag |= TAG_F_SAME_VMA;
		else
			p = put_varint(p, zigzag((int64_t)ev->vma_id - (int64_t)b->vma_id));
		p = put_varint(p, ev->ts - b->ts);
		p = put_addr(p, b->addr, ev->addr);
		p = put_varint(p, ev->aux);
		/* the common shape: one base page, the reason the order-0 policy gives */
		if (ev->order || ev->nr_ptes != 1 || ev->tid_lo ||
		    ev->reason != ((ev->flags & FTDB_EVF_WRITE) ? FTDB_FB_NONE : FTDB_FB_READ)) {
			*tag |= TAG_F_EXT;
			*p++ = ev->order;
			*p++ = ev->reason;
			p = put_varint(p, ev->nr_ptes);
			p = put_varint(p, ev->tid_lo);
		}
		b->vma_id = ev->vma_id;
		b->addr = ev->addr;
		break;
	case FTDB_EV_ALLOC:
		if (ev->flags & FTDB_EVF_SUCCESS)
			*tag |= TAG_A_SUCCESS;
		p = put_varint(p, ev->ts - b->ts);
		p = put_addr(p, b->addr, ev->addr);
		*p++ = ev->order;
		if (ev->aux) {
			p = put_varint(p, zigzag((int64_t)(ev->aux - b->aux)));
			b->aux = ev->aux;
		} else {
			*tag |= TAG_A_NO_PFN;
		}
		b->addr = ev->addr;
		break;
	case FTDB_EV_ZERO_WP:
	case FTDB_EV_COW:
		p = put_varint(p, ev->ts - b->ts);
		p = put_addr(p, b->addr, ev->addr);
		p = put_varint(p, ev->aux);
		if (ev->tid_lo) {
			*tag |= TAG_W_TID;
			p = put_varint(p, ev->tid_lo);
		}
		b->addr = ev->addr;
		break;
	case FTDB_EV_ZAP:
		p = put_varint(p, ev->ts - b->ts);
		p = put_addr(p, b->addr, ev->addr);
		p = put_addr(p, ev->addr, ev->end);
		*p++ = ev->reason;
		if (ev->aux) {
			*tag |= TAG_Z_NEWADDR;
			p = put_addr(p, ev->addr, ev->aux);
		}
		b->addr = ev->addr;
		break;
	case FTDB_EV_MM_DUP:
		p = put_varint(p, ev->ts - b->ts);
		p = put_varint(p, zigzag((int64_t)ev->aux - (int64_t)ev->proc_id));
		break;
	}
	b->ts = ev->ts;
	b->proc_id = ev->proc_id;
	if (!e->nr)
		e->first_ts = ev->ts;
	e->last_ts = ev->ts;
	e->nr++;
	e->len = (size_t)(p - e->buf);
	return 0;
}

void ftdb_dec_init(struct ftdb_dec *d, const void *blob, size_t len)
{
	d->p = blob;
	d->end = d->p + len;
	memset(&d->prev, 0, sizeof(d->prev));
	/* an empty or foreign blob: make the first ftdb_dec_next() fail */
	if (!len || d->p[0] != FT_CHUNK_FORMAT)
		d->p = NULL;
	else
		d->p++;
}

/*
 * The decoder reads through a local cursor p (a byte store into *ev could alias d->p and
 * force a reload per byte). end is the blob's end, or NULL when the caller knows that a
 * whole record fits in what is left: then no byte is bounds-checked (see DEC_FAST).
 * The helpers are always inlined, so each of the two callers gets its own copy.
 */
#define DEC_INLINE static inline __attribute__((always_inline))

/*
 * Return: 0, or -1 if the varint runs past end or past 64 bits (at most 10 bytes read).
 * Most varints of a stream are one byte (deltas, latencies under 128 ns are rare but
 * page deltas of 1 are the rule): that byte is tested first.
 */
DEC_INLINE int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;
	unsigned int i;
	uint8_t c;

	if (end && p >= end)
		return -1;
	if (*p < 0x80) {
		*v = *p;
		*pp = p + 1;
		return 0;
	}
	/* bytes 1 to 9 carry 7 bits each, up to bit 62 */
	for (i = 0; i < 9; i++) {
		if (end && p >= end)
			return -1;
		c = *p++;
		r |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = r;
			*pp = p;
			return 0;
		}
	}
	/* byte 10 holds bit 63 only, and ends the varint */
	if ((end && p >= end) || *p > 1)
		return -1;
	*v = r | (uint64_t)*p << 63;
	*pp = p + 1;
	return 0;
}

DEC_INLINE int get_u8(const uint8_t **pp, const uint8_t *end, uint8_t *v)
{
	if (end && *pp >= end)
		return -1;
	*v = *(*pp)++;
	return 0;
}

/* At most 20 bytes: a varint 1 (itself up to 10 bytes, not canonical), then a varint. */
DEC_INLINE int get_addr(const uint8_t **pp, const uint8_t *end, uint64_t base, uint64_t *addr)
{
	uint64_t v;

	if (get_varint(pp, end, &v))
		return -1;
	if (v == 1)
		return get_varint(pp, end, addr);
	if (v & 1)
		return -1;
	*addr = base + ((uint64_t)unzigzag(v >> 1) << 12);
	return 0;
}

/* A varint that must fit the given number of bits. */
DEC_INLINE int get_bounded(const uint8_t **pp, const uint8_t *end, unsigned int bits,
			   uint64_t *v)
{
	if (get_varint(pp, end, v))
		return -1;
	return bits < 64 && (*v >> bits) ? -1 : 0;
}

/*
 * Bytes one record can take at most, well formed or not, given that every varint read
 * stops after 10 bytes: FAULT tag 1 + proc 10 + vma 10 + ts 10 + addr 20 + aux 10 +
 * order/reason 2 + nr_ptes 10 + tid 10 = 83; ZAP 1 + 10 + 10 + 20 + 20 + 1 + 20 = 82;
 * the other kinds less. With this many bytes left, no read can pass the end.
 */
#define DEC_FAST 96

/* One record at p (d->p, not NULL, not at the end); see ftdb_dec_next(). */
DEC_INLINE int dec_record(struct ftdb_dec *d, struct ftdb_event *ev, const uint8_t *end)
{
	struct ftdb_event *b = &d->prev;
	const uint8_t *p = d->p;
	uint64_t v, dts;
	uint8_t tag;

	memset(ev, 0, sizeof(*ev));
	tag = *p++;
	ev->kind = tag & TAG_KIND_MASK;
	if (ev->kind >= FTDB_EV_NR_KINDS || (tag & ~tag_allowed[ev->kind]))
		goto bad;
	ev->proc_id = b->proc_id;
	if (!(tag & TAG_SAME_PROC)) {
		if (get_varint(&p, end, &v))
			goto bad;
		ev->proc_id = (uint32_t)((int64_t)b->proc_id + unzigzag(v));
	}

	switch (ev->kind) {
	case FTDB_EV_FAULT:
		ev->flags = (tag & TAG_F_WRITE ? FTDB_EVF_WRITE : 0) |
			    (tag & TAG_F_ZERO ? FTDB_EVF_ZERO_PAGE : 0);
		ev->vma_id = b->vma_id;
		if (!(tag & TAG_F_SAME_VMA)) {
			if (get_varint(&p, end, &v))
				goto bad;
			ev->vma_id = (uint32_t)((int64_t)b->vma_id + unzigzag(v));
		}
		if (get_varint(&p, end, &dts) || get_addr(&p, end, b->addr, &ev->addr) ||
		    get_varint(&p, end, &ev->aux))
			goto bad;
		if (tag & TAG_F_EXT) {
			if (get_u8(&p, end, &ev->order) || get_u8(&p, end, &ev->reason) ||
			    get_bounded(&p, end, 16, &v))
				goto bad;
			ev->nr_ptes = (uint16_t)v;
			if (get_bounded(&p, end, 16, &v))
				goto bad;
			ev->tid_lo = (uint16_t)v;
		} else {
			ev->nr_ptes = 1;
			ev->reason = (tag & TAG_F_WRITE) ? FTDB_FB_NONE : FTDB_FB_READ;
		}
		b->vma_id = ev->vma_id;
		b->addr = ev->addr;
		break;
	case FTDB_EV_ALLOC:
		ev->flags = tag & TAG_A_SUCCESS ? FTDB_EVF_SUCCESS : 0;
		if (get_varint(&p, end, &dts) || get_addr(&p, end, b->addr, &ev->addr) ||
		    get_u8(&p, end, &ev->order))
			goto bad;
		if (!(tag & TAG_A_NO_PFN)) {
			if (get_varint(&p, end, &v))
				goto bad;
			ev->aux = b->aux + (uint64_t)unzigzag(v);
			b->aux = ev->aux;
		}
		b->addr = ev->addr;
		break;
	case FTDB_EV_ZERO_WP:
	case FTDB_EV_COW:
		if (get_varint(&p, end, &dts) || get_addr(&p, end, b->addr, &ev->addr) ||
		    get_varint(&p, end, &ev->aux))
			goto bad;
		if (tag & TAG_W_TID) {
			if (get_bounded(&p, end, 16, &v))
				goto bad;
			ev->tid_lo = (uint16_t)v;
		}
		b->addr = ev->addr;
		break;
	case FTDB_EV_ZAP:
		if (get_varint(&p, end, &dts) || get_addr(&p, end, b->addr, &ev->addr) ||
		    get_addr(&p, end, ev->addr, &ev->end) || get_u8(&p, end, &ev->reason))
			goto bad;
		if ((tag & TAG_Z_NEWADDR) && get_addr(&p, end, ev->addr, &ev->aux))
			goto bad;
		b->addr = ev->addr;
		break;
	case FTDB_EV_MM_DUP:
		if (get_varint(&p, end, &dts) || get_varint(&p, end, &v))
			goto bad;
		ev->aux = (uint32_t)((int64_t)ev->proc_id + unzigzag(v));
		break;
	}
	ev->ts = b->ts + dts;
	b->ts = ev->ts;
	b->proc_id = ev->proc_id;
	d->p = p;
	return 1;
bad:
	d->p = NULL;	/* sticky: every later call fails too */
	return -1;
}

int ftdb_dec_next(struct ftdb_dec *d, struct ftdb_event *ev)
{
	if (!d->p)
		return -1;
	if (d->p == d->end)
		return 0;
	/* all but a chunk's last few records: no bounds check per byte */
	if (d->end - d->p >= DEC_FAST)
		return dec_record(d, ev, NULL);
	return dec_record(d, ev, d->end);
}

static const char *const fallback_names[FTDB_FB_NR] = {
	[FTDB_FB_NONE] = "none",
	[FTDB_FB_VMA_EDGE] = "vma_edge",
	[FTDB_FB_PTE_POPULATED] = "pte_populated",
	[FTDB_FB_ALLOC_FAILED] = "alloc_failed",
	[FTDB_FB_NOHUGEPAGE] = "nohugepage",
	[FTDB_FB_UFFD] = "uffd",
	[FTDB_FB_RACE] = "race",
	[FTDB_FB_READ] = "read",
};

static const char *const zap_cause_names[FTDB_ZAP_NR] = {
	[FTDB_ZAP_MUNMAP] = "munmap",
	[FTDB_ZAP_DONTNEED] = "dontneed",
	[FTDB_ZAP_FREE] = "free",
	[FTDB_ZAP_MREMAP] = "mremap",
	[FTDB_ZAP_EXIT] = "exit",
};

static const char *const kind_names[FTDB_EV_NR_KINDS] = {
	[FTDB_EV_FAULT] = "anon_fault",
	[FTDB_EV_ALLOC] = "anon_alloc",
	[FTDB_EV_ZERO_WP] = "anon_zero_wp",
	[FTDB_EV_COW] = "anon_cow",
	[FTDB_EV_ZAP] = "anon_zap",
	[FTDB_EV_MM_DUP] = "anon_mm_dup",
};

const char *ftdb_fallback_name(unsigned int reason)
{
	return reason < FTDB_FB_NR ? fallback_names[reason] : "?";
}

const char *ftdb_zap_cause_name(unsigned int cause)
{
	return cause < FTDB_ZAP_NR && zap_cause_names[cause] ? zap_cause_names[cause] : "?";
}

const char *ftdb_ev_kind_name(unsigned int kind)
{
	return kind < FTDB_EV_NR_KINDS ? kind_names[kind] : "?";
}
