/* SPDX-License-Identifier: MIT */
/*
 * What a tail-first read saw of each task, rank and process (report_tail.c): whether the window
 * holds the end of every rank's story and the start of every task open at its end.
 */
#ifndef PSA_REPORT_TAIL_H
#define PSA_REPORT_TAIL_H

#include <stdbool.h>

#include <proxyscope/psa_event.h>

#include "hashmap.h"

struct psa__tail_cover {
	struct psa_hashmap seen; /* (task | rank | process) -> flags */
	uint64_t before;         /* the ev->present bit of an event before this window */
	bool nomem;
};

/* @before: PSA_EV_BEFORE_WINDOW (the read's window) or PSA_EV_BEFORE_INNER (its inner one). */
void psa__tail_cover_init(struct psa__tail_cover *c, uint64_t before);
void psa__tail_cover_fini(struct psa__tail_cover *c);
/* Every event the read delivered (psa_input_read_opts.tap). */
void psa__tail_cover_event(void *arg, const struct psa_event *ev);
/*
 * Whether the read's window holds, for every process and rank it names, at least one event of
 * a task (the end of its story: a rank stuck silently since before the window would have none),
 * and, for every task that never reached DONE in it, its enqueue. Out of memory: false.
 */
bool psa__tail_cover_complete(const struct psa__tail_cover *c);

#endif /* PSA_REPORT_TAIL_H */
