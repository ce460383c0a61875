/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spawn.h - run a helper program (the guest-kernel/ scripts) and wait for it, and find
 * the files of the foliotrace tree those programs live in.
 */
#ifndef FT_VM_SPAWN_H
#define FT_VM_SPAWN_H

/*
 * vm_spawn - run argv[0] (a path) with argv, stdin from /dev/null, stdout/stderr inherited.
 * Return: the program's exit status (0..255), 128+N if killed by signal N, or -1 with
 * fail() set if it could not be started.
 */
int vm_spawn(char *const argv[]);

struct strbuf;
/* vm_spawn_capture - vm_spawn() with the program's stdout appended to out (its stderr is
 * still the caller's, for progress lines). Same return values. */
int vm_spawn_capture(char *const argv[], struct strbuf *out);

/*
 * A program watched while it runs (vm_spawn_watch()): its stderr is read through a pipe
 * and handed over line by line, and tick is called at least every interval_s seconds,
 * so the caller can keep a progress line on a terminal that the program's own lines do
 * not overwrite. Both are called from the waiting process, never concurrently.
 */
struct vm_watch {
	void (*line)(void *arg, const char *line);	/* one line of stderr, no '\n' */
	/* elapsed_s: s since the program started; exited: the last call, it has exited */
	void (*tick)(void *arg, double elapsed_s, int exited);
	void *arg;
	double interval_s;				/* > 0 */
};

/*
 * vm_spawn_watch - vm_spawn() of argv with w watching (w NULL: vm_spawn()). tick also
 * runs after each line read while the program runs, and a last time with exited 1
 * (unless waiting failed). Same return values.
 */
int vm_spawn_watch(char *const argv[], const struct vm_watch *w);

/*
 * vm_set_home - the directory holding guest-kernel/, workloads/ etc.: the source tree, or
 * the installed PREFIX/libexec/foliotrace (docs/install.md), decided once by the program
 * (cli/main.c: $FOLIOTRACE_HOME, else the installed directory beside the binary's, else
 * the parent of the binary's directory). Until it is set, the current directory.
 */
void vm_set_home(const char *dir);
const char *vm_home(void);

/* Path of a file in the foliotrace tree: vm_home()/rel (static buffer, 4 slots). */
const char *vm_path(const char *rel);

/*
 * vm_bundled_path - the built bundled program name of arch (a workload, ft-launch...):
 * vm_home()/build/workloads/ARCH/name in a source tree (the home has the Makefile), else
 * the installed vm_home()/workloads/ARCH/name; guest-kernel/build.sh looks in the same
 * two. Static buffer, one of vm_path()'s slots.
 */
const char *vm_bundled_path(const char *arch, const char *name);

#endif /* FT_VM_SPAWN_H */
