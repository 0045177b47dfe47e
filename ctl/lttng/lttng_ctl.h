/* SPDX-License-Identifier: MIT */
/*
 * Driving lttng-tools for `proxyscope record` (and the tests): find the tools, make sure a
 * session daemon answers (starting a private one when none does), and run one recording
 * session with a unique name from create to destroy.
 */
#ifndef PROXYSCOPE_CLI_LTTNG_CTL_H
#define PROXYSCOPE_CLI_LTTNG_CTL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LT_ERR_MAX 512

/* The LTTng log levels `--loglevel` accepts, most severe first. */
enum lt_level {
	LT_LEVEL_ERR,
	LT_LEVEL_WARNING,
	LT_LEVEL_INFO,
	LT_LEVEL_DEBUG,
	LT_LEVEL_NR
};

struct lt_session {
	char name[96];           /* unique: proxyscope-<pid>-<n> */
	char output[PATH_MAX];   /* absolute trace directory */
	bool snapshot;           /* flight recorder: overwrite buffers, snapshot on demand */
	enum lt_level level;
	const char *event;       /* NULL: every event of the project's providers at level; else
				    only this one (benchmarks: what a narrower session costs) */
	uint64_t subbuf_size;    /* the channel's sub-buffers (lt_buffers_size); 0: 1 MiB, or */
	unsigned num_subbuf;     /* 4 MiB at debug, and 8 of them */
	const char *live_url;    /* live session (`proxyscope watch`): the relay daemon's
				    "net://HOST:CTRL:DATA"; NULL: write to output */
	unsigned live_timer_us;  /* its live timer (how often the relay daemon gets data) */
	const char *url;         /* NULL: write to output; else stream to this relay daemon,
				    "net://HOST:CTRL:DATA" (`lttng create --set-url`) */
	char *const *wrap;       /* NULL, or the nsenter prefix of a simulated host (hosts.h):
				    the session's calls are made inside that host's mount
				    namespace (its own session daemon), see lttng_ctl_call.c */
	bool created;            /* the session was created: destroy owed */
	bool started;            /* the session was started: stop owed */
	bool trigger;            /* the watchdog snapshot trigger is installed */
	bool lost;               /* a daemon it rests on died: its end waits as briefly as an
				    interrupted one's (lttng_ctl_session.c) */
	uint64_t mnt_ns;         /* > 0: this process's own mount namespace (lt_isolate), which
				    the command inherits: only events of processes in it are
				    recorded, and a daemon we start serves only it */
	bool run_mounted;        /* our private tmpfs is on /run/lttng (in that namespace) */
	pid_t sessiond_pid;      /* > 0: a session daemon this process started (stop owed) */
	char home[PATH_MAX];     /* the private LTTNG_HOME of that daemon, removed afterwards */
};

/*
 * What a recording's command will do, as far as it is known: `run` knows its workload, `record`
 * and `watch` do not (all zero). The buffers are sized from the event rate this gives.
 */
struct lt_work {
	unsigned ranks;           /* the rank threads firing events; 0: unknown */
	uint64_t execs;           /* execs per rank; 0: unknown (as many as the CPUs make) */
	uint64_t events_per_exec; /* events one rank fires per exec at INFO; 0: the ring's */
	uint64_t exec_min_us;     /* no exec is shorter (the simulated compute); 0: no bound */
};

/*
 * The tracer's ring buffer per CPU (per-user buffers, one per CPU) for a session at @level
 * around the work @w (NULL or w->ranks 0: unknown, sized for the level alone), or @override
 * bytes per CPU when not 0: sets s->subbuf_size and s->num_subbuf (LT_NUM_SUBBUF sub-buffers,
 * each a power of two of at least LT_SUBBUF_MIN). Sized by lt_buffers_want.
 */
#define LT_NUM_SUBBUF 8
#define LT_SUBBUF_MIN (UINT64_C(64) << 10)
#define LT_BUFFER_MAX (UINT64_C(1) << 30) /* per CPU: the --buffer-size bound */
void lt_buffers_size(struct lt_session *s, enum lt_level level, const struct lt_work *w,
		     uint64_t override);
/*
 * The bytes per CPU lt_buffers_size asks for, on @cpus CPUs and @mem bytes of memory: the
 * events the work fires at its expected rate for LT_BUFFER_LAG_S seconds (the consumer daemon
 * late by that much loses nothing), and no more than all the events of the run; at least
 * LT_BUFFER_FLOOR, at most 1/8 of @mem in all. Before rounding to sub-buffers.
 */
#define LT_BUFFER_LAG_S 4
#define LT_BUFFER_FLOOR (UINT64_C(8) << 20)
uint64_t lt_buffers_want(enum lt_level level, const struct lt_work *w, unsigned cpus, uint64_t mem);

