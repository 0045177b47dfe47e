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
#include <proxyscope/psa_integrity.h>
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

static void summary(const struct export_cli *c, const struct psa_model *m)
{
	const char *fmt = psa_export_format_str(c->format);
	struct psa_model_totals t;
	struct jw j;

	psa_model_totals(m, &t);
	if (!c->json) {
		if (!c->to_stdout)
			printf("%s: %s timeline of %" PRIu64 " tasks (%" PRIu64 " unfinished) in %" PRIu32
			       " process%s, from %" PRIu64 " events\n",
			       c->output, fmt, t.tasks, t.tasks - t.tasks_done, t.procs,
			       t.procs == 1 ? "" : "es", t.our_events);
		return;
	}
	jw_init(&j, stdout);
	cli_json_begin_document(&j);
	jw_key(&j, "command");
	jw_string(&j, "export");
	jw_key(&j, "format");
	jw_string(&j, fmt);
	jw_key(&j, "output");
	jw_string(&j, c->output);
	jw_key(&j, "events");
	jw_u64(&j, t.our_events);
	jw_key(&j, "tasks");
	jw_u64(&j, t.tasks);
	jw_key(&j, "tasks_unfinished");
	jw_u64(&j, t.tasks - t.tasks_done);
	jw_key(&j, "processes");
	jw_u64(&j, t.procs);
	jw_key(&j, "discarded_events");
	jw_u64(&j, t.discarded_events);
	jw_key(&j, "discarded_packets");
	jw_u64(&j, t.discarded_packets);
	jw_end_object(&j);
	jw_finish(&j);
}

/*
 * The exporter observing a report's read (psa_report.h): made before the read, and again for
 * a second pass when a host's clock disagrees by more than the evidence allows - a regular
 * FILE (still the temporary file) is then emptied and written again on the corrected clocks;
 * what cannot be rewound (standard output, a FIFO) keeps the recorded clocks, and stderr says so.
 */
struct exporter {
	const struct export_cli *c;
	struct ctl_output *target;
	struct psa_export *e;
	bool again; /* the next exporter_open is for the second pass */
};

/* 0 or the exit code (message printed). */
static int exporter_open(struct psa_report *r, void *arg)
{
	struct exporter *x = arg;
	struct psa_observer obs;
	int rc;

	psa_export_destroy(x->e);
	x->e = NULL;
	/* the stream writes straight into the temporary file's descriptor: empty both */
	if (x->again && (fflush(x->target->f) || ftruncate(x->target->fd, 0) ||
			 lseek(x->target->fd, 0, SEEK_SET) < 0)) {
		cli_error("cannot write '%s' again: %s", x->c->output, strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	x->again = true;
	rc = psa_export_create(x->c->format, x->target->f, &x->e);
	if (!rc) {
		psa_export_observer(x->e, r->m, &obs);
		rc = psa_report_add_observer(r, &obs);
	}
	if (rc) {
		cli_error("cannot start the export: %s", strerror(-rc));
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

/* Read, model and export into the target. Returns 0 or the exit code (the message printed). */
static int export_run(const struct export_cli *c, struct ctl_output *target, struct psa_report *r)
{
	const char *out_name = c->to_stdout ? "standard output" : c->output;
	struct exporter x = { .c = c, .target = target };
	struct report_read_opts ro = { .quiet = c->to_stdout };
	struct psa_model_totals t;
	int rc;

	/* the verdict the timeline carries (root causes marked) */
	rc = report_init(r, PSA_REPORT_WATCHDOG, NULL, NULL);
	if (!rc)
		rc = exporter_open(r, &x);
	if (target->kind == CTL_OUTPUT_REPLACE) {
		ro.reread = exporter_open;
		ro.reread_arg = &x;
	}
	if (!rc)
		rc = report_read(r, (char *const *)c->traces, c->traces_n, &ro);
	if (rc)
		goto out;
	if (r->clock && psa_clock_needs_correction(r->clock))
		psa_clock_print(r->clock, r->clock_applied, stderr);
	psa_export_set_verdict(x.e, r->wd, false);
	errno = 0;
	rc = psa_export_finish(x.e, r->m);
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
	for (size_t i = 0; !rc && i < r->integrity.n; i++) {
		char line[1400];

		if (r->integrity.v[i].kind == PSA_TRACE_DUPLICATE)
			continue;
		psa_integrity_issue_str(&r->integrity.v[i], line, sizeof(line));
		fprintf(stderr, "warning: damaged: %s: the timeline misses what it held\n", line);
	}
	psa_model_totals(r->m, &t);
	if (!rc && (t.discarded_events || t.discarded_packets))
		fprintf(stderr, "warning: the tracer discarded %" PRIu64 " events and %" PRIu64
			" packets: the timeline has gaps\n", t.discarded_events, t.discarded_packets);
out:
	psa_export_destroy(x.e);
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
	struct psa_report r = { 0 };
	struct export_cli c;
	int rc;

	rc = export_parse(argc, argv, &c);
	if (rc >= 0)
		goto out_free;
	rc = ctl_output_resolve(&target, c.output, c.traces, c.traces_n, c.text, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		rc = rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
		goto out_free;
	}
	c.to_stdout = target.kind == CTL_OUTPUT_STDOUT;
	if (c.to_stdout && c.json) {
		rc = cli_usage_error("export", "--json prints on standard output: it cannot go with "
				     "-o %s", c.output);
		goto out_free;
	}
	rc = ctl_output_open(&target, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		rc = CLI_EXIT_FAILURE;
	} else {
		rc = output_close(&target, export_run(&c, &target, &r));
	}
	if (rc && c.to_stdout) {
		/* already reported: drop what is left so main's flush does not say it again */
		__fpurge(stdout);
		clearerr(stdout);
	}
	if (!rc)
		summary(&c, r.m);
out_free:
	psa_report_fini(&r);
	free(c.traces);
	return rc;
}
