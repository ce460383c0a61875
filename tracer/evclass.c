// SPDX-License-Identifier: GPL-2.0
/* evclass.c - resolve an event class's payload members once; see evclass.h. */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "tracer/evclass.h"

void ft_evclass_cache_init(struct evclass_cache *c)
{
	memset(c, 0, sizeof(*c));
	ft_idmap_init(&c->map);
}

void ft_evclass_cache_release(struct evclass_cache *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->v[i].name);
	free(c->v);
	ft_idmap_release(&c->map);
	memset(c, 0, sizeof(*c));
}

/*
 * The member of structure class st named want, or for a context field also "_want" (the
 * name in LTTng's CTF metadata, which babeltrace2 may show with or without the
 * underscore). Return: its index, or -1.
 */
static int64_t member_index(const bt_field_class *st, const char *want, int ctx)
{
	uint64_t i, n = st ? bt_field_class_structure_get_member_count(st) : 0;

	for (i = 0; i < n; i++) {
		const char *name = bt_field_class_structure_member_get_name(
			bt_field_class_structure_borrow_member_by_index_const(st, i));

		if (!strcmp(name, want) || (ctx && name[0] == '_' && !strcmp(name + 1, want)))
			return (int64_t)i;
	}
	return -1;
}

static int resolve(struct evclass *ec, const bt_message *msg)
{
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec->cls);
	const bt_field_class *common = bt_stream_class_borrow_event_common_context_field_class_const(
		bt_event_class_borrow_stream_class_const(ec->cls));
	const struct collect_event_desc *d;
	unsigned int k;

	ec->clock = bt_message_event_borrow_stream_class_default_clock_class_const(msg);
	ec->has_clock = ec->clock != NULL;
	ec->kind = CK_OTHER;
	for (k = CK_OTHER + 1; k < CK_NR; k++)
		if (!strcmp(ft_collect_events[k].name, ec->name))
			ec->kind = k;
	if (ec->kind == CK_OTHER)
		return 0;
	/* the probe since the packed layout: its small fields in one, info */
	if (ec->kind == CK_FAULT && member_index(payload, "info", 0) >= 0)
		ec->kind = CK_FAULT_PACKED;
	d = &ft_collect_events[ec->kind];
	for (k = 0; d->fields[k]; k++) {
		const char *want = d->fields[k];
		int optional = want[0] == '?', ctx;
		const bt_field_class *st, *fc;
		bt_field_class_type t;
		int64_t i;

		want += optional;
		ctx = want[0] == '@';
		want += ctx;
		st = ctx ? common : payload;
		ec->type[k] = EVF_ABSENT;
		ec->common[k] = (uint8_t)ctx;
		i = member_index(st, want, ctx);
		if (i < 0) {
			if (optional)
				continue;
			return fail("event %s has no %sfield %s (see docs/events.md)", ec->name,
				     ctx ? "context " : "", want);
		}
		fc = bt_field_class_structure_member_borrow_field_class_const(
			bt_field_class_structure_borrow_member_by_index_const(st, (uint64_t)i));
		t = bt_field_class_get_type(fc);
		ec->index[k] = (uint64_t)i;
		/* enumerations are integers too: fallback and cause read as numbers */
		if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			ec->type[k] = EVF_UNSIGNED;
		else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
			ec->type[k] = EVF_SIGNED;
		else if (t == BT_FIELD_CLASS_TYPE_STRING)
			ec->type[k] = EVF_STRING;
		else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY) &&
			 bt_field_class_type_is(bt_field_class_get_type(
				bt_field_class_array_borrow_element_field_class_const(fc)),
				BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			ec->type[k] = EVF_UARRAY;
		/* none of those (EVF_ABSENT still), or not as the kind wants: a batch's fields
		 * are arrays, and only a batch's */
		if (ec->type[k] == EVF_ABSENT ||
		    (ec->type[k] == EVF_UARRAY) != (ec->kind == CK_FAULT_BATCH))
			return fail("event %s: field %s has an unexpected type", ec->name, want);
	}
	ec->nr_fields = k;
	return 0;
}

