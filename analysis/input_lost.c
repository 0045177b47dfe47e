/* SPDX-License-Identifier: MIT */
/*
 * A report's input where a host's trace is lost (input_int.h): a tree of several traces (one
 * per host, run --hosts) where one cannot be read - a daemon died before that host's metadata
 * was whole - is read without it, and a host whose trace a daemon's death cut is marked so
 * (its cut marker in DIR/<host>/, written by run --hosts). Each is named, PSA_TRACE_LOST, in
 * the input's integrity: the verdict is then inconclusive, not the whole tree refused.
 *
 * Design choice: the set is checked at open only when it holds several traces, and only when
 * that check fails is each trace checked alone (so opened twice): a whole tree costs nothing
 * more than before.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <proxyscope/psa_event.h>

#include "input_int.h"
#include "read/event_internal.h"

static int lost_add(struct psa_input *in, const char *trace, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int lost_add(struct psa_input *in, const char *trace, const char *fmt, ...)
{
	struct psa_integrity_issue *v = realloc(in->lost, (in->lost_n + 1) * sizeof(*v));
	va_list ap;

	if (!v)
		return -ENOMEM;
	in->lost = v;
	v = &in->lost[in->lost_n++];
	memset(v, 0, sizeof(*v));
	v->kind = PSA_TRACE_LOST;
	snprintf(v->trace, sizeof(v->trace), "%s", trace);
	va_start(ap, fmt);
	vsnprintf(v->stream, sizeof(v->stream), fmt, ap);
	va_end(ap);
	return 0;
}

/* The host of trace directory @dir found under @top: the first component below @top when the
 * trace lies deeper (DIR/<host>/<session>/ust/...: a host's), else "its host". */
static void host_of(const char *top, const char *dir, char *host, size_t len)
{
	char *rtop = realpath(top, NULL);
	size_t n = rtop ? strlen(rtop) : 0;
	const char *rest = rtop && !strncmp(dir, rtop, n) && dir[n] == '/' ? dir + n + 1 : NULL;

	if (rest && strchr(rest, '/') && strchr(strchr(rest, '/') + 1, '/'))
		snprintf(host, len, "%.*s", (int)(strchr(rest, '/') - rest), rest);
	else
		snprintf(host, len, "its host");
	free(rtop);
}

/* Each host directory of @dir marked by a daemon's death (psa_cut_write in DIR/<host>/). */
static int hosts_cut(struct psa_input *in, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	while (d && !rc && (e = readdir(d))) {
		char sub[PATH_MAX], marker[PATH_MAX + 32], reason[PSA_CUT_REASON_MAX], when[32] = "?";
		uint64_t ns;
		struct stat st;
		struct tm tm;
		time_t sec;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= sizeof(sub))
			continue;
		/* a recording of its own (ust/ beside its marker: a single-host run's or record's
		 * cut), not a host of a tree (DIR/<host>/<session>/ust/) */
		snprintf(marker, sizeof(marker), "%s/ust", sub);
		if (!stat(marker, &st) && S_ISDIR(st.st_mode))
			continue;
		snprintf(marker, sizeof(marker), "%s/%s", sub, PSA_CUT_FILE);
		/* the host's own marker (psa_cut_read would take the tree's when it has none) */
		if (stat(marker, &st) || !S_ISREG(st.st_mode) ||
		    psa_cut_read(sub, &ns, reason, sizeof(reason)))
			continue;
		sec = (time_t)(ns / 1000000000u);
		if (gmtime_r(&sec, &tm))
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
		rc = lost_add(in, sub, "%s's trace ends at %s.%03u UTC (%s): what %s's ranks did "
			      "after is unknown, their conclusions are uncertain", e->d_name, when,
			      (unsigned)(ns % 1000000000u / 1000000u), reason, e->d_name);
	}
	if (d)
		closedir(d);
	return rc;
}

struct keep {
	struct psa_input *in;
	struct psa_ctf_set *set; /* the readable traces */
	const char *top;
	size_t kept;
	int rc;
};

/* One trace of the tree, checked alone: kept, or named as lost. */
static void keep_readable(void *arg, const char *dir)
{
	struct keep *k = arg;
	struct psa_ctf_set *one = NULL;
	char why[PSA_ERR_MAX], host[128];
	size_t found;
	int rc;

	if (k->rc)
		return;
	rc = psa__ctf_set_create(&one);
	if (!rc)
		rc = psa__ctf_set_add(one, dir, &found, why, sizeof(why));
	if (!rc)
		rc = psa__ctf_set_check(one, why, sizeof(why));
	psa__ctf_set_destroy(one);
	if (rc == -ENOMEM) {
		k->rc = rc;
		return;
	}
	if (!rc) {
		k->rc = psa__ctf_set_add(k->set, dir, &found, why, sizeof(why));
		k->kept += found;
		return;
	}
	host_of(k->top, dir, host, sizeof(host));
	k->rc = lost_add(k->in, dir, "%s%s trace '%s' cannot be read (%s): %s is not in this "
			 "report, its ranks' conclusions are uncertain", host,
			 strcmp(host, "its host") ? "'s" : "", dir, why, host);
}

/* The set failed its check: keep the traces that pass, name the others. 0, or a negative errno
 * with the reason in @err (the check's own when no trace passes). */
static int drop_unreadable(struct psa_input *in, char *const *paths, size_t n, char *err,
			   size_t errlen)
{
	struct keep k = { .in = in };
	char ignored[PSA_ERR_MAX];
	int rc = psa__ctf_set_create(&k.set);

	for (size_t i = 0; i < n && !rc && !k.rc; i++) {
		k.top = paths[i];
		rc = psa_ctf_find(paths[i], keep_readable, &k, ignored, sizeof(ignored));
	}
	rc = rc ? rc : k.rc;
	if (!rc && !k.kept)
		rc = -EIO; /* nothing readable: the first trace's reason, as before */
	if (rc) {
		psa__ctf_set_destroy(k.set);
		if (rc == -ENOMEM)
			psa__errf(err, errlen, "out of memory");
		return rc;
	}
	psa__ctf_set_destroy(in->set);
	in->set = k.set;
	in->traces = k.kept;
	return 0;
}

int psa__input_lost_hosts(struct psa_input *in, char *const *paths, size_t n, char *err,
		      size_t errlen)
{
	const char *check = getenv("PROXYSCOPE_CTF_CHECK");
	struct stat st;
	int rc = 0;

	/* a tree's host directories (a trace directory itself is read once, by its check) */
	for (size_t i = 0; i < n && !rc; i++)
		if (!stat(paths[i], &st) && S_ISDIR(st.st_mode) && !psa__is_trace_dir(paths[i]))
			rc = hosts_cut(in, paths[i]);
	if (rc) {
		psa__errf(err, errlen, "out of memory");
		return rc;
	}
	/* a flight recorder's chosen snapshots, or the checks turned off: read as given */
	if (in->traces < 2 || in->note[0] || (check && !strcmp(check, "0")))
		return 0;
	rc = psa__ctf_set_check(in->set, err, errlen);
	if (rc && rc != -ENOMEM)
		rc = drop_unreadable(in, paths, n, err, errlen);
	return rc;
}

