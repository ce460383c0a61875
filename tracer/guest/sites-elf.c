// SPDX-License-Identifier: GPL-2.0
/*
 * sites-elf.c - a module's unwind table and function symbols, read once from its ELF file
 * for the call-site tracer (docs/sites.md, "Unwinding").
 *
 * The unwind table is built from the .eh_frame section itself, not from .eh_frame_hdr:
 * `gcc -static` links without --eh-frame-hdr, so a plain static program has no
 * PT_GNU_EH_FRAME and libunwind-ptrace, which only looks there, finds no unwind info for
 * it. Every CIE and FDE of .eh_frame is walked (the format of the LSB's "Exception Frames"
 * section) and each FDE's start address decoded with its CIE's 'R' pointer encoding; the
 * table has the layout of .eh_frame_hdr's search table, so libunwind's own
 * dwarf_search_unwind_table() reads it. Symbols are indexed once per module, sorted, and
 * looked up by binary search (libunwind scans the whole symbol table and maps the file
 * again for every frame it names).
 *
 * Tuned for a few dozen modules per run, each indexed once: the file is mapped read-only
 * and kept mapped (names and .eh_frame bytes point into it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sites-elf.h"

#define MAX_ELFS	256	/* modules indexed per run; more are not unwound */

struct ft_sym {
	uint64_t addr;		/* st_value */
	const char *name;	/* in the mapped file's string table */
	uint32_t order;		/* position in the file's symbol tables: earlier wins a tie */
};

static struct ft_elf *elfs[MAX_ELFS];
static int nr_elfs;

/* DWARF pointer encodings (DW_EH_PE_*) */
#define PE_OMIT		0xff
#define PE_FORMAT	0x0f
#define PE_APPL		0x70
#define PE_PCREL	0x10

