/* SPDX-License-Identifier: MIT */
/*
 * A recording session through liblttng-ctl (lttng_ctl.h): create, channel, events, contexts,
 * the watchdog trigger, start; snapshot; stop, trigger removal, destroy; and the wait for a
 * process to register with the session daemon. The library speaks the session daemon's own
 * protocol (the `lttng` client is a thin layer over it) and says what failed with a typed code.
 * Every batch of library calls runs through lt__call (lttng_ctl_call.c).
 */
#include "lttng_ctl.h"
#include "lttng_ctl_int.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include <proxyscope/trace_events.h>

#include "signals.h"

#define CHANNEL "proxyscope"
#define POLL_MS 10
/* Bounds on the end of a session: data still pending after STOP_TIMEOUT_MS is reported and the
 * destroy goes on; a destroy not complete after DESTROY_TIMEOUT_MS is reported and left to the
 * daemon. Neither ever waits forever (the client's `lttng stop` and `destroy` do). */
#define STOP_TIMEOUT_MS 60000
#define DESTROY_TIMEOUT_MS 30000
#define DESTROY_STEP_MS 100
/* Interrupted (signals.h), the user waits: the bounds shrink to these, and what the daemon has
 * not done by then is left to it (a host's destruction after its interrupted job was seen to
 * take the whole 30 s, on a fresh machine at load 8). */
#define STOP_INTERRUPTED_MS 5000
#define DESTROY_INTERRUPTED_MS 3000

static int bound_ms(const struct lt_session *s, int normal, int interrupted)
{
	return ctl_signals_count() || s->lost ? interrupted : normal;
}

static const int level_lttng[LT_LEVEL_NR] = { LTTNG_LOGLEVEL_ERR, LTTNG_LOGLEVEL_WARNING,
					      LTTNG_LOGLEVEL_INFO, LTTNG_LOGLEVEL_DEBUG };

/* --- Begin ---------------------------------------------------------------------------------- */

/* The session in its mode: to s->output, or streamed (live or not) to the relay daemon. */
static int session_create(struct lt_session *s, char *err, size_t errlen)
{
	struct lttng_session_descriptor *d;
	enum lttng_error_code code;

	if (s->live_url) /* watch: a live session streaming to a relay daemon */
		d = lttng_session_descriptor_live_network_create(s->name, s->live_url, NULL,
								 s->live_timer_us);
	else if (s->url && s->snapshot) /* its snapshots go to the relay daemon */
		d = lttng_session_descriptor_snapshot_network_create(s->name, s->url, NULL);
	else if (s->url) /* streaming to a relay daemon (a job across hosts) */
		d = lttng_session_descriptor_network_create(s->name, s->url, NULL);
	else if (s->snapshot)
		d = lttng_session_descriptor_snapshot_local_create(s->name, s->output);
	else
		d = lttng_session_descriptor_local_create(s->name, s->output);
	if (!d) {
		snprintf(err, errlen, "cannot describe session '%s': invalid output '%s'", s->name,
			 s->live_url ? s->live_url : s->url ? s->url : s->output);
		return -EINVAL;
	}
#ifdef PROXYSCOPE_LTTNG_TRACE_FORMAT /* CTF 1.8, what babeltrace2 2.0.4 reads (ctl/CMakeLists.txt) */
	lttng_session_descriptor_set_trace_format(d, LTTNG_TRACE_FORMAT_CTF_1_8);
#endif
	code = lttng_create_session_ext(d);
	lttng_session_descriptor_destroy(d);
	return code == LTTNG_OK ? 0 : lt__fail(err, errlen, "create session", s->name, code);
}

/*
 * A session streaming to a relay daemon (a host of run --hosts, not live: the live timer flushes
 * those) sends its metadata only when the session stops: a relay, session or consumer daemon
 * dying mid-run then left every host's trace without metadata (0 bytes, unreadable). The
 * metadata channel gets a switch timer, so the full packets that reached the relay daemon
 * before a death are a readable trace. Not the data channel: its timer's empty packets reach
 * the trace before the job's first event (a Ctrl-C then found "no proxyscope events").
 */
#define STREAM_SWITCH_US 1000000u
#define METADATA_CHANNEL "metadata" /* the session's metadata channel, by its reserved name */
#define METADATA_SUBBUF (UINT64_C(64) << 10)

static bool streamed(const struct lt_session *s)
{
	return s->url && !s->live_url && !s->snapshot;
}

/* Per-user buffers of the sizes lt_buffers_size chose; overwrite mode for a snapshot session;
 * the metadata channel first when its attributes are not the default ones (streamed). */
