/* SPDX-License-Identifier: MIT */
/*
 * A flight recorder's output given as a report's input (psa_input.h): a directory where a
 * snapshot session wrote several snapshots - `run --snapshot`'s, or each host's under a
 * `run --hosts --snapshot` tree. Their windows overlap, so reading them together would count
 * events twice; as `run` itself does, the last snapshot of each such directory is read, and the
 * input says which (psa_input_note).
 *
 * A snapshot's directory is "<name>-YYYYMMDD-HHMMSS-N"; the last is the latest date and time,
 * then the highest N.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input_int.h"

#define SEARCH_DEPTH 4 /* host/<hostname>/<session>/snapshot-...: how deep a tree is searched */

struct snap_key {
	char date[9], tod[7];
	unsigned n;
};

/* The order key of snapshot directory @name; false when it is not one. */
static bool snap_key(const char *name, struct snap_key *k)
{
	const char *dash[3] = { NULL, NULL, NULL };
	size_t len = strlen(name);

	/* from the end: "-YYYYMMDD-HHMMSS-N" (the name before it may hold dashes) */
	for (size_t i = len, found = 0; i-- > 0 && found < 3;)
		if (name[i] == '-')
			dash[2 - found++] = &name[i];
	if (!dash[0] || dash[1] - dash[0] != 9 || dash[2] - dash[1] != 7 || !dash[2][1])
		return false;
	memcpy(k->date, dash[0] + 1, 8);
	k->date[8] = '\0';
	memcpy(k->tod, dash[1] + 1, 6);
	k->tod[6] = '\0';
	return sscanf(dash[2] + 1, "%u", &k->n) == 1 && psa__is_snapshot_name(name);
}

static bool later(const struct snap_key *a, const struct snap_key *b)
{
	int d = strcmp(a->date, b->date);

	if (!d)
		d = strcmp(a->tod, b->tod);
	return d ? d > 0 : a->n > b->n;
}

/* The snapshots right under @dir: how many, and the last's path in @last. */
static unsigned last_snapshot(const char *dir, char *last, size_t len)
{
	struct snap_key best = { "", "", 0 }, k;
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d)))
		if (snap_key(e->d_name, &k)) {
			if (!n++ || later(&k, &best)) {
				best = k;
				snprintf(last, len, "%s/%s", dir, e->d_name);
			}
		}
	if (d)
		closedir(d);
	return n;
}

/* Does the tree under @dir hold a directory with several snapshots? */
static bool has_several(const char *dir, int depth)
{
	char last[PATH_MAX + 256], sub[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	/* a trace directory holds no snapshots, and is opened only by the read's check */
	if (psa__is_trace_dir(dir))
		return false;
	if (last_snapshot(dir, last, sizeof(last)) > 1)
		return true;
	if (!depth || !(d = opendir(dir)))
		return false;
	while (!found && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= sizeof(sub) ||
		    stat(sub, &st) || !S_ISDIR(st.st_mode))
			continue;
		found = has_several(sub, depth - 1);
	}
	closedir(d);
	return found;
}

/* Add the traces under @dir, the last snapshot of each snapshot directory only. */
static int add_tree(struct psa_input *in, const char *dir, int depth, char *err, size_t errlen)
{
	char last[PATH_MAX + 256], sub[PATH_MAX];
	unsigned snaps = psa__is_trace_dir(dir) ? 0 : last_snapshot(dir, last, sizeof(last));
	struct dirent *e;
	size_t found;
	int rc = 0;
	DIR *d;

	if (snaps || psa__is_trace_dir(dir) || !depth) {
		rc = psa__ctf_set_add(in->set, snaps ? last : dir, &found, err, errlen);
		if (!rc) {
			in->traces += found;
			in->in_snapshot |= snaps > 0; /* read as what it is: a flight-recorder snapshot */
			if (snaps > 1)
				psa__input_note_snapshot(in, dir, last, snaps);
		}
		return rc;
	}
	if (!(d = opendir(dir)))
		return 0;
	while (!rc && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= sizeof(sub) ||
		    stat(sub, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (!psa__is_trace_dir(sub) &&
		    (has_several(sub, depth - 1) || last_snapshot(sub, last, sizeof(last))))
			rc = add_tree(in, sub, depth - 1, err, errlen);
		else if ((rc = psa__ctf_set_add(in->set, sub, &found, err, errlen)) == -ENOENT)
			rc = 0; /* nothing of a trace under it: as the whole-tree search skips it */
		else if (!rc)
			in->traces += found;
	}
	closedir(d);
	return rc;
}

int psa__input_add_dir(struct psa_input *in, const char *dir, bool *handled, char *err,
		       size_t errlen)
{
	*handled = !psa__is_trace_dir(dir) && has_several(dir, SEARCH_DEPTH);
	return *handled ? add_tree(in, dir, SEARCH_DEPTH, err, errlen) : 0;
}
