/* SPDX-License-Identifier: MIT */
/*
 * The timelines of `proxyscope run` (run_timelines.h). Design choice: the files are written
 * while the trace is read (the exports observe the model), so the timelines cost no second
 * pass; only the chrome JSON is compressed by --timeline-gzip, as a browser opens no .html.gz
 * from disk.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gz_stream.h"
#include "msg.h"
#include "run_timelines.h"

/* Close a timeline's streams (the gzip layer first: its trailer). 0 or EOF. */
static int timeline_close(struct run_timeline *t)
{
	int rc = fclose(t->f);

	if (t->under && fclose(t->under))
		rc = EOF;
	t->f = t->under = NULL;
	return rc;
}

int run_timelines_open(struct run_timeline tl[RUN_TIMELINES], const char *dir, bool gzip,
		       const struct psa_model *m, struct psa_observer obs[RUN_TIMELINES],
		       char *err, size_t errlen)
{
	static const struct {
		enum psa_export_format fmt;
		const char *file;
	} outs[RUN_TIMELINES] = { { PSA_EXPORT_CHROME, "timeline.json" },
				  { PSA_EXPORT_HTML, "timeline.html" } };

	memset(tl, 0, RUN_TIMELINES * sizeof(*tl));
	for (int i = 0; i < RUN_TIMELINES; i++) {
		bool gz = gzip && outs[i].fmt == PSA_EXPORT_CHROME;

		snprintf(tl[i].path, sizeof(tl[i].path), "%s/%s%s", dir, outs[i].file,
			 gz ? ".gz" : "");
		tl[i].fmt_name = psa_export_format_str(outs[i].fmt);
		tl[i].f = fopen(tl[i].path, "w");
		if (tl[i].f && gz) {
			tl[i].under = tl[i].f;
			tl[i].f = gz_stream_create(tl[i].under);
			if (!tl[i].f) {
				int e = errno;

				fclose(tl[i].under);
				tl[i].under = NULL;
				errno = e;
			}
		}
		if (!tl[i].f) {
			int e = errno ? errno : EIO;

			snprintf(err, errlen, "cannot create '%s': %s", tl[i].path, strerror(e));
			return -e;
		}
		if (psa_export_create(outs[i].fmt, tl[i].f, &tl[i].e)) {
			snprintf(err, errlen, "cannot create the %s export: out of memory",
				 tl[i].fmt_name);
			return -ENOMEM;
		}
		psa_export_observer(tl[i].e, m, &obs[i]);
	}
	return 0;
}

void run_timelines_finish(struct run_timeline tl[RUN_TIMELINES], const struct psa_model *m,
			  const struct psa_watchdog *wd, bool read_ok, bool interrupted)
{
	for (int i = 0; i < RUN_TIMELINES; i++) {
		if (!tl[i].f)
			continue;
		if (tl[i].e && wd)
			psa_export_set_verdict(tl[i].e, wd, interrupted);
		tl[i].ok = read_ok && tl[i].e && psa_export_finish(tl[i].e, m) == 0;
		if (timeline_close(&tl[i]))
			tl[i].ok = false;
		if (!tl[i].ok) {
			remove(tl[i].path);
			if (read_ok)
				ctl_error("cannot write '%s'", tl[i].path);
		}
	}
}

void run_timelines_destroy(struct run_timeline tl[RUN_TIMELINES])
{
	for (int i = 0; i < RUN_TIMELINES; i++) {
		if (tl[i].f) {
			timeline_close(&tl[i]);
			remove(tl[i].path);
		}
		psa_export_destroy(tl[i].e);
		tl[i].e = NULL;
	}
}
