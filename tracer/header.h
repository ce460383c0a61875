/* SPDX-License-Identifier: GPL-2.0 */
/*
 * header.h - what the guest runner writes next to the CTF trace: CTF_DIR/header/<key>, one
 * value per file. Every file becomes a trace_meta row; the known keys also fill the trace
 * columns of the same name.
 */
#ifndef FT_TRACER_HEADER_H
#define FT_TRACER_HEADER_H

#include <stdint.h>

#include "db/store.h"

/*
 * header_load - store CTF_DIR/header/ in the trace being ingested. A missing header/ is not
 * an error. *have_kernel is set to 1 when the header gave the kernel release, and
 * *discarded to the header's discarded_events (0 if absent).
 * Return: 0 or -1.
 */
int ft_header_load(struct ftdb_store *s, const char *ctf_dir, int *have_kernel, uint64_t *discarded);

/* The integer in CTF_DIR/header/KEY, or dflt if the file is missing, not a regular file
 * (a FIFO is never opened) or not a number. */
long long ft_header_int(const char *ctf_dir, const char *key, long long dflt);

/*
 * header_files_id - identity of a trace without a CTF UUID: "files:" and a 64-bit hash of
 * the relative names and sizes of every file under ctf_dir except header/, in name order.
 * Return: a malloc'ed string, or NULL (error set).
 */
char *ft_header_files_id(const char *ctf_dir);

#endif /* FT_TRACER_HEADER_H */