static int channel_enable(struct lttng_handle *h, struct lttng_domain *dom,
			  const struct lt_session *s, char *err, size_t errlen)
{
	struct lttng_channel *ch = lttng_channel_create(dom);
	int rc = 0;

	if (!ch) {
		snprintf(err, errlen, "cannot describe channel '%s': out of memory", CHANNEL);
		return -ENOMEM;
	}
	ch->enabled = 1;
	if (streamed(s)) {
		snprintf(ch->name, sizeof(ch->name), "%s", METADATA_CHANNEL);
		ch->attr.subbuf_size = METADATA_SUBBUF;
		ch->attr.num_subbuf = 2;
		ch->attr.overwrite = 0;
		ch->attr.output = LTTNG_EVENT_MMAP;
		ch->attr.switch_timer_interval = STREAM_SWITCH_US;
		rc = lttng_enable_channel(h, ch);
		if (rc < 0)
			rc = lt__fail(err, errlen, "enable channel", METADATA_CHANNEL, rc);
		lttng_channel_destroy(ch);
		ch = rc ? NULL : lttng_channel_create(dom);
		if (!ch && !rc) {
			snprintf(err, errlen, "cannot describe channel '%s': out of memory", CHANNEL);
			rc = -ENOMEM;
		}
		if (rc)
			return rc;
		ch->enabled = 1;
	}
	snprintf(ch->name, sizeof(ch->name), "%s", CHANNEL);
	ch->attr.subbuf_size = lt_subbuf_of(s);
	ch->attr.num_subbuf = s->num_subbuf ? s->num_subbuf : LT_NUM_SUBBUF;
	ch->attr.overwrite = s->snapshot ? 1 : 0;
	rc = lttng_enable_channel(h, ch);
	lttng_channel_destroy(ch);
	return rc < 0 ? lt__fail(err, errlen, "enable channel", CHANNEL, rc) : 0;
}

/* Only the processes of our mount namespace (lt_isolate): the command's tree. The tracer
 * evaluates $ctx.mnt_ns in the traced process (no context field is added to the stream). */
static void ns_filter(const struct lt_session *s, char *buf, size_t len)
{
	if (s->mnt_ns)
		snprintf(buf, len, "$ctx.mnt_ns == %" PRIu64, s->mnt_ns);
	else if (len)
		buf[0] = '\0';
}

/* The project's providers (or only s->event) at s->level and more severe, of our processes. */
static int events_enable(struct lttng_handle *h, const struct lt_session *s, char *err,
			 size_t errlen)
{
	static const char *const providers[] = ENC_TP_PROVIDERS;
	size_t n = s->event ? 1 : sizeof(providers) / sizeof(providers[0]);
	struct lttng_event *ev = lttng_event_create();
	char filter[64] = "";
	int rc = 0;

	ns_filter(s, filter, sizeof(filter));
	if (!ev) {
		snprintf(err, errlen, "cannot describe an event: out of memory");
		return -ENOMEM;
	}
	ev->type = LTTNG_EVENT_TRACEPOINT;
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_RANGE;
	ev->loglevel = level_lttng[(unsigned)s->level < LT_LEVEL_NR ? s->level : LT_LEVEL_INFO];
	for (size_t i = 0; i < n && !rc; i++) {
		if (s->event)
			snprintf(ev->name, sizeof(ev->name), "%s", s->event);
		else
			snprintf(ev->name, sizeof(ev->name), "%s:*", providers[i]);
		rc = lttng_enable_event_with_exclusions(h, ev, CHANNEL, filter[0] ? filter : NULL,
							0, NULL);
		if (rc < 0)
			rc = lt__fail(err, errlen, "enable event", ev->name, rc);
	}
	lttng_event_destroy(ev);
	return rc;
}

/* vpid, vtid, procname on every event of the channel, in that order (the stream's layout). */
static int contexts_add(struct lttng_handle *h, char *err, size_t errlen)
{
	static const enum lttng_event_context_type types[] = {
		LTTNG_EVENT_CONTEXT_VPID, LTTNG_EVENT_CONTEXT_VTID, LTTNG_EVENT_CONTEXT_PROCNAME
	};
	static const char *const names[] = { "vpid", "vtid", "procname" };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct lttng_event_context ctx;
		int rc;

		memset(&ctx, 0, sizeof(ctx));
		ctx.ctx = types[i];
		rc = lttng_add_context(h, &ctx, NULL, CHANNEL);
		if (rc < 0)
			return lt__fail(err, errlen, "add context", names[i], rc);
	}
	return 0;
}

