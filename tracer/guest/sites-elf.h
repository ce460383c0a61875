/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sites-elf.h - what the call-site tracer needs from a module's ELF file: its unwind table
 * built from .eh_frame (with or without .eh_frame_hdr), its function symbols, and its load
 * segments (docs/sites.md, "Unwinding").
 *
 * Addresses here are the file's virtual addresses (p_vaddr, st_value); a module mapped
 * in a process adds its load bias (ft_elf_bias).
 */
#ifndef FT_SITES_ELF_H
#define FT_SITES_ELF_H

#include <stddef.h>
#include <stdint.h>

/*
 * One entry of the binary-search table libunwind's dwarf_search_unwind_table reads
 * (UNW_INFO_FORMAT_REMOTE_TABLE, the layout of .eh_frame_hdr's table): offsets in bytes
 * from the table's base address, sorted by start.
 */
struct ft_fde_entry {
	int32_t start;		/* first address the FDE covers, from base */
	int32_t fde;		/* the FDE's address, from base */
};

struct ft_elf {
	char *path;
	unsigned long dev, ino;		/* device and inode of the file when indexed (maps') */
	const unsigned char *image;	/* the whole file, mapped read-only */
	size_t size;			/* bytes */
	uint64_t lo, hi;		/* lowest and end of the PT_LOAD vaddrs */
	/* unwind table: from .eh_frame, sorted by start */
	uint64_t base;			/* vaddr of .eh_frame: the entries' offsets are from it */
	struct ft_fde_entry *tab;
	uint32_t *range;		/* bytes each entry's FDE covers (parallel to tab) */
	size_t nr_fde;
	uint64_t eh_vaddr;		/* .eh_frame's vaddr and size, its bytes at eh */
	size_t eh_size;
	const unsigned char *eh;
	/* function symbols (.symtab and .dynsym), sorted by address */
	struct ft_sym *syms;
	size_t nr_syms;
};

/*
 * The module at PATH, on device dev (makedev(major, minor) as maps shows it) with inode
 * ino, indexed on first use and kept; NULL if it is no readable ELF file.
 */
struct ft_elf *ft_elf_get(const char *path, unsigned long dev, unsigned long ino);

/*
 * Load bias of a module whose file offset pgoff (bytes) is mapped at start.
 * Return: 0 and *bias, or -1 if no PT_LOAD segment holds that offset.
 */
int ft_elf_bias(const struct ft_elf *e, uint64_t start, uint64_t pgoff, uint64_t *bias);

/* Return: 1 if an FDE covers vaddr (it has unwind info), else 0. */
int ft_elf_has_fde(const struct ft_elf *e, uint64_t vaddr);

/*
 * The function symbol nearest at or below vaddr, as libunwind's unw_get_proc_name chooses
 * it (STT_FUNC, defined, no size check, .symtab before .dynsym on a tie).
 * Return: its name and *off = vaddr - its address, or NULL (none, or farther than the
 * file is long).
 */
const char *ft_elf_symbol(const struct ft_elf *e, uint64_t vaddr, uint64_t *off);

#endif
