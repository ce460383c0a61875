// SPDX-License-Identifier: GPL-2.0
/*
 * policy-persite.c - persite:FILE, an order per allocation call site (docs/sites.md): a write
 * fault in a range a traced call mapped gets the order FILE gives that call's site (as
 * `query sites` names it), like mcpage:N with that order (order 0: 4K); a fault outside
 * every range gets the order of "[no call]" if FILE names it, else of "*". Simulation only:
 * the kernel equivalent would be a per-VMA order hint, which the 6.1 guest kernel lacks.
 *
 * FILE, one site a line: the order (0..RP_MAX_FOLIO_ORDER), one blank, the site name to the
 * end of the line (names may hold blanks: "[no call]"); "*" for every other site (default
 * 0); blank lines and lines starting with '#' are skipped. `foliotrace advise` writes one.
 *
 * Which site a fault belongs to: the ranges of site_call (struct rp_site_range, loaded by
 * replay/load.c) painted per process in call order, a later call's range overriding an
 * earlier one where they overlap; the call's time is not looked at (an address range
 * mapped by two sites one after the other is the later site's for the whole trace).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/policy.h"

/* The map a spec stands for; never freed (specs are plain data, copied freely). */
struct rp_persite {
	struct rp_persite *next;	/* every map built, so they stay reachable */
	char **names;
	uint8_t *orders;
	size_t n;
	uint8_t dflt;			/* "*" */
	int nocall;			/* order of "[no call]", -1: dflt */
};

static struct rp_persite *all_maps;

static struct rp_persite *map_new(void)
{
	struct rp_persite *m = xcalloc(1, sizeof(*m));

	m->nocall = -1;
	m->next = all_maps;
	all_maps = m;
	return m;
}

static void map_add(struct rp_persite *m, const char *name, unsigned int order)
{
	if (!strcmp(name, "*")) {
		m->dflt = (uint8_t)order;
		return;
	}
	if (!strcmp(name, "[no call]"))
		m->nocall = (int)order;
	m->names = xrealloc(m->names, (m->n + 1) * sizeof(*m->names));
	m->orders = xrealloc(m->orders, m->n + 1);
	m->names[m->n] = xstrdup(name);
	m->orders[m->n++] = (uint8_t)order;
}

/* Free m, the newest map (a file that failed to parse, a duplicate). */
static void map_drop(struct rp_persite *m)
{
	size_t i;

	all_maps = m->next;
	for (i = 0; i < m->n; i++)
		free(m->names[i]);
	free(m->names);
	free(m->orders);
	free(m);
}

/*
 * A map equal to m built before (then m is freed), else m: parsing the same file again
 * (every run of a test, a fuzzer) keeps one copy, not one per parse.
 */
static struct rp_persite *map_dedup(struct rp_persite *m)
{
	struct rp_persite *o;
	size_t i;

	for (o = m->next; o; o = o->next) {
		if (o->n != m->n || o->dflt != m->dflt || o->nocall != m->nocall ||
		    (m->n && memcmp(o->orders, m->orders, m->n)))
			continue;
		for (i = 0; i < m->n && !strcmp(o->names[i], m->names[i]); i++)
			;
		if (i == m->n)
			break;
	}
	if (!o)
		return m;
	map_drop(m);
	return o;
}

static int map_find(const struct rp_persite *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->names[i], name))
			return m->orders[i];
	return m->dflt;
}

void rp_persite_policy(struct rp_policy *p, const char *label, const char *const *names,
		       const unsigned int *orders, size_t n, unsigned int dflt)
{
	extern const struct rp_policy_ops rp_policy_persite;
	struct rp_persite *m = map_new();
	size_t i;

	memset(p, 0, sizeof(*p));
	p->ops = &rp_policy_persite;
	m->dflt = (uint8_t)dflt;
	for (i = 0; i < n; i++)
		map_add(m, names[i], orders[i]);
	p->persite = map_dedup(m);
	snprintf(p->spec, sizeof(p->spec), "persite:%s", label);
}

/* One line "ORDER SITE" of FILE into m. Return: 0, or fail() naming the problem. */
static int parse_line(struct rp_persite *m, char *line, int *seen_star)
{
	char *end;
	long o;

	if (line[0] < '0' || line[0] > '9')
		return fail("no order at the start");
	o = strtol(line, &end, 10);
	if (o > RP_MAX_FOLIO_ORDER)
		return fail("order %ld is not 0..%u", o, RP_MAX_FOLIO_ORDER);
	if ((*end != ' ' && *end != '\t') || !end[1])
		return fail("no site after the order");
	end++;
	if (strcmp(end, "*")) {
		size_t i;

		for (i = 0; i < m->n; i++)
			if (!strcmp(m->names[i], end))
				return fail("site '%s' given twice", end);
	} else if ((*seen_star)++) {
		return fail("'*' given twice");
	}
	map_add(m, end, (unsigned int)o);
	return 0;
}

