// SPDX-License-Identifier: GPL-2.0
/*
 * stream-codec.c - the event_chunk codec (db/stream.c): round trips of synthetic random
 * events (no recorded data here), hand-made edge cases, and malformed blobs rejected.
 */
#include <stdlib.h>
#include <string.h>

#include "db/stream.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A synthetic event of the given kind; fields the kind does not use stay 0. */
static void synth(struct ftdb_event *ev, const struct ftdb_event *prev, unsigned int kind)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->ts = prev->ts + (rnd() % 8 ? rnd() % 20000 : rnd() % 2000000000);
	ev->proc_id = rnd() % 4 ? prev->proc_id : (uint32_t)(rnd() % 100000);
	/* mostly the next page, sometimes anywhere, rarely not page aligned */
	ev->addr = rnd() % 4 ? prev->addr + 4096 : (rnd() % 64 ? rnd() & ~0xfffull : rnd());
	switch (kind) {
	case FTDB_EV_FAULT:
		ev->vma_id = rnd() % 8 ? prev->vma_id : (uint32_t)rnd();
		ev->flags = rnd() % 4;
		ev->aux = rnd() % 16 ? rnd() % 50000 : rnd();
		if (rnd() % 2) {
			ev->order = 0;
			ev->nr_ptes = 1;
			ev->reason = ev->flags & FTDB_EVF_WRITE ? FTDB_FB_NONE : FTDB_FB_READ;
		} else {
			ev->order = rnd() % 14;
			ev->nr_ptes = (uint16_t)rnd();
			ev->reason = rnd() % FTDB_FB_NR;
			ev->tid_lo = rnd() % 2 ? 0 : (uint16_t)rnd();
		}
		break;
	case FTDB_EV_ALLOC:
		ev->flags = rnd() % 4 ? FTDB_EVF_SUCCESS : 0;
		ev->order = rnd() % 10;
		/* frames mostly consecutive; a failure has pfn 0 */
		ev->aux = !ev->flags ? 0 : rnd() % 4 ? prev->aux + 1 : rnd() % 4194304;
		break;
	case FTDB_EV_ZERO_WP:
	case FTDB_EV_COW:
		ev->aux = rnd() % 100000;
		ev->tid_lo = rnd() % 2 ? 0 : (uint16_t)rnd();
		break;
	case FTDB_EV_ZAP:
		ev->end = ev->addr + (rnd() % 2 ? (rnd() % 1000) * 4096 : rnd());
		ev->reason = 1 + rnd() % 5;
		ev->aux = ev->reason == FTDB_ZAP_MREMAP ? rnd() : 0;
		break;
	case FTDB_EV_MM_DUP:
		ev->addr = 0;
		ev->aux = (uint32_t)rnd();
		break;
	}
}

static int same(const struct ftdb_event *a, const struct ftdb_event *b)
{
	return a->ts == b->ts && a->addr == b->addr && a->end == b->end && a->aux == b->aux &&
	       a->proc_id == b->proc_id && a->vma_id == b->vma_id && a->nr_ptes == b->nr_ptes &&
	       a->kind == b->kind && a->flags == b->flags && a->order == b->order &&
	       a->reason == b->reason && a->tid_lo == b->tid_lo;
}

/* Encode n events of the given kind mix, decode, compare. */
static int round_trip(size_t n, unsigned int kind_mask, size_t *bytes)
{
	struct ftdb_event *evs = calloc(n, sizeof(*evs)), prev = { 0 }, got;
	struct ftdb_enc enc;
	struct ftdb_dec dec;
	size_t i, bad = 0;
	int rc;

	ftdb_enc_init(&enc);
	for (i = 0; i < n; i++) {
		unsigned int k;

		do {
			k = rnd() % FTDB_EV_NR_KINDS;
		} while (!(kind_mask & (1u << k)));
		synth(&evs[i], i ? &evs[i - 1] : &prev, k);
		if (ftdb_enc_add(&enc, &evs[i]))
			bad++;
	}
	*bytes = enc.len;
	ftdb_dec_init(&dec, enc.buf, enc.len);
	for (i = 0; i < n; i++) {
		rc = ftdb_dec_next(&dec, &got);
		if (rc != 1 || !same(&got, &evs[i])) {
			diag("event %zu (kind %u) differs, rc %d", i, evs[i].kind, rc);
			bad++;
			break;
		}
	}
	if (i == n && ftdb_dec_next(&dec, &got) != 0)
		bad++;
	if (enc.nr != n || (n && (enc.first_ts != evs[0].ts || enc.last_ts != evs[n - 1].ts)))
		bad++;
	ftdb_enc_release(&enc);
	free(evs);
	return !bad;
}

