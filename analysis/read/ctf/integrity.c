/* SPDX-License-Identifier: MIT */
/*
 * Damaged traces (psa_integrity.h) from the reader's own facts (psa_ctf_trace_facts): the
 * traces found as psa_read_ctf finds them (symbolic links followed, PSA_FIND_DEPTH_MAX levels
 * down), each checked as it checks them (read/ctf/bt2_guard/check.c), so what the reader refuses or
 * repairs and what the watchdog doubts rest on one reading. Here the facts become the issues:
 * each trace's streams missing, emptied or cut short, and a trace directory with the UUID of
 * another one (one trace copied under two paths).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_event.h>
#include <proxyscope/psa_integrity.h>

#include "read/ctf/set.h"

struct seen_trace {
	char dir[512];
	uint8_t uuid[16];
};

struct collect {
	struct psa_integrity *out;
	struct seen_trace *traces;
	size_t traces_n, traces_cap;
	int err;
};

static int issue_add(struct psa_integrity *o, const struct psa_integrity_issue *from,
		     const char *trace)
{
	struct psa_integrity_issue *v = realloc(o->v, (o->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	o->v = v;
	v = &o->v[o->n++];
	*v = *from;
	snprintf(v->trace, sizeof(v->trace), "%s", trace);
	if (v->kind == PSA_TRACE_DUPLICATE)
		o->duplicates++;
	else
		o->damaged++;
	return 0;
}

/* @f's UUID against the traces before it: an issue when another directory has it. */
static int check_uuid(struct collect *c, const struct psa_trace_facts *f)
{
	struct psa_integrity_issue dup = { .kind = PSA_TRACE_DUPLICATE };
	struct seen_trace *t;

	for (size_t i = 0; i < c->traces_n; i++) {
		if (!memcmp(c->traces[i].uuid, f->uuid, sizeof(f->uuid)) &&
		    strcmp(c->traces[i].dir, f->real)) {
			snprintf(dup.stream, sizeof(dup.stream), "%s", c->traces[i].dir);
			return issue_add(c->out, &dup, f->real);
		}
	}
	if (c->traces_n == c->traces_cap) {
		size_t cap = c->traces_cap ? 2 * c->traces_cap : 8;

		if (!(t = realloc(c->traces, cap * sizeof(*t))))
			return -ENOMEM;
		c->traces = t;
		c->traces_cap = cap;
	}
	t = &c->traces[c->traces_n++];
	snprintf(t->dir, sizeof(t->dir), "%s", f->real);
	memcpy(t->uuid, f->uuid, sizeof(t->uuid));
	return 0;
}

static void on_trace(void *arg, const struct psa_trace_facts *f)
{
	struct collect *c = arg;

	for (size_t i = 0; i < f->damage_n && !c->err; i++)
		c->err = issue_add(c->out, &f->damage[i], f->real);
	if (!c->err && f->has_uuid)
		c->err = check_uuid(c, f);
}

int psa__integrity_of_set(struct psa_ctf_set *set, struct psa_integrity *out)
{
	struct collect c = { .out = out };
	char err[PSA_ERR_MAX];
	int rc;

	memset(out, 0, sizeof(*out));
	/* a trace the reader refuses, a path it cannot read: it says so, they are no issue here */
	rc = psa__ctf_set_facts(set, on_trace, &c, err, sizeof(err));
	free(c.traces);
	return c.err ? c.err : rc == -ENOMEM ? -ENOMEM : 0;
}

int psa_integrity_check(const char *const *paths, size_t n, struct psa_integrity *out)
{
	struct psa_ctf_set *set;
	char err[PSA_ERR_MAX];
	size_t found;
	int rc;

	memset(out, 0, sizeof(*out));
	if (psa__ctf_set_create(&set))
		return -ENOMEM;
	rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = psa__ctf_set_add(set, paths[i], &found, err, sizeof(err));
	if (!rc)
		rc = psa__integrity_of_set(set, out);
	psa__ctf_set_destroy(set);
	return rc == -ENOMEM ? -ENOMEM : 0;
}

void psa_integrity_fini(struct psa_integrity *in)
{
	free(in->v);
	memset(in, 0, sizeof(*in));
}

void psa_integrity_issue_str(const struct psa_integrity_issue *i, char *buf, size_t len)
{
	switch (i->kind) {
	case PSA_STREAM_MISSING:
		snprintf(buf, len, "stream %s of '%s' is missing (its index lists %llu packet%s)",
			 i->stream, i->trace, (unsigned long long)i->packets, i->packets == 1 ? "" : "s");
		break;
	case PSA_STREAM_EMPTY:
		snprintf(buf, len, "stream %s of '%s' is empty (its index lists %llu packet%s, %llu bytes)",
			 i->stream, i->trace, (unsigned long long)i->packets, i->packets == 1 ? "" : "s",
			 (unsigned long long)i->bytes_expected);
		break;
	case PSA_STREAM_SHORT:
		/* cut inside its first packet, a stream has no whole packet: none of its events is
		 * read, and the user is told so rather than left to infer it */
		snprintf(buf, len, i->packets_whole ? "stream %s of '%s' stops early: %llu of the %llu "
			 "bytes its %llu packet%s" : "stream %s of '%s' stops early, inside its first "
			 "packet: nothing of it can be read (%llu of the %llu bytes its %llu packet%s)",
			 i->stream, i->trace, (unsigned long long)i->bytes_found,
			 (unsigned long long)i->bytes_expected, (unsigned long long)i->packets,
			 i->packets == 1 ? " takes" : "s take");
		break;
	case PSA_STREAM_PARTIAL:
		snprintf(buf, len, "stream %s of '%s' ends inside a packet: its last %llu bytes, "
			 "after its whole packets, are not read", i->stream, i->trace,
			 (unsigned long long)(i->bytes_found - i->bytes_expected));
		break;
	case PSA_TRACE_DUPLICATE:
		snprintf(buf, len, "'%s' is the same trace as '%s' (one trace UUID): its events are "
			 "counted once", i->trace, i->stream);
		break;
	case PSA_TRACE_LOST:
		snprintf(buf, len, "%s", i->stream);
		break;
	}
}
