/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evclass.h - per event class cache: which collector kind an event class feeds and where its
 * payload members are. Resolved by name once, the first time a class is seen; the hot path
 * then reads members by index with no string comparison.
 */
#ifndef FT_TRACER_EVCLASS_H
#define FT_TRACER_EVCLASS_H

#include <babeltrace2/babeltrace.h>

#include "tracer/collect.h"

/* EVF_UARRAY: an array of unsigned integers, every field of a CK_FAULT_BATCH class */
enum ev_field_type { EVF_ABSENT, EVF_UNSIGNED, EVF_SIGNED, EVF_STRING, EVF_UARRAY };

struct evclass {
	const bt_event_class *cls;	/* borrowed; lives as long as its trace class */
	char *name;			/* event name */
	enum collect_kind kind;
	int has_clock;			/* its stream class has a default clock */
	const bt_clock_class *clock;	/* that clock, borrowed; NULL without */
	uint64_t count;			/* events of this class seen */
	unsigned int nr_fields;		/* entries of ft_collect_events[kind].fields */
	uint64_t index[COLLECT_MAX_FIELDS];	/* member index in its structure */
	uint8_t type[COLLECT_MAX_FIELDS];	/* enum ev_field_type */
	uint8_t common[COLLECT_MAX_FIELDS];	/* 1: in the common context, 0: the payload */
};

struct evclass_cache {
	struct evclass *v;		/* resolved classes, in order of first appearance */
	size_t nr, cap;
	struct idmap map;		/* class pointer -> index in v */
	/*
	 * Direct-mapped cache in front of map, by class pointer bits: faults and allocations
	 * alternate, so a one-entry "last class" cache would miss every other event.
	 */
	struct {
		const bt_event_class *cls;
		uint32_t i;
	} recent[16];
};

void ft_evclass_cache_init(struct evclass_cache *c);
void ft_evclass_cache_release(struct evclass_cache *c);

/* Return: the cache entry of the event's class, or NULL (error set: unusable payload). */
struct evclass *ft_evclass_get(struct evclass_cache *c, const bt_message *msg,
			    const bt_event *event);

/* The cache entry of cls if it was resolved before, else NULL (nothing resolved). */
struct evclass *ft_evclass_find(struct evclass_cache *c, const bt_event_class *cls);

/*
 * The entry named like->name with no class of its own (cls NULL), created as a copy of
 * like with count 0 if missing: tracer/pdecode.c counts here, under one entry per name,
 * the events of the classes of its many graphs. The pointer is valid until the next entry
 * is added (the array grows): keep its index.
 */
struct evclass *ft_evclass_named(struct evclass_cache *c, const struct evclass *like);

/*
 * Does the trace class declare an event named event (in any stream class) whose payload
 * has a member named field? Read from the metadata, so known before the first event.
 */
int ft_evclass_trace_has_field(const bt_trace_class *tc, const char *event, const char *field);

/*
 * Read the kind's fields of event into vals[] (payload members, and common context
 * members for '@' fields); strings stay valid while event lives.
 */
void ft_evclass_read(const struct evclass *ec, const bt_event *event, struct collect_val *vals);

#endif /* FT_TRACER_EVCLASS_H */
