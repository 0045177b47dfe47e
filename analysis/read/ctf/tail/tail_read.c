/* SPDX-License-Identifier: MIT */
/*
 * The tail-first read's set-up around one read of a set (tail_read.h): per trace directory
 * with a usable index, the packets of the final window and the set-up packet (tail_pick.c) in
 * a shadow directory that babeltrace2 opens instead of the trace, and the raw clock values of
 * the seams where the sink drops the losses babeltrace2 reports for the packets left out.
 *
 * Design choice: a trace that cannot be cut - no index, an index that had to be hidden
 * (bt2_guard/check_index.c), a shadow that could not be made - is read whole, as before: the
 * tail read only ever reads less of a trace it can cut exactly, and says how much it read.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/event_internal.h"
#include "read/ctf/tail/tail_read.h"

/* The bytes of @dir's stream files (every regular file but metadata). */
static uint64_t dir_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	uint64_t sum = 0;

	while (d && (de = readdir(d)) != NULL) {
		char path[PATH_MAX];
		struct stat st;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata") ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (!stat(path, &st) && S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
	}
	if (d)
		closedir(d);
	return sum;
}

/* The seams of trace @i: each cut stream's set-up packet end. */
static int seams_set(struct psa_trace_dirs *dirs, size_t i, const struct psa_tail_pick *p)
{
	if (!dirs->seam && (!(dirs->seam = calloc(dirs->n, sizeof(*dirs->seam))) ||
			    !(dirs->seam_n = calloc(dirs->n, sizeof(*dirs->seam_n)))))
		return -ENOMEM;
	free(dirs->seam[i]);
	dirs->seam_n[i] = 0;
	if (!(dirs->seam[i] = calloc(p->n ? p->n : 1, sizeof(*dirs->seam[i]))))
		return -ENOMEM;
	for (size_t k = 0; k < p->n; k++)
		if (p->s[k].tail_off)
			dirs->seam[i][dirs->seam_n[i]++] = p->s[k].seam_ts;
	return 0;
}

/*
 * Where trace @i's inner window begins (raw clock, 0: none - no inner window asked for, or it
 * would be the whole trace, and so would the window), and in *@window the window widened to
 * hold at least one packet more than it: two windows of the same packets would be one read.
 */
static int inner_cut(const char *dir, uint64_t inner_ns, uint64_t *window, uint64_t *cut)
{
	struct psa_tail_pick pi;
	char err[PSA_ERR_MAX];
	int rc;

	*cut = 0;
	if (!inner_ns)
		return 0;
	rc = psa__tail_pick(dir, inner_ns, &pi, err, sizeof(err));
	if (!rc && !psa__tail_pick_whole(&pi)) {
		*cut = pi.cut;
		/* the window's start before the end of the packet that ends where the inner
		 * window begins (pi.cut - 1): that packet is kept */
		if (*window < pi.end - pi.cut + 2)
			*window = pi.end - pi.cut + 2;
	}
	psa__tail_pick_fini(&pi);
	return rc == -ENOMEM ? rc : 0;
}

/* Trace @i cut to its window in t->root/<i>: 0 (t->made[i] set), 1 (read it whole), -ENOMEM. */
static int cut_one(struct psa_trace_dirs *dirs, size_t i, struct psa_tail_read *t,
		   struct psa_read_stats *st)
{
	struct psa_tail_pick *p = &t->pick[i];
	char shadow[PATH_MAX], err[PSA_ERR_MAX];
	const char *tmp = getenv("TMPDIR");
	uint64_t window = t->window_ns, inner;
	int rc = inner_cut(dirs->real[i], t->inner_ns, &window, &inner);

