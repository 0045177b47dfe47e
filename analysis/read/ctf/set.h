/* SPDX-License-Identifier: MIT */
/*
 * A set of CTF traces found and checked once, read as often as needed (input.c reads it again
 * on corrected clocks, and takes the integrity facts from the same checks). Opaque, so that
 * code built without babeltrace2 (none.c) can hold one.
 */
#ifndef PROXYSCOPE_ANALYSIS_CTF_SET_H
#define PROXYSCOPE_ANALYSIS_CTF_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/psa_clock.h>
#include <proxyscope/psa_event.h>

struct psa_ctf_set;

int psa__ctf_set_create(struct psa_ctf_set **out);
void psa__ctf_set_destroy(struct psa_ctf_set *s);

/*
 * Add the traces under @path (as psa_ctf_find finds them; a trace already in the set is kept
 * once): *@found is how many are under @path. 0 or a negative errno with the reason in @err.
 */
int psa__ctf_set_add(struct psa_ctf_set *s, const char *path, size_t *found, char *err,
		     size_t errlen);

/*
 * Check every trace of the set for what babeltrace2 2.0.4 hangs or aborts on, each once
 * (again: nothing). 0 or the first failure's negative errno with the reason in @err.
 */
int psa__ctf_set_check(struct psa_ctf_set *s, char *err, size_t errlen);

/*
 * The next reads' final window (read/ctf/tail/): each trace with a usable index is read as its
 * streams' set-up packets and the packets of their last @window_ns; 0 (the default): whole.
 * @inner_ns (0: none): a shorter window marked in the same read (PSA_EV_BEFORE_INNER).
 */
void psa__ctf_set_tail(struct psa_ctf_set *s, uint64_t window_ns, uint64_t inner_ns);

/*
 * Read the set as psa_read_ctf_clocked reads its paths (checked first, unless
 * PROXYSCOPE_CTF_CHECK=0), each trace's clocks shifted by @fix (none: @fix_n 0).
 */
int psa__ctf_set_read(struct psa_ctf_set *s, const struct psa_clock_fix *fix, size_t fix_n,
		      const struct psa_sink *sink, struct psa_read_stats *stats,
		      void (*progress)(uint64_t events, void *arg), void *progress_arg, char *err,
		      size_t errlen);

/* Each checked trace's facts (checked now if it was not), in order: as psa_ctf_trace_facts. */
int psa__ctf_set_facts(struct psa_ctf_set *s,
		       void (*each)(void *arg, const struct psa_trace_facts *f), void *arg,
		       char *err, size_t errlen);

struct psa_integrity;

/* The damaged and copied traces of the set (integrity.c): psa_integrity_check on its checks. */
int psa__integrity_of_set(struct psa_ctf_set *set, struct psa_integrity *out);

#endif /* PROXYSCOPE_ANALYSIS_CTF_SET_H */
