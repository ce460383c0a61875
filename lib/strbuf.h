/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strbuf.h - growable NUL-terminated string buffer.
 *
 * Invariants: buf is never NULL after strbuf_init(); buf[len] == '\0'; len < alloc unless
 * alloc == 0 (then buf points at a shared empty string and must not be written).
 */
#ifndef FT_LIB_STRBUF_H
#define FT_LIB_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;	/* contents, NUL-terminated */
	size_t len;	/* bytes used, excluding the NUL */
	size_t alloc;	/* bytes allocated, 0 if buf is the shared empty string */
};

#define STRBUF_INIT { .buf = strbuf_empty, .len = 0, .alloc = 0 }
extern char strbuf_empty[];

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Append s quoted as a JSON string (with the quotes). The result is always valid UTF-8:
 * each byte of s that is not part of a well-formed UTF-8 sequence becomes \ufffd.
 */
void strbuf_add_json_str(struct strbuf *sb, const char *s);
/*
 * Append s with its control characters (below 0x20, and 0x7f) escaped as "\n", "\t",
 * "\r" or "\xHH", so text from a trace (a symbol name holding ESC, a newline) prints as
 * one line and cannot drive a terminal. Other bytes as they are.
 */
void strbuf_add_escaped(struct strbuf *sb, const char *s);
/* Read a whole file; Return: 0, or fail() naming the file. */
int strbuf_read_file(struct strbuf *sb, const char *path);
/* Detach the buffer; the caller frees it. */
char *strbuf_detach(struct strbuf *sb);

#endif /* FT_LIB_STRBUF_H */