struct evclass *ft_evclass_find(struct evclass_cache *c, const bt_event_class *cls)
{
	unsigned int slot = ((uintptr_t)cls >> 4) % 16;
	uint32_t i;

	if (c->recent[slot].cls == cls)
		return &c->v[c->recent[slot].i];
	i = ft_idmap_get(&c->map, (uint64_t)(uintptr_t)cls);
	if (i == IDMAP_NONE)
		return NULL;
	c->recent[slot].cls = cls;
	c->recent[slot].i = i;
	return &c->v[i];
}

struct evclass *ft_evclass_named(struct evclass_cache *c, const struct evclass *like)
{
	struct evclass *ec;
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (!c->v[i].cls && !strcmp(c->v[i].name, like->name))
			return &c->v[i];
	XGROW(c->v, c->cap, c->nr + 1);
	ec = &c->v[c->nr++];
	*ec = *like;
	ec->cls = NULL;
	ec->name = xstrdup(like->name);
	ec->count = 0;
	return ec;
}

struct evclass *ft_evclass_get(struct evclass_cache *c, const bt_message *msg,
			    const bt_event *event)
{
	const bt_event_class *cls = bt_event_borrow_class_const(event);
	unsigned int slot = ((uintptr_t)cls >> 4) % 16;
	struct evclass *ec = ft_evclass_find(c, cls);
	const char *name;
	uint32_t i;

	if (ec)
		return ec;
	i = (uint32_t)c->nr++;
	XGROW(c->v, c->cap, c->nr);
	ec = &c->v[i];
	memset(ec, 0, sizeof(*ec));
	ec->cls = cls;
	name = bt_event_class_get_name(cls);
	ec->name = xstrdup(name ? name : "(unnamed)");
	if (resolve(ec, msg)) {
		free(ec->name);
		c->nr--;
		return NULL;
	}
	ft_idmap_add(&c->map, (uint64_t)(uintptr_t)cls, i);
	c->recent[slot].cls = cls;
	c->recent[slot].i = i;
	return ec;
}

int ft_evclass_trace_has_field(const bt_trace_class *tc, const char *event, const char *field)
{
	uint64_t i, j, ns = bt_trace_class_get_stream_class_count(tc);

	for (i = 0; i < ns; i++) {
		const bt_stream_class *sc = bt_trace_class_borrow_stream_class_by_index_const(tc, i);
		uint64_t ne = bt_stream_class_get_event_class_count(sc);

		for (j = 0; j < ne; j++) {
			const bt_event_class *ec =
				bt_stream_class_borrow_event_class_by_index_const(sc, j);
			const bt_field_class *payload;
			const char *name = bt_event_class_get_name(ec);

			if (!name || strcmp(name, event))
				continue;
			payload = bt_event_class_borrow_payload_field_class_const(ec);
			if (payload && bt_field_class_get_type(payload) ==
					       BT_FIELD_CLASS_TYPE_STRUCTURE &&
			    bt_field_class_structure_borrow_member_by_name_const(payload, field))
				return 1;
		}
	}
	return 0;
}

void ft_evclass_read(const struct evclass *ec, const bt_event *event, struct collect_val *vals)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	const bt_field *common = NULL;
	unsigned int k;

	for (k = 0; k < ec->nr_fields; k++) {
		const bt_field *f;

		vals[k].u = 0;
		vals[k].s = NULL;
		if (ec->type[k] == EVF_ABSENT)
			continue;
		if (ec->common[k] && !common)
			common = bt_event_borrow_common_context_field_const(event);
		f = bt_field_structure_borrow_member_field_by_index_const(
			ec->common[k] ? common : payload, ec->index[k]);
		switch (ec->type[k]) {
		case EVF_UNSIGNED:
			vals[k].u = bt_field_integer_unsigned_get_value(f);
			break;
		case EVF_SIGNED:
			vals[k].u = (uint64_t)bt_field_integer_signed_get_value(f);
			break;
		case EVF_STRING:
			vals[k].s = bt_field_string_get_value(f);
			break;
		}
	}
}
