/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmt.h - figures as people read them in tables and reports: byte counts in binary units,
 * changes in percent.
 */
#ifndef FT_LIB_FMT_H
#define FT_LIB_FMT_H

#include <stddef.h>
#include <stdint.h>

/* "12.3M", "512K", "17" for a byte count (binary units). */
void fmt_bytes(char *buf, size_t len, uint64_t bytes);
/* "-70.1%" change of v against base; "-" if base is 0. */
void fmt_delta(char *buf, size_t len, uint64_t v, uint64_t base);

#endif /* FT_LIB_FMT_H */
