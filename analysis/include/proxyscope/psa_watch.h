/* SPDX-License-Identifier: MIT */
/*
 * The live watchdog: the model fed by a stream (psa_live.h or any reader), asked now and then
 * for the watchdog's verdict on the events seen so far (psa_watchdog_analyze_live), and turned
 * into notes: a finding when a task has been in one state longer than the threshold (the root
 * cause it leads to when that root has been stuck that long too, else the task itself), a
 * resolution when that task
 * moves again, and an end note for what is still open when the watched command ends.
 *
 * Design: a finding is keyed by the task (process, task id) and the time it entered its state,
 * so the same stall is reported once however often the verdict is asked; its resolution comes
 * from the model's own interval observer (the state it was found in closed), not from a second
 * look at the verdict. Time is the trace clock: the caller says what "now" is (see cmd_watch.c
 * for how it is estimated while the stream is quiet).
 */
#ifndef PROXYSCOPE_PSA_WATCH_H
#define PROXYSCOPE_PSA_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <proxyscope/psa_model.h>
#include <proxyscope/psa_watchdog.h>

#ifdef __cplusplus
extern "C" {
#endif

enum psa_watch_what {
	PSA_WATCH_FINDING,  /* a stall over the threshold */
	PSA_WATCH_RESOLVED, /* the task of a finding moved again */
	PSA_WATCH_END,      /* the watch ended with the finding still open */
	PSA_WATCH_NR
};
const char *psa_watch_what_str(enum psa_watch_what w); /* "finding", "resolved", "end" */

struct psa_watch_note {
	enum psa_watch_what what;
	const struct psa_stall *stall; /* as found (duration_ns: in its state when found) */
	const struct psa_stall *root;  /* a stall that is not a root cause: the one its chain led
					* to when found, not yet over the threshold itself; NULL */
	uint32_t blocked;              /* stalls that led to it when found */
	uint64_t stuck_ns;             /* resolved / end: how long it stayed in that state */
	uint64_t ts;                   /* trace time of the note */
	bool uncertain;                /* lost events overlap its window (now or when found) */
};

struct psa_watch_opts {
	uint64_t threshold_ns;         /* a state lasting longer is a finding (0: 1 s) */
};

struct psa_watch;

int psa_watch_create(const struct psa_watch_opts *o,
		     void (*note)(void *arg, const struct psa_watch_note *n), void *arg,
		     struct psa_watch **out);
void psa_watch_destroy(struct psa_watch *w);

/* Where the reader delivers: events and discards into the model. */
void psa_watch_sink(struct psa_watch *w, struct psa_sink *sink);

/*
 * The hosts whose stream is silent now (psa_live_silent), for the next ticks: a silent host
 * others wait on is a finding of its own (psa_watchdog_set_silent), resolved once it is not
 * silent any more.
 */
void psa_watch_set_silent(struct psa_watch *w, const struct psa_silent_host *h, size_t n);

/* Ask for the verdict at trace time @now and note what is new. Returns 0 or -ENOMEM. */
int psa_watch_tick(struct psa_watch *w, uint64_t now);

/* The watch ends at trace time @now: an end note for every finding still open. */
void psa_watch_end(struct psa_watch *w, uint64_t now);

struct psa_watch_counts {
	uint64_t findings;  /* noted so far */
	uint64_t open;      /* findings not resolved */
	uint64_t tasks;     /* tasks not DONE at the last tick */
	uint64_t events;    /* of the project's providers */
	uint64_t lost;      /* discarded events (and packets) reported by the tracer */
	uint64_t last_ts;   /* the last event's time */
};
void psa_watch_counts(const struct psa_watch *w, struct psa_watch_counts *c);

const struct psa_model *psa_watch_model(const struct psa_watch *w);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_WATCH_H */
