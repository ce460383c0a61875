// SPDX-License-Identifier: GPL-2.0
/*
 * ctflayout.c - the two file formats checked before babeltrace2 reads a trace: CTF 1.8
 * packetized metadata and LTTng index files; see ctflayout.h.
 *
 * Only headers are read: the metadata's packet headers, the index file, and the first four
 * bytes of every indexed packet (one pread per packet: about 10,000 for a 10 GB trace of
 * 1 MiB packets).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/outfile.h"
#include "lib/xalloc.h"
#include "tracer/ctflayout.h"

#define MD_MAGIC	0x75d11d57u	/* CTF 1.8 packetized metadata */
#define MD_HEADER_LEN	37		/* bytes: magic, uuid[16], 4 x u32, 5 x u8 */
#define PKT_MAGIC	0xc1fc1fc1u	/* CTF stream packet header */
#define IDX_MAGIC	0xc1f1dcc1u	/* LTTng index file header, big-endian */
#define IDX_HEADER_LEN	16		/* bytes: magic, major, minor, entry length */
#define IDX_ENTRY_MIN	56		/* bytes: the 7 u64 fields of index format 1.0 */
#define IDX_ENTRY_MAX	4096		/* bytes: far above any format LTTng wrote */
#define IDX_FILE_MAX	(256u << 20)	/* bytes: 3.5 M packets */

static uint32_t get32(const unsigned char *p, int be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] :
		    (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t get64be(const unsigned char *p)
{
	return (uint64_t)get32(p, 1) << 32 | get32(p + 4, 1);
}

int ft_ctf_open_regular(const char *path, const char *name, struct stat *sb)
{
	int fd;

	if (stat(path, sb))
		return fail("cannot read %s: %s", name, strerror(errno));
	if (!S_ISREG(sb->st_mode))
		return fail("%s is %s", name, file_kind(sb->st_mode));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open %s: %s", name, strerror(errno));
	if (fstat(fd, sb) || !S_ISREG(sb->st_mode)) {
		close(fd);
		return fail("%s is not a regular file", name);
	}
	return fd;
}

/* Read len bytes at off; Return: 0, or -1 if the file is shorter or unreadable. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int ft_ctf_check_metadata(const char *path, const char *name, uint64_t *bytes, int quick)
{
	unsigned char h[MD_HEADER_LEN], uuid[16];
	uint64_t size, off;
	struct stat sb;
	int fd, be, ret = -1;

	fd = ft_ctf_open_regular(path, name, &sb);
	if (fd < 0)
		return -1;
	size = (uint64_t)sb.st_size;
	*bytes += size;
	if (!size) {
		fail("%s is empty", name);
		goto out;
	}
	if (quick || size < 4 || read_at(fd, h, 4, 0)) {
		ret = 0;	/* text metadata: babeltrace2's parser fails cleanly on it */
		goto out;
	}
	if (get32(h, 0) == MD_MAGIC)
		be = 0;
	else if (get32(h, 1) == MD_MAGIC)
		be = 1;
	else {
		ret = 0;
		goto out;
	}
	for (off = 0; off < size;) {
		uint32_t content, psize;

		if (size - off < MD_HEADER_LEN || read_at(fd, h, MD_HEADER_LEN, off)) {
			fail("%s is truncated: %llu bytes of the packet header at byte %llu",
			      name, (unsigned long long)(size - off), (unsigned long long)off);
			goto out;
		}
		if (get32(h, be) != MD_MAGIC) {
			fail("%s: no metadata packet header at byte %llu", name,
			      (unsigned long long)off);
			goto out;
		}
		if (!off)
			memcpy(uuid, h + 4, 16);
		else if (memcmp(uuid, h + 4, 16)) {
			fail("%s: the packet at byte %llu has another trace uuid", name,
			      (unsigned long long)off);
			goto out;
		}
		content = get32(h + 24, be);	/* bits, header included */
		psize = get32(h + 28, be);	/* bits */
		if (content % 8 || psize % 8 || content < MD_HEADER_LEN * 8 || content > psize) {
			fail("%s: the packet at byte %llu has bad sizes (content %u, packet %u bits)",
			      name, (unsigned long long)off, content, psize);
			goto out;
		}
		if (h[32] || h[33] || h[34] || h[35] != 1 || h[36] != 8) {
			fail("%s: the packet at byte %llu is not plain CTF 1.8 metadata", name,
			      (unsigned long long)off);
			goto out;
		}
		if (psize / 8 > size - off) {
			fail("%s is truncated: the packet at byte %llu is %u bytes long, the file "
			      "ends %llu bytes after its start", name, (unsigned long long)off,
			      psize / 8, (unsigned long long)(size - off));
			goto out;
		}
		off += psize / 8;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

int ft_ctf_check_index(const char *idx_path, const char *name, int sfd, const char *stream,
		    uint64_t z)
{
	unsigned char *buf = NULL, m[4];
	uint64_t expect = 0, len;
	uint32_t elen;
	struct stat sb;
	size_t i, n;
	int fd, ret = -1;

	fd = ft_ctf_open_regular(idx_path, name, &sb);
	if (fd < 0)
		return -1;
	len = (uint64_t)sb.st_size;
	if (len < IDX_HEADER_LEN || len > IDX_FILE_MAX) {
		fail("%s: %llu bytes is no LTTng index", name, (unsigned long long)len);
		goto out;
	}
	buf = xmalloc(len);
	if (read_at(fd, buf, len, 0)) {
		fail("cannot read %s: %s", name, errno ? strerror(errno) : "file shrank");
		goto out;
	}
	elen = get32(buf + 12, 1);
	if (get32(buf, 1) != IDX_MAGIC || get32(buf + 4, 1) != 1 || elen < IDX_ENTRY_MIN ||
	    elen > IDX_ENTRY_MAX || (len - IDX_HEADER_LEN) % elen) {
		fail("%s: bad LTTng index header", name);
		goto out;
	}
	n = (len - IDX_HEADER_LEN) / elen;
	for (i = 0; i < n; i++) {
		const unsigned char *e = buf + IDX_HEADER_LEN + i * elen;
		uint64_t off = get64be(e), psize = get64be(e + 8), content = get64be(e + 16);

		if (off != expect || !psize || psize % 8 || content > psize ||
		    get64be(e + 24) > get64be(e + 32)) {
			fail("%s: entry %zu is inconsistent (packet at byte %llu, expected %llu)",
			      name, i, (unsigned long long)off, (unsigned long long)expect);
			goto out;
		}
		if (psize / 8 > z - off) {
			fail("%s: entry %zu: a packet of %llu bytes at byte %llu runs past the end "
			      "of %s (%llu bytes)", name, i, (unsigned long long)(psize / 8),
			      (unsigned long long)off, stream, (unsigned long long)z);
			goto out;
		}
		if (read_at(sfd, m, 4, off) || (get32(m, 0) != PKT_MAGIC && get32(m, 1) != PKT_MAGIC)) {
			fail("%s: no packet header at byte %llu (entry %zu of %s)",
			      stream, (unsigned long long)off, i, name);
			goto out;
		}
		expect = off + psize / 8;
	}
	/* a prefix is fine: babeltrace2 reads the indexed packets only */
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}
