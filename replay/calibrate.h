/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calibrate.h - `foliotrace calibrate` as a library: the traces of several databases
 * grouped by their cost model's key (arch, kernel, accelerator: replay/cost.h), one model
 * fitted per group from their recorded latencies, the models stored in one database
 * (docs/cost-model.md).
 *
 * A trace is read once however many databases hold it (one UUID: `calibrate cal.db
 * cal.db`, or a copy ingested into two databases): its first complete copy, in the order
 * the databases were added. A partial copy (trace.partial = 1: the guest died) beside a
 * complete one holds a prefix of the same records and is left out unless with_partial;
 * a trace stored only partial is read from its first copy.
 */
#ifndef FT_REPLAY_CALIBRATE_H
#define FT_REPLAY_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "replay/cost.h"

/* One model being fitted: the samples of the traces sharing its key. */
struct rp_fit {
	struct rp_cost m;		/* its key, then its coefficients once fitted */
	struct rp_cost_samples *s;
};

/* A trace a database holds, before the copies are chosen. */
struct rp_cal_trace {
	size_t db;			/* index into rp_calibration.dbs */
	int64_t trace_id;
	char *uuid;
	int partial;
	int use;			/* chosen to be read */
};

/* The models of a calibration, in the order their keys were first seen. */
struct rp_calibration {
	struct rp_fit *f;
	size_t n, cap;
	int with_partial;		/* read partial copies beside complete ones too */
	char **dbs;			/* the databases added, in order */
	size_t nr_dbs, cap_dbs;
	struct rp_cal_trace *t;		/* their traces, database by database */
	size_t nr_t, cap_t;
	size_t skipped;			/* copies left out: same UUID as one read */
};

/* Note every trace of the database at path (read by rp_calibrate_fit()). Return: 0 or -1. */
int rp_calibrate_add_db(struct rp_calibration *c, const char *path);
/*
 * Choose one copy per trace (see above), read their samples into their models, fit every
 * model. Return: 0, or -1 with fail() naming the database or the key that could not be
 * fitted (no traces at all: an error too).
 */
int rp_calibrate_fit(struct rp_calibration *c);
/* Store every model in the database at path, in one transaction. Return: 0 or -1. */
int rp_calibrate_store(const struct rp_calibration *c, const char *path);
void rp_calibrate_release(struct rp_calibration *c);

#endif /* FT_REPLAY_CALIBRATE_H */
