/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctfcheck.h - check a CTF trace directory before babeltrace2 reads it.
 *
 * babeltrace2 2.0.4 trusts its input: a packet of packetized metadata longer than the file
 * makes its metadata decoder spin forever, and an LTTng index entry pointing past its stream
 * file trips an assertion (abort). What can be checked from the file layout alone is checked
 * before it reads anything:
 *
 *  - the metadata and LTTng index files (formats and checks in tracer/ctflayout.h);
 *  - the streams: every entry of a CTF directory but metadata, dot files and directories is
 *    a stream (as for babeltrace2's src.ctf.fs), and must be a regular non-empty file (never
 *    opened otherwise: a FIFO would block); every index has its stream; and LTTng's per-CPU
 *    streams (all names <channel>_<cpu>) number one per CPU of the header's cpu count
 *    (header/cpus) in each channel.
 *
 * Damage is refused (-1). A missing, empty or non-regular per-CPU stream is not damage but
 * an incomplete trace: it is listed in ctf_check.missing and left out of ctf_check's good
 * streams, so the caller decides (ingest refuses it unless asked to store it partial).
 */
#ifndef FT_TRACER_CTFCHECK_H
#define FT_TRACER_CTFCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/strbuf.h"

/* One CTF directory (a directory holding a metadata file) of the trace. */
struct ctf_dir {
	char *path;		/* the directory, as found under the ingested one */
	char **streams;		/* names of the stream files that passed, in name order */
	unsigned char *indexed;	/* per stream: 1 if index/<name>.idx exists (and passed) */
	size_t nr_streams, cap_streams;
};

struct ctf_check {
	struct ctf_dir *dirs;
	size_t nr_dirs, cap_dirs;
	struct strbuf missing;	/* streams left out, "trace/kernel/chan0_1 (empty), ..." */
	struct strbuf missing_id; /* the same, names only, sorted: part of a partial's identity */
	unsigned int nr_missing;
	uint64_t bytes;		/* metadata and stream bytes, for the watchdog's limit */
};

/*
 * ctf_check - check every CTF directory under dir (header/ aside, at most 8 levels deep).
 * Return: 0 (c filled; c->nr_missing streams are missing), or -1 (fail() names the damage
 * or the missing trace). Release c either way.
 */
int ft_ctf_check(const char *dir, struct ctf_check *c);
void ft_ctf_check_release(struct ctf_check *c);

/*
 * ctf_check_shadow - make under root (an existing empty directory) one directory per CTF
 * directory holding symbolic links to its metadata, its good streams and their indexes
 * only, so babeltrace2 reads exactly what passed. *inputs gets a malloc'ed array of the
 * new directories (free each and the array).
 * Return: 0 or -1.
 */
int ft_ctf_check_shadow(const struct ctf_check *c, const char *root, char ***inputs);

#endif /* FT_TRACER_CTFCHECK_H */
