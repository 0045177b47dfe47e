/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope export --format chrome|csv|html -o FILE [--json] TRACE...`: write the timeline of
 * recorded traces as a file another tool opens (Perfetto, a spreadsheet, a browser), carrying
 * the watchdog's verdict (its root causes marked).
 *
 * Design choice: one streaming pass - the reader feeds the model, the model feeds the exporter,
 * the exporter writes. A regular FILE (new or not, symbolic links followed to the file they
 * name) is written as a temporary file made exclusively with a unique name in FILE's directory
 * and renamed over FILE only once everything is written and flushed, so a failure (bad input
 * half-way, a full disk) or Ctrl-C never leaves a half-written FILE nor a temporary file. An
 * existing FIFO or character device (/dev/stdout, /dev/null, a terminal) is written into, never
 * replaced. An output that is one of the inputs, or inside an input trace, is refused. Every
 * input problem is found before the output is created where it can be (a path that does not
 * exist, mixing text and CTF input); the rest (a corrupt trace, text that is not babeltrace2
 * output, no proxyscope event) removes the temporary file and exits 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <proxyscope/psa_clock.h>
#include <proxyscope/psa_event.h>
#include <proxyscope/psa_export.h>
#include <proxyscope/psa_model.h>

#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "output.h"
#include "report_input.h"

enum { OPT_FORMAT = 1, OPT_OUTPUT, OPT_JSON, OPT_HELP };

static const struct cli_opt export_opts[] = {
	{ "format", 0, true, OPT_FORMAT },
	{ "output", 'o', true, OPT_OUTPUT },
	{ "json", 0, false, OPT_JSON },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char export_usage[] = CLI_HELP_EXPORT; /* docs/commands/proxyscope-export.txt */

struct export_cli {
	enum psa_export_format format;
	bool have_format;
	const char *output;
	bool json;
	const char **traces; /* argv entries */
	size_t traces_n;
	bool text;           /* the one trace is babeltrace2 text */
	bool to_stdout;      /* the export goes to standard output: no summary line */
};

/* A trace argument is babeltrace2 text unless it is a directory or a CTF metadata file. */
static int classify(const char *path, bool *text)
{
	struct stat st;
	const char *base;

	if (!strcmp(path, "-")) {
		*text = true;
		return 0;
	}
	if (stat(path, &st)) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	*text = !S_ISDIR(st.st_mode) && strcmp(base, "metadata") != 0;
	return 0;
}

/* Fill @c from the command line; returns -1 to go on, or the exit code. */
static int export_parse(int argc, char **argv, struct export_cli *c)
{
	char err[CLI_ERR_MAX];
	const char *name, *value;
	struct cli_opts p;
	size_t text_n = 0;
	int id;

	memset(c, 0, sizeof(*c));
	c->traces = calloc((size_t)argc, sizeof(*c->traces));
	if (!c->traces) {
		cli_error("out of memory");
		return CLI_EXIT_FAILURE;
	}
	cli_opts_init(&p, export_opts, argc, argv);
	while ((id = cli_opts_next(&p, &name, &value, err, sizeof(err))) != 0) {
		switch (id) {
		case CLI_OPT_ERROR:
			return cli_usage_error("export", "%s", err);
		case CLI_OPT_POSITIONAL:
			c->traces[c->traces_n++] = value;
			break;
		case OPT_FORMAT:
			if (psa_export_format_parse(value, &c->format))
				return cli_usage_error("export", "%s: '%s' is not a format (chrome, csv "
					"or html)", name, value);
			c->have_format = true;
			break;
		case OPT_OUTPUT:
			if (!value[0])
				return cli_usage_error("export", "%s: empty file name", name);
			c->output = value;
			break;
		case OPT_JSON:
			c->json = true;
			break;
		case OPT_HELP:
			fputs(export_usage, stdout);
			return CLI_EXIT_OK;
		}
	}
	if (!c->have_format)
		return cli_usage_error("export", "--format is required (chrome, csv or html)");
	if (!c->output)
		return cli_usage_error("export", "-o FILE is required");
	if (!c->traces_n)
		return cli_usage_error("export", "no trace given");
	if (c->json && !strcmp(c->output, "-"))
		return cli_usage_error("export", "--json prints on standard output: it cannot go "
			"with -o -");
	for (size_t i = 0; i < c->traces_n; i++) {
		bool text;
		int rc = classify(c->traces[i], &text);

		if (rc)
			return rc;
		text_n += text;
	}
	if (text_n && c->traces_n > 1)
		return cli_usage_error("export", "babeltrace2 text input is read alone: give one text "
			"file (or -) and no other trace");
	c->text = text_n == 1;
	return -1;
}

/* "'a', 'b'" for messages. */
static void traces_str(const struct export_cli *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->traces_n && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s'%s'", i ? ", " : "", c->traces[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

static bool g_progress_drawn;

static void progress(uint64_t events, void *arg)
{
	fprintf(stderr, "\rreading: %" PRIu64 " events", events);
	g_progress_drawn = true;
}

static void progress_clear(void)
{
	if (g_progress_drawn)
		fputs("\r\033[K", stderr);
	g_progress_drawn = false;
}

/*
 * The hosts' clocks (psa_clock.h): estimated in the first pass (est), and the corrections
 * a second pass reads the CTF traces with (fix).
 */
struct export_clock {
	struct psa_clock *est;
	const struct psa_clock_fix *fix;
	size_t fix_n;
	struct psa_sink model;
	bool nomem;
};

static void clock_event(void *arg, const struct psa_event *ev)
{
	struct export_clock *k = arg;

	if (psa_clock_feed(k->est, ev))
		k->nomem = true;
	k->model.event(k->model.arg, ev);
}

static void clock_discard(void *arg, const struct psa_discard *d)
{
	struct export_clock *k = arg;

	k->model.discard(k->model.arg, d);
}

/* Read the traces into @m. Returns 0 or the exit code (the message printed). */
static int read_traces(const struct export_cli *c, struct psa_model *m, struct export_clock *k,
		       struct psa_read_stats *rs)
{
	char err[PSA_ERR_MAX];
	struct psa_sink sink;
	int rc;

	psa_model_sink(m, &sink);
	if (k->est && !k->fix) {
		k->model = sink;
		sink = (struct psa_sink){ clock_event, clock_discard, k };
	}
	if (c->text) {
		const char *path = c->traces[0];
		FILE *f = strcmp(path, "-") ? report_open_text(path, err, sizeof(err)) : stdin;

		if (!f) {
			cli_error("%s", err);
			return CLI_EXIT_USAGE;
		}
		rc = psa_read_text(f, path, &sink, rs, err, sizeof(err));
		if (f != stdin)
			fclose(f);
		if (!rc)
			report_warn_text(path, rs);
	} else {
		bool tty = isatty(STDERR_FILENO);

		rc = psa_read_ctf_clocked(c->traces, c->traces_n, k->fix, k->fix_n, &sink, rs,
					  tty ? progress : NULL, NULL, err, sizeof(err));
		progress_clear();
	}
	if (!rc && k->nomem) {
		err[0] = '\0';
		rc = -ENOMEM;
	}
	if (!rc)
		return 0;
	cli_error("%s", err[0] ? err : strerror(-rc));
	return rc == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
}

static void summary(const struct export_cli *c, const struct psa_model *m)
{
	const char *fmt = psa_export_format_str(c->format);
	struct psa_model_totals t;
	struct cli_json j;

	psa_model_totals(m, &t);
	if (!c->json) {
		if (!c->to_stdout)
			printf("%s: %s timeline of %" PRIu64 " tasks (%" PRIu64 " unfinished) in %" PRIu32
			       " process%s, from %" PRIu64 " events\n",
			       c->output, fmt, t.tasks, t.tasks - t.tasks_done, t.procs,
			       t.procs == 1 ? "" : "es", t.our_events);
		return;
	}
	cli_json_init(&j, stdout);
	cli_json_begin_document(&j);
	cli_json_key(&j, "command");
	cli_json_string(&j, "export");
	cli_json_key(&j, "format");
	cli_json_string(&j, fmt);
	cli_json_key(&j, "output");
	cli_json_string(&j, c->output);
	cli_json_key(&j, "events");
	cli_json_u64(&j, t.our_events);
	cli_json_key(&j, "tasks");
	cli_json_u64(&j, t.tasks);
	cli_json_key(&j, "tasks_unfinished");
	cli_json_u64(&j, t.tasks - t.tasks_done);
	cli_json_key(&j, "processes");
	cli_json_u64(&j, t.procs);
	cli_json_key(&j, "discarded_events");
	cli_json_u64(&j, t.discarded_events);
	cli_json_key(&j, "discarded_packets");
	cli_json_u64(&j, t.discarded_packets);
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

/* Read, model and export into @out. Returns 0 or the exit code (the message printed). */
static int export_run(const struct export_cli *c, FILE *out, const char *out_name,
		      struct psa_model *m, struct export_clock *k)
{
	struct psa_model_totals t;
	struct psa_read_stats rs;
	struct psa_watchdog *wd = NULL;
	struct psa_observer obs;
	struct psa_export *e;
	char names[512];
	int rc;

	rc = psa_export_create(c->format, out, &e);
	if (rc) {
		cli_error("cannot start the export: %s", strerror(-rc));
		return CLI_EXIT_FAILURE;
	}
	/* the verdict the timeline carries (root causes marked) */
	rc = psa_watchdog_create(NULL, &wd);
	if (!rc) {
		psa_watchdog_observer(wd, &obs);
		rc = psa_model_add_observer(m, &obs);
	}
	if (rc) {
		cli_error("cannot start the export: %s", strerror(-rc));
		rc = CLI_EXIT_FAILURE;
		goto out_destroy;
	}
	psa_export_observer(e, m, &obs);
	rc = psa_model_add_observer(m, &obs);
	if (rc) {
		cli_error("cannot start the export: %s", strerror(-rc));
		rc = CLI_EXIT_FAILURE;
		goto out_destroy;
	}
	rc = read_traces(c, m, k, &rs);
	if (rc)
		goto out_destroy;
	psa_model_totals(m, &t);
	if (!t.our_events) {
		traces_str(c, names, sizeof(names));
		cli_error("no proxyscope events in %s", names);
		rc = CLI_EXIT_USAGE;
		goto out_destroy;
	}
	psa_model_finish(m);
	psa_model_totals(m, &t);
	if (psa_watchdog_analyze(wd, m) == 0)
		psa_export_set_verdict(e, wd, false);
	errno = 0;
	rc = psa_export_finish(e, m);
	if (rc == -EIO) {
		/* the failed flush's errno (ENOSPC, EPIPE, ...) when it set one */
		cli_error("cannot write '%s': %s", out_name,
			  strerror(ctl_output_write_errno() ? ctl_output_write_errno() :
				   errno ? errno : EIO));
		rc = CLI_EXIT_FAILURE;
	} else if (rc) {
		cli_error("export failed: %s", strerror(-rc));
		rc = CLI_EXIT_FAILURE;
	}
	if (!rc && (t.discarded_events || t.discarded_packets))
		fprintf(stderr, "warning: the tracer discarded %" PRIu64 " events and %" PRIu64
			" packets: the timeline has gaps\n", t.discarded_events, t.discarded_packets);
out_destroy:
	psa_export_destroy(e);
	psa_watchdog_destroy(wd);
	return rc;
}

/*
 * A host's clock disagreeing by more than the evidence allows (psa_clock.h): a regular FILE
 * (still the temporary file) is written again from a second pass on the corrected clocks; what
 * cannot be rewound (standard output, a FIFO) keeps the recorded clocks, and stderr says so.
 * Returns 0 or the exit code.
 */
static int export_again(const struct export_cli *c, struct ctl_output *target,
			struct psa_model **m, struct export_clock *k)
{
	struct psa_clock_fix *fix;
	size_t fix_n;
	int rc;

	if (!k->est)
		return 0;
	if (psa_clock_estimate(k->est)) {
		cli_error("cannot estimate the hosts' clocks: out of memory");
		return CLI_EXIT_FAILURE;
	}
	if (!psa_clock_needs_correction(k->est))
		return 0;
	if (target->kind != CTL_OUTPUT_REPLACE) {
		psa_clock_print(k->est, false, stderr);
		return 0;
	}
	if (psa_clock_fixes(k->est, &fix, &fix_n)) {
		cli_error("cannot correct the hosts' clocks: out of memory");
		return CLI_EXIT_FAILURE;
	}
	k->fix = fix;
	k->fix_n = fix_n;
	psa_model_destroy(*m);
	*m = NULL;
	rc = psa_model_create(m) ? -ENOMEM : 0;
	/* the stream writes straight into the temporary file's descriptor: empty both */
	if (!rc && (fflush(target->f) || ftruncate(target->fd, 0) ||
		    lseek(target->fd, 0, SEEK_SET) < 0))
		rc = -errno;
	if (rc) {
		cli_error("cannot write '%s' again: %s", c->output, strerror(-rc));
		rc = CLI_EXIT_FAILURE;
	} else {
		rc = export_run(c, target->f, c->output, *m, k);
	}
	if (!rc)
		psa_clock_print(k->est, true, stderr);
	free(fix);
	return rc;
}

/* ctl_output_close after a write that returned @rc (0 or an exit code, its message printed):
 * @rc, or CLI_EXIT_FAILURE after an "error:" line. */
static int output_close(struct ctl_output *target, int rc)
{
	char err[PATH_MAX + 128];

	if (ctl_output_close(target, rc == 0, err, sizeof(err)) && !rc) {
		cli_error("%s", err);
		rc = CLI_EXIT_FAILURE;
	}
	return rc;
}

int cmd_export(int argc, char **argv)
{
	char err[PATH_MAX + 128];
	struct ctl_output target;
	struct export_clock clk = { 0 };
	struct export_cli c;
	struct psa_model *m;
	int rc;

	rc = export_parse(argc, argv, &c);
	if (rc >= 0)
		goto out_free;
	if ((!c.text && psa_clock_create(&clk.est)) || psa_model_create(&m)) {
		cli_error("out of memory");
		rc = CLI_EXIT_FAILURE;
		goto out_free;
	}
	rc = ctl_output_resolve(&target, c.output, c.traces, c.traces_n, c.text, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		rc = rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
		psa_model_destroy(m);
		goto out_free;
	}
	c.to_stdout = target.kind == CTL_OUTPUT_STDOUT;
	if (c.to_stdout && c.json) {
		psa_model_destroy(m);
		rc = cli_usage_error("export", "--json prints on standard output: it cannot go with "
				     "-o %s", c.output);
		goto out_free;
	}
	rc = ctl_output_open(&target, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		rc = CLI_EXIT_FAILURE;
	} else {
		rc = export_run(&c, target.f, c.to_stdout ? "standard output" : c.output, m, &clk);
		if (!rc)
			rc = export_again(&c, &target, &m, &clk);
		rc = output_close(&target, rc);
	}
	if (rc && c.to_stdout) {
		/* already reported: drop what is left so main's flush does not say it again */
		__fpurge(stdout);
		clearerr(stdout);
	}
	if (!rc)
		summary(&c, m);
	psa_model_destroy(m);
out_free:
	psa_clock_destroy(clk.est);
	free(c.traces);
	return rc;
}
