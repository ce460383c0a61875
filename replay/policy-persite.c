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
 * 0); blank lines and lines starting with '#' are skipped; a line ending in "\r\n" is read
 * without its '\r'. A name that could not be read back so (empty, "*" itself, starting with
 * '"', with a control character, a leading or trailing blank) is written quoted:
 * "..." with \\, \", \n, \r, \t and \xHH escapes (rp_persite_add_line()). Lines up to
 * RP_PERSITE_LINE_MAX bytes. `foliotrace advise` writes one; this file reads and writes it.
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
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/policy.h"

/*
 * The map a spec stands for; never freed (specs are plain data, copied freely). Its names
 * are sorted (bytes, as strcmp), so a site is found by binary search and two maps of the
 * same lines compare equal whatever their order in the file.
 */
struct rp_persite {
	struct rp_persite *next;	/* every map built, so they stay reachable */
	char **names;
	uint8_t *orders;
	unsigned int *lines;		/* while parsing: each name's line in FILE */
	size_t n, cap_names, cap_orders, cap_lines;
	uint8_t dflt;			/* "*" */
	int nocall;			/* order of "[no call]", -1: dflt */
	uint64_t hash;			/* of the above, for map_dedup() */
};

static struct rp_persite *all_maps;
/* all_maps by hash, open addressing (a power of two, at most half full): a program may
 * build thousands of maps (a candidate each), so finding an equal one must not scan them */
static struct rp_persite **map_table;
static size_t map_table_size, map_table_used;

static struct rp_persite *map_new(void)
{
	struct rp_persite *m = xcalloc(1, sizeof(*m));

	m->nocall = -1;
	m->next = all_maps;
	all_maps = m;
	return m;
}

/* name's order into m; with is_default (an unquoted "*" in FILE), "*"'s */
static void map_add(struct rp_persite *m, const char *name, unsigned int order,
		    unsigned int line, int is_default)
{
	if (is_default) {
		m->dflt = (uint8_t)order;
		return;
	}
	if (!strcmp(name, "[no call]"))
		m->nocall = (int)order;
	XGROW(m->names, m->cap_names, m->n + 1);
	XGROW(m->orders, m->cap_orders, m->n + 1);
	XGROW(m->lines, m->cap_lines, m->n + 1);
	m->names[m->n] = xstrdup(name);
	m->lines[m->n] = line;
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
	free(m->lines);
	free(m);
}

static int by_name(const void *a, const void *b, void *m)
{
	const struct rp_persite *p = m;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return strcmp(p->names[x], p->names[y]);
}

/*
 * Sort m's names (their orders and lines along), then hash it. Return: 0, or fail()
 * naming a site given twice, with *dup_line the later of its lines in FILE.
 */
static int map_finish(struct rp_persite *m, unsigned int *dup_line)
{
	size_t *ix = xcalloc(m->n ? m->n : 1, sizeof(*ix)), i;
	char **names = xcalloc(m->n ? m->n : 1, sizeof(*names));
	uint8_t *orders = xcalloc(m->n ? m->n : 1, 1);
	unsigned int *lines = xcalloc(m->n ? m->n : 1, sizeof(*lines));
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	int ret = 0;

	for (i = 0; i < m->n; i++)
		ix[i] = i;
	qsort_r(ix, m->n, sizeof(*ix), by_name, m);
	for (i = 0; i < m->n; i++) {
		names[i] = m->names[ix[i]];
		orders[i] = m->orders[ix[i]];
		lines[i] = m->lines[ix[i]];
	}
	free(m->names);
	free(m->orders);
	free(m->lines);
	m->names = names;
	m->orders = orders;
	m->lines = NULL;
	m->cap_names = m->cap_orders = m->cap_lines = m->n;
	for (i = 0; i < m->n; i++) {
		const unsigned char *c;

		if (i && !strcmp(names[i - 1], names[i])) {
			*dup_line = lines[i - 1] > lines[i] ? lines[i - 1] : lines[i];
			ret = fail("site '%s' given twice", names[i]);
			break;
		}
		for (c = (const unsigned char *)names[i]; ; c++) {
			h = (h ^ *c) * 1099511628211ULL;
			if (!*c)
				break;
		}
		h = (h ^ orders[i]) * 1099511628211ULL;
	}
	free(lines);
	free(ix);
	m->hash = (h ^ m->dflt ^ ((uint64_t)(m->nocall + 1) << 8)) * 1099511628211ULL;
	return ret;
}