/* The sub-buffer size a session gets: lt_buffers_size's, or the fixed default for its level. */
static inline uint64_t lt_subbuf_of(const struct lt_session *s)
{
	if (s->subbuf_size)
		return s->subbuf_size;
	return s->level == LT_LEVEL_DEBUG ? UINT64_C(4) << 20 : UINT64_C(1) << 20;
}

/* "8 x 4 MiB per CPU (2 CPUs)": the buffers s will have, for a message. */
void lt_buffers_str(const struct lt_session *s, char *buf, size_t len);

/* Parse "err", "warning", "info" or "debug". Returns 0 or -EINVAL. */
int lt_level_parse(const char *s, enum lt_level *out);
const char *lt_level_str(enum lt_level level);

/*
 * Where a session writes: create @dir if needed; it must be an empty, writable directory (an
 * empty one is removed again, LTTng creates it). Its absolute path goes to @abs. Returns 0 or a
 * negative errno with a one-line reason naming @dir.
 */
int lt_output_prepare(const char *dir, char *abs, size_t abslen, char *err, size_t errlen);

/* Whether @tool is an executable in a directory of PATH. */
bool lt_in_path(const char *tool);

/* 0 when the lttng client and lttng-sessiond are installed, else -ENOENT with a reason. */
int lt_tools_check(char *err, size_t errlen);

/*
 * Give this process (and so every process it starts from now on) a mount namespace of its own,
 * a slave of the current one (the machine's mounts still show, ours never leak), and note its
 * inode in s->mnt_ns: the session then records only the processes of that namespace - the
 * command's tree, children included, never another user's libproxyscope process - and a
 * session daemon we have to start is private to it. Must run before this process has a second
 * thread. Returns 0, or a negative errno (not root, threads running): then nothing changed and
 * the recording takes every process, as before. -EEXIST: this process runs inside a recording
 * of ours that isolated itself (LT_RECORDING_NS_ENV names our namespace: `record -- proxyscope
 * run`), and stays there, or that recording would lose it; ours then takes every process of
 * that namespace - the enclosing recording's tree.
 */
#define LT_RECORDING_NS_ENV "PROXYSCOPE_RECORDING_MNT_NS"
int lt_isolate(struct lt_session *s);

/*
 * Make sure a session daemon answers (the system's is used as it is: we only add a session of
 * our own). If none does, start a private one and remember to stop it - only it: after
 * lt_isolate, on a tmpfs of ours mounted on /run/lttng in our namespace, where no other command
 * reaches it; else with LTTNG_HOME set to a fresh directory (a user's own daemon).
 */
int lt_sessiond_ensure(struct lt_session *s, char *err, size_t errlen);

/* Stop the daemon lt_sessiond_ensure started (if any) and remove its home. */
void lt_sessiond_release(struct lt_session *s);
/*
 * The same without waiting for the daemon to be gone, for a process about to exit: a daemon
 * with this busy process still registered took 115 s to end after SIGTERM (it ends with its
 * last application), where an idle one ends in well under a second.
 */
void lt_sessiond_let_go(struct lt_session *s);

/*
 * Create the session writing to s->output (or streaming to s->url), enable the project's providers (or only s->event)
 * at s->level, add the vpid, vtid and procname contexts, install the watchdog snapshot trigger
 * in snapshot mode, and start. On failure everything done so far is undone.
 */
int lt_session_begin(struct lt_session *s, char *err, size_t errlen);

/*
 * Wait until process @pid is registered with the session daemon (the session daemon
 * lists its tracepoints), at most @timeout_ms. For a process that was already running when the
 * daemon started: its LTTng-UST registers asynchronously. Returns 0, -ETIMEDOUT, or -EINTR once a
 * SIGINT or SIGTERM was taken (signals.h).
 */
int lt_wait_registered(pid_t pid, unsigned timeout_ms);

/* Record a snapshot (snapshot mode). */
int lt_session_snapshot(struct lt_session *s, char *err, size_t errlen);

/*
 * The most recent snapshot under a snapshot session's output @dir: LTTng writes each one into
 * its own DIR/<name>-<date>-<time>-<N> (N counts from 0), so several snapshots are never read
 * as one trace (their windows overlap). Its path goes to @out. Returns 0, or -ENOENT when
 * there is none.
 */
int lt_snapshot_latest(const char *dir, char *out, size_t outlen);

/* Stop and destroy the session, remove the trigger. Returns 0 or the first error. */
int lt_session_end(struct lt_session *s, char *err, size_t errlen);

#endif /* PROXYSCOPE_CLI_LTTNG_CTL_H */
