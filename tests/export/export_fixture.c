/* SPDX-License-Identifier: MIT */
/*
 * The model, watchdog and export fed synthetic events, and the scenario the tests of
 * test_export share (export_fixture.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <proxyscope/psa_export.h>
#include <proxyscope/psa_model.h>

#include "chrome_check.h"
#include "event_builder.h"
#include "export_fixture.h"
#include "export_int.h" /* the live-task table, to check memory follows live tasks */
#include "json_doc.h"

static void count_interval(void *arg, const struct psa_task *t, uint32_t state, uint64_t begin,
			   uint64_t end, bool open)
{
	struct fx *f = arg;

	f->intervals++;
	f->open += open;
}

/* Called after the exporter's task_end: its table holds only the tasks still alive. */
static void count_task_end(void *arg, const struct psa_task *t)
{
	struct fx *f = arg;
	size_t n = ((struct psa_export *)f->e)->tasks.n;

	if (n > f->live_max)
		f->live_max = n;
}

/* An export in @fmt to @out, or to memory (f->buf) when @out is NULL. */
void fx_init_out(struct fx *f, enum psa_export_format fmt, FILE *out)
{
	struct psa_observer obs = { .interval = count_interval, .task_end = count_task_end, .arg = f };
	struct psa_observer xobs;

	memset(f, 0, sizeof(*f));
	f->now = T0;
	f->out = out ? out : open_memstream(&f->buf, &f->len);
	f->external = out != NULL;
	assert_non_null(f->out);
	assert_int_equal(psa_model_create(&f->m), 0);
	assert_int_equal(psa_watchdog_create(NULL, &f->wd), 0);
	psa_watchdog_observer(f->wd, &xobs);
	assert_int_equal(psa_model_add_observer(f->m, &xobs), 0);
	assert_int_equal(psa_export_create(fmt, f->out, &f->e), 0);
	psa_export_observer(f->e, f->m, &xobs);
	assert_int_equal(psa_model_add_observer(f->m, &xobs), 0);
	assert_int_equal(psa_model_add_observer(f->m, &obs), 0);
	f->host = "hostA";
	f->procname = "app";
	f->vpid = 42;
}

void fx_init(struct fx *f, enum psa_export_format fmt)
{
	fx_init_out(f, fmt, NULL);
}

/* Finish the model and the export; the output is in f->buf. */
int fx_finish(struct fx *f)
{
	int rc;

	psa_model_finish(f->m);
	assert_int_equal(psa_watchdog_analyze(f->wd, f->m), 0);
	psa_export_set_verdict(f->e, f->wd, false);
	rc = psa_export_finish(f->e, f->m);
	if (!f->external)
		assert_int_equal(fflush(f->out), 0);
	return rc;
}

void fx_fini(struct fx *f)
{
	psa_export_destroy(f->e);
	psa_watchdog_destroy(f->wd);
	psa_model_destroy(f->m);
	if (!f->external)
		fclose(f->out);
	free(f->buf);
}

/* One event @dt_ns after the previous one, from thread @vtid ("proxy-N" for a worker). */
void ev(struct fx *f, uint64_t dt_ns, enum psa_ev_type type, uint32_t vtid, ...)
{
	const struct evb_thread th = { .host = f->host, .procname = vtid >= 100 ? NULL : f->procname,
				       .vpid = f->vpid, .vtid = vtid };
	va_list ap;

	f->now += dt_ns;
	va_start(ap, vtid);
	evb_vfeed(f->m, type, f->now, &th, NULL, ap);
	va_end(ap);
}


void state(struct fx *f, uint64_t dt, uint64_t id, uint32_t rank, uint64_t exec, int kind,
		  int from, int to, int status)
{
	ev(f, dt, PSA_EV_encproxy_task_state, WORKER_TID(rank), TASK(id, rank, exec, kind), "old",
	   (int64_t)from, "new", (int64_t)to, "status", (int64_t)status, NULL);
}

static void seam(struct fx *f, uint64_t dt, enum psa_ev_type type, uint64_t id, uint32_t rank,
		 uint64_t exec, uint64_t dur)
{
	ev(f, dt, type, WORKER_TID(rank), TASK(id, rank, exec, NET), "stream", (int64_t)0, "bb",
	   (int64_t)0, "rc", (int64_t)0, "duration_ns", (int64_t)dur, NULL);
}

void enqueue_drain(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec, int kind)
{
	ev(f, 1000, PSA_EV_encproxy_task_enqueue, RANK_TID(rank), TASK(id, rank, exec, kind), NULL);
	ev(f, 2345, PSA_EV_encproxy_task_drain, WORKER_TID(rank), TASK(id, rank, exec, kind), NULL);
}

