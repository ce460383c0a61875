// SPDX-License-Identifier: GPL-2.0
/*
 * ctfcheck.c - the checks of a CTF trace directory made before babeltrace2 reads it; see
 * ctfcheck.h for what is checked and why.
 *
 * Only file layout is read: packet headers of the metadata, index files, and the first four
 * bytes of every indexed packet (one pread per packet: about 10,000 for a 10 GB trace of
 * 1 MiB packets). No file is opened before stat() said it is regular, and every open is
 * O_NONBLOCK and checked again with fstat(), so a FIFO never blocks the check.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/outfile.h"
#include "lib/xalloc.h"
#include "tracer/ctfcheck.h"

#define MD_MAGIC	0x75d11d57u	/* CTF 1.8 packetized metadata */
#define MD_HEADER_LEN	37		/* bytes: magic, uuid[16], 4 x u32, 5 x u8 */
#define PKT_MAGIC	0xc1fc1fc1u	/* CTF stream packet header */
#define IDX_MAGIC	0xc1f1dcc1u	/* LTTng index file header, big-endian */
#define IDX_HEADER_LEN	16		/* bytes: magic, major, minor, entry length */
#define IDX_ENTRY_MIN	56		/* bytes: the 7 u64 fields of index format 1.0 */
#define IDX_ENTRY_MAX	4096		/* bytes: far above any format LTTng wrote */
#define IDX_FILE_MAX	(256u << 20)	/* bytes: 3.5 M packets */
#define MAX_DEPTH	8		/* directory levels searched for metadata files */

/*
 * FT_TEST_INGEST_NO_CHECK=1: skip the metadata and index checks, so tests can hand damage
 * to babeltrace2 and see the watchdog (tracer/ingest.c) catch what follows.
 */
static int layout_checks_off;