static const struct {
	const char *name;
	size_t n;
	unsigned int kinds;	/* bit per enum ftdb_ev_kind */
} trips[] = {
	{ "empty chunk", 0, 1 },
	{ "one fault", 1, 1 << FTDB_EV_FAULT },
	{ "synthetic faults only", 65536, 1 << FTDB_EV_FAULT },
	{ "synthetic allocs", 5000, 1 << FTDB_EV_ALLOC },
	{ "synthetic zero_wp and cow", 5000, 1 << FTDB_EV_ZERO_WP | 1 << FTDB_EV_COW },
	{ "synthetic zaps", 5000, 1 << FTDB_EV_ZAP },
	{ "synthetic mm_dup", 5000, 1 << FTDB_EV_MM_DUP },
	{ "synthetic mix of all kinds", 65536, 0x3f },
};

/* Edge values that random data rarely hits. */
static const struct ftdb_event edges[] = {
	{ .kind = FTDB_EV_FAULT, .ts = UINT64_MAX, .addr = UINT64_MAX & ~0xfffull,
	  .aux = UINT64_MAX, .proc_id = UINT32_MAX, .vma_id = UINT32_MAX, .nr_ptes = 65535,
	  .order = 255, .reason = 255, .tid_lo = 65535, .flags = 3 },
	{ .kind = FTDB_EV_FAULT, .ts = 0, .addr = 1, .nr_ptes = 1, .reason = FTDB_FB_READ },
	{ .kind = FTDB_EV_ZAP, .ts = 5, .addr = 0x7fff00000000, .end = 0x1000, .reason = 4,
	  .aux = UINT64_MAX },
	{ .kind = FTDB_EV_ALLOC, .ts = 1, .addr = 0xfff, .aux = UINT64_MAX, .order = 9 },
	{ .kind = FTDB_EV_MM_DUP, .ts = 0, .proc_id = 0, .aux = UINT32_MAX },
	{ .kind = FTDB_EV_COW, .ts = 1ull << 63, .addr = 1ull << 63, .aux = 0, .tid_lo = 1 },
};

/*
 * Malformed blobs: each must be rejected by ftdb_dec_next() returning -1. deep: malformed
 * whatever follows, so also tested after 200 good records and before 200 bytes more:
 * there the decoder reads without bounds checks (a whole record fits), a path the short
 * blobs never take.
 */
