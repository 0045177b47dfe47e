/*
 * Reading the inputs of a report (see report_input.h).
 *
 * Design choice: every argument is classified before anything is read - `-` and regular files
 * are babeltrace2 text, directories (and a `metadata` file) are CTF - and checked the way a
 * user would describe the problem ("cannot open", "is not a trace"), so the messages are the
 * same whatever the reader would have said; then the whole input is read once, into one model
 * that every report observes. CTF directories are muxed by time in one reader call; text input
 * is one stream (babeltrace2 already merged its traces), so the two are never mixed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "progress.h"
#include "report_input.h"

#define PROGRESS_DELAY_MS 500
#define NO_EVENTS_HINT                                                                  \
	"a trace recorded at --loglevel warning or err holds only the consumers' timeouts " \
	"and the failures: a healthy run leaves none"
#define TEXT_PROGRESS_EVERY 65536

/* The model and the parts report_ctx_init was asked for (again for a second pass). */
static int parts_create(struct report_ctx *c)
{
	struct psa_observer obs;
	int rc;

	rc = psa_model_create(&c->m);
	if (!rc && (c->parts & REPORT_OVERVIEW) && !(rc = psa_overview_create(&c->overview))) {
		psa_overview_observer(c->overview, &obs);
		rc = psa_model_add_observer(c->m, &obs);
	}
	if (!rc && (c->parts & REPORT_STATS) && !(rc = psa_stats_create(&c->stats))) {
		psa_stats_observer(c->stats, &obs);
		rc = psa_model_add_observer(c->m, &obs);
	}
	if (!rc && (c->parts & REPORT_TIMELINE) &&
	    !(rc = psa_timeline_create(c->filter, &c->timeline))) {
		psa_timeline_observer(c->timeline, &obs);
		rc = psa_model_add_observer(c->m, &obs);
	}
	if (!rc && (c->parts & REPORT_WATCHDOG) && !(rc = psa_watchdog_create(&c->wopts, &c->wd))) {
		psa_watchdog_observer(c->wd, &obs);
		rc = psa_model_add_observer(c->m, &obs);
	}
	return rc;
}

static void parts_destroy(struct report_ctx *c)
{
	psa_watchdog_destroy(c->wd);
	psa_timeline_destroy(c->timeline);
	psa_stats_destroy(c->stats);
	psa_overview_destroy(c->overview);
	psa_model_destroy(c->m);
	c->wd = NULL;
	c->timeline = NULL;
	c->stats = NULL;
	c->overview = NULL;
	c->m = NULL;
}

