/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedir.h - where a guest run's share (its CTF trace, header, output) is kept: beside
 * the database, in DB.ctf/<UTC time>-<arch>-<policy>-<tag>/ (record, guest replay).
 */
#ifndef FT_VM_TRACEDIR_H
#define FT_VM_TRACEDIR_H

#include "lib/strbuf.h"

/*
 * vm_share_check - the paths a guest run shares, checked before anything is created or
 * booted (record, guest replay): run.sh gets the absolute form of DB.ctf/... (the working
 * directory and db) and of the root filesystem as `-virtfs local,path=P,...`, whose option
 * list a comma would split, and writes paths into its files line by line. Refused: an
 * empty db, a comma or newline in the absolute db path, a newline in the working directory,
 * an empty rootfs (run.sh's `cd ""` would share the current directory as the root), a comma
 * or whitespace in rootfs (NULL: none). Return: 0, or fail() naming the path.
 */
int vm_share_check(const char *db, const char *rootfs);

/* Append "DB.ctf" to dir and create it if missing. Return: 0 or fail(). */
int vm_ctf_dir(struct strbuf *dir, const char *db);

/*
 * Append DB.ctf/<time>-<arch>-<policy>-<tag> to dir (characters outside [A-Za-z0-9.-]
 * become '_'; ".N" added if two runs start in the same second) and create it empty.
 * Return: 0 or fail().
 */
int vm_new_trace_dir(struct strbuf *dir, const char *db, const char *arch, const char *policy,
		     const char *tag);

/*
 * Remove a trace directory a failed run left with nothing but the runner's run_error, and
 * DB.ctf if that leaves it empty: a failed attempt leaves no directory behind. A directory
 * holding anything else (a trace, a console log) is kept.
 */
void vm_discard_trace_dir(const char *dir, const char *db);

#endif /* FT_VM_TRACEDIR_H */