/* The driver's watchdog event itself dumps the flight recorder, once: "<session>-watchdog". */
static int trigger_add(const struct lt_session *s, char *err, size_t errlen)
{
	struct lttng_event_rule *rule = lttng_event_rule_user_tracepoint_create();
	struct lttng_rate_policy *once = lttng_rate_policy_once_after_n_create(1);
	struct lttng_action *snap = lttng_action_snapshot_session_create();
	struct lttng_condition *cond = NULL;
	struct lttng_trigger *trigger = NULL;
	char name[sizeof(s->name) + 16], filter[64];
	int rc;

	snprintf(name, sizeof(name), "%s-watchdog", s->name);
	ns_filter(s, filter, sizeof(filter)); /* another process's watchdog is not ours */
	if (!rule || !once || !snap ||
	    (filter[0] && lttng_event_rule_user_tracepoint_set_filter(rule, filter) !=
				  LTTNG_EVENT_RULE_STATUS_OK) ||
	    lttng_event_rule_user_tracepoint_set_name_pattern(
		    rule, ENC_EV_NAME(encproxy, watchdog_timeout)) != LTTNG_EVENT_RULE_STATUS_OK ||
	    lttng_action_snapshot_session_set_session_name(snap, s->name) != LTTNG_ACTION_STATUS_OK ||
	    lttng_action_snapshot_session_set_rate_policy(snap, once) != LTTNG_ACTION_STATUS_OK)
		goto out_undescribed;
	/* The condition and the trigger take their own references to what they are made of. */
	cond = lttng_condition_event_rule_matches_create(rule);
	trigger = cond ? lttng_trigger_create(cond, snap) : NULL;
	if (!trigger)
		goto out_undescribed;
	rc = (int)lttng_register_trigger_with_name(trigger, name);
	rc = rc == LTTNG_OK ? 0 : lt__fail(err, errlen, "add trigger", name, rc);
	goto out;

out_undescribed:
	snprintf(err, errlen, "cannot describe trigger '%s': out of memory", name);
	rc = -ENOMEM;
out:
	lttng_trigger_destroy(trigger);
	lttng_condition_destroy(cond);
	lttng_action_destroy(snap);
	lttng_rate_policy_destroy(once);
	lttng_event_rule_destroy(rule);
	return rc;
}

static int begin_main(struct lt_session *s, void *arg, char *err, size_t errlen)
{
	struct lttng_domain dom;
	struct lttng_handle *h;
	int rc;

	(void)arg;
	rc = session_create(s, err, errlen);
	if (rc)
		return rc;
	s->created = true;
	memset(&dom, 0, sizeof(dom));
	dom.type = LTTNG_DOMAIN_UST;
	dom.buf_type = LTTNG_BUFFER_PER_UID;
	h = lttng_create_handle(s->name, &dom);
	if (!h) {
		snprintf(err, errlen, "cannot make a handle on session '%s': out of memory", s->name);
		return -ENOMEM;
	}
	rc = channel_enable(h, &dom, s, err, errlen);
	if (!rc)
		rc = events_enable(h, s, err, errlen);
	if (!rc)
		rc = contexts_add(h, err, errlen);
	lttng_destroy_handle(h);
	if (!rc && s->snapshot) {
		rc = trigger_add(s, err, errlen);
		s->trigger = !rc;
	}
	if (!rc) {
		rc = lttng_start_tracing(s->name);
		rc = rc < 0 ? lt__fail(err, errlen, "start session", s->name, rc) : 0;
		s->started = !rc;
	}
	return rc;
}

int lt_session_begin(struct lt_session *s, char *err, size_t errlen)
{
	struct timespec now;
	int rc;

	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(s->name, sizeof(s->name), "proxyscope-%d-%ld%09ld", (int)getpid(),
		 (long)now.tv_sec, now.tv_nsec);
	rc = lt__call(s, begin_main, NULL, err, errlen);
	if (rc) {
		char ignored[LT_ERR_MAX];

		lt_session_end(s, ignored, sizeof(ignored));
		return rc;
	}
	return 0;
}

/* --- Snapshot, end -------------------------------------------------------------------------- */

static int snapshot_main(struct lt_session *s, void *arg, char *err, size_t errlen)
{
	int rc = lttng_snapshot_record(s->name, NULL, 1);

	(void)arg;
	return rc < 0 ? lt__fail(err, errlen, "record a snapshot of session", s->name, rc) : 0;
}

int lt_session_snapshot(struct lt_session *s, char *err, size_t errlen)
{
	return lt__call(s, snapshot_main, NULL, err, errlen);
}

