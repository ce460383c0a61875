// SPDX-License-Identifier: GPL-2.0
/*
 * persite-file.c - what `advise -o` writes, persite:FILE reads back (issue 23 item 8): odd
 * site names (4095 bytes and longer, empty, a trailing '\r', spaces and tabs at either
 * end and inside, a newline, a backslash, a quote first, "*" as a site's own name, bytes
 * that are not UTF-8) written by rp_persite_add_line() into a file and parsed as a policy:
 * each name gets its own order back through the policy's decision (and the oracle's), a
 * site the file does not name gets "*"'s. Then the refusals of the reader: a NUL byte,
 * a line too long, bad quoting; and the writer's: a name too long for a line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "replay/policy.h"
#include "replay/replay.h"
#include "tests/unit/tap.h"

static char path[] = "/tmp/persite-file.XXXXXX";

static int write_all(const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* The order policy p gives slot i of names (engine's and oracle's; -1 if they differ). */
static int order_of(const struct rp_policy *p, const char *const *names, uint32_t n, uint32_t i)
{
	struct rp_trace t = { .nr_site_slots = n, .slot_sites = names };
	struct rp_fault f = { .slot = i };
	uint8_t a[RP_PMD_ORDER] = { 0 }, b[RP_PMD_ORDER] = { 0 };
	void *st = p->ops->state_new(p, &t);
	unsigned int na = p->ops->orders(p, st, &f, a), nb = p->ops->ref_orders(p, st, &f, b);

	p->ops->state_free(st);
	if (na != nb || (na && a[0] != b[0]))
		return -1;
	return na ? a[0] : 0;
}

/* refused TEXT LEN WANT: persite:FILE holding text is refused, the error has want. */
static void refused(const char *text, size_t len, const char *want, const char *what)
{
	struct rp_policy p;
	char spec[64];
	int r;

	snprintf(spec, sizeof(spec), "persite:%s", path);
	if (write_all(text, len)) {
		ok(0, "write %s", path);
		return;
	}
	r = rp_policy_parse(spec, &p);
	if (!ok(r == -1 && strstr(error_text(), want), "refused: %s", what))
		diag("  got %d '%s'", r, error_text());
	error_clear();
}

int main(void)
{
	static char long4095[4096], long70k[70001], huge[RP_PERSITE_LINE_MAX + 1];
	const char *names[] = {
		"[untraced]",	/* slot 0, as the loader names it */
		long4095, long70k, "", "trailing\r", "\rleading cr", " lead space",
		"trail space ", "\tlead tab", "trail tab\t", "in side\tname", "two\nlines",
		"back\\slash", "\"quoted\"", "*", "[no call]", "C++ ns::f<int, char>(x) const",
		"\x80\xff not utf-8", "# not a comment", "0 digits", "del\x7f",
	};
	uint32_t n = sizeof(names) / sizeof(names[0]), i;
	struct strbuf sb = STRBUF_INIT;
	struct rp_policy p;
	char spec[64];
	int fd, bad = 0;

	plan(12);
	memset(long4095, 'a', sizeof(long4095) - 1);
	memset(long70k, 'b', sizeof(long70k) - 1);
	memset(huge, 'c', sizeof(huge) - 1);
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	snprintf(spec, sizeof(spec), "persite:%s", path);

	/* every name but slot 0 gets an order of its own, 1..8 cycling; "*" (default) 0 */
	for (i = 1; i < n; i++)
		bad |= rp_persite_add_line(&sb, 1 + i % RP_MAX_FOLIO_ORDER, names[i]);
	strbuf_addstr(&sb, "0 *\n");
	ok(!bad && !write_all(sb.buf, sb.len), "%u odd names written", n - 1);
	ok(!rp_policy_parse(spec, &p), "the file parses");
	if (error_text()[0])
		diag("  %s", error_text());
	error_clear();
	for (i = 1, bad = 0; i < n; i++)
		if (order_of(&p, names, n, i) != (int)(1 + i % RP_MAX_FOLIO_ORDER)) {
			diag("  name %u (%.20s...): order %d, wrote %u", i, names[i],
			     order_of(&p, names, n, i), 1 + i % RP_MAX_FOLIO_ORDER);
			bad = 1;
		}
	ok(!bad, "every name reads back with its own order (engine and oracle agree)");
	ok(order_of(&p, names, n, 0) == 0, "a site the file does not name gets \"*\"'s order");

	/* CRLF: the same file with "\r\n" line ends reads the same */
	strbuf_reset(&sb);
	for (i = 1; i < n; i++) {
		rp_persite_add_line(&sb, 1 + i % RP_MAX_FOLIO_ORDER, names[i]);
		sb.buf[sb.len - 1] = '\r';	/* the '\n' just written */
		strbuf_addch(&sb, '\n');
	}
	strbuf_addstr(&sb, "0 *\r\n");
	write_all(sb.buf, sb.len);
	for (i = 1, bad = rp_policy_parse(spec, &p); !bad && i < n; i++)
		bad = order_of(&p, names, n, i) != (int)(1 + i % RP_MAX_FOLIO_ORDER);
	ok(!bad, "the same lines ending in \\r\\n read the same");
	error_clear();

	strbuf_reset(&sb);
	ok(rp_persite_add_line(&sb, 1, huge) == -1 && !sb.len &&
	   strstr(error_text(), "longer than a persite line"), "writer: a name too long for a "
	   "line is refused, nothing appended");
	error_clear();

	refused("4 main\n\0003 x\n", 13, "line 2: a NUL byte at column 1: a persite file is text",
		"a NUL byte has its own message");
	refused("4 \"main\n", 8, "line 1: the quoted site name has no closing '\"'",
		"an unterminated quoted name");
	refused("4 \"ma\\qin\"\n", 11, "bad escape '\\q'", "a bad escape");
	refused("4 \"main\" x\n", 11, "text after the quoted site name", "text after the quotes");
	refused("4 \"a\\x00\"\n", 10, "bad \\x escape", "\\x00 (a NUL) in a quoted name");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "4 ");
	strbuf_add(&sb, huge, sizeof(huge) - 1);
	strbuf_addch(&sb, '\n');
	refused(sb.buf, sb.len, "line 1: longer than 1048576 bytes", "a line too long");

	strbuf_release(&sb);
	unlink(path);
	return done_testing();
}
