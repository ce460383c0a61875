// SPDX-License-Identifier: GPL-2.0
/* xalloc.c - checked allocation; see xalloc.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

static void *check(void *p, size_t size)
{
	if (!p && size) {
		fprintf(stderr, "foliotrace: out of memory allocating %zu bytes\n", size);
		abort();
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check(malloc(size), size);
}

void *xcalloc(size_t nmemb, size_t size)
{
	return check(calloc(nmemb, size), nmemb * size);
}

void *xrealloc(void *ptr, size_t size)
{
	return check(realloc(ptr, size), size);
}

char *xstrdup(const char *s)
{
	return check(strdup(s), strlen(s) + 1);
}

void *xgrow(void *ptr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;

	if (need <= *cap)
		return ptr;
	while (n < need)
		n *= 2;
	*cap = n;
	return xrealloc(ptr, n * elem);
}