static int map_equal(const struct rp_persite *a, const struct rp_persite *b)
{
	size_t i;

	if (a->hash != b->hash || a->n != b->n || a->dflt != b->dflt ||
	    a->nocall != b->nocall || (a->n && memcmp(a->orders, b->orders, a->n)))
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->names[i], b->names[i]))
			return 0;
	return 1;
}

static void table_put(struct rp_persite *m)
{
	size_t i, mask;

	if (2 * (map_table_used + 1) > map_table_size) {
		struct rp_persite **old = map_table;
		size_t n = map_table_size;

		map_table_size = n ? 2 * n : 64;
		map_table = xcalloc(map_table_size, sizeof(*map_table));
		map_table_used = 0;
		for (i = 0; i < n; i++)
			if (old[i])
				table_put(old[i]);
		free(old);
	}
	mask = map_table_size - 1;
	for (i = m->hash & mask; map_table[i]; i = (i + 1) & mask)
		;
	map_table[i] = m;
	map_table_used++;
}

/*
 * A map equal to m built before (then m is freed), else m (now findable): parsing the same
 * file again (every run of a test, a fuzzer, advise's candidates) keeps one copy, not one
 * per parse. O(1) expected per map, beyond hashing its names.
 */
static struct rp_persite *map_dedup(struct rp_persite *m)
{
	size_t i, mask = map_table_size - 1;

	for (i = m->hash & mask; map_table_size && map_table[i]; i = (i + 1) & mask)
		if (map_equal(map_table[i], m)) {
			map_drop(m);
			return map_table[i];
		}
	table_put(m);
	return m;
}

/* name's order in m (binary search), or "*"'s. O(log names). */
static int map_find(const struct rp_persite *m, const char *name)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, m->names[mid]);

		if (!c)
			return m->orders[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return m->dflt;
}

void rp_persite_policy(struct rp_policy *p, const char *label, const char *const *names,
		       const unsigned int *orders, size_t n, unsigned int dflt)
{
	extern const struct rp_policy_ops rp_policy_persite;
	struct rp_persite *m = map_new();
	unsigned int line;
	size_t i;

	memset(p, 0, sizeof(*p));
	p->ops = &rp_policy_persite;
	m->dflt = (uint8_t)dflt;
	for (i = 0; i < n; i++)
		map_add(m, names[i], orders[i], 0, 0);
	/* a name given twice (never by advise, whose names are distinct): either order */
	if (map_finish(m, &line))
		error_clear();
	p->persite = map_dedup(m);
	snprintf(p->spec, sizeof(p->spec), "persite:%s", label);
}

