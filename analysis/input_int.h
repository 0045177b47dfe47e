/* SPDX-License-Identifier: MIT */
/* The inputs of a report (psa_input.h): input.c classifies and reads, input_snapshots.c picks
 * the last snapshot of a flight recorder's output. */
#ifndef PROXYSCOPE_ANALYSIS_INPUT_INT_H
#define PROXYSCOPE_ANALYSIS_INPUT_INT_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/psa_input.h>
#include <proxyscope/psa_integrity.h>
#include <proxyscope/psa_model.h>

#include "read/ctf/set.h"

struct psa_input {
	bool text;
	const char *text_path;   /* the text input (`-`: stdin) */
	size_t traces;           /* found under the paths, path by path */
	bool in_snapshot;
	uint64_t cut_ns;         /* the recording's cut marker (psa_cut_read), 0: none */
	char cut_reason[PSA_CUT_REASON_MAX];
	struct psa_ctf_set *set; /* CTF */
	char note[PATH_MAX + 256]; /* what was chosen for the caller to say (psa_input_note) */
	struct psa_integrity_issue *lost; /* hosts' traces unreadable or cut by a daemon's death
					     (PSA_TRACE_LOST), added to psa_input_integrity's */
	size_t lost_n;
};

/* input.c */
bool psa__is_snapshot_name(const char *name);
bool psa__is_trace_dir(const char *dir);
/* "'DIR' holds N flight-recorder snapshots: the last, 'LAST', is read" into in->note. */
void psa__input_note_snapshot(struct psa_input *in, const char *dir, const char *last,
			      unsigned n);

/*
 * input_snapshots.c: when the tree under @dir holds a directory with several snapshots, add its
 * traces to in->set - the last snapshot of each such directory - and set *@handled; otherwise
 * nothing (*@handled false: add @dir as usual). 0 or a negative errno with the reason in @err.
 */
int psa__input_add_dir(struct psa_input *in, const char *dir, bool *handled, char *err,
		       size_t errlen);

/*
 * input_lost.c: several CTF traces in @in->set: name in @in->lost every host whose trace cannot
 * be read (and keep the others in the set) or was cut by a daemon's death (DIR/<host>/'s cut
 * marker). 0, or a negative errno with the reason in @err (the check's own when no trace can
 * be read).
 */
int psa__input_lost_hosts(struct psa_input *in, char *const *paths, size_t n, char *err,
			  size_t errlen);

#endif /* PROXYSCOPE_ANALYSIS_INPUT_INT_H */