static uint64_t uleb(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	int shift = 0;

	while (*p < end) {
		unsigned char b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t sleb(const unsigned char **p, const unsigned char *end)
{
	int64_t v = 0;
	int shift = 0;
	unsigned char b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			v |= (int64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

/* Read a size-byte integer at *q (sign-extended if is_signed); Return: 0, or -1 past end. */
static int fixed(const unsigned char **q, const unsigned char *end, int size, int is_signed,
		 uint64_t *x)
{
	uint16_t u16;
	uint32_t u32;

	if (end - *q < size)
		return -1;
	switch (size) {
	case 2:
		memcpy(&u16, *q, 2);
		*x = is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
		break;
	case 4:
		memcpy(&u32, *q, 4);
		*x = is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
		break;
	default:
		memcpy(x, *q, 8);
		break;
	}
	*q += size;
	return 0;
}

/*
 * Read a pointer encoded as enc at *p, the field's own vaddr being at.
 * Return: 0 and *v, or -1 for an encoding we do not decode (text/data/func-relative).
 */
static int read_encoded(unsigned char enc, const unsigned char **p, const unsigned char *end,
			uint64_t at, uint64_t *v)
{
	const unsigned char *q = *p;
	uint64_t x;

	switch (enc & PE_FORMAT) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		if (fixed(&q, end, 8, 0, &x))
			return -1;
		break;
	case 0x02: /* udata2 */
	case 0x0a: /* sdata2 */
		if (fixed(&q, end, 2, enc & 0x08, &x))
			return -1;
		break;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		if (fixed(&q, end, 4, enc & 0x08, &x))
			return -1;
		break;
	case 0x01:
		x = uleb(&q, end);
		break;
	case 0x09:
		x = (uint64_t)sleb(&q, end);
		break;
	default:
		return -1;
	}
	switch (enc & PE_APPL) {
	case 0:
		break;
	case PE_PCREL:
		x += at;
		break;
	default:
		return -1;
	}
	*p = q;
	*v = x;
	return 0;
}

/*
 * The FDE pointer encoding of the CIE at offset off of .eh_frame ('R' in its augmentation;
 * absptr without). Return: the encoding, or -1 if the CIE cannot be read.
 */
static int cie_encoding(const struct ft_elf *e, size_t off)
{
	const unsigned char *p, *end;
	const char *aug;
	uint32_t len, id;
	uint64_t skip;

	if (off + 8 > e->eh_size)
		return -1;
	memcpy(&len, e->eh + off, 4);
	memcpy(&id, e->eh + off + 4, 4);
	if (len == 0xffffffff || id != 0 || len > e->eh_size - off - 4)
		return -1;
	p = e->eh + off + 8;
	end = e->eh + off + 4 + len;
	if (p >= end)
		return -1;
	p++;					/* version */
	aug = (const char *)p;
	p = memchr(p, 0, (size_t)(end - p));
	if (!p)
		return -1;
	p++;
	if (aug[0] != 'z')
		return aug[0] ? -1 : 0x00;	/* "eh" and other old forms: not decoded */
	uleb(&p, end);				/* code alignment */
	sleb(&p, end);				/* data alignment */
	if (aug[-1] == 1)			/* the version byte before the string */
		p++;				/* return address register, one byte */
	else
		uleb(&p, end);
	uleb(&p, end);				/* augmentation data length */
	for (aug++; *aug; aug++) {
		if (p >= end)
			return -1;
		switch (*aug) {
		case 'R':
			return *p;
		case 'L':
			p++;
			break;
		case 'P': {
			unsigned char penc = *p++;

			if (read_encoded(penc & ~PE_APPL, &p, end, 0, &skip))
				return -1;
			break;
		}
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			return -1;
		}
	}
	return 0x00;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct ft_fde_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Walk .eh_frame and build e->tab: one entry per FDE that covers at least one byte. */
static int index_eh_frame(struct ft_elf *e)
{
	size_t off = 0, cap = 0, n = 0;
	size_t last_cie = (size_t)-1;
	int enc = -1;
	struct { struct ft_fde_entry t; uint32_t range; } *v = NULL;
	size_t i;

	while (off + 4 <= e->eh_size) {
		uint32_t len, cie_ptr;
		size_t rec = off + 4, next;
		const unsigned char *p, *end;
		uint64_t start, range;

		memcpy(&len, e->eh + off, 4);
		if (len == 0) {			/* a terminator (crtend's) or padding */
			off += 4;
			continue;
		}
		if (len == 0xffffffff || len > e->eh_size - rec)
			break;			/* 64-bit DWARF: never emitted for .eh_frame */
		next = rec + len;
		memcpy(&cie_ptr, e->eh + rec, 4);
		if (cie_ptr == 0 || cie_ptr > rec) {	/* a CIE, or a pointer out of range */
			off = next;
			continue;
		}
		if (rec - cie_ptr != last_cie) {
			last_cie = rec - cie_ptr;
			enc = cie_encoding(e, last_cie);
		}
		p = e->eh + rec + 4;
		end = e->eh + next;
		if (enc < 0 || enc == PE_OMIT ||
		    read_encoded((unsigned char)enc, &p, end, e->eh_vaddr + (size_t)(p - e->eh), &start) ||
		    read_encoded((unsigned char)(enc & PE_FORMAT), &p, end, 0, &range) ||
		    !range || range > UINT32_MAX) {
			off = next;
			continue;
		}
		/* the table's offsets are 32-bit from .eh_frame (as in .eh_frame_hdr) */
		if ((int64_t)(start - e->base) != (int32_t)(start - e->base) ||
		    (int64_t)(e->eh_vaddr + off - e->base) != (int32_t)(e->eh_vaddr + off - e->base)) {
			off = next;
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				return -1;
		}
		v[n].t.start = (int32_t)(start - e->base);
		v[n].t.fde = (int32_t)(e->eh_vaddr + off - e->base);
		v[n].range = (uint32_t)range;
		n++;
		off = next;
	}
	/* sort the pairs by start, keeping each range with its entry */
	qsort(v, n, sizeof(*v), cmp_fde);
	e->tab = malloc((n ? n : 1) * sizeof(*e->tab));
	e->range = malloc((n ? n : 1) * sizeof(*e->range));
	if (!e->tab || !e->range) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		e->tab[i] = v[i].t;
		e->range[i] = v[i].range;
	}
	e->nr_fde = n;
	free(v);
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ft_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Index the defined STT_FUNC symbols of .symtab and .dynsym, in section order. */
static int index_symbols(struct ft_elf *e, const Elf64_Shdr *sh, unsigned nr_sh)
{
	size_t n = 0, cap = 0, i, j;
	uint32_t order = 0;

	for (i = 0; i < nr_sh; i++) {
		const Elf64_Shdr *s = &sh[i], *strs;

		if (s->sh_type != SHT_SYMTAB && s->sh_type != SHT_DYNSYM)
			continue;
		if (s->sh_link >= nr_sh || s->sh_entsize < sizeof(Elf64_Sym) ||
		    s->sh_offset > e->size || s->sh_size > e->size - s->sh_offset)
			continue;
		strs = &sh[s->sh_link];
		if (strs->sh_offset > e->size || strs->sh_size > e->size - strs->sh_offset)
			continue;
		for (j = 0; j < s->sh_size / s->sh_entsize; j++) {
			const Elf64_Sym *y = (const Elf64_Sym *)(e->image + s->sh_offset +
								   j * s->sh_entsize);

			order++;
			/* SHN_ABS symbols are not rebased by libunwind: none is a function */
			if (ELF64_ST_TYPE(y->st_info) != STT_FUNC || y->st_shndx == SHN_UNDEF ||
			    y->st_shndx == SHN_ABS || y->st_name >= strs->sh_size)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				e->syms = realloc(e->syms, cap * sizeof(*e->syms));
				if (!e->syms)
					return -1;
			}
			e->syms[n].addr = y->st_value;
			e->syms[n].name = (const char *)e->image + strs->sh_offset + y->st_name;
			e->syms[n].order = order;
			n++;
		}
	}
	qsort(e->syms, n, sizeof(*e->syms), cmp_sym);
	e->nr_syms = n;
	return 0;
}

/* Section headers of the image, checked against its size; NULL if there are none. */
static const Elf64_Shdr *sections(const struct ft_elf *e, unsigned *nr)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->image;

	if (!h->e_shoff || h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shoff > e->size ||
	    (uint64_t)h->e_shnum * sizeof(Elf64_Shdr) > e->size - h->e_shoff)
		return NULL;
	*nr = h->e_shnum;
	return (const Elf64_Shdr *)(e->image + h->e_shoff);
}

static int load(struct ft_elf *e)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->image;
	const Elf64_Phdr *ph;
	const Elf64_Shdr *sh;
	unsigned nr_sh = 0, i;

	if (e->size < sizeof(*h) || memcmp(h->e_ident, ELFMAG, SELFMAG) ||
	    h->e_ident[EI_CLASS] != ELFCLASS64 || h->e_phentsize != sizeof(Elf64_Phdr) ||
	    h->e_phoff > e->size || (uint64_t)h->e_phnum * sizeof(*ph) > e->size - h->e_phoff)
		return -1;
	ph = (const Elf64_Phdr *)(e->image + h->e_phoff);
	e->lo = UINT64_MAX;
	for (i = 0; i < h->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr < e->lo)
			e->lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > e->hi)
			e->hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	if (e->lo >= e->hi)
		return -1;
	sh = sections(e, &nr_sh);
	if (!sh)
		return 0;	/* no sections: no unwind info, no names */
	if (h->e_shstrndx < nr_sh) {
		const Elf64_Shdr *strs = &sh[h->e_shstrndx];

		for (i = 0; i < nr_sh && strs->sh_offset <= e->size &&
			    strs->sh_size <= e->size - strs->sh_offset; i++) {
			const char *name = (const char *)e->image + strs->sh_offset + sh[i].sh_name;

			if (sh[i].sh_name + sizeof(".eh_frame") > strs->sh_size ||
			    strcmp(name, ".eh_frame") || sh[i].sh_type != SHT_PROGBITS ||
			    sh[i].sh_offset > e->size || sh[i].sh_size > e->size - sh[i].sh_offset)
				continue;
			e->eh_vaddr = sh[i].sh_addr;
			e->eh_size = sh[i].sh_size;
			e->eh = e->image + sh[i].sh_offset;
			e->base = e->eh_vaddr;
			break;
		}
	}
	if (e->eh && index_eh_frame(e))
		return -1;
	return index_symbols(e, sh, nr_sh);
}

