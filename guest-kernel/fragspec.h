/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fragspec.h - the --fragment grammar, shared by the CLI (vm/runner.c, which refuses a bad
 * spec before booting) and the in-guest fragmenter (guest-kernel/ft-frag.c).
 *
 *	SPEC := order:N[,pct:P][,seed:S]
 *
 * order:N  the fragmenter keeps one page pinned in every naturally aligned block of
 *          2^(N+1) pages of the memory it takes, so no free block above order N forms
 *          there (0 <= N <= 9)
 * pct:P    the fragmenter fails unless, after fragmenting, at least P% of the free pages
 *          /proc/buddyinfo shows are in blocks of order <= N (1..100; default: no check)
 * seed:S   seed of the pinned page's offset in each block (default 1; unsigned 32-bit)
 *
 * Each key at most once: "order:3,order:9" is refused, not read as order:9.
 *
 * Header-only and libc-only: the fragmenter is a static guest program.
 */
#ifndef FT_FRAGSPEC_H
#define FT_FRAGSPEC_H

#include <stdlib.h>
#include <string.h>

struct ft_fragspec {
	int order;		/* largest free block order left in the fragmented memory */
	int pct;		/* 0: no check; else minimum % of free pages at order <= order */
	unsigned long seed;
};

/* Parse spec into f. Return: 0, or -1 with why pointing at a static message. */
static inline int ft_fragspec_parse(const char *spec, struct ft_fragspec *f, const char **why)
{
	const char *s = spec;
	int have_order = 0;
	unsigned int seen = 0;	/* bit per key: order 1, pct 2, seed 4 */

	f->order = -1;
	f->pct = 0;
	f->seed = 1;
	*why = "expected order:N[,pct:P][,seed:S]";
	while (*s) {
		unsigned long v, max;
		unsigned int key;
		char *end;
		int *ip = NULL;

		if (!strncmp(s, "order:", 6)) {
			s += 6; max = 9; ip = &f->order; have_order = 1; key = 1;
		} else if (!strncmp(s, "pct:", 4)) {
			s += 4; max = 100; ip = &f->pct; key = 2;
		} else if (!strncmp(s, "seed:", 5)) {
			s += 5; max = 0xffffffffUL; key = 4;
		} else {
			return -1;
		}
		if (seen & key) {
			*why = "order, pct and seed may each be given once";
			return -1;
		}
		seen |= key;
		if (*s < '0' || *s > '9')
			return -1;
		v = strtoul(s, &end, 10);
		if (v > max || (ip == &f->pct && v == 0)) {
			*why = "order is 0..9, pct 1..100, seed a 32-bit unsigned number";
			return -1;
		}
		if (ip)
			*ip = (int)v;
		else
			f->seed = v;
		s = end;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -1;
	}
	if (!have_order) {
		*why = "order:N is required";
		return -1;
	}
	return 0;
}

#endif /* FT_FRAGSPEC_H */
