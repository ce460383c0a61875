// SPDX-License-Identifier: GPL-2.0
/* header.c - the guest runner's trace header and the UUID-less trace identity; see header.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "tracer/ctflayout.h"
#include "tracer/header.h"

/* Header keys that are also trace columns (same name). */
static const char *const columns[] = {
	"arch", "page_size", "kernel", "policy", "mem_bytes", "cpus", "workload",
	"workload_status", "clocksource", "clock", "partial", NULL
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of dir (without . and ..); Return: count, or -1. */
static int list_dir(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0, cap = 0;

	*names = NULL;
	if (!d)
		return fail("cannot read %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		XGROW(*names, cap, n + 1);
		(*names)[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)	/* *names is NULL for an empty directory */
		qsort(*names, n, sizeof(**names), cmp_str);
	return (int)n;
}

static void free_names(char **names, int n)
{
	while (n > 0)
		free(names[--n]);
	free(names);
}

int ft_header_load(struct ftdb_store *s, const char *ctf_dir, int *have_kernel, uint64_t *discarded)
{
	struct strbuf dir = STRBUF_INIT, file = STRBUF_INIT, val = STRBUF_INIT;
	struct stat sb;
	char **names;
	int i, j, n, ret = 0;

	*have_kernel = 0;
	*discarded = 0;
	strbuf_addf(&dir, "%s/header", ctf_dir);
	if (stat(dir.buf, &sb) || !S_ISDIR(sb.st_mode)) {
		strbuf_release(&dir);
		return 0;
	}
	n = list_dir(dir.buf, &names);
	if (n < 0) {
		strbuf_release(&dir);
		return -1;
	}
	for (i = 0; i < n && !ret; i++) {
		strbuf_reset(&file);
		strbuf_addf(&file, "%s/%s", dir.buf, names[i]);
		if (stat(file.buf, &sb) || !S_ISREG(sb.st_mode))
			continue;
		strbuf_reset(&val);
		if (strbuf_read_file(&val, file.buf)) {
			ret = -1;
			break;
		}
		/* one value per file: drop the trailing newlines echo adds */
		while (val.len && (val.buf[val.len - 1] == '\n' || val.buf[val.len - 1] == '\r'))
			val.buf[--val.len] = '\0';
		if (ftdb_store_meta(s, names[i], val.buf)) {
			ret = -1;
			break;
		}
		for (j = 0; columns[j]; j++)
			if (!strcmp(names[i], columns[j]) && val.len &&
			    ftdb_store_trace_column(s, columns[j], val.buf))
				ret = -1;
		if (!strcmp(names[i], "kernel") && val.len)
			*have_kernel = 1;
		if (!strcmp(names[i], "discarded_events"))
			*discarded = strtoull(val.buf, NULL, 10);
	}
	free_names(names, n);
	strbuf_release(&dir);
	strbuf_release(&file);
	strbuf_release(&val);
	if (ret)
		return fail("cannot load the trace header of %s", ctf_dir);
	return 0;
}

long long ft_header_int(const char *ctf_dir, const char *key, long long dflt)
{
	struct strbuf path = STRBUF_INIT;
	char buf[32], *end;
	long long v = dflt;
	struct stat sb;
	ssize_t n;
	int fd;

	/*
	 * Opened as the trace's own files are (ft_ctf_open_regular()), so that a FIFO or a
	 * device in a hostile header gives dflt instead of blocking ingest. A missing key is
	 * normal: the error it sets is cleared.
	 */
	strbuf_addf(&path, "%s/header/%s", ctf_dir, key);
	fd = ft_ctf_open_regular(path.buf, path.buf, &sb);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			v = strtoll(buf, &end, 10);
			if (end == buf || (*end && *end != '\n'))
				v = dflt;
		}
	}
	error_clear();
	strbuf_release(&path);
	return v;
}

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static int hash_tree(const char *root, const char *rel, uint64_t *h)
{
	struct strbuf path = STRBUF_INIT, sub = STRBUF_INIT;
	struct stat sb;
	char **names;
	int i, n, ret = 0;

	strbuf_addf(&path, "%s%s%s", root, *rel ? "/" : "", rel);
	n = list_dir(path.buf, &names);
	if (n < 0) {
		strbuf_release(&path);
		return -1;
	}
	for (i = 0; i < n && !ret; i++) {
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s%s%s", rel, *rel ? "/" : "", names[i]);
		if (!*rel && !strcmp(names[i], "header"))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", root, sub.buf);
		if (stat(path.buf, &sb))
			continue;
		if (S_ISDIR(sb.st_mode)) {
			ret = hash_tree(root, sub.buf, h);
		} else if (S_ISREG(sb.st_mode)) {
			uint64_t size = (uint64_t)sb.st_size;

			*h = fnv(*h, sub.buf, sub.len + 1);
			*h = fnv(*h, &size, sizeof(size));
		}
	}
	free_names(names, n);
	strbuf_release(&path);
	strbuf_release(&sub);
	return ret;
}

char *ft_header_files_id(const char *ctf_dir)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char buf[32];

	if (hash_tree(ctf_dir, "", &h))
		return fail_null("cannot identify the trace in %s", ctf_dir);
	snprintf(buf, sizeof(buf), "files:%016llx", (unsigned long long)h);
	return xstrdup(buf);
}
