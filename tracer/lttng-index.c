// SPDX-License-Identifier: GPL-2.0
/*
 * lttng-index.c - read LTTng index files; see lttng-index.h for the format and limits.
 * The whole file is read at once: 16 bytes plus 56 to 72 per packet, a few hundred KiB for
 * a 10 GB trace of 1 MiB packets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "tracer/ctflayout.h"
#include "tracer/lttng-index.h"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void put_be64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

int ft_lttng_index_parse(struct lttng_index *ix, unsigned char *buf, size_t len,
		      const char *name)
{
	memset(ix, 0, sizeof(*ix));
	ix->buf = buf;
	ix->len = len;
	if (len < LTTNG_INDEX_HEADER_LEN || len > LTTNG_INDEX_FILE_MAX)
		return fail("%s: %llu bytes is no LTTng index", name, (unsigned long long)len);
	ix->major = be32(buf + 4);
	ix->minor = be32(buf + 8);
	ix->entry_len = be32(buf + 12);
	if (be32(buf) != LTTNG_INDEX_MAGIC || ix->major != 1 ||
	    ix->entry_len < LTTNG_INDEX_ENTRY_MIN || ix->entry_len > LTTNG_INDEX_ENTRY_MAX ||
	    (len - LTTNG_INDEX_HEADER_LEN) % ix->entry_len)
		return fail("%s: bad LTTng index header", name);
	ix->nr = (len - LTTNG_INDEX_HEADER_LEN) / ix->entry_len;
	return 0;
}

int ft_lttng_index_read(struct lttng_index *ix, const char *path, const char *name)
{
	unsigned char *buf;
	struct stat sb;
	uint64_t len;
	int fd, ret;

	memset(ix, 0, sizeof(*ix));
	fd = ft_ctf_open_regular(path, name, &sb);
	if (fd < 0)
		return -1;
	len = (uint64_t)sb.st_size;
	if (len < LTTNG_INDEX_HEADER_LEN || len > LTTNG_INDEX_FILE_MAX) {
		close(fd);
		return fail("%s: %llu bytes is no LTTng index", name, (unsigned long long)len);
	}
	buf = xmalloc(len);
	errno = 0;
	if (ft_ctf_read_at(fd, buf, len, 0)) {
		ret = errno;
		close(fd);
		free(buf);
		return fail("cannot read %s: %s", name, ret ? strerror(ret) : "file shrank");
	}
	close(fd);
	return ft_lttng_index_parse(ix, buf, len, name);
}

void ft_lttng_index_entry(const struct lttng_index *ix, uint64_t i, struct lttng_index_entry *e)
{
	const unsigned char *p = ix->buf + LTTNG_INDEX_HEADER_LEN + i * ix->entry_len;

	e->offset = be64(p);
	e->packet_size = be64(p + 8);
	e->content_size = be64(p + 16);
	e->ts_begin = be64(p + 24);
	e->ts_end = be64(p + 32);
	e->discarded = be64(p + 40);
	e->stream_id = be64(p + 48);
}

void ft_lttng_index_slice(const struct lttng_index *ix, uint64_t first, uint64_t nr,
		       uint64_t rebase, unsigned char **out, size_t *len)
{
	const unsigned char *from = ix->buf + LTTNG_INDEX_HEADER_LEN + first * ix->entry_len;
	uint64_t i;

	*len = LTTNG_INDEX_HEADER_LEN + nr * ix->entry_len;
	*out = xmalloc(*len);
	memcpy(*out, ix->buf, LTTNG_INDEX_HEADER_LEN);
	memcpy(*out + LTTNG_INDEX_HEADER_LEN, from, nr * ix->entry_len);
	for (i = 0; i < nr; i++) {
		unsigned char *e = *out + LTTNG_INDEX_HEADER_LEN + i * ix->entry_len;

		put_be64(e, be64(e) - rebase);
	}
}

void ft_lttng_index_release(struct lttng_index *ix)
{
	free(ix->buf);
	memset(ix, 0, sizeof(*ix));
}