struct ft_elf *ft_elf_get(const char *path, unsigned long dev, unsigned long ino)
{
	struct ft_elf *e;
	struct stat st;
	void *img;
	int fd, i;

	for (i = 0; i < nr_elfs; i++)
		if (elfs[i]->ino == ino && elfs[i]->dev == dev && !strcmp(elfs[i]->path, path))
			return elfs[i]->image ? elfs[i] : NULL;
	if (nr_elfs == MAX_ELFS)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->path = strdup(path);
	e->dev = dev;
	e->ino = ino;
	if (!e->path) {
		free(e);
		return NULL;
	}
	elfs[nr_elfs++] = e;	/* also a failure is remembered: not opened again */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return NULL;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return NULL;
	e->image = img;
	e->size = (size_t)st.st_size;
	if (load(e)) {
		munmap(img, e->size);
		e->image = NULL;
		free(e->tab);
		free(e->range);
		free(e->syms);
		e->tab = NULL;
		e->range = NULL;
		e->syms = NULL;
		e->nr_fde = e->nr_syms = 0;
		return NULL;
	}
	return e;
}

int ft_elf_bias(const struct ft_elf *e, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->image;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->image + h->e_phoff);
	unsigned i;

	for (i = 0; i < h->e_phnum; i++) {
		uint64_t off = ph[i].p_offset & ~(uint64_t)0xfff;

		if (ph[i].p_type != PT_LOAD || pgoff < off ||
		    pgoff >= ph[i].p_offset + ph[i].p_filesz)
			continue;
		/* file offset o of this segment is at bias + p_vaddr + (o - p_offset) */
		*bias = start - pgoff - ph[i].p_vaddr + ph[i].p_offset;
		return 0;
	}
	return -1;
}

int ft_elf_has_fde(const struct ft_elf *e, uint64_t vaddr)
{
	int64_t rel = (int64_t)(vaddr - e->base);
	size_t lo = 0, hi = e->nr_fde;

	if (rel != (int32_t)rel)
		return 0;
	while (lo < hi) {	/* first entry starting after rel */
		size_t mid = (lo + hi) / 2;

		if (rel < e->tab[mid].start)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi > 0 && rel - e->tab[hi - 1].start < (int64_t)e->range[hi - 1];
}

const char *ft_elf_symbol(const struct ft_elf *e, uint64_t vaddr, uint64_t *off)
{
	size_t lo = 0, hi = e->nr_syms;
	const struct ft_sym *s;

	while (lo < hi) {	/* first symbol above vaddr */
		size_t mid = (lo + hi) / 2;

		if (vaddr < e->syms[mid].addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!hi)
		return NULL;
	s = &e->syms[hi - 1];
	while (s > e->syms && s[-1].addr == s->addr)	/* the first of equals */
		s--;
	if (vaddr - s->addr >= e->size)		/* libunwind's bound */
		return NULL;
	*off = vaddr - s->addr;
	return s->name;
}
