/* SPDX-License-Identifier: MIT */
/*
 * The fixture of the watchdog tests: a model with a watchdog observing it, and the clock of the
 * synthetic events a test feeds it (each test keeps its own rank-to-thread mapping).
 */
#ifndef PROXYSCOPE_TESTS_WATCHDOG_FIXTURE_H
#define PROXYSCOPE_TESTS_WATCHDOG_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/psa_watchdog.h>

#define MS 1000000ull

struct wdfx {
	struct psa_model *m;
	struct psa_watchdog *w;
	uint64_t now; /* the time of the last event fed, ns */
};

/* A new model observed by a watchdog reporting states over @threshold_ns (0: none), the clock
 * at 1 s. Fails the test when either cannot be made. */
void wdfx_init(struct wdfx *f, uint64_t threshold_ns);
void wdfx_fini(struct wdfx *f);

/* Finish the model and analyze it: the watchdog's stalls, @n of them. */
const struct psa_stall *wdfx_analyze(struct wdfx *f, size_t *n);

#endif /* PROXYSCOPE_TESTS_WATCHDOG_FIXTURE_H */
