/* SPDX-License-Identifier: MIT */
/*
 * The inputs of a report (psa_input.h): a trace tree found and checked once, read, and read
 * again on corrected clocks.
 *
 * Design choice: every argument is classified before anything is read - `-` and regular files
 * are babeltrace2 text, directories (and a `metadata` file) are CTF - and checked the way a
 * user would describe the problem ("cannot open", "is not a trace"), so the messages are the
 * same whatever the reader would have said. The CTF traces found are one set (read/ctf/set.h)
 * that keeps each trace's checks: the first read, the second on corrected clocks and the
 * integrity report all use it, so each trace directory is walked and checked once. CTF
 * directories are muxed by time in one reader call; text input is one stream (babeltrace2
 * already merged its traces), so the two are never mixed.
 * A tree of several traces (one per host) where one cannot be read is read without it, and
 * the host named (input_lost.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <proxyscope/psa_input.h>

#include "input_int.h"
#include "read/event_internal.h"

#define TEXT_PROGRESS_EVERY 65536


/* --- classifying the arguments ------------------------------------------------------------- */

static const char *file_kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "a special file";
}

/*
 * Is @name what LTTng calls a snapshot's directory: "<output name>-YYYYMMDD-HHMMSS-N" under a
 * snapshot session's output, the default output name being "snapshot-<id>"?
 */
bool psa__is_snapshot_name(const char *name)
{
	unsigned id, n;
	char date[9], tod[7];

	return sscanf(name, "snapshot-%u-%8[0-9]-%6[0-9]-%u", &id, date, tod, &n) == 4 &&
	       strlen(date) == 8 && strlen(tod) == 6;
}

/* Is @path inside (or itself) a snapshot's directory? */
static bool in_snapshot_dir(const char *path)
{
	char *real = realpath(path, NULL);
	bool found = false;

	for (const char *p = real; p && (p = strchr(p, '/')) != NULL; p++)
		found |= psa__is_snapshot_name(p + 1);
	free(real);
	return found;
}

/* Does directory @dir hold a regular `metadata` file? A stat: the trace is opened by its check. */
bool psa__is_trace_dir(const char *dir)
{
	char md[PATH_MAX];
	struct stat st;

	return (size_t)snprintf(md, sizeof(md), "%s/metadata", dir) < sizeof(md) &&
	       !stat(md, &st) && S_ISREG(st.st_mode);
}

/*
 * Whether @path is babeltrace2 text (else CTF: its traces added to the set, *@traces += how
 * many). A directory (or a symbolic link to one) must hold a trace as the reader finds them;
 * a text input must be a regular file or `-`: a FIFO would block the read forever and a
 * device such as /dev/zero never ends (stdin may still be a pipe).
 */