/* Does name need quotes to be read back as itself? */
static int needs_quotes(const char *name)
{
	size_t len = strlen(name), i;

	if (!len || !strcmp(name, "*") || name[0] == '"' || name[0] == ' ' ||
	    name[0] == '\t' || name[len - 1] == ' ' || name[len - 1] == '\t')
		return 1;
	for (i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return 1;
	return 0;
}

int rp_persite_add_line(struct strbuf *sb, unsigned int order, const char *name)
{
	static const char hex[] = "0123456789abcdef";
	size_t start = sb->len;
	const unsigned char *c;

	strbuf_addf(sb, "%u ", order);
	if (!needs_quotes(name)) {
		strbuf_addstr(sb, name);
	} else {
		strbuf_addch(sb, '"');
		for (c = (const unsigned char *)name; *c; c++) {
			if (*c == '\\' || *c == '"') {
				strbuf_addch(sb, '\\');
				strbuf_addch(sb, *c);
			} else if (*c == '\n' || *c == '\r' || *c == '\t') {
				strbuf_addch(sb, '\\');
				strbuf_addch(sb, *c == '\n' ? 'n' : *c == '\r' ? 'r' : 't');
			} else if (*c < 0x20 || *c == 0x7f) {
				strbuf_addstr(sb, "\\x");
				strbuf_addch(sb, hex[*c >> 4]);
				strbuf_addch(sb, hex[*c & 15]);
			} else {
				strbuf_addch(sb, *c);
			}
		}
		strbuf_addch(sb, '"');
	}
	if (sb->len - start > RP_PERSITE_LINE_MAX) {
		size_t n = strlen(name);

		sb->len = start;
		sb->buf[start] = '\0';
		return fail("a site name of %zu bytes: longer than a persite line (%u bytes)",
			     n, RP_PERSITE_LINE_MAX);
	}
	strbuf_addch(sb, '\n');
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode the quoted name at q ('"' first) in place. Return: 0, or fail(). */
static int unquote(char *q)
{
	char *in = q + 1, *out = q;

	for (; *in && *in != '"'; in++) {
		if (*in != '\\') {
			*out++ = *in;
			continue;
		}
		switch (*++in) {
		case '\\': case '"': *out++ = *in; break;
		case 'n': *out++ = '\n'; break;
		case 'r': *out++ = '\r'; break;
		case 't': *out++ = '\t'; break;
		case 'x':
			if (hexval(in[1]) < 0 || hexval(in[2]) < 0 ||
			    !(hexval(in[1]) | hexval(in[2])))
				return fail("bad \\x escape in the quoted site name (two hex "
					     "digits, not 00)");
			*out++ = (char)(hexval(in[1]) << 4 | hexval(in[2]));
			in += 2;
			break;
		case '\0':
			return fail("the quoted site name has no closing '\"'");
		default:
			return fail("bad escape '\\%c' in the quoted site name", *in);
		}
	}
	if (*in != '"')
		return fail("the quoted site name has no closing '\"'");
	if (in[1])
		return fail("text after the quoted site name");
	*out = '\0';
	return 0;
}

/*
 * One line "ORDER SITE" of FILE into m (a site given twice is found by map_finish()).
 * Return: 0, or fail() naming the problem.
 */
static int parse_line(struct rp_persite *m, char *line, unsigned int nr, int *seen_star)
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
	if (*end == '"') {
		if (unquote(end))
			return -1;
		map_add(m, end, (unsigned int)o, nr, 0);
		return 0;
	}
	if (!strcmp(end, "*") && (*seen_star)++)
		return fail("'*' given twice");
	map_add(m, end, (unsigned int)o, nr, !strcmp(end, "*"));
	return 0;
}

static int persite_parse(struct rp_policy *p, const char *args)
{
	struct rp_persite *m;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
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
	if (st.st_size > (off_t)RP_PERSITE_FILE_MAX) {	/* lines are read whole */
		close(fd);
		return fail("'%s' is larger than %u MiB", args, RP_PERSITE_FILE_MAX >> 20);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return fail("cannot read '%s': %s", args, strerror(errno));
	}
	m = map_new();
	while ((got = getline(&line, &cap, f)) > 0) {
		size_t len = (size_t)got;

		nr++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > RP_PERSITE_LINE_MAX) {
			fail("longer than %u bytes", RP_PERSITE_LINE_MAX);
			goto bad_line;
		}
		if (memchr(line, '\0', len)) {
			fail("a NUL byte at column %zu: a persite file is text",
			      (size_t)((char *)memchr(line, '\0', len) - line) + 1);
			goto bad_line;
		}
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		if (parse_line(m, line, nr, &seen_star))
			goto bad_line;
	}
	free(line);
	if (ferror(f)) {
		fclose(f);
		map_drop(m);
		return fail("cannot read '%s'", args);
	}
	fclose(f);
	if (map_finish(m, &nr)) {
		map_drop(m);
		return fail("%s line %u", args, nr);
	}
	p->persite = map_dedup(m);
	snprintf(p->spec, sizeof(p->spec), "persite:%s", args);
	return 0;
bad_line:
	free(line);
	fclose(f);
	map_drop(m);
	return fail("%s line %u", args, nr);
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
