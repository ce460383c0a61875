/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rng.h - the unit tests' random numbers (header only): xorshift64, one fixed seed per
 * test (set rng before the first rnd()), so a failure replays exactly.
 */
#ifndef FT_TESTS_RNG_H
#define FT_TESTS_RNG_H

#include <stdint.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;	/* the state; never 0 */

static inline uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#endif /* FT_TESTS_RNG_H */