static int classify(struct psa_input *in, const char *path, bool *text, char *err, size_t errlen)
{
	struct stat st;
	size_t found;
	int rc;

	if (!strcmp(path, "-")) {
		*text = true;
		return 0;
	}
	if (stat(path, &st)) {
		rc = -errno;
		psa__errf(err, errlen, "cannot open '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		bool handled;
		size_t before = in->traces;

		/* several snapshots of one recorder: the last of each (input_snapshots.c) */
		rc = psa__input_add_dir(in, path, &handled, err, errlen);
		if (!rc && handled && in->traces == before) {
			psa__errf(err, errlen, "'%s' is not a trace: no CTF trace under it", path);
			rc = -EINVAL;
		}
		if (!rc && !handled && !(rc = psa__ctf_set_add(in->set, path, &found, err, errlen)))
			in->traces += found;
		if (rc)
			return rc == -ENOMEM ? -EINVAL : rc;
		*text = false;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		psa__errf(err, errlen, "'%s' is not a trace: %s, not a directory or a regular file",
			  path, file_kind(st.st_mode));
		return -EINVAL;
	}
	if (access(path, R_OK)) {
		rc = -errno;
		psa__errf(err, errlen, "cannot open '%s': %s", path, strerror(-rc));
		return rc;
	}
	/* A CTF trace's own metadata file stands for its directory. */
	*text = strcmp(strrchr(path, '/') ? strrchr(path, '/') + 1 : path, "metadata") != 0;
	if (!*text) {
		if ((rc = psa__ctf_set_add(in->set, path, &found, err, errlen)))
			return rc;
		in->traces += found;
	}
	return 0;
}

int psa_input_open(char *const *paths, size_t n, struct psa_input **out, char *err,
		   size_t errlen)
{
	struct psa_input *in = calloc(1, sizeof(*in));
	size_t texts = 0;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	*out = NULL;
	if (!in || psa__ctf_set_create(&in->set)) {
		psa_input_close(in);
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		bool text = false;

		if ((rc = classify(in, paths[i], &text, err, errlen)))
			goto out_close;
		texts += text;
	}
	rc = -EINVAL;
	if (texts && texts != n) {
		psa__errf(err, errlen,
			  "cannot mix babeltrace2 text and CTF trace directories in one report");
		goto out_close;
	}
	if (texts > 1) {
		psa__errf(err, errlen, "give one babeltrace2 text input (babeltrace2 merges several "
			  "traces itself)");
		goto out_close;
	}
	in->text = texts != 0;
	in->text_path = paths[0];
	if (!texts && (rc = psa__input_lost_hosts(in, paths, n, err, errlen)))
		goto out_close;
	for (size_t i = 0; i < n && !texts; i++)
		in->in_snapshot |= in_snapshot_dir(paths[i]);
	for (size_t i = 0; i < n && !texts && !in->cut_ns; i++)
		if (psa_cut_read(paths[i], &in->cut_ns, in->cut_reason, sizeof(in->cut_reason)))
			in->cut_ns = 0;
	*out = in;
	return 0;

out_close:
	psa_input_close(in);
	return rc;
}

void psa_input_close(struct psa_input *in)
{
	if (!in)
		return;
	psa__ctf_set_destroy(in->set);
	free(in->lost);
	free(in);
}

bool psa_input_is_text(const struct psa_input *in)
{
	return in->text;
}

size_t psa_input_traces(const struct psa_input *in)
{
	return in->traces;
}

void psa__input_note_snapshot(struct psa_input *in, const char *dir, const char *last,
			      unsigned n)
{
	size_t used = strlen(in->note);

	snprintf(in->note + used, sizeof(in->note) - used, "%s'%s' holds %u flight-recorder "
		 "snapshots: the last, '%s', is read", used ? "; " : "", dir, n, last);
}

const char *psa_input_note(const struct psa_input *in)
{
	return in->note[0] ? in->note : NULL;
}

bool psa_input_in_snapshot(const struct psa_input *in)
{
	return in->in_snapshot;
}

int psa_input_integrity(struct psa_input *in, struct psa_integrity *out)
{
	struct psa_integrity_issue *v;
	int rc;

	memset(out, 0, sizeof(*out));
	if (in->text)
		return 0;
	rc = psa__integrity_of_set(in->set, out);
	if (rc || !in->lost_n)
		return rc;
	/* the lost hosts make every conclusion uncertain, as a damaged stream does */
	v = realloc(out->v, (out->n + in->lost_n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v + out->n, in->lost, in->lost_n * sizeof(*v));
	out->v = v;
	out->n += in->lost_n;
	out->damaged += in->lost_n;
	return 0;
}

FILE *psa_input_open_text(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a trace: %s, not a directory or a regular file",
			 path, file_kind(st.st_mode));
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

/* --- a pass --------------------------------------------------------------------------------- */

/* Between the reader and the model: the process filter, the clocks, the progress count. */
struct feed {
	struct psa_sink model;
	struct psa_clock *clock; /* fed in the first pass only */
	bool clock_nomem;
	const uint32_t *only_vpids;
	size_t only_vpids_n;
	uint64_t seen;
	uint64_t filtered;
	bool count_progress;
	_Atomic uint64_t progress;
	void (*tap)(void *arg, const struct psa_event *ev);
	void *tap_arg;
	struct psa_sink inner; /* event NULL: no inner window */
	void (*inner_tap)(void *arg, const struct psa_event *ev);
	void *inner_tap_arg;
};

static void feed_event(void *arg, const struct psa_event *ev)
{
	struct feed *f = arg;

	if (f->count_progress && ++f->seen % TEXT_PROGRESS_EVERY == 0)
		atomic_store_explicit(&f->progress, f->seen, memory_order_relaxed);
	if (f->clock && psa_clock_feed(f->clock, ev))
		f->clock_nomem = true;
	if (f->only_vpids_n && ev->vpid) {
		size_t i = 0;

		while (i < f->only_vpids_n && f->only_vpids[i] != ev->vpid)
			i++;
		if (i == f->only_vpids_n) {
			f->filtered++;
			return;
		}
	}
	if (f->tap)
		f->tap(f->tap_arg, ev);
	if (!(ev->present & PSA_EV_BEFORE_WINDOW)) /* a tail read's, for the tap only */
		f->model.event(f->model.arg, ev);
	if (f->inner_tap)
		f->inner_tap(f->inner_tap_arg, ev);
	if (f->inner.event && !(ev->present & PSA_EV_BEFORE_INNER))
		f->inner.event(f->inner.arg, ev);
}

static void feed_discard(void *arg, const struct psa_discard *d)
{
	struct feed *f = arg;

	f->model.discard(f->model.arg, d);
	if (f->inner.discard)
		f->inner.discard(f->inner.arg, d);
}

static void ctf_progress(uint64_t events, void *arg)
{
	struct feed *f = arg;

	atomic_store_explicit(&f->progress, events, memory_order_relaxed);
}

static int read_text(struct psa_input *in, struct feed *f, const struct psa_sink *sink,
		     struct psa_read_stats *rs, char *err, size_t errlen)
{
	const char *path = in->text_path;
	FILE *file = stdin;
	int rc;

	if (strcmp(path, "-")) {
		file = psa_input_open_text(path, err, errlen);
		if (!file)
			return -ENOENT;
	}
	f->count_progress = true;
	rc = psa_read_text(file, path, sink, rs, err, errlen);
	if (!rc && ferror(file)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		rc = -EIO;
	}
	if (file != stdin)
		fclose(file);
	return rc;
}

/* "X:12: not babeltrace2 output: <the parser's reason>", whatever the parser's wording. */
static void text_error(const char *name, uint64_t line, char *err, size_t errlen)
{
	char prefix[PSA_ERR_MAX], why[PSA_ERR_MAX];
	const char *w = err;
	size_t len;

	snprintf(prefix, sizeof(prefix), "%s:%" PRIu64 ": ", name, line);
	len = strlen(prefix);
	if (!strncmp(err, prefix, len))
		w = err + len;
	snprintf(why, sizeof(why), "%s", w);
	if (!strncmp(why, "not babeltrace2", 15) || !strncmp(why, "babeltrace2 ", 12) ||
	    !strncmp(why, "value out of range", 18) || !strncmp(why, "a line longer", 13))
		snprintf(err, errlen, "%s%s", prefix, why);
	else
		snprintf(err, errlen, "%snot babeltrace2 output: %s", prefix,
			 why[0] ? why : "parse error");
}

/* One pass over the inputs into @m; 0 or a negative errno with the reason in @err. */
static int read_pass(struct psa_input *in, struct psa_model *m, unsigned pass,
		     const struct psa_input_read_opts *o, const struct psa_clock_fix *fix,
		     size_t fix_n, struct psa_input_result *res, char *err, size_t errlen)
{
	struct feed f = { .only_vpids_n = 0 };
	struct psa_sink sink = { feed_event, feed_discard, &f };
	int rc;

	err[0] = '\0';
	memset(&res->rs, 0, sizeof(res->rs));
	psa_model_sink(m, &f.model);
	f.clock = fix ? NULL : o->clock;
	f.only_vpids = o->only_vpids;
	f.only_vpids_n = o->only_vpids_n;
	f.tap = o->tap;
	f.tap_arg = o->tap_arg;
	if (o->inner && !o->clock && !in->text) {
		psa_model_sink(o->inner, &f.inner);
		f.inner_tap = o->inner_tap;
		f.inner_tap_arg = o->inner_tap_arg;
	}
	atomic_init(&f.progress, 0);
	if (o->pass_begin)
		o->pass_begin(o->arg, pass, &f.progress);
	if (in->text)
		rc = read_text(in, &f, &sink, &res->rs, err, errlen);
	else {
		psa__ctf_set_tail(in->set, o->tail_window_ns, f.inner.event ? o->tail_inner_ns : 0);
		rc = psa__ctf_set_read(in->set, fix, fix_n, &sink, &res->rs, ctf_progress, &f, err,
				       errlen);
	}
	if (o->pass_end)
		o->pass_end(o->arg, pass);
	res->filtered = f.filtered;
	if (rc == -ENOMEM || f.clock_nomem) {
		if (!err[0])
			psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (rc == -EINVAL && in->text)
		text_error(in->text_path, res->rs.lines, err, errlen);
	else if (rc && !err[0])
		psa__errf(err, errlen, "%s", strerror(-rc));
	return rc;
}

/*
 * The hosts' clocks from the first pass; when one is to be corrected, CTF input is read again
 * into a new model on the corrected clocks. Only then: a trace whose clocks agree costs nothing
 * more than the estimator's matching of sends with receives.
 */
static int clocks_correct(struct psa_input *in, const struct psa_input_read_opts *o,
			  struct psa_input_result *res, char *err, size_t errlen)
{
	struct psa_clock_fix *fix;
	struct psa_model *m = NULL;
	size_t fix_n;
	int rc;

	if (!o->clock)
		return 0;
	if (psa_clock_estimate(o->clock)) {
		psa__errf(err, errlen, "cannot estimate the hosts' clocks: out of memory");
		return -ENOMEM;
	}
	if (in->text || !psa_clock_needs_correction(o->clock) || !o->remodel)
		return 0;
	if (psa_clock_fixes(o->clock, &fix, &fix_n)) {
		psa__errf(err, errlen, "cannot correct the hosts' clocks: out of memory");
		return -ENOMEM;
	}
	rc = o->remodel(o->arg, &m);
	if (!rc && o->snapshot)
		psa_model_set_snapshot(m);
	if (!rc && in->cut_ns)
		psa_model_set_cut(m, in->cut_ns, in->cut_reason);
	if (!rc)
		rc = read_pass(in, m, 1, o, fix, fix_n, res, err, errlen);
	res->clock_applied = rc == 0;
	free(fix);
	return rc;
}

int psa_input_read(struct psa_input *in, struct psa_model *m,
		   const struct psa_input_read_opts *opts, struct psa_input_result *res,
		   char *err, size_t errlen)
{
	int rc;

	memset(res, 0, sizeof(*res));
	if (in->cut_ns)
		psa_model_set_cut(m, in->cut_ns, in->cut_reason);
	if (in->cut_ns && opts->inner)
		psa_model_set_cut(opts->inner, in->cut_ns, in->cut_reason);
	rc = read_pass(in, m, 0, opts, NULL, 0, res, err, errlen);
	return rc ? rc : clocks_correct(in, opts, res, err, errlen);
}