	if (!rc)
		rc = psa__tail_pick(dirs->real[i], window, p, err, sizeof(err));
	if (rc == -ENOMEM)
		return rc;
	if (rc || psa__tail_pick_whole(p))
		return 1;
	if (!t->root[0]) {
		snprintf(t->root, sizeof(t->root), "%s/proxyscope-tail-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(t->root)) {
			t->root[0] = '\0';
			return 1;
		}
	}
	if ((size_t)snprintf(shadow, sizeof(shadow), "%s/%zu", t->root, i) >= sizeof(shadow))
		return 1;
	if (psa__tail_shadow(dirs->real[i], p, shadow, err, sizeof(err))) {
		psa__tail_unshadow(shadow, p);
		return 1;
	}
	if (!dirs->open && !(dirs->open = calloc(dirs->n, sizeof(*dirs->open))))
		return -ENOMEM;
	if (!(dirs->open[i] = strdup(shadow)) || seams_set(dirs, i, p))
		return -ENOMEM;
	if (!dirs->tail_cut && !(dirs->tail_cut = calloc(dirs->n, sizeof(*dirs->tail_cut))))
		return -ENOMEM;
	dirs->tail_cut[i] = p->cut;
	if (inner) {
		if (!dirs->tail_inner_cut &&
		    !(dirs->tail_inner_cut = calloc(dirs->n, sizeof(*dirs->tail_inner_cut))))
			return -ENOMEM;
		dirs->tail_inner_cut[i] = inner;
		if (p->end - inner + 1 > st->inner_window_ns)
			st->inner_window_ns = p->end - inner + 1;
	}
	t->made[i] = true;
	st->bytes_read += p->bytes_kept;
	st->bytes_total += p->bytes_total;
	for (size_t k = 0; k < p->n; k++)
		st->skipped_losses += p->s[k].loss_n;
	return 0;
}

int psa__tail_read_begin(struct psa_trace_dirs *dirs, const bool *hide,
			 const uint64_t *bytes, uint64_t window_ns, uint64_t inner_ns,
			 struct psa_tail_read *t, struct psa_read_stats *st)
{
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->window_ns = window_ns;
	t->inner_ns = inner_ns < window_ns ? inner_ns : 0;
	if (window_ns && (!(t->pick = calloc(dirs->n ? dirs->n : 1, sizeof(*t->pick))) ||
			  !(t->made = calloc(dirs->n ? dirs->n : 1, sizeof(*t->made)))))
		return -ENOMEM;
	for (size_t i = 0; i < dirs->n && rc >= 0; i++) {
		rc = window_ns && !hide[i] ? cut_one(dirs, i, t, st) : 1;
		if (rc == 1) { /* whole */
			/* the check counted them as it walked the trace: walked once */
			uint64_t b = bytes ? bytes[i] : dir_bytes(dirs->real[i]);

			st->bytes_read += b;
			st->bytes_total += b;
		}
	}
	/* the window read: the one asked for, rounded out to the packets kept */
	for (size_t i = 0; t->made && i < dirs->n; i++)
		if (t->made[i] && t->pick[i].end - t->pick[i].cut + 1 > st->window_ns)
			st->window_ns = t->pick[i].end - t->pick[i].cut + 1;
	return rc < 0 ? rc : 0;
}

void psa__tail_read_end(struct psa_trace_dirs *dirs, struct psa_tail_read *t)
{
	for (size_t i = 0; t->made && i < dirs->n; i++) {
		if (t->made[i] && dirs->open && dirs->open[i]) {
			psa__tail_unshadow(dirs->open[i], &t->pick[i]);
			free(dirs->open[i]);
			dirs->open[i] = NULL;
		}
		if (dirs->tail_cut)
			dirs->tail_cut[i] = 0;
		if (dirs->tail_inner_cut)
			dirs->tail_inner_cut[i] = 0;
		if (dirs->seam) {
			free(dirs->seam[i]);
			dirs->seam[i] = NULL;
			dirs->seam_n[i] = 0;
		}
	}
	for (size_t i = 0; t->pick && i < dirs->n; i++)
		psa__tail_pick_fini(&t->pick[i]);
	if (t->root[0])
		rmdir(t->root);
	free(t->pick);
	free(t->made);
	memset(t, 0, sizeof(*t));
}
