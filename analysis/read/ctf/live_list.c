/* SPDX-License-Identifier: MIT */
/*
 * psa_live_list: the sessions a relay daemon offers, from babeltrace2's "sessions" query of
 * source.ctf.lttng-live. Design: the query connects to the relay daemon with a blocking socket,
 * so it runs on a thread of its own and the caller waits for it with a deadline; a query that
 * does not come back in time is abandoned (its thread detached, its state leaked), never waited
 * for.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <babeltrace2/babeltrace.h>

#include <proxyscope/psa_live.h>

#include "read/event_internal.h"
#include "read/ctf/ctf_int.h"
#include "read/ctf/live_abort.h"

#define LIST_MAX 256

/* M: mtx; W: the query's thread until done, then the caller. */
struct list_job {
	char url[512];
	pthread_mutex_t mtx;
	pthread_cond_t cond;
	bool done;        /* M */
	int rc;           /* W */
	char err[PSA_ERR_MAX];
	struct psa_live_session s[LIST_MAX];
	size_t n;         /* W: sessions the relay daemon listed */
};

static const char *str_entry(const bt_value *m, const char *key)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(m, key);

	return v && bt_value_is_string(v) ? bt_value_string_get(v) : "";
}

static uint64_t int_entry(const bt_value *m, const char *key)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(m, key);

	if (v && bt_value_is_unsigned_integer(v))
		return bt_value_integer_unsigned_get(v);
	if (v && bt_value_is_signed_integer(v) && bt_value_integer_signed_get(v) > 0)
		return (uint64_t)bt_value_integer_signed_get(v);
	return 0;
}

static void fill(struct list_job *j, const bt_value *res)
{
	uint64_t n = bt_value_array_get_length(res);

	j->n = 0;
	for (uint64_t i = 0; i < n; i++) {
		const bt_value *m = bt_value_array_borrow_element_by_index_const(res, i);
		struct psa_live_session *s;
		const char *v;

		if (!bt_value_is_map(m))
			continue;
		if (j->n == LIST_MAX)
			break;
		s = &j->s[j->n++];
		v = str_entry(m, "url");
		psa__copy_str(s->url, sizeof(s->url), v, strlen(v));
		v = str_entry(m, "target-hostname");
		psa__copy_str(s->host, sizeof(s->host), v, strlen(v));
		v = str_entry(m, "session-name");
		psa__copy_str(s->name, sizeof(s->name), v, strlen(v));
		s->timer_us = int_entry(m, "timer-us");
		s->streams = int_entry(m, "stream-count");
		s->clients = int_entry(m, "client-count");
	}
}

static int query(struct list_job *j)
{
	const bt_plugin *p = NULL;
	const bt_component_class_source *cls;
	bt_query_executor *qe = NULL;
	bt_value *params = bt_value_map_create();
	const bt_value *res = NULL;
	int rc = -EIO;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &p) !=
		    BT_PLUGIN_FIND_STATUS_OK ||
	    !(cls = bt_plugin_borrow_source_component_class_by_name_const(p, "lttng-live"))) {
		bt_current_thread_clear_error();
		psa__errf(j->err, sizeof(j->err), "babeltrace2 lacks source.ctf.lttng-live");
		rc = -ENOTSUP;
		goto out;
	}
	if (!params || bt_value_map_insert_string_entry(params, "url", j->url) ||
	    !(qe = bt_query_executor_create(bt_component_class_source_as_component_class_const(cls),
					    "sessions", params))) {
		psa__errf(j->err, sizeof(j->err), "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (int tries = 0; tries < 50; tries++) {
		struct timespec nap = { 0, 20 * 1000 * 1000 };

		switch (bt_query_executor_query(qe, &res)) {
		case BT_QUERY_EXECUTOR_QUERY_STATUS_OK:
			fill(j, res);
			rc = 0;
			goto out;
		case BT_QUERY_EXECUTOR_QUERY_STATUS_AGAIN:
			nanosleep(&nap, NULL);
			continue;
		default: {
			const bt_error *e = bt_current_thread_take_error();
			const char *msg = e && bt_error_get_cause_count(e)
						  ? bt_error_cause_get_message(
							    bt_error_borrow_cause_by_index(e, 0))
						  : "the query failed";

			psa__errf(j->err, sizeof(j->err), "cannot list the sessions of '%s': %.*s",
				  j->url, (int)strcspn(msg, "\r\n"), msg);
			rc = strstr(msg, "onnection refused") ? -ECONNREFUSED : -EIO;
			if (e)
				bt_error_release(e);
			goto out;
		}
		}
	}
	psa__errf(j->err, sizeof(j->err), "cannot list the sessions of '%s': it keeps saying 'again'",
		  j->url);
out:
	bt_value_put_ref(res);
	bt_query_executor_put_ref(qe);
	bt_value_put_ref(params);
	bt_plugin_put_ref(p);
	return rc;
}

static void *list_thread(void *arg)
{
	struct list_job *j = arg;
	/* its connection must not be taken for a reader's (live_abort.h) */
	bool locked = psa__live_connect_lock(2000);

	j->rc = query(j);
	if (locked)
		psa__live_connect_unlock();
	pthread_mutex_lock(&j->mtx);
	j->done = true;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->mtx);
	return NULL;
}

int psa_live_list(const char *relay_url, struct psa_live_session *out, size_t max, size_t *n,
		  unsigned timeout_ms, char *err, size_t errlen)
{
	struct list_job *j = calloc(1, sizeof(*j));
	struct timespec deadline;
	pthread_t th;
	bool done;
	int rc;

	*n = 0;
	if (!j) {
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	psa__copy_str(j->url, sizeof(j->url), relay_url, strlen(relay_url));
	pthread_mutex_init(&j->mtx, NULL);
	pthread_cond_init(&j->cond, NULL);
	if (pthread_create(&th, NULL, list_thread, j)) {
		free(j);
		psa__errf(err, errlen, "cannot start the query");
		return -ENOMEM;
	}
	deadline = psa__deadline_in(timeout_ms);
	pthread_mutex_lock(&j->mtx);
	while (!j->done)
		if (pthread_cond_timedwait(&j->cond, &j->mtx, &deadline) == ETIMEDOUT)
			break;
	done = j->done;
	pthread_mutex_unlock(&j->mtx);
	if (!done) {
		pthread_detach(th); /* the job stays with the thread */
		psa__errf(err, errlen, "the relay daemon at '%s' did not answer within %u ms",
			  relay_url, timeout_ms);
		return -ETIMEDOUT;
	}
	pthread_join(th, NULL);
	rc = j->rc;
	if (rc) {
		psa__copy_str(err, errlen, j->err, strlen(j->err));
	} else {
		*n = j->n;
		memcpy(out, j->s, (j->n < max ? j->n : max) * sizeof(*out));
	}
	pthread_cond_destroy(&j->cond);
	pthread_mutex_destroy(&j->mtx);
	free(j);
	return rc;
}
