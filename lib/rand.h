/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rand.h - a small pseudo-random sequence (xorshift64*) from a caller's state, for what must
 * repeat from a fixed seed: replay/synth.c's SYNTHETIC streams, the resamples of
 * rp_cost_fit_host_spread(). Not for anything that needs unpredictability.
 */
#ifndef FT_LIB_RAND_H
#define FT_LIB_RAND_H

#include <stdint.h>

/* The next value of the sequence of state *s (which must not be 0), advancing it. */
static inline uint64_t ft_rand64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* A value in [0, n) from *s (0 when n is 0); the modulo's bias is negligible for small n. */
static inline uint64_t ft_rand_below(uint64_t *s, uint64_t n)
{
	return n ? ft_rand64(s) % n : 0;
}

#endif /* FT_LIB_RAND_H */
