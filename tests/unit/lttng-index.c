// SPDX-License-Identifier: GPL-2.0
/*
 * lttng-index.c - the LTTng index reader (tracer/lttng-index.c): every limit and truncation
 * of its header and size, both sides of each bound, the fields of an entry of format 1.0
 * and 1.1, a slice's rebased offsets, files that are not regular, and what the trace
 * checker (ft_ctf_check_index()) makes of the entries. Index files are built here byte by
 * byte, independent of the reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "tests/unit/tap.h"
#include "tracer/ctflayout.h"
#include "tracer/lttng-index.h"

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/*
 * An index of nr entries of elen bytes (plus extra bytes), packets of psize bytes from
 * byte 0; entry k's fields are k-derived so a misread field shows. Into *len bytes.
 */
static unsigned char *build(uint32_t magic, uint32_t major, uint32_t minor, uint32_t elen,
			    unsigned int nr, uint64_t psize, size_t extra, size_t *len)
{
	unsigned char *b;
	unsigned int k;

	*len = 16 + (size_t)nr * elen + extra;
	b = xcalloc(1, *len);
	put32(b, magic);
	put32(b + 4, major);
	put32(b + 8, minor);
	put32(b + 12, elen);
	for (k = 0; k < nr && elen >= 56; k++) {
		unsigned char *e = b + 16 + (size_t)k * elen;

		put64(e, k * psize);			/* offset, bytes */
		put64(e + 8, psize * 8);		/* packet_size, bits */
		put64(e + 16, psize * 8 - 64);		/* content_size, bits */
		put64(e + 24, 1000 + k * 10);		/* timestamp_begin */
		put64(e + 32, 1005 + k * 10);		/* timestamp_end */
		put64(e + 40, k / 2);			/* events_discarded */
		put64(e + 48, 7);			/* stream_id */
	}
	return b;
}

/* Parse buf (taken) and say whether it failed with msg in the error (NULL: succeeded). */
static int parses(unsigned char *buf, size_t len, const char *msg, uint64_t *nr)
{
	struct lttng_index ix;
	int rc = ft_lttng_index_parse(&ix, buf, len, "t.idx");
	int good;

	if (nr)
		*nr = ix.nr;
	good = msg ? rc < 0 && strstr(error_text(), msg) != NULL : rc == 0;
	if (!good)
		diag("  rc %d, error '%s'", rc, error_text());
	ft_lttng_index_release(&ix);
	error_clear();
	return good;
}

/* build() an index, cut cut bytes off its end, parses() it */
static int bparses(uint32_t magic, uint32_t major, uint32_t minor, uint32_t elen,
		   unsigned int nr, size_t extra, size_t cut, const char *msg, uint64_t *got)
{
	size_t len;
	unsigned char *b = build(magic, major, minor, elen, nr, 4096, extra, &len);

	return parses(b, len - cut, msg, got);
}

static char dir[] = "/tmp/ft-lttng-index-XXXXXX";

static const char *put_file(const char *name, const void *buf, size_t len)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

/* ft_ctf_check_index() of the index buf against a stream of z bytes with packet magics. */
static int check(unsigned char *buf, size_t len, uint64_t z, uint64_t psize, const char *msg)
{
	unsigned char *stream = xcalloc(1, z ? z : 1);
	const char *idx;
	char spath[256];
	uint64_t off;
	int fd, rc, good;

	for (off = 0; off + 4 <= z; off += psize)
		put32(stream + off, 0xc1fc1fc1u);
	snprintf(spath, sizeof(spath), "%s", put_file("stream", stream, z));
	idx = put_file("stream.idx", buf, len);
	fd = open(spath, O_RDONLY);
	rc = ft_ctf_check_index(idx, "index/stream.idx", fd, "stream", z);
	close(fd);
	good = msg ? rc < 0 && strstr(error_text(), msg) != NULL : rc == 0;
	if (!good)
		diag("  rc %d, error '%s'", rc, error_text());
	error_clear();
	free(stream);
	free(buf);
	return good;
}

