/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope run --hosts H`: the hosts, mpirun, and the results the processes leave behind
 * (see run_hosts.h).
 */
#include "run_hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/launcher.h>
#include <proxyscope/log.h>
#include <proxyscope/psa_model.h>
#include <proxyscope/trace.h>

#include "run_hosts_log.h"
#include "msg.h"
#include "signals.h"
#include "hosts.h"
#include "hosts_trace.h"
#include "live_relayd.h"
#include "run_watch.h"

/* What a process leaves in the results directory: who it was, then its result
 * (enc_wl_result_write). */
struct xchild_result {
	uint32_t magic;
	uint32_t proc;
	char host[RUN_HOSTS_NAME_MAX];
};

#define XCHILD_MAGIC 0x78726573u /* "xres" */
#define REGISTER_TIMEOUT_MS 10000
#define JOB_GONE_GRACE_MS 3000
/* The job's messages read at most this much every 50 ms while mpirun runs (the rest after). */
#define LOG_PUMP_BYTES (256u << 10)
#define LAUNCHER_STOP_MS 5000
#define GATE_MS 30000       /* the parent holds a watched job this long for the watch, at most */
#define CHILD_GATE_MS 40000 /* a process waits for the parent's go this long, at most */

/*
 * The probes, and this process on its host's session daemon's list: its session records from
 * the first event on. Without them the run goes on (its result still counts); the report then
 * lacks this process, and says which ones it has.
 */
static void child_trace(uint32_t proc)
{
	int rc = enc_trace_load();

	if (rc)
		ctl_error("process %" PRIu32 ": the tracepoint probes are not loaded (%s): nothing "
			  "of it is recorded", proc, strerror(-rc));
	else if (lt_wait_registered(getpid(), REGISTER_TIMEOUT_MS))
		ctl_error("process %" PRIu32 ": not registered with its host's lttng-sessiond "
			  "within %u ms: its first events may be missing", proc, REGISTER_TIMEOUT_MS);
}

int run_hosts_link_cut(void *arg)
{
	(void)arg;
	return host_link_down_here();
}

int run_hosts_link_slow(void *arg, const uint32_t *hosts, size_t n, uint32_t kbit)
{
	(void)arg;
	return host_link_slow_here(hosts, n, kbit);
}

/*
 * The gate of a watched job: babeltrace2's live source sees only what a session sends after it
 * attached (live_watch.h), and the sessions' streams - which it waits for before attaching -
 * appear only once the processes registered. So each process, once registered, waits for the
 * file `go` beside `gate` in the hosts' runtime directory (run_hosts_child), and the parent
 * writes it once the watch is attached to every host's session (or it gave up, or GATE_MS
 * passed: the job then runs, its start maybe unseen live).
 */
static int gate_make(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static void gate_open(const char *dir, struct run_watch *watch)
{
	if (!run_watch_settled(watch))
		ctl_error("watch: not attached to every host's session after %u s; the job starts "
			  "anyway (its first events may not be seen live)", GATE_MS / 1000);
	if (gate_make(dir, "go"))
		ctl_error("cannot open the job's gate in '%s': %s (its processes wait %u s)", dir,
			  strerror(errno), CHILD_GATE_MS / 1000);
}

/* In a process of the job: wait for the parent's `go` when the job is gated. */
static void gate_wait(const char *dir)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/gate", dir);
	if (access(path, F_OK))
		return;
	snprintf(path, sizeof(path), "%s/go", dir);
	for (unsigned ms = 0; access(path, F_OK) && ms < CHILD_GATE_MS; ms += 20)
		nanosleep(&nap, NULL);
}

int run_hosts_child(struct enc_wl_args *args, const char *dir, bool traced, bool digest)
{
	struct xchild_result r = { .magic = XCHILD_MAGIC };
	struct enc_wl_result res;
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	struct enc_launcher l;
	struct utsname u;
	int fd, rc;

	rc = enc_launcher_get(&l);
	if (rc || !l.pmix) {
		ctl_error("--%s: not started by a PMIx launcher", RUN_XCHILD_OPT);
		return -EINVAL;
	}
	args->proc = l.rank;
	args->procs = l.size;
	args->local_proc = l.local_rank;
	args->local_procs = l.local_size;
	if (uname(&u))
		u.nodename[0] = '\0';
	/* the index a partition fault names: the hosts are host0, host1, ... */
	if (sscanf(u.nodename, "host%" SCNu32, &args->host) != 1)
		args->host = 0;
	run_hosts_job_started(dir, l.rank);
	if (traced)
		child_trace(l.rank);
	gate_wait(dir);
	/* digested: the parent digests every process's messages as one (run_hosts_log.h) */
	if (!digest || run_hosts_log_child(dir))
		enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_WARN);
	rc = enc_wl_run(args, &res);
	run_hosts_log_child_end();
	if (rc)
		ctl_error("process %" PRIu32 ": cannot run the workload: %s", args->proc,
			  res.err[0] ? res.err : strerror(-rc));
	r.proc = l.rank;
	snprintf(r.host, sizeof(r.host), "%.31s", u.nodename);
	snprintf(path, sizeof(path), "%s/result.%" PRIu32, dir, l.rank);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	rc = fd < 0 ? -errno : write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r) ? -EIO
							: enc_wl_result_write(fd, &res);
	enc_wl_result_fini(&res);
	if (fd >= 0 && close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc) {
		ctl_error("cannot write '%s': %s", path, strerror(-rc));
		return rc;
	}
	/* 0 whatever the result: mpirun would end the other processes on a failure. */
	return 0;
}

/* mpirun's command line: ours, plus the job name and where the results go. */
static char **launcher_argv(const struct hosts *h, const struct enc_wl_args *args,
			    uint32_t hosts, int argc, char **argv, const char *exe,
			    char *np, char *ppr)
{
	const char *head[] = { "mpirun", "--allow-run-as-root", "--hostfile", h->hostfile,
			       "--mca", "plm_rsh_agent", h->agent, "-np", np,
			       "--map-by", ppr, "--bind-to", "none",
			       /* a process that dies (the kill fault) ends only itself: the
				* others' results are written (orte_enable_recovery, 4.x's name) */
			       "--mca", "orte_enable_recovery", "1",
			       /* its session directories in ours, removed with it: an interrupted
				* mpirun leaves its own behind (ompi.<host>.<uid> in TMPDIR) */
			       "--mca", "orte_tmpdir_base", h->dir, exe };
	size_t nh = sizeof(head) / sizeof(head[0]), n = 0;
	char **v = calloc(nh + (size_t)argc + 8, sizeof(*v));

	if (!v)
		return NULL;
	snprintf(np, 16, "%" PRIu32, args->procs);
	snprintf(ppr, 32, "ppr:%" PRIu32 ":node", args->procs / hosts);
	for (size_t i = 0; i < nh; i++)
		v[n++] = (char *)head[i];
	for (int i = 0; i < argc; i++)
		v[n++] = argv[i];
	v[n++] = "--job";
	v[n++] = (char *)args->job;
	v[n++] = "--" RUN_XCHILD_OPT;
	v[n++] = (char *)h->dir;
	return v;
}

/*
 * Wait for mpirun, passing Ctrl-C on. Once the job's processes are all gone (each left its
 * result or died, run_hosts_job_gone), a partitioned host's link is healed (what its orted and
 * session daemon still hold can then reach the collector), and a launcher still running
 * JOB_GONE_GRACE_MS later is stopped (one that keeps a job going after a process died waits on
 * for minutes), then killed; @rh->launcher_stopped says so. Once one is gone, the others get
 * @stuck_ms to follow (as run_procs.c gives them): one still running then is stuck, and the
 * launcher is stopped with it.
 */
static int launcher_wait(struct hosts *h, struct run_hosts *rh, bool heal, uint64_t stuck_ms,
			 pid_t pid, struct run_watch *watch, struct hosts_trace *t,
			 struct run_hosts_log *log)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	uint64_t all_ms = 0, some_ms = 0, stop_ms = 0, gate_ms = 0;
	bool passed = false, hurried = false, gated = watch != NULL;
	int st;

	for (;; nanosleep(&tick, NULL)) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		uint32_t gone;

		if (w == pid)
			break;
		if (t) /* a daemon of the recording that died loses its host's trace, not the job */
			hosts_trace_watch(t, h);
		run_hosts_log_pump(log, LOG_PUMP_BYTES);
		if (gated && (run_watch_settled(watch) || gate_ms >= GATE_MS || ctl_signals_caught())) {
			gate_open(h->dir, watch);
			gated = false;
		}
		gate_ms += 50;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (ctl_signals_caught() && !passed) { /* mpirun ends its job on SIGINT/SIGTERM */
			struct timespec now;

			clock_gettime(CLOCK_REALTIME, &now);
			rh->cut_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
			kill(pid, ctl_signals_caught() == SIGINT ? SIGINT : SIGTERM);
			passed = true;
			ctl_signals_phase("mpirun was ending the job: the hosts' sessions were not "
					  "ended (the sweeper tears the hosts down)");
		}
		if (passed && ctl_signals_hurry() && !hurried) { /* its own teardown is the slow part */
			kill(pid, SIGKILL); /* the teardown's sweep ends what it leaves */
			hurried = true;
		}
		gone = all_ms ? rh->procs : run_hosts_job_gone(h->dir, rh->procs);
		if (gone == rh->procs)
			all_ms += 50;
		else if (gone)
			some_ms += 50;
		if (all_ms < JOB_GONE_GRACE_MS && some_ms < stuck_ms) {
			if (heal && all_ms == 50)
				hosts_links_heal(h);
			continue;
		}
		if (stop_ms == 0) {
			if (heal && all_ms == 0)
				hosts_links_heal(h);
			rh->launcher_stopped = true;
			kill(pid, SIGTERM);
		} else if (stop_ms == LAUNCHER_STOP_MS) {
			kill(pid, SIGKILL); /* the teardown's sweep ends what it leaves */
		}
		stop_ms += 50;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void results_read(const struct hosts *h, struct run_hosts *rh, struct enc_wl_result *res)
{
	struct xchild_result r;
	struct enc_wl_result pr;
	char path[128];

	for (uint32_t p = 0; p < rh->procs && rh->proc; p++) {
		int fd;

		snprintf(path, sizeof(path), "%s/result.%" PRIu32, h->dir, p);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, &r, sizeof(r)) == (ssize_t)sizeof(r) && r.magic == XCHILD_MAGIC &&
		    r.proc == p && !enc_wl_result_read(fd, &pr)) {
			enc_wl_result_merge(res, &pr);
			enc_wl_result_fini(&pr);
			rh->proc[p].seen = true;
			snprintf(rh->proc[p].host, sizeof(rh->proc[p].host), "%.*s",
				 (int)sizeof(r.host) - 1, r.host);
			rh->reported++;
		}
		close(fd);
		unlink(path);
	}
}

/* The hosts that lost their recording mid-run, for the report (run_hosts.h). */
static void lost_note(const struct hosts_trace *t, const struct hosts *h, struct run_hosts *rh)
{
	rh->lost = 0;
	for (unsigned i = 0; i < t->hosts && rh->lost < RUN_HOSTS_LOST_MAX; i++) {
		time_t sec = (time_t)(t->lost_ns[i] / 1000000000u);
		char when[32] = "?";
		struct tm tm;

		if (!t->lost_ns[i])
			continue;
		if (gmtime_r(&sec, &tm))
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
		snprintf(rh->lost_line[rh->lost++], sizeof(rh->lost_line[0]),
			 "%s: %s at %s.%03u UTC: its trace ends there, what its ranks did after is "
			 "unknown", h->host[i].name, t->lost_why[i], when,
			 (unsigned)(t->lost_ns[i] % 1000000000u / 1000000u));
	}
}

/*
 * The tree's cut markers: each lost host's in DIR/<host>/ (hosts_trace_mark_lost), and the
 * tree's own at the earliest of the signal and the losses - what was in flight then is not a
 * stall (the model finds the file two levels above each host's trace).
 */
static void cut_mark(const struct hosts_trace *t, const struct hosts *h, const char *output,
		     const struct run_hosts *rh)
{
	char why[PSA_CUT_REASON_MAX] = "interrupted";
	uint64_t cut = rh->cut_ns, lost_ns;
	char lost_why[PSA_CUT_REASON_MAX];
	int e = hosts_trace_mark_lost(t, h, output, &lost_ns, lost_why, sizeof(lost_why));

	if (e)
		ctl_error("cannot mark where the recording of %s was cut: %s", output, strerror(-e));
	if (lost_ns && (!cut || lost_ns < cut)) {
		cut = lost_ns;
		snprintf(why, sizeof(why), "%s", lost_why);
	}
	if (cut && (e = psa_cut_write(output, cut, why)))
		ctl_error("cannot mark where the recording of %s was cut: %s", output, strerror(-e));
}

/* Recording: the relay daemon and the hosts' sessions, and the watch; 0, or -errno after an
 * "error:" line. */
static int trace_begin(struct hosts_trace *t, struct hosts *h,
		       const struct ctl_recording_opts *trace, struct run_watch **watch)
{
	char err[HOSTS_ERR_MAX], (*url)[512];
	const char **urls;
	int rc;

	*watch = NULL;
	if (!trace)
		return 0;
	rc = hosts_trace_begin(t, h, trace, err, sizeof(err));
	if (rc) {
		ctl_error("cannot record across hosts: %s", err);
		return rc;
	}
	if (!trace->watch)
		return 0;
	/* as run --watch boosts its own: a stalled job spins, and starved consumer daemons sent
	 * neither data nor beacons for seconds on a loaded machine (the merged stream waits for
	 * the slowest host, up to the threshold: analysis/read/ctf/live_merge.c) */
	for (unsigned i = 0; i < h->n; i++)
		if (h->host[i].sessiond > 0)
			live_boost_sessiond(h->host[i].sessiond);
	url = calloc(h->n, sizeof(*url));
	urls = calloc(h->n, sizeof(*urls));
	for (unsigned i = 0; url && urls && i < h->n; i++) {
		hosts_trace_live_url(t, h, i, url[i], sizeof(url[i]));
		urls[i] = url[i];
	}
	if (!url || !urls ||
	    run_watch_start(&(struct run_watch_opts){ .urls = urls, .n = h->n,
						      .netns_fd = h->collector.ns_fd[HOSTS_NS_NET],
						      .threshold_ns = trace->watch_threshold_ns,
						      .printer = trace->watch_printer }, watch))
		ctl_error("cannot start the watch; the run goes on, unwatched");
	free(url);
	free(urls);
	return 0;
}

/* The last snapshots, the sessions ended (their data at the relay daemon), the watch drained,
 * the relay daemon stopped. */
static int trace_end(struct hosts_trace *t, const struct ctl_recording_opts *trace,
		     struct run_watch *watch)
{
	char err[LT_ERR_MAX];
	int rc = 0;

	if (!trace)
		return 0;
	if (trace->snapshot && hosts_trace_snapshot(t, err, sizeof(err))) {
		ctl_error("recording across hosts: %s", err);
		rc = -EIO;
	}
	if (hosts_trace_end_sessions(t, err, sizeof(err)) && !rc) {
		ctl_error("recording across hosts: %s", err);
		rc = -EIO;
	}
	run_watch_stop(watch);
	if (hosts_trace_end(t, err, sizeof(err)) && !rc) {
		ctl_error("recording across hosts: %s", err);
		rc = -EIO;
	}
	return rc;
}

void run_hosts_fini(struct run_hosts *rh)
{
	free(rh->proc);
	rh->proc = NULL;
}

int run_hosts_run(const struct enc_wl_args *args, uint32_t hosts,
		  const struct ctl_recording_opts *trace, int argc, char **argv,
		  struct run_hosts *rh, struct enc_wl_result *res)
{
	struct hosts_opts o = { .n = hosts, .sessiond = trace != NULL };
	struct hosts_trace t;
	struct run_watch *watch;
	struct run_hosts_log log;
	struct ctl_sigcatch sigs;
	char err[HOSTS_ERR_MAX], exe[PATH_MAX], np[16], ppr[32];
	struct hosts *h;
	char **v;
	ssize_t len;
	pid_t pid;
	int rc;

	memset(rh, 0, sizeof(*rh));
	memset(res, 0, sizeof(*res));
	rh->hosts = hosts;
	rh->procs = args->procs;
	rh->proc = calloc(args->procs, sizeof(*rh->proc));
	if (!rh->proc)
		return -ENOMEM;
	res->ranks = args->ranks;
	snprintf(res->job, sizeof(res->job), "%s", args->job);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return -errno;
	exe[len] = '\0';
	ctl_signals_catch(&sigs, false);
	rc = hosts_create(&o, &h, err, sizeof(err));
	if (rc) {
		ctl_error("%s", err);
		goto out_signals;
	}
	if (hosts_launcher_env()) {
		rc = -errno;
		ctl_error("cannot set the environment: %s", strerror(errno));
		hosts_destroy(h);
		goto out_signals;
	}
	rc = trace_begin(&t, h, trace, &watch);
	if (rc) {
		hosts_destroy(h);
		goto out_signals;
	}
	if (watch && gate_make(h->dir, "gate"))
		ctl_error("cannot make the job's gate in '%s': %s; the job is not held for the watch",
			  h->dir, strerror(errno));
	if (ctl_signals_caught()) { /* interrupted during the set-up: no job */
		ctl_note("proxyscope: interrupted before the job started");
		goto out_trace;
	}
	run_hosts_log_open(&log, h->dir);
	v = launcher_argv(h, args, hosts, argc, argv, exe, np, ppr);
	rc = v ? host_spawn(&h->collector, v, "/dev/null", &pid) : -ENOMEM;
	free(v);
	rh->launched = rc == 0;
	if (rc) {
		ctl_error("cannot start mpirun: %s", strerror(-rc));
	} else {
		rh->launcher_status = launcher_wait(h, rh, run_hosts_partitions(args),
						    3 * (uint64_t)args->timeout_ms + 10000, pid, watch,
						    trace ? &t : NULL, &log);
		run_hosts_log_close(&log);
		results_read(h, rh, res);
	}
out_trace:
	if (trace)
		lost_note(&t, h, rh);
	if (trace_end(&t, trace, watch) && !rc)
		rc = -EIO;
	if (trace)
		cut_mark(&t, h, trace->output, rh);
	hosts_destroy(h);
out_signals:
	ctl_signals_restore(&sigs);
	return rc;
}