int report_ctx_init(struct report_ctx *c, unsigned parts, const struct psa_timeline_filter *filter,
		    const struct psa_watchdog_opts *wopts)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->parts = parts;
	c->filter = filter;
	if (wopts)
		c->wopts = *wopts;
	rc = psa_clock_create(&c->clock);
	if (!rc)
		rc = parts_create(c);
	if (rc) {
		cli_error("cannot set up the analysis: %s", strerror(-rc));
		report_ctx_fini(c);
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

int report_ctx_add_observer(struct report_ctx *c, const struct psa_observer *obs)
{
	int rc = psa_model_add_observer(c->m, obs);

	if (rc) {
		cli_error("cannot set up the analysis: %s", strerror(-rc));
		return CLI_EXIT_FAILURE;
	}
	c->extra_observers++;
	return 0;
}

void report_ctx_fini(struct report_ctx *c)
{
	parts_destroy(c);
	psa_integrity_fini(&c->integrity);
	psa_clock_destroy(c->clock);
	memset(c, 0, sizeof(*c));
}

void report_print_clocks(const struct report_ctx *c, FILE *out)
{
	size_t n = 0;

	if (!c->clock)
		return;
	psa_clock_hosts(c->clock, &n);
	if (n < 2)
		return;
	psa_clock_print(c->clock, c->clock_applied, out);
	fputc('\n', out);
}

/* --- a report command's arguments ------------------------------------------------------------ */

#define MAX_THRESHOLD_NS (UINT64_C(86400) * 1000000000u)

const struct cli_opt report_watchdog_opts[] = {
	{ "threshold", 0, true, REPORT_OPT_THRESHOLD },
	{ "json", 0, false, REPORT_OPT_JSON },
	{ "help", 'h', false, REPORT_OPT_HELP },
	{ NULL, 0, false, 0 },
};

#define GO_ON (-1) /* report_opt: read the next argument */

/* One argument of @cmd: GO_ON, or the command's exit code (message printed). */
static int report_opt(const struct report_cmd *cmd, void *arg, int id, const char *name,
		      const char *value, const char *err, struct report_args *a)
{
	char why[CLI_ERR_MAX];
	int rc;

	switch (id) {
	case REPORT_OPT_THRESHOLD:
		if (cli_parse_duration(value, 1000, 1000, MAX_THRESHOLD_NS, &a->wopts.threshold_ns,
				       why, sizeof(why)))
			return cli_usage_error(cmd->name, "%s: %s", name, why);
		return GO_ON;
	case REPORT_OPT_JSON:
		a->json = true;
		return GO_ON;
	case REPORT_OPT_HELP:
		fputs(cmd->usage, stdout);
		return CLI_EXIT_OK;
	case CLI_OPT_POSITIONAL:
		a->paths[a->n++] = (char *)value;
		return GO_ON;
	default:
		if (id < REPORT_OPT_OWN || !cmd->option)
			return cli_usage_error(cmd->name, "%s", err);
		rc = cmd->option(arg, id, name, value);
		return rc ? rc : GO_ON;
	}
}

bool report_cmd_parse(const struct report_cmd *cmd, int argc, char **argv, void *arg,
		      struct report_args *a, int *rc)
{
	const char *name, *value;
	char err[CLI_ERR_MAX];
	struct cli_opts p;
	int id;

	memset(a, 0, sizeof(*a));
	a->paths = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*a->paths));
	if (!a->paths) {
		cli_error("out of memory");
		*rc = CLI_EXIT_FAILURE;
		return false;
	}
	*rc = GO_ON;
	cli_opts_init(&p, cmd->opts, argc, argv);
	while (*rc == GO_ON && (id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0)
		*rc = report_opt(cmd, arg, id, name, value, err, a);
	if (*rc == GO_ON && !a->n)
		*rc = cli_usage_error(cmd->name, "no trace given");
	if (*rc == GO_ON) {
		*rc = 0;
		return true;
	}
	free(a->paths);
	a->paths = NULL;
	return false;
}

int report_cmd_read(const struct report_args *a, struct report_ctx *c, unsigned parts,
		    const struct psa_timeline_filter *filter)
{
	int rc = report_ctx_init(c, parts, filter, &a->wopts);

	return rc ? rc : report_ctx_read(c, a->paths, a->n, NULL);
}

void report_cmd_done(struct report_args *a, struct report_ctx *c)
{
	report_ctx_fini(c);
	free(a->paths);
	a->paths = NULL;
}

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
static bool is_snapshot_name(const char *name)
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
		found |= is_snapshot_name(p + 1);
	free(real);
	return found;
}

/* The snapshot directories right under @dir (a snapshot session's output). */
static unsigned snapshots_in(const char *dir, char *one, size_t onelen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d)))
		if (is_snapshot_name(e->d_name)) {
			snprintf(one, onelen, "%s/%s", dir, e->d_name);
			n++;
		}
	if (d)
		closedir(d);
	return n;
}

/*
 * Is @path text (true) or CTF (false)? Returns 0, or CLI_EXIT_USAGE after an "error:" line.
 * A directory (or a symbolic link to one) must hold a trace as the reader finds them; a text
 * input must be a regular file or `-`: a FIFO would block the read forever and a device such
 * as /dev/zero never ends (stdin may still be a pipe).
 */