/* Headers and sizes: built with build(), cut bytes off the end, then parsed. */
static const struct hcase {
	const char *what;
	uint32_t magic, major, minor, elen;
	unsigned int nr;	/* entries built */
	size_t extra, cut;	/* bytes added after the entries, cut off the end */
	const char *msg;	/* NULL: parses, to want_nr entries */
	uint64_t want_nr;
} hcases[] = {
	{ "a header cut to 15 bytes", 0xc1f1dcc1u, 1, 0, 56, 0, 0, 1,
	  "15 bytes is no LTTng index", 0 },
	{ "a header alone (16 bytes)", 0xc1f1dcc1u, 1, 0, 56, 0, 0, 0, NULL, 0 },
	{ "another magic", 0xc1f1dcc0u, 1, 0, 56, 2, 0, 0, "bad LTTng index header", 0 },
	{ "the magic little-endian", 0xc1dcf1c1u, 1, 0, 56, 2, 0, 0, "bad LTTng index header", 0 },
	{ "major version 0", 0xc1f1dcc1u, 0, 0, 56, 2, 0, 0, "bad LTTng index header", 0 },
	{ "major version 2", 0xc1f1dcc1u, 2, 0, 56, 2, 0, 0, "bad LTTng index header", 0 },
	{ "version 1.1, 72-byte entries", 0xc1f1dcc1u, 1, 1, 72, 2, 0, 0, NULL, 2 },
	{ "an unknown minor version", 0xc1f1dcc1u, 1, 7, 56, 2, 0, 0, NULL, 2 },
	{ "an entry length of 55 bytes (LTTNG_INDEX_ENTRY_MIN - 1)", 0xc1f1dcc1u, 1, 0, 55, 2,
	  0, 0, "bad LTTng index header", 0 },
	{ "an entry length of 0", 0xc1f1dcc1u, 1, 0, 0, 0, 0, 0, "bad LTTng index header", 0 },
	{ "an entry length of LTTNG_INDEX_ENTRY_MAX", 0xc1f1dcc1u, 1, 0, 4096, 2, 0, 0, NULL, 2 },
	{ "an entry length of LTTNG_INDEX_ENTRY_MAX + 1", 0xc1f1dcc1u, 1, 0, 4097, 2, 0, 0,
	  "bad LTTng index header", 0 },
	{ "the last entry one byte short", 0xc1f1dcc1u, 1, 0, 56, 3, 0, 1,
	  "bad LTTng index header", 0 },
	{ "one byte after the last entry", 0xc1f1dcc1u, 1, 0, 56, 3, 1, 0,
	  "bad LTTng index header", 0 },
	{ "a single entry cut to 55 bytes", 0xc1f1dcc1u, 1, 0, 56, 1, 0, 1,
	  "bad LTTng index header", 0 },
};