static uint32_t get32(const unsigned char *p, int be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] :
		    (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t get64be(const unsigned char *p)
{
	return (uint64_t)get32(p, 1) << 32 | get32(p + 4, 1);
}

/* The path below the ingested directory, for messages. */
static const char *rel(const char *top, const char *path)
{
	size_t n = strlen(top);

	if (!strncmp(path, top, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

/*
 * Open a regular file for reading: stat() first, and O_NONBLOCK with a second check after
 * the open in case it was swapped meanwhile. sb gets its fstat().
 * Return: the descriptor, or -1 (error set).
 */
static int open_regular(const char *path, const char *name, struct stat *sb)
{
	int fd;

	if (stat(path, sb))
		return error("cannot read %s: %s", name, strerror(errno));
	if (!S_ISREG(sb->st_mode))
		return error("%s is %s", name, file_kind(sb->st_mode));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open %s: %s", name, strerror(errno));
	if (fstat(fd, sb) || !S_ISREG(sb->st_mode)) {
		close(fd);
		return error("%s is not a regular file", name);
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

static int check_metadata(const char *top, const char *path, uint64_t *bytes)
{
	const char *name = rel(top, path);
	unsigned char h[MD_HEADER_LEN], uuid[16];
	uint64_t size, off;
	struct stat sb;
	int fd, be, ret = -1;

	fd = open_regular(path, name, &sb);
	if (fd < 0)
		return -1;
	size = (uint64_t)sb.st_size;
	*bytes += size;
	if (!size) {
		error("%s is empty", name);
		goto out;
	}
	if (layout_checks_off || size < 4 || read_at(fd, h, 4, 0)) {
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
			error("%s is truncated: %llu bytes of the packet header at byte %llu",
			      name, (unsigned long long)(size - off), (unsigned long long)off);
			goto out;
		}
		if (get32(h, be) != MD_MAGIC) {
			error("%s: no metadata packet header at byte %llu", name,
			      (unsigned long long)off);
			goto out;
		}
		if (!off)
			memcpy(uuid, h + 4, 16);
		else if (memcmp(uuid, h + 4, 16)) {
			error("%s: the packet at byte %llu has another trace uuid", name,
			      (unsigned long long)off);
			goto out;
		}
		content = get32(h + 24, be);	/* bits, header included */
		psize = get32(h + 28, be);	/* bits */
		if (content % 8 || psize % 8 || content < MD_HEADER_LEN * 8 || content > psize) {
			error("%s: the packet at byte %llu has bad sizes (content %u, packet %u bits)",
			      name, (unsigned long long)off, content, psize);
			goto out;
		}
		if (h[32] || h[33] || h[34] || h[35] != 1 || h[36] != 8) {
			error("%s: the packet at byte %llu is not plain CTF 1.8 metadata", name,
			      (unsigned long long)off);
			goto out;
		}
		if (psize / 8 > size - off) {
			error("%s is truncated: the packet at byte %llu is %u bytes long, the file "
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

/* The index of a stream of z bytes open as sfd: packets that tile the stream. */
static int check_index(const char *top, const char *idx_path, const char *stream_path, int sfd,
		       uint64_t z)
{
	const char *name = rel(top, idx_path);
	unsigned char *buf = NULL, m[4];
	uint64_t expect = 0, len;
	uint32_t elen;
	struct stat sb;
	size_t i, n;
	int fd, ret = -1;

	fd = open_regular(idx_path, name, &sb);
	if (fd < 0)
		return -1;
	len = (uint64_t)sb.st_size;
	if (len < IDX_HEADER_LEN || len > IDX_FILE_MAX) {
		error("%s: %llu bytes is no LTTng index", name, (unsigned long long)len);
		goto out;
	}
	buf = xmalloc(len);
	if (read_at(fd, buf, len, 0)) {
		error("cannot read %s: %s", name, errno ? strerror(errno) : "file shrank");
		goto out;
	}
	elen = get32(buf + 12, 1);
	if (get32(buf, 1) != IDX_MAGIC || get32(buf + 4, 1) != 1 || elen < IDX_ENTRY_MIN ||
	    elen > IDX_ENTRY_MAX || (len - IDX_HEADER_LEN) % elen) {
		error("%s: bad LTTng index header", name);
		goto out;
	}
	n = (len - IDX_HEADER_LEN) / elen;
	for (i = 0; i < n; i++) {
		const unsigned char *e = buf + IDX_HEADER_LEN + i * elen;
		uint64_t off = get64be(e), psize = get64be(e + 8), content = get64be(e + 16);

		if (off != expect || !psize || psize % 8 || content > psize ||
		    get64be(e + 24) > get64be(e + 32)) {
			error("%s: entry %zu is inconsistent (packet at byte %llu, expected %llu)",
			      name, i, (unsigned long long)off, (unsigned long long)expect);
			goto out;
		}
		if (psize / 8 > z - off) {
			error("%s: entry %zu: a packet of %llu bytes at byte %llu runs past the end "
			      "of %s (%llu bytes)", name, i, (unsigned long long)(psize / 8),
			      (unsigned long long)off, rel(top, stream_path), (unsigned long long)z);
			goto out;
		}
		if (read_at(sfd, m, 4, off) || (get32(m, 0) != PKT_MAGIC && get32(m, 1) != PKT_MAGIC)) {
			error("%s: no packet header at byte %llu (entry %zu of %s)",
			      rel(top, stream_path), (unsigned long long)off, i, name);
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

static void add_missing(struct ctf_check *c, const char *top, const char *path, const char *why)
{
	if (c->missing.len)
		strbuf_addstr(&c->missing, ", ");
	strbuf_addf(&c->missing, "%s (%s)", rel(top, path), why);
	c->nr_missing++;
}

static void add_stream(struct ctf_dir *d, const char *name, int indexed)
{
	size_t cap = d->cap_streams;

	XGROW(d->streams, d->cap_streams, d->nr_streams + 1);
	if (cap != d->cap_streams)
		d->indexed = xrealloc(d->indexed, d->cap_streams);
	d->indexed[d->nr_streams] = (unsigned char)indexed;
	d->streams[d->nr_streams++] = xstrdup(name);
}

/* One stream file: good (added to d), missing (noted), or damage (-1). */
static int check_stream(struct ctf_check *c, struct ctf_dir *d, const char *top,
			const char *name)
{
	struct strbuf path = STRBUF_INIT, idx = STRBUF_INIT;
	struct stat sb, isb;
	int fd, ret = 0, has_idx;

	strbuf_addf(&path, "%s/%s", d->path, name);
	strbuf_addf(&idx, "%s/index/%s.idx", d->path, name);
	if (stat(path.buf, &sb)) {
		add_missing(c, top, path.buf, errno == ENOENT ? "a dangling link" : strerror(errno));
		goto out;
	}
	if (S_ISDIR(sb.st_mode))
		goto out;	/* index/, and nothing babeltrace2 reads */
	if (!S_ISREG(sb.st_mode)) {
		add_missing(c, top, path.buf, file_kind(sb.st_mode));
		goto out;
	}
	if (!sb.st_size) {
		add_missing(c, top, path.buf, "empty");
		goto out;
	}
	fd = open_regular(path.buf, rel(top, path.buf), &sb);
	if (fd < 0) {
		ret = -1;
		goto out;
	}
	has_idx = !lstat(idx.buf, &isb);
	if (has_idx && !layout_checks_off)
		ret = check_index(top, idx.buf, path.buf, fd, (uint64_t)sb.st_size);
	if (!ret) {
		c->bytes += (uint64_t)sb.st_size;
		add_stream(d, name, has_idx);
	}
	close(fd);
out:
	strbuf_release(&path);
	strbuf_release(&idx);
	return ret;
}

static int has_name(char **names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* "chan0_12" -> channel length 5, cpu 12; Return: 0, or -1 if not <channel>_<cpu>. */
static int split_cpu(const char *name, size_t *chan_len, unsigned long *cpu)
{
	const char *u = strrchr(name, '_');
	char *end;

	if (!u || u == name || !u[1] || u[1] < '0' || u[1] > '9')
		return -1;
	errno = 0;
	*cpu = strtoul(u + 1, &end, 10);
	if (*end || errno)
		return -1;
	*chan_len = (size_t)(u - name);
	return 0;
}

/*
 * Every channel of per-CPU streams (all names <channel>_<cpu>) has one stream per CPU of
 * header/cpus: the absent ones are missing. names: every stream seen, good or not.
 */
static void check_cpus(struct ctf_check *c, const char *top, const char *dir, char **names,
		       size_t n, unsigned long cpus)
{
	struct strbuf want = STRBUF_INIT;
	unsigned long cpu, k;
	size_t i, j, len, l2;

	for (i = 0; i < n; i++)
		if (split_cpu(names[i], &len, &cpu))
			return;
	for (i = 0; i < n; i++) {
		split_cpu(names[i], &len, &cpu);
		for (j = 0; j < i; j++)
			if (!split_cpu(names[j], &l2, &cpu) && l2 == len &&
			    !strncmp(names[j], names[i], len))
				break;
		if (j < i)
			continue;	/* channel done already */
		for (k = 0; k < cpus; k++) {
			strbuf_reset(&want);
			strbuf_addf(&want, "%.*s_%lu", (int)len, names[i], k);
			if (!has_name(names, n, want.buf)) {
				char why[64];

				snprintf(why, sizeof(why), "absent, header/cpus is %lu", cpus);
				strbuf_reset(&want);
				strbuf_addf(&want, "%s/%.*s_%lu", dir, (int)len, names[i], k);
				add_missing(c, top, want.buf, why);
			}
		}
	}
	strbuf_release(&want);
}

/* header/cpus of the ingested directory, 0 if absent or unreadable. */
static unsigned long header_cpus(const char *top)
{
	struct strbuf path = STRBUF_INIT;
	unsigned long cpus = 0;
	char buf[32], *end;
	struct stat sb;
	ssize_t n;
	int fd;

	strbuf_addf(&path, "%s/header/cpus", top);
	if (!stat(path.buf, &sb) && S_ISREG(sb.st_mode)) {
		fd = open_regular(path.buf, path.buf, &sb);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0) {
				buf[n] = '\0';
				cpus = strtoul(buf, &end, 10);
				if (end == buf || (*end && *end != '\n') || cpus > 65536)
					cpus = 0;
			}
		}
	}
	error_clear();
	strbuf_release(&path);
	return cpus;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory holding a metadata file: its streams and indexes. */
static int check_dir(struct ctf_check *c, const char *top, const char *dir, unsigned long cpus)
{
	struct strbuf path = STRBUF_INIT;
	struct ctf_dir *d;
	char **seen = NULL;
	size_t nr_seen = 0, cap_seen = 0, i;
	struct dirent *de;
	DIR *dh;
	int ret = -1;

	XGROW(c->dirs, c->cap_dirs, c->nr_dirs + 1);
	d = &c->dirs[c->nr_dirs++];
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(dir);
	strbuf_addf(&path, "%s/metadata", dir);
	if (check_metadata(top, path.buf, &c->bytes))
		goto out;
	dh = opendir(dir);
	if (!dh) {
		error("cannot read %s: %s", rel(top, dir), strerror(errno));
		goto out;
	}
	/* as babeltrace2's src.ctf.fs: every entry but metadata and dot files is a stream */
	while ((de = readdir(dh))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (de->d_type == DT_DIR)
			continue;
		XGROW(seen, cap_seen, nr_seen + 1);
		seen[nr_seen++] = xstrdup(de->d_name);
	}
	closedir(dh);
	qsort(seen, nr_seen, sizeof(*seen), by_name);
	for (i = 0; i < nr_seen; i++)
		if (check_stream(c, d, top, seen[i]))
			goto out;
	/* an index without its stream: the stream was deleted */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/index", dir);
	dh = opendir(path.buf);
	while (dh && (de = readdir(dh))) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] == '.' || n < 5 || strcmp(de->d_name + n - 4, ".idx"))
			continue;
		de->d_name[n - 4] = '\0';
		if (has_name(seen, nr_seen, de->d_name))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, de->d_name);
		add_missing(c, top, path.buf, "deleted, its index is there");
		XGROW(seen, cap_seen, nr_seen + 1);
		seen[nr_seen++] = xstrdup(de->d_name);
	}
	if (dh)
		closedir(dh);
	if (cpus)
		check_cpus(c, top, dir, seen, nr_seen, cpus);
	ret = 0;
out:
	for (i = 0; i < nr_seen; i++)
		free(seen[i]);
	free(seen);
	strbuf_release(&path);
	return ret;
}

static int walk(struct ctf_check *c, const char *top, const char *dir, int depth,
		unsigned long cpus)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *de;
	struct stat sb;
	int ret = 0;
	DIR *dh;

	strbuf_addf(&path, "%s/metadata", dir);
	if (!lstat(path.buf, &sb) || errno != ENOENT) {
		strbuf_release(&path);
		return check_dir(c, top, dir, cpus);
	}
	dh = opendir(dir);
	if (!dh) {
		strbuf_release(&path);
		return error("cannot read %s: %s", dir, strerror(errno));
	}
	while (!ret && (de = readdir(dh)) && depth < MAX_DEPTH) {
		if (de->d_name[0] == '.' || (!depth && !strcmp(de->d_name, "header")))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, de->d_name);
		if (lstat(path.buf, &sb) || !S_ISDIR(sb.st_mode))
			continue;
		ret = walk(c, top, path.buf, depth + 1, cpus);
	}
	closedir(dh);
	strbuf_release(&path);
	return ret;
}

int ctf_check(const char *dir, struct ctf_check *c)
{
	char *names, *p, **v = NULL;
	size_t n = 0, cap = 0, i;

	memset(c, 0, sizeof(*c));
	layout_checks_off = getenv("FT_TEST_INGEST_NO_CHECK") != NULL;
	strbuf_init(&c->missing);
	strbuf_init(&c->missing_id);
	if (walk(c, dir, dir, 0, header_cpus(dir)))
		return error("damaged trace");
	if (!c->nr_dirs)
		return error("no CTF trace (a directory with a metadata file) under %s", dir);
	/* the identity part: names without reasons, sorted, so it does not depend on readdir */
	names = xstrdup(c->missing.buf);
	for (p = strtok(names, ","); p; p = strtok(NULL, ",")) {
		while (*p == ' ')
			p++;
		if (strchr(p, ' '))
			*strchr(p, ' ') = '\0';
		XGROW(v, cap, n + 1);
		v[n++] = p;
	}
	if (n)	/* v is NULL when nothing is missing */
		qsort(v, n, sizeof(*v), by_name);
	for (i = 0; i < n; i++)
		strbuf_addf(&c->missing_id, "%s%s", i ? "," : "", v[i]);
	free(v);
	free(names);
	return 0;
}

void ctf_check_release(struct ctf_check *c)
{
	size_t i, j;

	for (i = 0; i < c->nr_dirs; i++) {
		for (j = 0; j < c->dirs[i].nr_streams; j++)
			free(c->dirs[i].streams[j]);
		free(c->dirs[i].streams);
		free(c->dirs[i].indexed);
		free(c->dirs[i].path);
	}
	free(c->dirs);
	strbuf_release(&c->missing);
	strbuf_release(&c->missing_id);
	memset(c, 0, sizeof(*c));
}

static int link_into(const char *target_dir, const char *name, const char *link_dir,
		     const char *link_name)
{
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	int ret = 0;

	strbuf_addf(&from, "%s/%s", target_dir, name);
	strbuf_addf(&to, "%s/%s", link_dir, link_name);
	if (symlink(from.buf, to.buf))
		ret = error("cannot create %s: %s", to.buf, strerror(errno));
	strbuf_release(&from);
	strbuf_release(&to);
	return ret;
}

int ctf_check_shadow(const struct ctf_check *c, const char *root, char ***inputs)
{
	struct strbuf dir = STRBUF_INIT, name = STRBUF_INIT;
	char real[PATH_MAX], **v = xcalloc(c->nr_dirs + 1, sizeof(*v));
	size_t i, j;
	int ret = -1;

	for (i = 0; i < c->nr_dirs; i++) {
		const struct ctf_dir *d = &c->dirs[i];

		if (!realpath(d->path, real)) {
			error("cannot resolve %s: %s", d->path, strerror(errno));
			goto out;
		}
		strbuf_reset(&dir);
		strbuf_addf(&dir, "%s/%zu", root, i);
		if (mkdir(dir.buf, 0700)) {
			error("cannot create %s: %s", dir.buf, strerror(errno));
			goto out;
		}
		v[i] = xstrdup(dir.buf);
		if (link_into(real, "metadata", dir.buf, "metadata"))
			goto out;
		for (j = 0; j < d->nr_streams; j++) {
			if (link_into(real, d->streams[j], dir.buf, d->streams[j]))
				goto out;
			if (!d->indexed[j])
				continue;
			strbuf_reset(&name);
			strbuf_addf(&name, "%s/index", dir.buf);
			if (mkdir(name.buf, 0700) && errno != EEXIST) {
				error("cannot create %s: %s", name.buf, strerror(errno));
				goto out;
			}
			strbuf_reset(&name);
			strbuf_addf(&name, "index/%s.idx", d->streams[j]);
			if (link_into(real, name.buf, dir.buf, name.buf))
				goto out;
		}
	}
	ret = 0;
out:
	if (ret) {
		for (i = 0; i < c->nr_dirs; i++)
			free(v[i]);
		free(v);
		v = NULL;
	}
	*inputs = v;
	strbuf_release(&dir);
	strbuf_release(&name);
	return ret;
}