static void count_trace(void *arg, const char *dir)
{
	(void)dir;
	++*(size_t *)arg;
}

/* Whether @path is babeltrace2 text (else CTF: *@traces += the trace directories under it). */
static int classify(const char *path, bool *text, size_t *traces)
{
	char err[PSA_ERR_MAX], one[PATH_MAX + 256];
	struct stat st;

	if (!strcmp(path, "-")) {
		*text = true;
		return 0;
	}
	if (stat(path, &st)) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode)) {
		if (psa_ctf_find(path, count_trace, traces, err, sizeof(err))) {
			cli_error("%s", err);
			return CLI_EXIT_USAGE;
		}
		if (snapshots_in(path, one, sizeof(one)) > 1) {
			/* Read together, their overlapping windows would count events twice. */
			cli_error("'%s' holds several flight-recorder snapshots: read one of them "
				  "(e.g. '%s')", path, one);
			return CLI_EXIT_USAGE;
		}
		*text = false;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		cli_error("'%s' is not a trace: %s, not a directory or a regular file", path,
			  file_kind(st.st_mode));
		return CLI_EXIT_USAGE;
	}
	if (access(path, R_OK)) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	/* A CTF trace's own metadata file stands for its directory. */
	*text = strcmp(strrchr(path, '/') ? strrchr(path, '/') + 1 : path, "metadata") != 0;
	*traces += !*text;
	return 0;
}

/* --- the pass ------------------------------------------------------------------------------- */

/* Between the reader and the model: the process filter and the text reader's progress count. */
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
	f->model.event(f->model.arg, ev);
}

static void feed_discard(void *arg, const struct psa_discard *d)
{
	struct feed *f = arg;

	f->model.discard(f->model.arg, d);
}

static void ctf_progress(uint64_t events, void *arg)
{
	struct feed *f = arg;

	atomic_store_explicit(&f->progress, events, memory_order_relaxed);
}

FILE *report_open_text(const char *path, char *err, size_t errlen)
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

static int read_text(struct report_ctx *c, const char *path, struct feed *f,
		     const struct psa_sink *sink, char *err, size_t errlen)
{
	FILE *in = stdin;
	int rc;

	if (strcmp(path, "-")) {
		in = report_open_text(path, err, errlen);
		if (!in)
			return -ENOENT;
	}
	f->count_progress = true;
	rc = psa_read_text(in, path, sink, &c->in.rs, err, errlen);
	if (!rc && ferror(in)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		rc = -EIO;
	}
	if (in != stdin)
		fclose(in);
	return rc;
}

/* "X:12: not babeltrace2 output: <the parser's reason>", whatever the parser's wording. */
static void text_error(const char *name, uint64_t line, const char *err)
{
	char prefix[PSA_ERR_MAX];
	const char *why = err;
	size_t len;

	snprintf(prefix, sizeof(prefix), "%s:%" PRIu64 ": ", name, line);
	len = strlen(prefix);
	if (!strncmp(err, prefix, len))
		why = err + len;
	if (!strncmp(why, "not babeltrace2", 15) || !strncmp(why, "babeltrace2 ", 12) ||
	    !strncmp(why, "value out of range", 18) || !strncmp(why, "a line longer", 13))
		cli_error("%s%s", prefix, why);
	else
		cli_error("%snot babeltrace2 output: %s", prefix, why[0] ? why : "parse error");
}

static void describe(struct report_input *in, char *const *paths, size_t n)
{
	if (in->text)
		snprintf(in->desc, sizeof(in->desc), "babeltrace2 text from '%s'", paths[0]);
	else
		snprintf(in->desc, sizeof(in->desc), "%u CTF trace%s under '%s'%s", in->rs.traces,
			 in->rs.traces == 1 ? "" : "s", paths[0], n > 1 ? " and more" : "");
}

