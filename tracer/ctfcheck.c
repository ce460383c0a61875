// SPDX-License-Identifier: GPL-2.0
/*
 * ctfcheck.c - the checks of a CTF trace directory made before babeltrace2 reads it; see
 * ctfcheck.h for what is checked and why.
 *
 * This file walks the directories and judges the streams (present, regular, non-empty,
 * one per CPU); the metadata and index formats are checked by ctflayout.c. No file is
 * opened before stat() said it is regular (ft_ctf_open_regular()), so a FIFO never blocks.
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
#include "tracer/ctflayout.h"
#include "tracer/header.h"

#define MAX_DEPTH	8		/* directory levels searched for metadata files */

/*
 * FT_TEST_INGEST_NO_CHECK=1: skip the metadata and index checks, so tests can hand damage
 * to babeltrace2 and see the watchdog (tracer/ingest.c) catch what follows.
 */
static int layout_checks_off;

/* The path below the ingested directory, for messages. */
static const char *rel(const char *top, const char *path)
{
	size_t n = strlen(top);

	if (!strncmp(path, top, n) && path[n] == '/')
		return path + n + 1;
	return path;
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
	fd = ft_ctf_open_regular(path.buf, rel(top, path.buf), &sb);
	if (fd < 0) {
		ret = -1;
		goto out;
	}
	has_idx = !lstat(idx.buf, &isb);
	if (has_idx && !layout_checks_off)
		ret = ft_ctf_check_index(idx.buf, rel(top, idx.buf), fd, rel(top, path.buf),
				      (uint64_t)sb.st_size);
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

/* header/cpus of the ingested directory, 0 if absent, unreadable or out of range. */
static unsigned long header_cpus(const char *top)
{
	long long cpus = ft_header_int(top, "cpus", 0);

	return cpus > 0 && cpus <= 65536 ? (unsigned long)cpus : 0;
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
	if (ft_ctf_check_metadata(path.buf, rel(top, path.buf), &c->bytes, layout_checks_off))
		goto out;
	dh = opendir(dir);
	if (!dh) {
		fail("cannot read %s: %s", rel(top, dir), strerror(errno));
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
		return fail("cannot read %s: %s", dir, strerror(errno));
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

int ft_ctf_check(const char *dir, struct ctf_check *c)
{
	char *names, *p, **v = NULL;
	size_t n = 0, cap = 0, i;

	memset(c, 0, sizeof(*c));
	layout_checks_off = getenv("FT_TEST_INGEST_NO_CHECK") != NULL;
	strbuf_init(&c->missing);
	strbuf_init(&c->missing_id);
	if (walk(c, dir, dir, 0, header_cpus(dir)))
		return fail("damaged trace");
	if (!c->nr_dirs)
		return fail("no CTF trace (a directory with a metadata file) under %s", dir);
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

void ft_ctf_check_release(struct ctf_check *c)
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
		ret = fail("cannot create %s: %s", to.buf, strerror(errno));
	strbuf_release(&from);
	strbuf_release(&to);
	return ret;
}

int ft_ctf_check_shadow(const struct ctf_check *c, const char *root, char ***inputs)
{
	struct strbuf dir = STRBUF_INIT, name = STRBUF_INIT;
	char real[PATH_MAX], **v = xcalloc(c->nr_dirs + 1, sizeof(*v));
	size_t i, j;
	int ret = -1;

	for (i = 0; i < c->nr_dirs; i++) {
		const struct ctf_dir *d = &c->dirs[i];

		if (!realpath(d->path, real)) {
			fail("cannot resolve %s: %s", d->path, strerror(errno));
			goto out;
		}
		strbuf_reset(&dir);
		strbuf_addf(&dir, "%s/%zu", root, i);
		if (mkdir(dir.buf, 0700)) {
			fail("cannot create %s: %s", dir.buf, strerror(errno));
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
				fail("cannot create %s: %s", name.buf, strerror(errno));
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
