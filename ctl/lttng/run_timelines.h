/* SPDX-License-Identifier: MIT */
/*
 * The timelines `proxyscope run` writes next to its trace: DIR/timeline.json (chrome; .json.gz
 * with --timeline-gzip) and DIR/timeline.html, each an export (analysis/export/) fed by the
 * reader that reads the trace back. Never prints: open returns -errno and a reason, finish says
 * through ctl_error which file could not be written.
 *
 *	run_timelines_open(tl, dir, gzip, m, obs, err, len)   then add obs[0..1] to the reader
 *	... read the trace into m ...
 *	run_timelines_finish(tl, m, wd, read_ok, interrupted)  tl[i].ok: written
 *	run_timelines_destroy(tl)                              a file not finished is removed
 */
#ifndef PROXYSCOPE_CTL_RUN_TIMELINES_H
#define PROXYSCOPE_CTL_RUN_TIMELINES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <proxyscope/psa_export.h>

#define RUN_TIMELINES 2 /* [0] chrome JSON, [1] html */

struct run_timeline {
	const char *fmt_name;
	char path[PATH_MAX + 32];
	FILE *f;
	FILE *under;   /* --timeline-gzip: the file @f compresses into */
	struct psa_export *e;
	bool ok;       /* finished and written */
};

/*
 * Create the files in @dir (zeroing @tl first) and an export over @m for each, its observer in
 * @obs[i]. Returns 0 or -errno with @err; what was opened is left to run_timelines_destroy.
 */
int run_timelines_open(struct run_timeline tl[RUN_TIMELINES], const char *dir, bool gzip,
		       const struct psa_model *m, struct psa_observer obs[RUN_TIMELINES],
		       char *err, size_t errlen);

/* After the read (@read_ok: it succeeded): the verdict of @wd (may be NULL) set, each export
 * finished and closed; a file not written is removed (an error through ctl_error after a good
 * read). */
void run_timelines_finish(struct run_timeline tl[RUN_TIMELINES], const struct psa_model *m,
			  const struct psa_watchdog *wd, bool read_ok, bool interrupted);

/* Close and remove what was not finished; destroy the exports. */
void run_timelines_destroy(struct run_timeline tl[RUN_TIMELINES]);

#endif /* PROXYSCOPE_CTL_RUN_TIMELINES_H */
