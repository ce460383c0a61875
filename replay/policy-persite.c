// SPDX-License-Identifier: GPL-2.0
/*
 * policy-persite.c - persite:FILE, an order per allocation call site (docs/sites.md): a write
 * fault gets the order FILE gives the site of the touch that takes it (as `query sites`
 * and `compare --by site` name it), like mcpage:N with that order (order 0: 4K); a site
 * FILE does not name gets the order of "*". Simulation only: the kernel equivalent would
 * be a per-VMA order hint, which the 6.1 guest kernel lacks.
 *
 * FILE, one site a line: the order (0..RP_MAX_FOLIO_ORDER), one blank, the site name to the
 * end of the line (names may hold blanks: "[no call]"); "*" for every other site (default
 * 0); blank lines and lines starting with '#' are skipped. `foliotrace advise` writes one.
 *
 * Which site a fault belongs to: the site slot of the touch that takes it (struct rp_fault
 * slot), the one attribution of docs/sites.md: ingest's owner of the touch's address at
 * its time (tracer/sites.c, stored as site_touch), which replay/load.c maps to slots and
 * the per-site metrics (replay_site, `compare --by site`) charge. So the faults whose
 * order a site's line decides are exactly those `compare --by site` charges to it. Slot
 * 0, "[untraced]" (processes the tracer did not trace), is looked up like any other name;
 * a trace without slots (no call sites) has every fault "[no call]"'s.
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

struct persite_state {
	const char *const *names;	/* the trace's slot names (rp_trace.slot_sites) */
	uint32_t n;			/* slots; 0: a trace without them */
	uint8_t *order;			/* by slot: its site's order in the file */
	uint8_t nocall;			/* every fault's order on a trace without slots */
};

static void *persite_new(const struct rp_policy *p, const struct rp_trace *t)
{
	const struct rp_persite *m = p->persite;
	struct persite_state *st = xcalloc(1, sizeof(*st));
	uint32_t i;

	st->nocall = (uint8_t)(m->nocall >= 0 ? m->nocall : m->dflt);
	if (!t->slot_sites || !t->nr_site_slots)
		return st;
	st->names = t->slot_sites;
	st->n = t->nr_site_slots;
	st->order = xcalloc(st->n, 1);
	for (i = 0; i < st->n; i++)
		st->order[i] = (uint8_t)map_find(m, st->names[i]);
	return st;
}

static void persite_free(void *state)
{
	struct persite_state *st = state;

	if (st)
		free(st->order);
	free(st);
}

static unsigned int persite_orders(const struct rp_policy *p, void *state,
				   const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	const struct persite_state *st = state;
	uint8_t order = !st->n ? st->nocall : st->order[f->slot < st->n ? f->slot : 0];

	if (!order)
		return 0;
	out[0] = order;
	return 1;
}

/* The oracle's reading: the touch's site name, looked for line by line in the file. */
static unsigned int persite_ref_orders(const struct rp_policy *p, void *state,
				       const struct rp_fault *f, uint8_t out[RP_PMD_ORDER])
{
	const struct persite_state *st = state;
	const struct rp_persite *m = p->persite;
	int order = m->dflt;
	const char *site;
	size_t i;

	if (!st->names) {
		site = "[no call]";
	} else if (f->slot < st->n) {
		site = st->names[f->slot];
	} else {
		site = st->names[0];
	}
	for (i = 0; i < m->n; i++)
		if (!strcmp(m->names[i], site))
			order = m->orders[i];
	if (order == 0)
		return 0;
	out[0] = (uint8_t)order;
	return 1;
}

const struct rp_policy_ops rp_policy_persite = {
	.name = "persite",
	.flags = RP_POL_SITES,
	.grammar = "persite:FILE (lines 'ORDER SITE', ORDER = 0.." RP_STR(RP_MAX_FOLIO_ORDER)
		   ", SITE as query sites names it or *)",
	.parse = persite_parse,
	.orders = persite_orders,
	.state_new = persite_new,
	.state_free = persite_free,
	.ref_orders = persite_ref_orders,
};
