// SPDX-License-Identifier: GPL-2.0
/* syscalls.c - the table of the traced system calls' names; see syscalls.h. */
#include <string.h>

#include "tracer/syscalls.h"

const char *const ft_syscall_names[FT_SYS_NR] = {
#define FT_SYSCALL_NAME(u, l) [FT_SYS_##u] = #l,
	FT_SYSCALLS(FT_SYSCALL_NAME)
#undef FT_SYSCALL_NAME
};

const char *ft_syscall_lookup(const char *name)
{
	unsigned int k;

	for (k = 0; name && k < FT_SYS_NR; k++)
		if (!strcmp(name, ft_syscall_names[k]))
			return ft_syscall_names[k];
	return NULL;
}