static int persite_parse(struct rp_policy *p, const char *args)
{
	struct rp_persite *m;
	char line[4096];
	int seen_star = 0;
	unsigned int nr = 0;
	struct stat st;
	FILE *f;
	int fd;

	if (!args)
		return fail("persite needs a file: persite:FILE (lines 'ORDER SITE', docs/sites.md)");
	if (strlen(args) + sizeof("persite:") > sizeof(p->spec))
		return fail("file name longer than %zu bytes", sizeof(p->spec) - sizeof("persite:"));
	/* O_NONBLOCK: a FIFO must not block the parser before it is refused */
	fd = open(args, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot read '%s': %s", args, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail("'%s' is not a regular file", args);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return fail("cannot read '%s': %s", args, strerror(errno));
	}
	m = map_new();
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		nr++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f)) {
			fclose(f);
			map_drop(m);
			return fail("%s line %u: longer than %zu bytes", args, nr, sizeof(line) - 2);
		}
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		if (parse_line(m, line, &seen_star)) {
			fclose(f);
			map_drop(m);
			return fail("%s line %u", args, nr);
		}
	}
	if (ferror(f)) {
		fclose(f);
		map_drop(m);
		return fail("cannot read '%s'", args);
	}
	fclose(f);
	p->persite = map_dedup(m);
	snprintf(p->spec, sizeof(p->spec), "persite:%s", args);
	return 0;
}

/* A painted, disjoint range of pages of one process with its order. */
struct seg {
	uint32_t proc;
	uint64_t start, end;	/* pages */
	uint8_t order;
};

struct persite_state {
	const struct rp_site_range *sites;	/* the trace's, for the oracle's reading */
	uint32_t nr_sites;
	struct seg *seg;	/* sorted by (proc, start), disjoint */
	size_t n;
	uint8_t nocall;		/* order outside every range */
};

static int seg_before(const struct seg *a, uint32_t proc, uint64_t vpn)
{
	return a->proc < proc || (a->proc == proc && a->start <= vpn);
}

/* Paint [s, e) of proc with order over what is there (O(n): calls are few). */
static void paint(struct persite_state *st, uint32_t proc, uint64_t s, uint64_t e,
		  uint8_t order)
{
	struct seg *out = xcalloc(st->n + 3, sizeof(*out));
	size_t i, k = 0;
	int placed = 0;

	for (i = 0; i < st->n; i++) {
		struct seg g = st->seg[i];

		if (g.proc != proc || g.end <= s || g.start >= e) {
			if (!placed && !seg_before(&g, proc, s)) {
				out[k++] = (struct seg){ proc, s, e, order };
				placed = 1;
			}
			out[k++] = g;
			continue;
		}
		if (g.start < s)
			out[k++] = (struct seg){ proc, g.start, s, g.order };
		if (!placed) {
			out[k++] = (struct seg){ proc, s, e, order };
			placed = 1;
		}
		if (g.end > e)
			out[k++] = (struct seg){ proc, e, g.end, g.order };
	}
	if (!placed)
		out[k++] = (struct seg){ proc, s, e, order };
	free(st->seg);
	st->seg = out;
	st->n = k;
}

static void *persite_new(const struct rp_policy *p, const struct rp_trace *t)
{
	const struct rp_persite *m = p->persite;
	struct persite_state *st = xcalloc(1, sizeof(*st));
	uint32_t i;

	st->sites = t->sites;
	st->nr_sites = t->nr_sites;
	st->nocall = (uint8_t)(m->nocall >= 0 ? m->nocall : m->dflt);
	for (i = 0; i < t->nr_sites; i++) {
		const struct rp_site_range *r = &t->sites[i];
		uint64_t s = r->start >> RP_PAGE_SHIFT;
		uint64_t e = (r->end + RP_PAGE_SIZE - 1) >> RP_PAGE_SHIFT;

		if (e > s)
			paint(st, r->proc_id, s, e, (uint8_t)map_find(m, r->site));
	}
	return st;
}

static void persite_free(void *state)
{
	struct persite_state *st = state;

	if (st)
		free(st->seg);
	free(st);
}

static unsigned int persite_orders(const struct rp_policy *p, void *state,
				   const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	const struct persite_state *st = state;
	size_t lo = 0, hi = st->n;
	uint8_t order = st->nocall;

	/* the last segment starting at or before (proc, vpn) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (seg_before(&st->seg[mid], f->proc_id, f->vpn))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && st->seg[lo - 1].proc == f->proc_id && f->vpn < st->seg[lo - 1].end)
		order = st->seg[lo - 1].order;
	if (!order)
		return 0;
	out[0] = order;
	return 1;
}

/* The oracle's reading: every range in call order, the last covering one wins. */
static unsigned int persite_ref_orders(const struct rp_policy *p, void *state,
				       const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	const struct persite_state *st = state;
	const struct rp_persite *m = p->persite;
	int order = m->nocall >= 0 ? m->nocall : m->dflt;
	uint64_t addr = f->vpn << RP_PAGE_SHIFT;
	uint32_t i;

	for (i = 0; i < st->nr_sites; i++) {
		const struct rp_site_range *r = &st->sites[i];

		if (r->proc_id == f->proc_id && r->start >> RP_PAGE_SHIFT <= f->vpn &&
		    addr < r->end)
			order = map_find(m, r->site);
	}
	if (order == 0)
		return 0;
	out[0] = (uint8_t)order;
	return 1;
}

const struct rp_policy_ops rp_policy_persite = {
	.name = "persite",
	.grammar = "persite:FILE (lines 'ORDER SITE', ORDER = 0.." RP_STR(RP_MAX_FOLIO_ORDER)
		   ", SITE as query sites names it or *)",
	.parse = persite_parse,
	.orders = persite_orders,
	.state_new = persite_new,
	.state_free = persite_free,
	.ref_orders = persite_ref_orders,
};
