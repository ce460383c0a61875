// SPDX-License-Identifier: GPL-2.0
/*
 * sites-elf.c - the call-site tracer's own unwind table (tracer/guest/sites-elf.c), which
 * it builds from .eh_frame for programs linked without .eh_frame_hdr, checked against the
 * linker's: for a program that has PT_GNU_EH_FRAME, the search table ld wrote there must
 * list the same FDEs at the same addresses as ours. And symbol names against nm(1).
 * Fixtures: build/testprogs/x86_64/sites-demo-hdr (static, not PIE) and build/foliotrace
 * (PIE, dynamically linked), both built by `make`.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/tap.h"
#include "tracer/guest/sites-elf.h"

#define NR_FILES 2
static const char *const files[NR_FILES] = {
	"build/testprogs/x86_64/sites-demo-hdr",
	"build/foliotrace",
};

/* ld's table in .eh_frame_hdr, as absolute vaddr pairs; Return: entries, -1 if none. */
static long hdr_table(const struct ft_elf *e, uint64_t **start, uint64_t **fde)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->image;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->image + h->e_phoff);
	const unsigned char *p;
	uint32_t count;
	uint64_t hv;
	int32_t v[2];
	long i;

	for (i = 0; i < h->e_phnum && ph[i].p_type != PT_GNU_EH_FRAME; i++)
		;
	if (i == h->e_phnum)
		return -1;
	p = e->image + ph[i].p_offset;
	hv = ph[i].p_vaddr;	/* the table's offsets are from the header's address */
	/* version 1, eh_frame_ptr pcrel sdata4, fde_count udata4, table datarel sdata4 */
	if (p[0] != 1 || p[1] != 0x1b || p[2] != 0x03 || p[3] != 0x3b)
		return -1;
	memcpy(&count, p + 8, 4);
	*start = calloc(count + 1, sizeof(**start));
	*fde = calloc(count + 1, sizeof(**fde));
	for (i = 0; i < (long)count; i++) {
		memcpy(v, p + 12 + 8 * i, 8);
		(*start)[i] = hv + (uint64_t)(int64_t)v[0];
		(*fde)[i] = hv + (uint64_t)(int64_t)v[1];
	}
	return count;
}

/* nm's address of symbol name in file, 0 if not found */
static uint64_t nm_addr(const char *file, const char *name)
{
	char cmd[512], line[512], sym[256], type;
	unsigned long long a;
	uint64_t found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm --defined-only %s", file);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name))
			found = a;
	pclose(f);
	return found;
}

int main(void)
{
	static const char *const names[] = { "main", "map_dense", "map_sparse", "grow_buffer" };
	int i;

	plan(NR_FILES * 4 + 4);
	for (i = 0; i < NR_FILES; i++) {
		struct ft_elf *e = ft_elf_get(files[i], 0, 0);
		uint64_t *start = NULL, *fde = NULL;
		long n = -1, j, same = 0, covered = 0;

		ok(e != NULL, "%s: indexed", files[i]);
		if (e)
			n = hdr_table(e, &start, &fde);
		ok(n > 0 && e && (size_t)n == e->nr_fde,
		   "%s: %zu FDEs in .eh_frame, ld's .eh_frame_hdr lists %ld", files[i],
		   e ? e->nr_fde : 0, n);
		for (j = 0; n > 0 && e && j < n && (size_t)j < e->nr_fde; j++) {
			same += start[j] == e->base + (int64_t)e->tab[j].start &&
				fde[j] == e->base + (int64_t)e->tab[j].fde;
			covered += ft_elf_has_fde(e, start[j]);
		}
		ok(n > 0 && same == n, "%s: %ld of %ld entries at the same start and FDE address",
		   files[i], same, n);
		ok(n > 0 && covered == n, "%s: each FDE's start has unwind info (%ld of %ld)",
		   files[i], covered, n);
		free(start);
		free(fde);
	}
	for (i = 0; i < 4; i++) {
		struct ft_elf *e = ft_elf_get(files[0], 0, 0);
		uint64_t a = nm_addr(files[0], names[i]), off = 0;
		const char *got = e && a ? ft_elf_symbol(e, a + 3, &off) : NULL;

		ok(a && got && !strcmp(got, names[i]) && off == 3,
		   "%s+3 (nm: %#llx) is named %s+%llu", names[i], (unsigned long long)a,
		   got ? got : "(none)", (unsigned long long)off);
	}
	return done_testing();
}