/* A healthy network task: every state, every seam call, one that sticks out of its state
 * (clamped) and one with no measured duration. */
static void net_healthy(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	enqueue_drain(f, id, rank, exec, NET);
	seam(f, 700, PSA_EV_encproxy_seam_start, id, rank, exec, 500);
	state(f, 10, id, rank, exec, NET, 0, 2, 0);
	ev(f, 50000, PSA_EV_encproxy_trigger_fire, WORKER_TID(rank), TASK(id, rank, exec, NET),
	   "wait_ns", (int64_t)50000, NULL);
	state(f, 5, id, rank, exec, NET, 2, 1, 0);
	seam(f, 900, PSA_EV_encproxy_seam_progress, id, rank, exec, 800);
	state(f, 10, id, rank, exec, NET, 1, 3, 0);
	state(f, 20000, id, rank, exec, NET, 3, 1, 0);
	seam(f, 300, PSA_EV_encproxy_seam_progress, id, rank, exec, 0);
	seam(f, 400, PSA_EV_encproxy_seam_stop, id, rank, exec, 5000); /* starts before PROGRESSING */
	state(f, 10, id, rank, exec, NET, 1, 4, 0);
}

static void barrier_healthy(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec)
{
	enqueue_drain(f, id, rank, exec, BAR);
	state(f, 100, id, rank, exec, BAR, 0, 2, 0);
	ev(f, 3000, PSA_EV_encproxy_trigger_fire, WORKER_TID(rank), TASK(id, rank, exec, BAR),
	   "wait_ns", (int64_t)3000, NULL);
	state(f, 5, id, rank, exec, BAR, 2, 1, 0);
	state(f, 1234, id, rank, exec, BAR, 1, 4, 0);
}

/* The tracer reports @n events lost just now. */
static void lost(struct fx *f, uint64_t n)
{
	struct psa_discard d = { .begin_ns = f->now - 1000, .end_ns = f->now, .count = n };

	snprintf(d.host, sizeof(d.host), "%s", f->host);
	snprintf(d.trace, sizeof(d.trace), "trace-%s", f->host);
	psa_model_discard(f->m, &d);
}

/* Two processes with the same vpid on two hosts; in the second, a task fails, one never
 * triggers (the watchdog fires, it stays open), one is enqueued and never drained. */
void scenario(struct fx *f)
{
	ev(f, 0, PSA_EV_encproxy_worker_begin, WORKER_TID(0), "gid", (int64_t)0, NULL);
	net_healthy(f, 1, 0, 0);
	barrier_healthy(f, 2, 0, 0);
	net_healthy(f, 3, 1, 0);
	barrier_healthy(f, 4, 1, 0);
	ev(f, 100, PSA_EV_encproxy_worker_end, WORKER_TID(0), "gid", (int64_t)0, NULL);

	f->host = HOST_B;
	f->procname = PROC_B;
	ev(f, 10, PSA_EV_encproxy_worker_begin, WORKER_TID(2), "gid", (int64_t)1, NULL);
	net_healthy(f, 1, 2, 0); /* the same task id as on hostA: another process */
	enqueue_drain(f, 2, 2, 1, NET);
	state(f, 100, 2, 2, 1, NET, 0, 1, 0);
	ev(f, 100, PSA_EV_encproxy_task_failed, RANK_TID(2), TASK(2, 2, 1, NET), "status",
	   (int64_t)-EIO, NULL);
	state(f, 100, 2, 2, 1, NET, 1, 4, -EIO);
	enqueue_drain(f, 3, 3, 1, NET);
	seam(f, 100, PSA_EV_encproxy_seam_start, 3, 3, 1, 200);
	state(f, 10, 3, 3, 1, NET, 0, 2, 0);
	ev(f, 2000000, PSA_EV_encproxy_watchdog_timeout, RANK_TID(3), TASK(3, 3, 1, NET), "state",
	   (int64_t)2, "waited_ns", (int64_t)2000000, "timeout_ms", (int64_t)2, NULL);
	lost(f, 7);
	ev(f, 500, PSA_EV_encproxy_task_enqueue, RANK_TID(3), TASK(4, 3, 2, NET), NULL);
	ev(f, 1234567, PSA_EV_encproxy_status_poll, RANK_TID(3), TASK(3, 3, 1, NET), "state",
	   (int64_t)2, NULL);
}

struct jval parse(const char *text, size_t len)
{
	struct jval doc;
	char err[256];

	if (jparse(text, len, &doc, err, sizeof(err)))
		fail_msg("not JSON: %s", err);
	return doc;
}
