// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-persite.c - libFuzzer harness for the persite FILE (replay/policy-persite.c): the
 * input as a whole file is parsed as persite:FILE (refused with an error or read; when
 * read, the engine's and the oracle's orders agree); and the input as one site name (up
 * to its first NUL) goes through the writer, rp_persite_add_line(), and must read back
 * with its order (what advise -o writes, persite reads). The file lives in
 * $TMPDIR (tests/fuzz/run.sh puts it in memory). Built and run by tests/fuzz/run.sh.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "replay/policy.h"
#include "replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[256];

static void put(const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		abort();
	close(fd);
}

/* The order p gives a touch of site name; aborts when engine and oracle disagree. */
static int order_of(const struct rp_policy *p, const char *name)
{
	const char *names[2] = { "[untraced]", name };
	struct rp_trace t = { .nr_site_slots = 2, .slot_sites = names };
	struct rp_fault f = { .slot = 1 };
	uint8_t a[RP_PMD_ORDER] = { 0 }, b[RP_PMD_ORDER] = { 0 };
	void *st = p->ops->state_new(p, &t);
	unsigned int na = p->ops->orders(p, st, &f, a), nb = p->ops->ref_orders(p, st, &f, b);

	p->ops->state_free(st);
	if (na != nb || (na && a[0] != b[0]) || na > 1 || (na && a[0] > RP_MAX_FOLIO_ORDER))
		abort();
	return na ? a[0] : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	struct rp_policy p;
	char spec[64], *name;
	unsigned int order = (unsigned int)(size % (RP_MAX_FOLIO_ORDER + 1));

	if (!*path)
		snprintf(path, sizeof(path), "%s/p", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (snprintf(spec, sizeof(spec), "persite:%s", path) >= (int)sizeof(spec))
		abort();	/* TMPDIR too long for a spec: fix the run, not the parser */

	/* the input as a file */
	put(data, size);
	if (rp_policy_parse(spec, &p))
		error_clear();
	else
		order_of(&p, "main");

	/* the input as a name, written and read back */
	name = strndup((const char *)data, size);
	if (!rp_persite_add_line(&sb, order, name)) {
		strbuf_addstr(&sb, "0 *\n");
		put(sb.buf, sb.len);
		if (rp_policy_parse(spec, &p) || order_of(&p, name) != (int)order)
			abort();	/* what the writer wrote, the reader must read back */
	} else {
		error_clear();
	}
	strbuf_release(&sb);
	free(name);
	return 0;
}
