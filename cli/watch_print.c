/* SPDX-License-Identifier: MIT */
/*
 * The watch's printer (watch_print.h): the findings of the live watch loop
 * (ctl/lttng/live_watch.h) as text lines or JSON Lines, and the status line on stderr. The
 * loop runs in ctl/ and never prints; it hands every note here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <proxyscope/psa_watch.h>

#include "cli_util.h"
#include "report_json.h"
#include "watch_print.h"

static void status_clear(struct watch_print *wp)
{
	if (wp->status_shown) {
		fputs("\r\033[K", stderr);
		wp->status_shown = false;
	}
}

static void note_json(struct watch_print *wp, const struct psa_watch_note *n, uint64_t threshold_ns,
		      double elapsed_s)
{
	struct jw j;

	jw_init_compact(&j, wp->out);
	cli_json_begin_document(&j);
	jw_key(&j, "event");
	jw_string(&j, psa_watch_what_str(n->what));
	jw_key(&j, "time_ns");
	jw_u64(&j, n->ts);
	jw_key(&j, "elapsed_s");
	jw_double(&j, elapsed_s);
	jw_key(&j, "threshold_ns");
	jw_u64(&j, threshold_ns);
	jw_key(&j, "stuck_ns");
	jw_u64(&j, n->what == PSA_WATCH_FINDING ? n->stall->duration_ns : n->stuck_ns);
	jw_key(&j, "blocked");
	jw_u64(&j, n->blocked);
	/* a host named from its stream's silence, not from a cut its trace recorded */
	jw_key(&j, "silent");
	jw_bool(&j, n->stall->silent);
	psa_report_json_stall_members(&j, n->stall, NULL);
	jw_key(&j, "leads_to");
	if (n->root) {
		jw_begin_object(&j);
		psa_report_json_stall_members(&j, n->root, NULL);
		jw_end_object(&j);
	} else {
		jw_null(&j);
	}
	jw_end_object(&j);
	fputc('\n', wp->out);
}

/* psa_stall_label and " on HOST": a job across hosts has processes of the same pid on several
 * hosts, and the lines that name no pid still name where the rank runs. */
static void label_on(const struct psa_stall *s, char *buf, size_t len)
{
	size_t k;

	psa_stall_label(s, buf, len);
	k = strlen(buf);
	if (s->host[0] && k < len)
		snprintf(buf + k, len - k, " on %s", s->host);
}

static void note_text(struct watch_print *wp, const struct psa_watch_note *n, double elapsed_s)
{
	const struct psa_stall *s = n->stall;
	double at = elapsed_s;
	char label[96 + PSA_HOST_MAX], line[512];

	label_on(s, label, sizeof(label));
	if (n->what == PSA_WATCH_RESOLVED) {
		fprintf(wp->out, "[+%.3f s] resolved: %s resumed after %.3f s\n", at, label,
			(double)n->stuck_ns / 1e9);
		return;
	}
	if (n->what == PSA_WATCH_END) {
		fprintf(wp->out, "[+%.3f s] end: %s still %s when %s (for %.3f s)\n", at, label,
			s->process ? "silent" : "stuck", wp->end_what, (double)n->stuck_ns / 1e9);
		return;
	}
	if (s->root_cause) {
		psa_stall_root_line(s, line, sizeof(line));
		psa_stall_label(s, label, sizeof(label)); /* the root line names the host */
		fprintf(wp->out, "[+%.3f s] finding: %s; %s", at, line, label);
	} else {
		psa_stall_label(s, label, sizeof(label)); /* the pid and its host follow */
		fprintf(wp->out, "[+%.3f s] finding: %s (pid %u on %s, gid %u): %s: %s%s", at,
			label, s->vpid, s->host, s->gid, psa_cause_str(s->cause), s->detail,
			s->uncertain ? " [uncertain: events were lost in this window]" : "");
		if (s->waiting_on_n) {
			fprintf(wp->out, "; waiting on rank%s", s->waiting_on_n > 1 ? "s" : "");
			for (uint32_t k = 0; k < s->waiting_on_n; k++)
				fprintf(wp->out, "%s %u", k ? "," : "", s->waiting_on[k]);
		}
		if (n->root) {
			label_on(n->root, line, sizeof(line));
			fprintf(wp->out, " -> %s (%s: %s for %.3f s so far)", line,
				psa_cause_str(n->root->cause), psa_state_str(n->root->state),
				(double)n->root->duration_ns / 1e9);
		} else {
			fprintf(wp->out, ", no root cause in the stream yet");
		}
	}
	if (!s->process)
		fprintf(wp->out, ", %s for %.3f s", psa_state_str(s->state),
			(double)s->duration_ns / 1e9);
	if (n->blocked)
		fprintf(wp->out, ", blocks %u task%s", n->blocked, n->blocked == 1 ? "" : "s");
	fputc('\n', wp->out);
}


static void on_status(const struct live_watch_printer *pr, const struct psa_watch_counts *c,
		      uint64_t events_delta)
{
	struct watch_print *wp = pr->arg;

	fprintf(stderr, "\rwatch: %" PRIu64 " events/s, %" PRIu64 " tasks open, %" PRIu64
		" lost events, %" PRIu64 " finding%s open\033[K",
		events_delta, c->tasks, c->lost, c->open, c->open == 1 ? "" : "s");
	wp->status_shown = true;
}

static void on_note(const struct live_watch_printer *pr, const struct psa_watch_note *n,
		    uint64_t threshold_ns, double elapsed_s)
{
	struct watch_print *wp = pr->arg;

	status_clear(wp);
	if (wp->json)
		note_json(wp, n, threshold_ns, elapsed_s);
	else
		note_text(wp, n, elapsed_s);
	fflush(wp->out);
}

static void on_done(const struct live_watch_printer *pr)
{
	status_clear(pr->arg);
}

void watch_print_init(struct watch_print *wp, FILE *out, bool json, const char *end_what)
{
	*wp = (struct watch_print){ .out = out, .json = json, .end_what = end_what };
	wp->pr = (struct live_watch_printer){ .note = on_note, .status = on_status,
					      .done = on_done, .arg = wp };
}
