/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sites.h - store the side file of the call-site tracer (tracer/guest/ft-sites.c) with a
 * trace already in the database: call stacks, calls, and every anonymous fault attributed
 * to the call that mapped its address (docs/sites.md, tables in docs/schema.md).
 */
#ifndef FT_TRACER_SITES_H
#define FT_TRACER_SITES_H

#include <sqlite3.h>
#include <stdint.h>

/* Name of the side file in a guest run's directory. */
#define FT_SITES_FILE	"sites.txt"

/*
 * The largest side file read, bytes (1 GiB): a bound on the memory a damaged file can
 * take (the parser keeps a few times the file's size), far above a real run's file.
 */
#define FT_SITES_MAX_BYTES	(1LL << 30)

/*
 * Frames skipped when looking for a call's site: a frame whose procedure name (GCC's
 * .part/.isra/.constprop/.cold suffixes removed) or module file name matches is part of
 * the allocator or libc. glibc malloc and its system call wrappers, jemalloc, libstdc++
 * operator new, the dynamic loader.
 */
#define FT_SITES_SKIP_DEFAULT \
	"^(libc\\.so.*|ld-linux.*|libjemalloc\\.so.*|libstdc\\+\\+\\.so.*|" \
	"malloc|calloc|realloc|free|valloc|pvalloc|memalign|aligned_alloc|posix_memalign|" \
	"reallocarray|__libc_.*|_int_.*|sysmalloc.*|tcache_.*|ptmalloc_init|malloc_consolidate|" \
	"mremap_chunk|munmap_chunk|alloc_new_heap|new_heap|grow_heap|shrink_heap|arena_get2|" \
	"_dl_early_allocate|__default_morecore|__glibc_morecore|" \
	"mmap|mmap64|__mmap|__mmap64|munmap|__munmap|mremap|__mremap|brk|__brk|sbrk|__sbrk|" \
	"madvise|__madvise|__GI_.*|" \
	"_?_?je_.*|_?_?rjem_.*|" \
	"_Znwm|_Znam|_ZnwmRKSt9nothrow_t|_ZnamRKSt9nothrow_t|_ZnwmSt11align_val_t|" \
	"_ZnamSt11align_val_t|operator new.*)$"

/*
 * ft_sites_check - read and parse the side file at path and compile skip, writing nothing:
 * what ingest checks before it stores the trace, so a bad side file stores nothing.
 * The side file must be a regular file (a FIFO is not opened for reading, so it never
 * blocks; a symlink to nothing is an error) of at most FT_SITES_MAX_BYTES.
 * Return: 0, or -1 (error set: unreadable, not a regular file, too large or malformed
 * side file, bad regex).
 */
int ft_sites_check(const char *path, const char *skip);

/*
 * ft_sites_store - read the side file at path and store it for trace_id of db, attributing
 * the trace's anon_fault events (docs/sites.md "attribution"). skip: the site skip regex
 * (POSIX extended), NULL for FT_SITES_SKIP_DEFAULT. A side file of version 2 takes its
 * calls' times and results from the trace's sys_exit rows. One transaction; nothing is
 * written on failure. A trace that already has calls stored is left alone.
 * Return: 0, or -1 (error set: malformed side file, bad regex, a version 2 side file with
 * calls for a trace without sys_exit rows, SQLite error).
 */
int ft_sites_store(const char *db, int64_t trace_id, const char *path, const char *skip);

/*
 * ft_sites_store_in - as ft_sites_store(), on h (db names it in messages) inside the
 * transaction that stores the trace (the sink's, tracer/sink.c), whose rows it reads: the
 * trace and its call sites are committed together or not at all (issue 23 item 3). On
 * failure the transaction is the caller's to roll back.
 * Return: 0, or -1 (error set).
 */
int ft_sites_store_in(sqlite3 *h, const char *db, int64_t trace_id, const char *path,
		      const char *skip);

#endif /* FT_TRACER_SITES_H */
