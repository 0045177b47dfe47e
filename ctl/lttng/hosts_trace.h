/* SPDX-License-Identifier: MIT */
/*
 * Recording across hosts (`run --hosts` without --no-trace): one lttng-relayd on the collector
 * host, and on every simulated host one session, created with that host's own session daemon
 * (its lttng client run inside the host's namespaces, host_nsenter), streaming to the relay
 * daemon over the bridge. The relay daemon writes one trace per host into its output tree,
 * DIR/<hostname>/<session>-<date>/ust/uid/0/64-bit/, named by the host's session daemon's own
 * hostname; the report reads the tree as one job.
 *
 *	hosts_create(.sessiond = true)
 *	hosts_trace_begin(&t, h, &opts)        relay daemon up, every host's session started
 *	... mpirun: the processes load the probes and register with their host's daemon ...
 *	hosts_trace_end(&t)                    sessions destroyed (their data at the relay
 *	                                       daemon), relay daemon stopped: DIR is complete
 *	hosts_destroy(h)
 *
 * The relay daemon listens on the collector's own address, on fixed ports: the collector's
 * network namespace is private to this run, so they are always free, and no machine-wide
 * relay daemon (on the default ports) is ever involved. The sessions are live ones when the
 * run is watched (a viewer in the collector's network namespace follows them all through the
 * relay daemon's live port), or snapshot ones (overwrite mode; each snapshot goes to the relay
 * daemon too, DIR/<hostname>/<session>-<date>/<snapshot>-N).
 */
#ifndef PROXYSCOPE_CTL_HOSTS_TRACE_H
#define PROXYSCOPE_CTL_HOSTS_TRACE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon_watch.h"
#include "hosts.h"
#include "live_relayd.h"
#include "lttng_ctl.h"
#include "recording.h"

#define HOSTS_RELAYD_CTRL 5342
#define HOSTS_RELAYD_DATA 5343
#define HOSTS_RELAYD_LIVE 5344

#define HOSTS_LOST_WHY_MAX 64

struct hosts_trace {
	struct live_relayd relayd;    /* on the collector, a child of ours */
	char log[128];                /* the relay daemon's stdout and stderr, in the hosts' dir */
	unsigned n;                   /* sessions: one per simulated host */
	struct lt_session *s;         /* [n] */
	struct host_nsenter *ns;      /* [n]: the prefix of each session's lttng calls */
	unsigned hosts;               /* the hosts recorded (n drops to 0 once they are ended) */
	struct daemon_watch dw;       /* the relay daemon, each host's session and consumer daemons */
	uint64_t lost_ns[HOSTS_MAX];  /* when host i's recording was lost: a daemon it rests on
					 died (CLOCK_REALTIME ns; 0: not lost) */
	char lost_why[HOSTS_MAX][HOSTS_LOST_WHY_MAX]; /* "its lttng-sessiond died" */
};

/* 0 when lttng, lttng-sessiond and lttng-relayd are installed, else -ENOENT with a reason. */
int hosts_trace_check(char *err, size_t errlen);

/*
 * Start the relay daemon writing into @o->output (absolute) and a session on every host of @h
 * (each with its session daemon: hosts_opts.sessiond); live ones when @o->watch, sized as
 * `record` sizes a session (@o->ranks is not used: the ranks are not this process's). On
 * failure everything done so far is undone. Returns 0 or -errno with a reason in @err.
 */
int hosts_trace_begin(struct hosts_trace *t, struct hosts *h, const struct ctl_recording_opts *o,
		      char *err, size_t errlen);

/*
 * The URL a viewer follows host @i's live session at: net://COLLECTOR:LIVE/host/HOST/SESSION
 * (the relay daemon names a session by the hostname of the session daemon that made it).
 */
void hosts_trace_live_url(const struct hosts_trace *t, const struct hosts *h, unsigned i,
			  char *out, size_t len);

/* Snapshot mode: record a snapshot of every host's session (to the relay daemon). 0 or the
 * first error. */
int hosts_trace_snapshot(struct hosts_trace *t, char *err, size_t errlen);

/* Stop and destroy every session (their data is then at the relay daemon). Idempotent. */
int hosts_trace_end_sessions(struct hosts_trace *t, char *err, size_t errlen);

/*
 * While the job runs: whether a daemon of the recording died since the last call - the relay
 * daemon (every host's recording is lost then), a host's session daemon or one of its consumer
 * daemons (that host's). Each death is said at once (msg.h) and noted in t->lost_ns and
 * t->lost_why; the job goes on. Returns how many hosts were newly lost.
 */
unsigned hosts_trace_watch(struct hosts_trace *t, struct hosts *h);

/* How many hosts lost their recording (hosts_trace_watch). */
unsigned hosts_trace_lost(const struct hosts_trace *t);

/*
 * After hosts_trace_end: a cut marker (psa_cut_write) in @output/<host>/ for every host that
 * lost its recording, naming the daemon that died, and the earliest loss in *@cut_ns with its
 * reason in @why ("host1's lttng-sessiond died"; 0: none lost). 0 or the first error.
 */
int hosts_trace_mark_lost(const struct hosts_trace *t, const struct hosts *h, const char *output,
			  uint64_t *cut_ns, char *why, size_t whylen);

/* hosts_trace_end_sessions, then stop the relay daemon. 0 or the first error. A lost host's
 * session (its daemon died) is ended in the bounds of an interrupted one and its failure to end
 * is no error: the loss was said when it happened. */
int hosts_trace_end(struct hosts_trace *t, char *err, size_t errlen);

#endif /* PROXYSCOPE_CTL_HOSTS_TRACE_H */
