/* SPDX-License-Identifier: GPL-2.0 */
/* fuzz.h - what the libFuzzer harnesses share (header only). */
#ifndef FT_TESTS_FUZZ_H
#define FT_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (malloc'd, the caller frees): the parsers take text. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

#endif /* FT_TESTS_FUZZ_H */
