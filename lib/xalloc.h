/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xalloc.h - allocation that cannot return NULL. Out of memory aborts with a message: no
 * code path of this project can do anything useful without the memory it asked for, and
 * checking every small allocation would hide the real error handling.
 */
#ifndef FT_LIB_XALLOC_H
#define FT_LIB_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);

/* Grow an array *ptr of *cap elements of size elem so it holds at least need elements. */
void *xgrow(void *ptr, size_t *cap, size_t need, size_t elem);
#define XGROW(ptr, cap, need) ((ptr) = xgrow((ptr), &(cap), (need), sizeof(*(ptr))))

#endif /* FT_LIB_XALLOC_H */
