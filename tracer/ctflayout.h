/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctflayout.h - check the layout of a CTF trace's files without decoding events (used by
 * tracer/ctfcheck.c, which says why).
 *
 * CTF 1.8 packetized metadata (CTF 1.8 section 7.1.1): each packet starts with a 37-byte
 * header in the trace's byte order: magic 0x75d11d57, uuid[16], checksum, content_size and
 * packet_size (bits, header included), compression, encryption and checksum schemes (0),
 * major 1, minor 8.
 *
 * LTTng index file (index/<stream>.idx): a big-endian header (magic 0xC1F1DCC1, major 1,
 * minor, entry length), then one entry per packet of the stream, each starting with the
 * packet's offset, packet_size and content_size (bits), timestamp_begin, timestamp_end
 * (all big-endian u64).
 */
#ifndef FT_TRACER_CTFLAYOUT_H
#define FT_TRACER_CTFLAYOUT_H

#include <stdint.h>
#include <sys/stat.h>

/*
 * ctf_open_regular - open a regular file for reading: stat() first, then O_NONBLOCK and a
 * second check after the open in case it was swapped meanwhile, so a FIFO never blocks.
 * name is the path for messages; sb gets the fstat().
 * Return: the descriptor, or -1 (error set: missing, unreadable, or what it is instead).
 */
int ft_ctf_open_regular(const char *path, const char *name, struct stat *sb);

/*
 * ctf_check_metadata - the metadata file path: not empty; if packetized, whole packets
 * that tile the file with consistent headers (text metadata is left to babeltrace2's
 * parser, which fails cleanly on it). *bytes grows by the file's size. quick: only that
 * it is a non-empty regular file.
 * Return: 0, or -1 (error names the file and the damage).
 */
int ft_ctf_check_metadata(const char *path, const char *name, uint64_t *bytes, int quick);

/*
 * ctf_check_index - the index idx_path of the stream open as sfd (z bytes, named stream):
 * a valid header, entries whose packets follow each other from byte 0, lie inside the
 * stream and start with the CTF packet magic 0xC1FC1FC1 (either byte order). The entries
 * may cover only a prefix of the stream: babeltrace2 reads the indexed packets only.
 * Return: 0, or -1 (error names the entry and the damage).
 */
int ft_ctf_check_index(const char *idx_path, const char *name, int sfd, const char *stream,
		    uint64_t z);

#endif /* FT_TRACER_CTFLAYOUT_H */