static const struct {
	const char *name;
	const char *bytes;
	size_t len;
	int deep;
} bad_blobs[] = {
	{ "unknown format byte", "\x02\x08\x00\x00\x00", 5, 0 },
	{ "empty blob", "", 0, 0 },
	{ "unknown kind 6", "\x01\x0e\x00\x00\x00", 5, 1 },
	{ "unknown kind 7", "\x01\x0f", 2, 1 },
	{ "reserved tag bit of mm_dup", "\x01\x1d\x00\x00", 4, 1 },
	{ "fault truncated after tag", "\x01\x48", 2, 0 },
	{ "fault truncated in a varint", "\x01\x48\x80", 3, 0 },
	{ "fault with odd address code", "\x01\x48\x00\x03\x00", 5, 1 },
	{ "varint longer than 64 bits", "\x01\x48\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 12, 1 },
	{ "10th varint byte above 1", "\x01\x48\x80\x80\x80\x80\x80\x80\x80\x80\x80\x02", 12, 1 },
	{ "ext fault truncated", "\x01\xc8\x00\x00\x00\x01", 6, 0 },
	{ "nr_ptes beyond 16 bits", "\x01\xc8\x00\x00\x00\x00\x00\x80\x80\x04\x00", 11, 1 },
	{ "zap without cause", "\x01\x0c\x00\x00\x00", 5, 0 },
};

/* Bad record i after 200 good faults, then 200 bytes: 1 if exactly the 200 decode. */
static int bad_deep(size_t i)
{
	struct ftdb_event ev, got;
	struct ftdb_enc enc;
	struct ftdb_dec dec;
	size_t k, n = 0;
	int rc;

	memset(&ev, 0, sizeof(ev));
	ev.kind = FTDB_EV_FAULT;
	ev.flags = FTDB_EVF_WRITE;
	ev.nr_ptes = 1;
	ftdb_enc_init(&enc);
	for (k = 0; k < 200; k++) {
		ev.ts += 1000;
		ev.addr += 4096;
		ftdb_enc_add(&enc, &ev);
	}
	/* the bad record (without the format byte), then room for any record to follow */
	enc.buf = xrealloc(enc.buf, enc.len + bad_blobs[i].len + 200);
	memcpy(enc.buf + enc.len, bad_blobs[i].bytes + 1, bad_blobs[i].len - 1);
	memset(enc.buf + enc.len + bad_blobs[i].len - 1, 0, 200);
	ftdb_dec_init(&dec, enc.buf, enc.len + bad_blobs[i].len - 1 + 200);
	while ((rc = ftdb_dec_next(&dec, &got)) == 1)
		n++;
	ftdb_enc_release(&enc);
	return rc == -1 && n == 200 && ftdb_dec_next(&dec, &got) == -1;
}

int main(void)
{
	size_t i, bytes;

	size_t nr_deep = 0;

	for (i = 0; i < sizeof(bad_blobs) / sizeof(bad_blobs[0]); i++)
		nr_deep += bad_blobs[i].deep;
	plan((int)(sizeof(trips) / sizeof(trips[0]) + 2 + 2 * sizeof(bad_blobs) /
		   sizeof(bad_blobs[0]) + nr_deep + 2));
	for (i = 0; i < sizeof(trips) / sizeof(trips[0]); i++) {
		int r = round_trip(trips[i].n, trips[i].kinds, &bytes);

		ok(r, "round trip: %s (%zu events, %zu bytes)", trips[i].name, trips[i].n, bytes);
	}

	/* edge values, one chunk */
	{
		struct ftdb_enc enc;
		struct ftdb_dec dec;
		struct ftdb_event got;
		size_t n = sizeof(edges) / sizeof(edges[0]), good = 0;

		size_t ends[sizeof(edges) / sizeof(edges[0])], cut, k;

		ftdb_enc_init(&enc);
		for (i = 0; i < n; i++) {
			ftdb_enc_add(&enc, &edges[i]);
			ends[i] = enc.len;
		}
		ftdb_dec_init(&dec, enc.buf, enc.len);
		for (i = 0; i < n; i++)
			if (ftdb_dec_next(&dec, &got) == 1 && same(&got, &edges[i]))
				good++;
		is_int(good, n, "round trip: edge values");

		/*
		 * Every strict prefix of a valid chunk decodes to a prefix of its events, then
		 * ends cleanly exactly at a record boundary and is rejected anywhere else.
		 */
		for (cut = 1, good = 1; cut < enc.len; cut++) {
			int rc, boundary = 0;

			ftdb_dec_init(&dec, enc.buf, cut);
			for (k = 0; (rc = ftdb_dec_next(&dec, &got)) == 1; k++)
				if (k >= n || !same(&got, &edges[k]))
					good = 0;
			for (i = 0; i < n; i++)
				boundary |= ends[i] == cut;
			if (rc != (boundary || cut == 1 ? 0 : -1))
				good = 0;
		}
		ok(good, "truncated chunks: clean end at record boundaries, else rejected");
		ftdb_enc_release(&enc);
	}

	for (i = 0; i < sizeof(bad_blobs) / sizeof(bad_blobs[0]); i++) {
		struct ftdb_dec dec;
		struct ftdb_event got;
		int rc;

		ftdb_dec_init(&dec, bad_blobs[i].bytes, bad_blobs[i].len);
		while ((rc = ftdb_dec_next(&dec, &got)) == 1)
			;
		is_int(rc, -1, "malformed: %s", bad_blobs[i].name);
		is_int(ftdb_dec_next(&dec, &got), -1, "malformed stays malformed: %s",
		       bad_blobs[i].name);
		if (bad_blobs[i].deep)
			ok(bad_deep(i), "malformed deep in a chunk: %s", bad_blobs[i].name);
	}

	/* the worked example of docs/schema.md, byte for byte */
	{
		static const uint8_t want[] = { 0x58, 0x80, 0x19, 0x04, 0xb4, 0x10 };
		struct ftdb_event ev = { .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_WRITE, .nr_ptes = 1,
				       .proc_id = 3, .vma_id = 7, .ts = 1000000,
				       .addr = 0x7f0000000000, .aux = 900 };
		struct ftdb_enc enc;
		size_t at;

		ftdb_enc_init(&enc);
		ftdb_enc_add(&enc, &ev);
		at = enc.len;
		ev.ts += 3200;
		ev.addr += 4096;
		ev.aux = 2100;
		ftdb_enc_add(&enc, &ev);
		ok(enc.len - at == sizeof(want) && !memcmp(enc.buf + at, want, sizeof(want)),
		   "docs/schema.md example encodes as 58 80 19 04 b4 10");
		ftdb_enc_release(&enc);
	}

	/* compactness on the workload the format is tuned for */
	{
		struct ftdb_enc enc;
		struct ftdb_event ev = { .kind = FTDB_EV_FAULT, .flags = FTDB_EVF_WRITE, .nr_ptes = 1,
				       .proc_id = 3, .vma_id = 7, .addr = 0x7f0000000000 };

		ftdb_enc_init(&enc);
		for (i = 0; i < 10000; i++) {
			ev.ts += 3000 + rnd() % 4000;
			ev.addr += 4096;
			ev.aux = 1500 + rnd() % 3000;
			ftdb_enc_add(&enc, &ev);
		}
		ok(enc.len <= 7 * 10000 + 32, "sequential write faults cost <= 7 bytes (%.2f)",
		   enc.len / 10000.0);
		ftdb_enc_release(&enc);
	}
	return done_testing();
}
