/* SPDX-License-Identifier: MIT */
/*
 * Where a recording was cut (psa_model.h): the marker file a recording leaves beside its trace,
 * and the model's note of it. A file, not an event: it is written after the session stopped
 * (nothing can be recorded then), it survives a copy of the directory, and CTF readers never
 * open it (babeltrace2 looks for `metadata`, this sits at the top, beside ust/).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "model_int.h"

void psa_model_set_cut(struct psa_model *m, uint64_t cut_ns, const char *reason)
{
	m->cut_ns = cut_ns;
	snprintf(m->cut_reason, sizeof(m->cut_reason), "%s", reason ? reason : "stopped");
}

uint64_t psa_model_cut(const struct psa_model *m, const char **reason)
{
	if (reason)
		*reason = m->cut_reason;
	return m->cut_ns;
}

int psa_cut_write(const char *dir, uint64_t cut_ns, const char *reason)
{
	char path[PATH_MAX];
	FILE *f;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, PSA_CUT_FILE) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "proxyscope-cut 1 %" PRIu64 " %.*s\n", cut_ns, PSA_CUT_REASON_MAX - 1,
		reason);
	rc = ferror(f) ? -EIO : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

static int read_one(const char *path, uint64_t *cut_ns, char *reason, size_t reasonlen)
{
	char line[256], *why;
	unsigned version;
	uint64_t ns;
	int used = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -ENOENT;
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "proxyscope-cut %u %" SCNu64 " %n", &version, &ns, &used) != 2 ||
	    version != 1 || !used || !ns) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	why = line + used;
	why[strcspn(why, "\n")] = '\0';
	*cut_ns = ns;
	if (reason && reasonlen)
		snprintf(reason, reasonlen, "%s", *why ? why : "stopped");
	return 0;
}

int psa_cut_read(const char *dir, uint64_t *cut_ns, char *reason, size_t reasonlen)
{
	char path[PATH_MAX];
	int rc = -ENOENT;

	/* DIR, DIR/.. and DIR/../..: a recording's top, or a trace or snapshot below it
	 * (ust/uid/0/64-bit is four below: only the top or a snapshot directory is expected). */
	for (int up = 0; up < 3 && rc == -ENOENT; up++) {
		static const char *const ups[] = { "", "/..", "/../.." };

		if ((size_t)snprintf(path, sizeof(path), "%s%s/%s", dir, ups[up], PSA_CUT_FILE) >=
		    sizeof(path))
			return -ENAMETOOLONG;
		rc = read_one(path, cut_ns, reason, reasonlen);
	}
	return rc;
}