int main(void)
{
	struct lttng_index ix;
	struct lttng_index_entry e;
	unsigned char *b, *slice;
	size_t len, slen;
	uint64_t nr = 0;
	const char *path;
	char other[256];
	size_t i;
	int fd, good;

	plan(35);
	if (!mkdtemp(dir))
		return 1;

	/* the file's size */
	ok(parses(xcalloc(1, 1), 0, "0 bytes is no LTTng index", NULL), "0 bytes: refused");
	b = build(0xc1f1dcc1u, 1, 0, 56, 0, 0, 0, &len);
	ok(parses(b, (size_t)LTTNG_INDEX_FILE_MAX + 1, "268435457 bytes is no LTTng index", NULL),
	   "one byte above LTTNG_INDEX_FILE_MAX: refused before reading");
	for (i = 0; i < sizeof(hcases) / sizeof(*hcases); i++) {
		const struct hcase *h = &hcases[i];

		ok(bparses(h->magic, h->major, h->minor, h->elen, h->nr, h->extra, h->cut, h->msg,
			   &nr) && (h->msg || nr == h->want_nr), "%s: %s", h->what,
		   h->msg ? "refused" : "taken");
	}

	/* the fields of an entry */
	b = build(0xc1f1dcc1u, 1, 1, 72, 5, 8192, 0, &len);
	good = !ft_lttng_index_parse(&ix, b, len, "t.idx") && ix.major == 1 && ix.minor == 1 &&
	       ix.entry_len == 72 && ix.nr == 5;
	ok(good, "the header's fields");
	ft_lttng_index_entry(&ix, 3, &e);
	ok(e.offset == 3 * 8192 && e.packet_size == 8192 * 8 && e.content_size == 8192 * 8 - 64 &&
	   e.ts_begin == 1030 && e.ts_end == 1035 && e.discarded == 1 && e.stream_id == 7,
	   "entry 3 of a 1.1 index: every field, in its unit");
	ft_lttng_index_slice(&ix, 2, 3, 2 * 8192, &slice, &slen);
	good = slen == 16 + 3 * 72 && !memcmp(slice, b, 16);
	{
		struct lttng_index sx;
		struct lttng_index_entry f;

		good = good && !ft_lttng_index_parse(&sx, slice, slen, "slice") && sx.nr == 3;
		ft_lttng_index_entry(&sx, 0, &f);
		good = good && f.offset == 0 && f.ts_begin == 1020;
		ft_lttng_index_entry(&sx, 2, &f);
		good = good && f.offset == 2 * 8192 && f.discarded == 2 &&
		       !memcmp(slice + 16 + 2 * 72 + 8, b + 16 + 4 * 72 + 8, 64);
		ft_lttng_index_release(&sx);
	}
	ok(good, "a slice: the header kept, offsets rebased, the other bytes untouched");
	ft_lttng_index_release(&ix);

	/* files */
	b = build(0xc1f1dcc1u, 1, 0, 56, 4, 4096, 0, &len);
	path = put_file("a.idx", b, len);
	free(b);
	ok(!ft_lttng_index_read(&ix, path, "index/a.idx") && ix.nr == 4, "a file: read whole");
	ft_lttng_index_release(&ix);
	snprintf(other, sizeof(other), "%s/none.idx", dir);
	path = other;
	ok(ft_lttng_index_read(&ix, path, "index/none.idx") < 0 &&
	   strstr(error_text(), "cannot read index/none.idx"), "a missing file: its name");
	ft_lttng_index_release(&ix);
	error_clear();
	ok(ft_lttng_index_read(&ix, dir, "index") < 0 && strstr(error_text(), "index is a directory"),
	   "a directory: refused");
	ft_lttng_index_release(&ix);
	error_clear();
	snprintf(other, sizeof(other), "%s/fifo.idx", dir);
	path = other;
	mkfifo(path, 0600);
	ok(ft_lttng_index_read(&ix, path, "index/fifo.idx") < 0 &&
	   strstr(error_text(), "index/fifo.idx is a FIFO"), "a FIFO: refused, not waited on");
	ft_lttng_index_release(&ix);
	error_clear();
	snprintf(other, sizeof(other), "%s/big.idx", dir);
	path = other;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	good = fd >= 0 && !ftruncate(fd, (off_t)LTTNG_INDEX_FILE_MAX + 1);
	close(fd);
	ok(good && ft_lttng_index_read(&ix, path, "index/big.idx") < 0 &&
	   strstr(error_text(), "268435457 bytes is no LTTng index"),
	   "a (sparse) file above LTTNG_INDEX_FILE_MAX: refused by its size");
	ft_lttng_index_release(&ix);
	error_clear();
	unlink(path);
	b = build(0xc1f1dcc1u, 1, 0, 56, 0, 0, 0, &len);
	path = put_file("short.idx", b, 10);
	free(b);
	ok(ft_lttng_index_read(&ix, path, "index/short.idx") < 0 &&
	   strstr(error_text(), "10 bytes is no LTTng index"), "a 10-byte file: refused");
	ft_lttng_index_release(&ix);
	error_clear();

	/* the checker's reading of the entries */
	b = build(0xc1f1dcc1u, 1, 0, 56, 4, 4096, 0, &len);
	ok(check(b, len, 4 * 4096, 4096, NULL), "checker: 4 packets tiling the stream");
	b = build(0xc1f1dcc1u, 1, 0, 56, 2, 4096, 0, &len);
	ok(check(b, len, 4 * 4096, 4096, NULL), "checker: an index of a prefix of the stream");
	b = build(0xc1f1dcc1u, 1, 0, 56, 4, 4096, 0, &len);
	ok(check(b, len, 3 * 4096 + 100, 4096, "entry 3: a packet of 4096 bytes at byte 12288 "
		 "runs past the end of stream"), "checker: the last packet past the stream's end");
	b = build(0xc1f1dcc1u, 1, 0, 56, 4, 4096, 0, &len);
	put64(b + 16 + 2 * 56, 3 * 4096);
	ok(check(b, len, 4 * 4096, 4096, "entry 2 is inconsistent (packet at byte 12288, "
		 "expected 8192)"), "checker: a gap between packets");
	b = build(0xc1f1dcc1u, 1, 0, 56, 4, 4096, 0, &len);
	put64(b + 16 + 56 + 16, 4096 * 8 + 8);
	ok(check(b, len, 4 * 4096, 4096, "entry 1 is inconsistent"),
	   "checker: content larger than the packet");
	b = build(0xc1f1dcc1u, 1, 0, 56, 4, 4096, 0, &len);
	put64(b + 16 + 24, 2000);
	ok(check(b, len, 4 * 4096, 4096, "entry 0 is inconsistent"),
	   "checker: a packet that ends before it begins");
	b = build(0xc1f1dcc1u, 1, 0, 56, 4, 4096, 0, &len);
	put64(b + 16 + 56 + 8, 4095 * 8 + 4);
	ok(check(b, len, 4 * 4096, 4096, "entry 1 is inconsistent"),
	   "checker: a packet size not in whole bytes");
	b = build(0xc1f1dcc1u, 1, 0, 56, 4, 2048, 0, &len);
	ok(check(b, len, 4 * 4096, 4096, "no packet header at byte 2048 (entry 1 of "
		 "index/stream.idx)"), "checker: an entry pointing where no packet starts");
	b = build(0xc1f1dcc1u, 2, 0, 56, 4, 4096, 0, &len);
	ok(check(b, len, 4 * 4096, 4096, "index/stream.idx: bad LTTng index header"),
	   "checker: a version it cannot read");

	{
		struct strbuf cmd = STRBUF_INIT;

		strbuf_addf(&cmd, "rm -rf %s", dir);
		if (system(cmd.buf))
			diag("cannot remove %s", dir);
		strbuf_release(&cmd);
	}
	return done_testing();
}
