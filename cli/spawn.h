/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spawn.h - run a helper program (the guest-kernel/ scripts) and wait for it.
 */
#ifndef FT_CLI_SPAWN_H
#define FT_CLI_SPAWN_H

/*
 * ft_spawn - run argv[0] (a path) with argv, stdin from /dev/null, stdout/stderr inherited.
 * Return: the program's exit status (0..255), 128+N if killed by signal N, or -1 with
 * fail() set if it could not be started.
 */
int ft_spawn(char *const argv[]);

struct strbuf;
/* ft_spawn_capture - ft_spawn() with the program's stdout appended to out (its stderr is
 * still the caller's, for progress lines). Same return values. */
int ft_spawn_capture(char *const argv[], struct strbuf *out);

/* Path of a file in the foliotrace tree: ft_home()/rel (static buffer, 4 slots). */
const char *ft_path(const char *rel);

#endif /* FT_CLI_SPAWN_H */
