// SPDX-License-Identifier: GPL-2.0
/* fmt.c - figures as people read them; see fmt.h. */
#include <stdio.h>

#include "lib/fmt.h"

void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.2fG", (double)b / (1ULL << 30));
	else if (b >= (1ULL << 20))
		snprintf(buf, len, "%.1fM", (double)b / (1ULL << 20));
	else if (b >= 1024)
		snprintf(buf, len, "%.0fK", (double)b / 1024);
	else
		snprintf(buf, len, "%llu", (unsigned long long)b);
}

void fmt_delta(char *buf, size_t len, uint64_t v, uint64_t base)
{
	if (!base)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", ((double)v - (double)base) * 100.0 / (double)base);
}