/* Stop, and wait (bounded) until the consumer daemon has written out or sent what it holds. */
static int session_stop(struct lt_session *s, char *err, size_t errlen)
{
	uint64_t start = lt__now_ms();
	int rc = lttng_stop_tracing_no_wait(s->name);

	if (rc < 0 && rc != -LTTNG_ERR_TRACE_ALREADY_STOPPED)
		return lt__fail(err, errlen, "stop session", s->name, rc);
	while ((rc = lttng_data_pending(s->name)) > 0) {
		if (ctl_signals_hurry()) {
			snprintf(err, errlen, "session '%s': did not wait for its data to be written "
				 "(a second Ctrl-C): its last packets may be missing", s->name);
			return -EINTR;
		}
		if (lt__now_ms() - start >= (uint64_t)bound_ms(s, STOP_TIMEOUT_MS, STOP_INTERRUPTED_MS)) {
			snprintf(err, errlen, "session '%s': data still pending %d s after its stop%s",
				 s->name, bound_ms(s, STOP_TIMEOUT_MS, STOP_INTERRUPTED_MS) / 1000,
				 ctl_signals_count() ? " (interrupted): its last packets may be missing"
						     : "");
			return -ETIMEDOUT;
		}
		lt__sleep_ms(POLL_MS);
	}
	return rc < 0 ? lt__fail(err, errlen, "wait for the data of session", s->name, rc) : 0;
}

/* The trigger by its name and owner, as registered (the library unregisters that object). */
static int trigger_remove(const struct lt_session *s, char *err, size_t errlen)
{
	struct lttng_triggers *all = NULL;
	char name[sizeof(s->name) + 16];
	unsigned count = 0;
	int rc;

	snprintf(name, sizeof(name), "%s-watchdog", s->name);
	rc = (int)lttng_list_triggers(&all);
	if (rc != LTTNG_OK)
		return lt__fail(err, errlen, "list the triggers for", name, rc);
	rc = -ENOENT;
	lttng_triggers_get_count(all, &count);
	for (unsigned i = 0; i < count && rc == -ENOENT; i++) {
		const struct lttng_trigger *t = lttng_triggers_get_at_index(all, i);
		const char *tname;
		uid_t owner;

		if (lttng_trigger_get_name(t, &tname) != LTTNG_TRIGGER_STATUS_OK ||
		    strcmp(tname, name) ||
		    lttng_trigger_get_owner_uid(t, &owner) != LTTNG_TRIGGER_STATUS_OK ||
		    owner != geteuid())
			continue;
		rc = lttng_unregister_trigger(t);
		rc = rc < 0 ? lt__fail(err, errlen, "remove trigger", name, rc) : 0;
	}
	lttng_triggers_destroy(all);
	if (rc == -ENOENT)
		snprintf(err, errlen, "cannot remove trigger '%s': not found", name);
	return rc;
}

/* Destroy, and wait (bounded) for the daemon to have closed the trace. */
static int session_destroy(struct lt_session *s, char *err, size_t errlen)
{
	struct lttng_destruction_handle *h = NULL;
	enum lttng_destruction_handle_status st;
	enum lttng_error_code code = lttng_destroy_session_ext(s->name, &h);
	int rc = 0;

	if (code != LTTNG_OK)
		return lt__fail(err, errlen, "destroy session", s->name, code);
	/* In steps, so that a second Ctrl-C leaves the rest to the daemon. Interrupted, at most
	 * DESTROY_INTERRUPTED_MS and no more than what is left of the teardown's time: a host's
	 * destroy that took its whole 3 s from 1.6 s after the Ctrl-C made a quiet fresh machine's
	 * run --hosts exit 5.5 s after it (test_field_sigint hosts-mid, bound 5 s). */
	for (int waited = 0, bound = 0;; waited += DESTROY_STEP_MS) {
		st = lttng_destruction_handle_wait_for_completion(h, DESTROY_STEP_MS);
		lt__beat(); /* bounded here: DESTROY_TIMEOUT_MS */
		if (!bound && (ctl_signals_count() || s->lost))
			bound = waited + (int)ctl_signals_budget_ms(DESTROY_INTERRUPTED_MS);
		if (st != LTTNG_DESTRUCTION_HANDLE_STATUS_TIMEOUT ||
		    waited + DESTROY_STEP_MS >= (bound ? bound : DESTROY_TIMEOUT_MS) ||
		    ctl_signals_hurry())
			break;
	}
	if (st == LTTNG_DESTRUCTION_HANDLE_STATUS_TIMEOUT && ctl_signals_hurry()) {
		snprintf(err, errlen, "session '%s': its destruction was left to the session daemon "
			 "(a second Ctrl-C)", s->name);
		rc = -EINTR;
	} else if (st == LTTNG_DESTRUCTION_HANDLE_STATUS_TIMEOUT && ctl_signals_count()) {
		snprintf(err, errlen, "session '%s': its destruction did not complete in the "
			 "teardown's time (interrupted): it was left to the session daemon", s->name);
		rc = -ETIMEDOUT;
	} else if (st == LTTNG_DESTRUCTION_HANDLE_STATUS_TIMEOUT) {
		snprintf(err, errlen, "session '%s': its destruction did not complete within %d s",
			 s->name, bound_ms(s, DESTROY_TIMEOUT_MS, DESTROY_INTERRUPTED_MS) / 1000);
		rc = -ETIMEDOUT;
	} else if (st != LTTNG_DESTRUCTION_HANDLE_STATUS_COMPLETED ||
		   lttng_destruction_handle_get_result(h, &code) !=
			   LTTNG_DESTRUCTION_HANDLE_STATUS_OK) {
		snprintf(err, errlen, "cannot destroy session '%s': lost the session daemon's answer",
			 s->name);
		rc = -EIO;
	} else if (code != LTTNG_OK) {
		rc = lt__fail(err, errlen, "destroy session", s->name, code);
	}
	lttng_destruction_handle_destroy(h);
	return rc;
}

