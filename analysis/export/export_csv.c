/* SPDX-License-Identifier: MIT */
/*
 * The csv export: one row per task state interval, in the order the model closes them (not
 * sorted: intervals still open at the end of the trace come last, with open = 1).
 *
 *   host,vpid,rank,gid,exec_id,task_id,kind,state,begin_ns,end_ns,duration_ns,open,
 *   begin_abs_ns,end_abs_ns
 *
 * begin_ns and end_ns are relative to the trace start (as in the other exports), the *_abs_ns
 * columns are the trace's own timestamps (ns since the Unix epoch for CTF input). A host name
 * with a comma, a quote or a line break is quoted (RFC 4180).
 */
#include <inttypes.h>
#include <string.h>

#include "export_int.h"

static int csv_init(struct psa_export *e)
{
	fputs("host,vpid,rank,gid,exec_id,task_id,kind,state,begin_ns,end_ns,duration_ns,open,"
	      "begin_abs_ns,end_abs_ns\n",
	      e->out);
	return 0;
}

static void csv_field(FILE *f, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	bool quote = false;

	for (size_t i = 0; i < n; i++)
		quote = quote || s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!quote) {
		fwrite(s, 1, n, f);
		return;
	}
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			putc('"', f);
		putc(s[i], f);
	}
	putc('"', f);
}

static void csv_interval(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			 uint32_t state, uint64_t begin, uint64_t end, bool open)
{
	FILE *f = e->out;

	if (end < begin)
		end = begin;
	csv_field(f, t->proc->host, sizeof(t->proc->host));
	fprintf(f, ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%s,%s,%" PRIu64
		   ",%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 ",%" PRIu64 "\n",
		t->proc->vpid, t->rank, t->gid, t->exec_id, t->task_id, psa_kind_str(t->kind),
		psa_state_str(state), psa__export_rel(e, begin), psa__export_rel(e, end), end - begin,
		open, begin, end);
}

const struct psa_export_ops psa__export_csv_ops = {
	.name = "csv",
	.size = sizeof(struct psa_export),
	.init = csv_init,
	.interval = csv_interval,
};
