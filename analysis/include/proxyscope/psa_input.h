/* SPDX-License-Identifier: MIT */
/*
 * The inputs of a report: CTF trace directories (found under the paths given, recursively) or
 * one babeltrace2 text input (a file, or `-` for stdin). psa_input_open finds the traces;
 * each is checked once, before the first read (psa_read_ctf's checks); psa_input_read reads them into a model - and, when the hosts' clocks
 * disagree by more than the messages between them allow, reads them again into a new model on
 * the corrected clocks (psa_clock.h); psa_input_integrity gives the damaged and copied traces
 * from the same checks. Nothing here prints: every problem is a negative errno and one line.
 *
 *	struct psa_input *in;
 *	if ((rc = psa_input_open(paths, n, &in, err, sizeof(err))))
 *		... "error: <err>" ...
 *	rc = psa_input_read(in, model, &opts, &res, err, sizeof(err));
 *	rc = psa_input_integrity(in, &integrity);
 *	psa_input_close(in);
 */
#ifndef PROXYSCOPE_PSA_INPUT_H
#define PROXYSCOPE_PSA_INPUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_clock.h>
#include <proxyscope/psa_event.h>
#include <proxyscope/psa_integrity.h>
#include <proxyscope/psa_model.h>

#ifdef __cplusplus
extern "C" {
#endif

struct psa_input;

/*
 * Classify @paths (@n >= 1) - `-` and regular files are babeltrace2 text, directories (and a
 * trace's `metadata` file) CTF - and find the trace directories under them. Returns 0 with
 * *@out, or a negative errno with the problem as a user would describe it in @err: a missing
 * path, not a trace, text and CTF mixed, more than one text input; -ENOMEM when out of memory.
 */
int psa_input_open(char *const *paths, size_t n, struct psa_input **out, char *err,
		   size_t errlen);
void psa_input_close(struct psa_input *in);

/* Babeltrace2 text (else CTF). */
bool psa_input_is_text(const struct psa_input *in);
/* The trace directories found, counted path by path (one host's clock needs no estimate). */
size_t psa_input_traces(const struct psa_input *in);
/* A path is inside (or is) an LTTng snapshot's directory: a flight-recorder snapshot. */
bool psa_input_in_snapshot(const struct psa_input *in);
/* What was chosen for the caller to say, or NULL: a directory holding several flight-recorder
 * snapshots (their windows overlap) is read by its last one, as `run --snapshot` reads it. */
const char *psa_input_note(const struct psa_input *in);

struct psa_input_read_opts {
	const uint32_t *only_vpids; /* keep only these processes' events (none: every process) */
	size_t only_vpids_n;
	struct psa_clock *clock;    /* NULL, or fed in the first pass and estimated after it */
	bool snapshot;              /* psa_model_set_snapshot on a second pass's model */
	uint64_t tail_window_ns;    /* CTF: read each stream's set-up packets and its last
				     * tail_window_ns only, where its index allows (0: all; how much
				     * was read: res->rs.bytes_read) */
	/*
	 * Around each pass (0: the first; 1: on corrected clocks), e.g. a progress line over
	 * *@events (the events read so far, stored relaxed while the pass runs). Either may be
	 * NULL.
	 */
	void (*pass_begin)(void *arg, unsigned pass, _Atomic uint64_t *events);
	void (*pass_end)(void *arg, unsigned pass);
	/*
	 * When a host's clock is to be corrected (CTF): a new model with the caller's observers
	 * in *@m for the second pass; 0, or a positive value psa_input_read returns as it is.
	 * NULL: the traces are not read again (the clocks say it).
	 */
	int (*remodel)(void *arg, struct psa_model **m);
	void *arg;
	/* NULL, or called with every event handed to the model (a tail read's coverage) */
	void (*tap)(void *arg, const struct psa_event *ev);
	void *tap_arg;
	/*
	 * A tail read's inner window, shorter than tail_window_ns and read in the same pass (CTF of
	 * one host, no clock): NULL, or the model it is read into (the cut and the losses as @m's,
	 * the task events before the inner window left out, res->rs.inner_window_ns how long it
	 * was; none when the trace was read whole), and its tap as above.
	 */
	struct psa_model *inner;
	uint64_t tail_inner_ns;
	void (*inner_tap)(void *arg, const struct psa_event *ev);
	void *inner_tap_arg;
};

struct psa_input_result {
	struct psa_read_stats rs; /* the reader's counts (of the last pass) */
	uint64_t filtered;        /* events of other processes left out (only_vpids) */
	bool clock_applied;       /* read again on corrected clocks */
};

/*
 * Read @in into @m (its sink), the clocks estimated in the same pass, and again into the
 * model opts->remodel gives when a clock is to be corrected. Returns 0, a negative errno with
 * the one-line reason in @err (-ENOMEM: out of memory; anything else: the input's problem),
 * or what opts->remodel returned.
 */
int psa_input_read(struct psa_input *in, struct psa_model *m,
		   const struct psa_input_read_opts *opts, struct psa_input_result *res,
		   char *err, size_t errlen);

/*
 * The damaged and copied traces (CTF; nothing for text) from the checks of the read (made now
 * if the read did not make them).
 * 0 or -ENOMEM. psa_integrity_fini(@out) after.
 */
int psa_input_integrity(struct psa_input *in, struct psa_integrity *out);

/*
 * Open babeltrace2 text file @path for reading: a regular file only (opened without blocking
 * on a FIFO). NULL with the one-line reason in @err.
 */
FILE *psa_input_open_text(const char *path, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_INPUT_H */