/* Each step owed, even after one failed; the first failure is the one reported. */
static int end_main(struct lt_session *s, void *arg, char *err, size_t errlen)
{
	char later[LT_ERR_MAX];
	int first = 0, rc;

	(void)arg;
	if (s->started) {
		first = session_stop(s, err, errlen);
		s->started = false;
	}
	if (s->trigger) {
		rc = trigger_remove(s, first ? later : err, first ? sizeof(later) : errlen);
		first = first ? first : rc;
		s->trigger = false;
	}
	if (s->created) {
		rc = session_destroy(s, first ? later : err, first ? sizeof(later) : errlen);
		first = first ? first : rc;
		s->created = false;
	}
	return first;
}

int lt_session_end(struct lt_session *s, char *err, size_t errlen)
{
	if (!s->started && !s->trigger && !s->created)
		return 0;
	return lt__call(s, end_main, NULL, err, errlen);
}

/* --- The session daemon's applications ------------------------------------------------------ */

/* 0 when process @arg (a pid, by value: a call given up outlives its caller's frame) has
 * tracepoints listed by the session daemon, -ESRCH when not yet. */
static int registered_main(struct lt_session *s, void *arg, char *err, size_t errlen)
{
	struct lttng_event *ev = NULL;
	struct lttng_domain dom;
	struct lttng_handle *h;
	pid_t pid = (pid_t)(intptr_t)arg;
	int n, rc = -ESRCH;

	(void)s;
	memset(&dom, 0, sizeof(dom));
	dom.type = LTTNG_DOMAIN_UST;
	h = lttng_create_handle(NULL, &dom);
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n = lttng_list_tracepoints(h, &ev);
	for (int i = 0; i < n && rc; i++)
		if (ev[i].pid == pid)
			rc = 0;
	if (n < 0)
		rc = lt__fail(err, errlen, "list the registered applications", NULL, n);
	free(ev);
	lttng_destroy_handle(h);
	return rc;
}

int lt_wait_registered(pid_t pid, unsigned timeout_ms)
{
	uint64_t deadline = lt__now_ms() + timeout_ms;
	char err[LT_ERR_MAX];

	/* One question per poll, the lock released in between (a Ctrl-C's session end waits for
	 * it); a daemon not answering yet is asked again like one that has not seen @pid yet. */
	while (lt__call(NULL, registered_main, (void *)(intptr_t)pid, err, sizeof(err))) {
		if (ctl_signals_count())
			return -EINTR; /* the caller is interrupted: nothing to wait for */
		if (lt__now_ms() >= deadline)
			return -ETIMEDOUT;
		lt__sleep_ms(POLL_MS);
	}
	return 0;
}

static int alive_main(struct lt_session *s, void *arg, char *err, size_t errlen)
{
	(void)s, (void)arg, (void)err, (void)errlen;
	return lttng_session_daemon_alive() == 1 ? 0 : -ECONNREFUSED;
}

bool lt__sessiond_alive(void)
{
	char err[LT_ERR_MAX];

	return lt__call(NULL, alive_main, NULL, err, sizeof(err)) == 0;
}

int lt__backend_check(char *err, size_t errlen)
{
	(void)err, (void)errlen;
	return 0;
}
