/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calibrate.h - `foliotrace calibrate` as a library: the traces of several databases
 * grouped by their cost model's key (arch, kernel, accelerator: replay/cost.h), one model
 * fitted per group from their recorded latencies, the models stored in one database
 * (docs/cost-model.md).
 */
#ifndef FT_REPLAY_CALIBRATE_H
#define FT_REPLAY_CALIBRATE_H

#include <stddef.h>

#include "replay/cost.h"

/* One model being fitted: the samples of the traces sharing its key. */
struct rp_fit {
	struct rp_cost m;		/* its key, then its coefficients once fitted */
	struct rp_cost_samples *s;
};

/* The models of a calibration, in the order their keys were first seen. */
struct rp_calibration {
	struct rp_fit *f;
	size_t n, cap;
};

/* Add every trace of the database at path to its model's samples. Return: 0 or -1. */
int rp_calibrate_add_db(struct rp_calibration *c, const char *path);
/* Fit every model. Return: 0, or -1 with fail() naming the key that could not be fitted
 * (no traces at all: an error too). */
int rp_calibrate_fit(struct rp_calibration *c);
/* Store every model in the database at path, in one transaction. Return: 0 or -1. */
int rp_calibrate_store(const struct rp_calibration *c, const char *path);
void rp_calibrate_release(struct rp_calibration *c);

#endif /* FT_REPLAY_CALIBRATE_H */