/* One pass over the inputs into c->m; 0 or the exit code (message printed). */
static int read_pass(struct report_ctx *c, char *const *paths, size_t n,
		     const struct report_read_opts *opts, const struct psa_clock_fix *fix,
		     size_t fix_n)
{
	struct feed f = { .only_vpids_n = 0 };
	struct psa_sink sink = { feed_event, feed_discard, &f };
	char err[PSA_ERR_MAX];
	bool progress;
	int rc;

	psa_model_sink(c->m, &f.model);
	f.clock = fix ? NULL : c->clock;
	f.only_vpids = opts->only_vpids;
	f.only_vpids_n = opts->only_vpids_n;
	atomic_init(&f.progress, 0);

	progress = !opts->quiet && isatty(STDERR_FILENO) &&
		   progress_start_count(fix ? "reading the trace on corrected clocks"
					    : "reading the trace", "events", &f.progress,
					PROGRESS_DELAY_MS);
	if (c->in.text)
		rc = read_text(c, paths[0], &f, &sink, err, sizeof(err));
	else
		rc = psa_read_ctf_clocked((const char *const *)paths, n, fix, fix_n, &sink,
					  &c->in.rs, ctf_progress, &f, err, sizeof(err));
	if (progress)
		progress_stop();
	c->in.filtered = f.filtered;
	if (rc == -ENOMEM || f.clock_nomem) {
		cli_error("%s", err[0] ? err : "out of memory");
		return CLI_EXIT_FAILURE;
	}
	if (rc == -EINVAL && c->in.text) {
		text_error(paths[0], c->in.rs.lines, err);
		return CLI_EXIT_USAGE;
	}
	if (rc) {
		cli_error("%s", err[0] ? err : strerror(-rc));
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/*
 * The hosts' clocks from the first pass; when one is to be corrected, CTF input is read again
 * into new parts on the corrected clocks. Only then: a trace whose clocks agree costs nothing
 * more than the estimator's matching of sends with receives. 0 or the exit code.
 */
static int clocks_correct(struct report_ctx *c, char *const *paths, size_t n,
			  const struct report_read_opts *opts, bool snapshot)
{
	struct psa_clock_fix *fix;
	size_t fix_n;
	int rc;

	if (!c->clock)
		return 0;
	if (psa_clock_estimate(c->clock)) {
		cli_error("cannot estimate the hosts' clocks: out of memory");
		return CLI_EXIT_FAILURE;
	}
	if (c->in.text || !psa_clock_needs_correction(c->clock) ||
	    (c->extra_observers && !opts->reread))
		return 0;
	if (psa_clock_fixes(c->clock, &fix, &fix_n)) {
		cli_error("cannot correct the hosts' clocks: out of memory");
		return CLI_EXIT_FAILURE;
	}
	parts_destroy(c);
	c->extra_observers = 0;
	rc = parts_create(c);
	if (rc) {
		cli_error("cannot set up the analysis: %s", strerror(-rc));
		rc = CLI_EXIT_FAILURE;
	}
	if (!rc && snapshot)
		psa_model_set_snapshot(c->m);
	if (!rc && opts->reread)
		rc = opts->reread(c, opts->reread_arg);
	if (!rc)
		rc = read_pass(c, paths, n, opts, fix, fix_n);
	c->clock_applied = rc == 0;
	free(fix);
	return rc;
}

int report_ctx_read(struct report_ctx *c, char *const *paths, size_t n,
		    const struct report_read_opts *opts)
{
	struct report_read_opts none = { 0 };
	struct psa_model_totals tot;
	size_t texts = 0, traces = 0;
	bool snapshot = false;
	int rc;

	if (!opts)
		opts = &none;
	for (size_t i = 0; i < n; i++) {
		bool text;

		rc = classify(paths[i], &text, &traces);
		if (rc)
			return rc;
		texts += text;
	}
	if (texts && texts != n) {
		cli_error("cannot mix babeltrace2 text and CTF trace directories in one report");
		return CLI_EXIT_USAGE;
	}
	if (texts > 1) {
		cli_error("give one babeltrace2 text input (babeltrace2 merges several traces itself)");
		return CLI_EXIT_USAGE;
	}
	for (size_t i = 0; i < n && !texts; i++)
		snapshot |= opts->snapshot || in_snapshot_dir(paths[i]);
	if (snapshot)
		psa_model_set_snapshot(c->m);
	c->in.text = texts != 0;
	c->in.first = paths[0];
	c->in.paths_n = n;
	/* one trace directory is one host: its clock needs no estimate */
	if (!texts && traces < 2) {
		psa_clock_destroy(c->clock);
		c->clock = NULL;
	}
	rc = read_pass(c, paths, n, opts, NULL, 0);
	if (!rc)
		rc = clocks_correct(c, paths, n, opts, snapshot);
	if (rc)
		return rc;
	describe(&c->in, paths, n);
	report_warn_text(paths[0], &c->in.rs);

	psa_model_finish(c->m);
	psa_model_totals(c->m, &tot);
	if (!c->in.text && psa_integrity_check((const char *const *)paths, n, &c->integrity)) {
		cli_error("cannot check the traces: out of memory");
		return CLI_EXIT_FAILURE;
	}
	if (!tot.our_events && opts->empty_ok) {
		c->in.empty = true;
		return 0;
	}
	if (!tot.our_events) {
		/*
		 * One "error:" line, as for every bad input: the damage that explains the missing
		 * events when a damaged stream does (the first of them), else the hint.
		 */
		char line[1400];

		if (c->integrity.n) {
			psa_integrity_issue_str(&c->integrity.v[0], line, sizeof(line));
			cli_error("no proxyscope events in '%s'%s (damaged: %s%s)", paths[0],
				  n > 1 ? " nor in the other paths" : "", line,
				  c->integrity.n > 1 ? "; and more" : "");
		} else if (n > 1) {
			cli_error("no proxyscope events in '%s' (nor in the %zu other path%s; %s)",
				  paths[0], n - 1, n > 2 ? "s" : "", NO_EVENTS_HINT);
		} else {
			cli_error("no proxyscope events in '%s' (%s)", paths[0], NO_EVENTS_HINT);
		}
		return CLI_EXIT_USAGE;
	}
	if (c->wd)
		psa_watchdog_set_integrity(c->wd, &c->integrity);
	if (c->wd && psa_watchdog_analyze(c->wd, c->m)) {
		cli_error("cannot analyze the stalls: out of memory");
		return CLI_EXIT_FAILURE;
	}
	report_warn_discards(c->m);
	return 0;
}

void report_warn_discards(const struct psa_model *m)
{
	struct psa_model_totals tot;

	psa_model_totals(m, &tot);
	if (!tot.discarded_events && !tot.discarded_packets && !tot.discards)
		return;
	fprintf(stderr, "warning: the tracer lost %" PRIu64 " event%s and %" PRIu64 " packet%s "
		"(%" PRIu32 " report%s): conclusions resting on those windows are marked uncertain\n",
		tot.discarded_events, tot.discarded_events == 1 ? "" : "s", tot.discarded_packets,
		tot.discarded_packets == 1 ? "" : "s", tot.discards, tot.discards == 1 ? "" : "s");
}

void report_warn_text(const char *name, const struct psa_read_stats *rs)
{
	if (!rs->backwards)
		return;
	fprintf(stderr, "warning: %s:%" PRIu64 ": %" PRIu64 " event%s earlier than the event "
		"before %s (babeltrace2 prints them in time order): kept at that event's time, "
		"durations around %s are uncertain\n", name, rs->backwards_line, rs->backwards,
		rs->backwards == 1 ? " is" : "s are", rs->backwards == 1 ? "it" : "them",
		rs->backwards == 1 ? "it" : "them");
}
