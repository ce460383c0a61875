/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedir.h - where a guest run's share (its CTF trace, header, output) is kept: beside
 * the database, in DB.ctf/<UTC time>-<arch>-<policy>-<tag>/ (record, guest replay).
 */
#ifndef FT_CLI_TRACEDIR_H
#define FT_CLI_TRACEDIR_H

#include "lib/strbuf.h"

/* Append "DB.ctf" to dir and create it if missing. Return: 0 or fail(). */
int ft_ctf_dir(struct strbuf *dir, const char *db);

/*
 * Append DB.ctf/<time>-<arch>-<policy>-<tag> to dir (characters outside [A-Za-z0-9.-]
 * become '_'; ".N" added if two runs start in the same second) and create it empty.
 * Return: 0 or fail().
 */
int ft_new_trace_dir(struct strbuf *dir, const char *db, const char *arch, const char *policy,
		     const char *tag);

/*
 * Remove a trace directory a failed run left with nothing but the runner's run_error, and
 * DB.ctf if that leaves it empty: a failed attempt leaves no directory behind. A directory
 * holding anything else (a trace, a console log) is kept.
 */
void ft_discard_trace_dir(const char *dir, const char *db);

#endif /* FT_CLI_TRACEDIR_H */
