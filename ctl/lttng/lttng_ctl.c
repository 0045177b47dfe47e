/* SPDX-License-Identifier: MIT */
/*
 * lttng-tools for a recording (lttng_ctl.h): the buffers a session gets, the tools, the session
 * daemon, the trace directory, the snapshots written. The session itself is driven through
 * liblttng-ctl (lttng_ctl_session.c); the daemons stay processes of their own.
 *
 * The session daemon: one that already answers (the system's) is used as it is, with a session
 * of our own. Otherwise a private one is started and stopped - only it, by its pid - at the end.
 * As root there is one daemon per mount namespace (/run/lttng): one started beside another
 * command's would be refused, and one stopped would break that command's recording. So after
 * lt_isolate it runs on a tmpfs of ours over /run/lttng inside our own namespace, where only
 * our command's processes find it; without that, with LTTNG_HOME pointing at a fresh
 * directory (enough for a user's own daemon).
 */
#include "lttng_ctl.h"
#include "lttng_ctl_int.h"
#include "signals.h"
#include "spawn.h"
#include "spawn_ready.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 24

static const char *const level_names[LT_LEVEL_NR] = { "err", "warning", "info", "debug" };

int lt_level_parse(const char *s, enum lt_level *out)
{
	for (int i = 0; i < LT_LEVEL_NR; i++)
		if (!strcmp(s, level_names[i])) {
			*out = (enum lt_level)i;
			return 0;
		}
	return -EINVAL;
}

const char *lt_level_str(enum lt_level level)
{
	return (unsigned)level < LT_LEVEL_NR ? level_names[level] : "?";
}

/*
 * The buffers hold what the work fires in LT_BUFFER_LAG_S seconds at its expected event rate,
 * and no more than the whole run (why: see docs/ARCHITECTURE.md, Decisions measured: a
 * recording's buffers follow the event rate). The loss in discard mode is the consumer daemon
 * falling behind while the run's threads share the CPUs with it; the rate is the ranks' (ranks
 * x events per exec x execs per second) until they fill the CPUs: an event costs its thread CPU
 * time, so past that it is the CPUs' (EVENTS_PER_CPU_S), whatever the ranks. The figures were
 * measured on `proxyscope run` (docs/decisions.md).
 */
#define EVENT_BYTES 80               /* an event in the buffer: 69-73 B measured, contexts in */
#define EVENTS_PER_EXEC_RING 18      /* a rank's exec at INFO, the default ring: 17.8 measured */
#define EVENTS_SETUP_PER_RANK 16     /* a rank's comm set-up and teardown, its worker's */
/* Events per exec at each level, in sixteenths of INFO's: below INFO only failures fire; DEBUG
 * adds every poll (2.7x INFO at 4 ranks, 9x at 128 ranks measured). */
static const uint64_t level_x16[LT_LEVEL_NR] = { 1, 1, 16, 160 };
/* The most events one CPU fires a second: at INFO twice what 2 CPUs made at 16 ranks at load 25
 * (220 k/s), at DEBUG what they made at 4 ranks (2.0 M/s). */
static const uint64_t events_per_cpu_s[LT_LEVEL_NR] = { 16000, 16000, 250000, 1000000 };
/*
 * Per CPU when nothing is known of the work (`record`, `watch`, the hosts' sessions): by level
 * only (why: see docs/ARCHITECTURE.md, Decisions measured: a recording's buffers follow the
 * event rate).
 */
static const uint64_t buffer_unknown_work[LT_LEVEL_NR] = {
	UINT64_C(8) << 20, UINT64_C(8) << 20, UINT64_C(8) << 20, UINT64_C(32) << 20,
};
#define BUFFER_MEM_SHARE 8                 /* all CPUs' buffers: at most 1/8 of the memory */

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t lt_buffers_want(enum lt_level level, const struct lt_work *w, unsigned cpus, uint64_t mem)
{
	unsigned l = (unsigned)level < LT_LEVEL_NR ? level : LT_LEVEL_INFO;
	uint64_t want, cap = LT_BUFFER_MAX;

	if (!cpus)
		cpus = 1;
	if (!w || !w->ranks) {
		want = buffer_unknown_work[l];
	} else {
		uint64_t ev = w->events_per_exec ? w->events_per_exec : EVENTS_PER_EXEC_RING;
		uint64_t ev_l = mul_sat(ev, level_x16[l]) / 16, rate, all;

		if (!ev_l)
			ev_l = 1;
		/* events a second: the CPUs' most, or the ranks' when their execs are long */
		rate = mul_sat(events_per_cpu_s[l], cpus);
		if (w->exec_min_us) {
			uint64_t ranks_rate = mul_sat(mul_sat(w->ranks, ev_l), 1000000) / w->exec_min_us;

			if (ranks_rate < rate)
				rate = ranks_rate;
		}
		want = mul_sat(mul_sat(rate, LT_BUFFER_LAG_S), EVENT_BYTES) / cpus;
		/* every event of the run, twice a CPU's share of them (the threads need not
		 * spread evenly over the CPUs); not at DEBUG, where the polls fire for as long
		 * as a task waits, not once an exec */
		if (w->execs && l < LT_LEVEL_DEBUG) {
			all = mul_sat(add_sat(mul_sat(mul_sat(w->ranks, w->execs), ev_l),
					      mul_sat(w->ranks, EVENTS_SETUP_PER_RANK)),
				      EVENT_BYTES);
			if (cpus > 1 && all / cpus * 2 < all)
				all = all / cpus * 2;
			if (all < want)
				want = all;
		}
	}
	if (want < LT_BUFFER_FLOOR)
		want = LT_BUFFER_FLOOR;
	if (mem && mem / BUFFER_MEM_SHARE / cpus < cap)
		cap = mem / BUFFER_MEM_SHARE / cpus;
	return want < cap ? want : cap;
}

void lt_buffers_size(struct lt_session *s, enum lt_level level, const struct lt_work *w,
		     uint64_t override)
{
	uint64_t want = override, sub = LT_SUBBUF_MIN;

	if (!want) {
		long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

		want = lt_buffers_want(level, w, online_cpus(),
				       pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0);
		/* an estimate: to the nearest power of two, not always up (the sizes double) */
		want -= want / 3;
	}
	/* the asked-for size: rounded up */
	while (sub * LT_NUM_SUBBUF < want)
		sub <<= 1;
	s->subbuf_size = sub;
	s->num_subbuf = LT_NUM_SUBBUF;
}

void lt_buffers_str(const struct lt_session *s, char *buf, size_t len)
{
	uint64_t sub = lt_subbuf_of(s);
	unsigned cpus = online_cpus();

	if (sub >= UINT64_C(1) << 20)
		snprintf(buf, len, "%u x %" PRIu64 " MiB per CPU (%u CPU%s)",
			 s->num_subbuf ? s->num_subbuf : LT_NUM_SUBBUF, sub >> 20, cpus,
			 cpus == 1 ? "" : "s");
	else
		snprintf(buf, len, "%u x %" PRIu64 " KiB per CPU (%u CPU%s)",
			 s->num_subbuf ? s->num_subbuf : LT_NUM_SUBBUF, sub >> 10, cpus,
			 cpus == 1 ? "" : "s");
}

bool lt_in_path(const char *tool)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len && len + strlen(tool) + 2 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, tool);
			if (access(buf, X_OK) == 0)
				return true;
		}
		path += len + (path[len] == ':');
	}
	return false;
}

int lt_tools_check(char *err, size_t errlen)
{
	static const char *const tools[] = { "lttng", "lttng-sessiond" };

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!lt_in_path(tools[i])) {
			snprintf(err, errlen, "LTTng is not installed: '%s' not found in PATH "
				 "(apt-get install lttng-tools)", tools[i]);
			return -ENOENT;
		}
	return lt__backend_check(err, errlen);
}

int lt_output_prepare(const char *dir, char *abs, size_t abslen, char *err, size_t errlen)
{
	struct stat st;
	char *real;
	int rc;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(-rc));
		return rc;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a directory", dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK)) {
		rc = -errno;
		snprintf(err, errlen, "cannot write to '%s': %s", dir, strerror(-rc));
		return rc;
	}
	if (rmdir(dir) == 0) {
		/* It was empty: LTTng creates it again. */
	} else if (errno == ENOTEMPTY || errno == EEXIST) {
		snprintf(err, errlen, "'%s' already exists and is not empty", dir);
		return -EEXIST;
	}
	real = realpath(".", NULL);
	if (!real) {
		rc = -errno;
		snprintf(err, errlen, "cannot resolve the current directory: %s", strerror(-rc));
		return rc;
	}
	if (dir[0] == '/')
		snprintf(abs, abslen, "%s", dir);
	else
		snprintf(abs, abslen, "%s/%s", real, dir);
	free(real);
	return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void remove_home(struct lt_session *s)
{
	if (!s->home[0])
		return;
	ctl_signals_disown_dir(s->home);
	nftw(s->home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	s->home[0] = '\0';
}

/* Inside the namespace of a recording of ours that runs us (record -- proxyscope run ...):
 * its filter keeps this namespace's processes, so we must stay in it to be recorded. */
static bool in_enclosing_recording(void)
{
	const char *outer = getenv(LT_RECORDING_NS_ENV);
	struct stat st;

	return outer && !stat("/proc/self/ns/mnt", &st) &&
	       strtoull(outer, NULL, 10) == (unsigned long long)st.st_ino;
}

int lt_isolate(struct lt_session *s)
{
	char ino[32];
	struct stat st;

	if (s->mnt_ns)
		return 0;
	if (in_enclosing_recording())
		return -EEXIST;
	if (unshare(CLONE_NEWNS))
		return -errno;
	/* A slave: the machine's mounts (and /run/lttng's system daemon) still show here; the
	 * tmpfs we may mount never shows outside. Failing that, a mount here could propagate
	 * to the machine: s->mnt_ns stays 0, so lt_sessiond_ensure never mounts. */
	if (mount("none", "/", NULL, MS_REC | MS_SLAVE, NULL) || stat("/proc/self/ns/mnt", &st))
		return -errno;
	s->mnt_ns = (uint64_t)st.st_ino;
	snprintf(ino, sizeof(ino), "%" PRIu64, s->mnt_ns);
	setenv(LT_RECORDING_NS_ENV, ino, 1); /* for what we start: in_enclosing_recording */
	return 0;
}

/* No daemon answers in our own namespace: a tmpfs of ours over /run/lttng, for a daemon that
 * only this namespace sees (the directory made as the daemon itself makes it when missing). */
static int run_lttng_private(struct lt_session *s, char *err, size_t errlen)
{
	int rc;

	if (mkdir("/run/lttng", 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "cannot create /run/lttng: %s", strerror(errno));
		return rc;
	}
	if (mount("proxyscope-lttng", "/run/lttng", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")) {
		rc = -errno;
		snprintf(err, errlen, "cannot mount a private /run/lttng: %s", strerror(errno));
		return rc;
	}
	s->run_mounted = true;
	return 0;
}

/* How long a session daemon we started may take to answer: seconds on a loaded machine. */
#define SESSIOND_READY_MS 30000u

static bool sessiond_answers(void *arg)
{
	(void)arg;
	return lt__sessiond_alive();
}

/*
 * Start lttng-sessiond as our child in our session (a process group of its own, so the
 * terminal's Ctrl-C does not reach it), not daemonized: --daemonize calls setsid(), and a
 * session is a scheduling autogroup. In a group of its own, beside a traced job that spins
 * between polls (sched_yield), its consumer daemon's live timer thread waited 5-22 s at a time
 * for a CPU on an idle 2-CPU machine (/proc/TID/schedstat): no flush, no beacon, and a live
 * watch saw nothing from the start of a stall until the run ended, in 1 run of 5. In our
 * session it competes with the job's threads one by one: 0 of 38 runs (docs/decisions.md).
 */
static int sessiond_start(struct lt_session *s, char *err, size_t errlen)
{
	/* only user-space tracing: as root it would load kernel modules otherwise */
	char *argv[] = { "lttng-sessiond", "--no-kernel", NULL };
	struct ctl_spawn_ready w = { .ready = sessiond_answers, .timeout_ms = SESSIOND_READY_MS,
				     .own = true }; /* a third Ctrl-C stops it too */
	int rc;

	rc = ctl_spawn_ready(&(struct ctl_spawn_opts){ .argv = argv, .own_group = true,
						      .empty_mask = true,
						      .say_exec_error_short = true },
			     &w);
	s->sessiond_pid = w.pid;
	if (rc == -ECHILD)
		snprintf(err, errlen, "cannot start lttng-sessiond: %s", w.said);
	else if (rc == -EINTR)
		snprintf(err, errlen, "interrupted while lttng-sessiond started");
	else if (rc == -ETIMEDOUT)
		snprintf(err, errlen, "lttng-sessiond started but does not answer within %u s",
			 SESSIOND_READY_MS / 1000);
	else if (rc)
		snprintf(err, errlen, "cannot start lttng-sessiond: %s", strerror(-rc));
	return rc;
}

int lt_sessiond_ensure(struct lt_session *s, char *err, size_t errlen)
{
	int rc;

	if (lt__sessiond_alive())
		return 0;
	if (s->mnt_ns && geteuid() == 0 && (rc = run_lttng_private(s, err, errlen)))
		return rc;
	snprintf(s->home, sizeof(s->home), "%s/proxyscope-lttng-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(s->home)) {
		rc = -errno;
		snprintf(err, errlen, "cannot create a home for lttng-sessiond: %s", strerror(errno));
		s->home[0] = '\0';
		return rc;
	}
	setenv("LTTNG_HOME", s->home, 1);
	ctl_signals_own_dir(s->home); /* a third Ctrl-C does not leave it behind */
	rc = sessiond_start(s, err, errlen);
	if (rc) {
		lt_sessiond_release(s);
		return rc;
	}
	return 0;
}

/* How long (ms) the consumers of a killed session daemon may take to end on their own: they
 * notice their daemon is gone (1.8 s here, idle) and end between two packets. Killed mid-write,
 * a consumer cuts its stream file inside a packet: the reader reads up to the last whole one
 * (analysis/read/ctf/bt2_guard/shadow.c) and says the stream is damaged. After a second Ctrl-C
 * that is what the user asked for: CONSUMER_HURRY_MS (a watch interrupted twice on CI exited
 * 5.9 s after the second, 2 s of it here). */
#define CONSUMER_GRACE_MS 2000u
#define CONSUMER_HURRY_MS 200u

/* SIGKILL @pid, then, if they have not ended within CONSUMER_GRACE_MS (what is left of the
 * teardown's time after a Ctrl-C, CONSUMER_HURRY_MS after a second), the children of each of
 * its threads (its consumer daemons, its run-as helper), read before it dies: once reparented
 * they are no longer known as its. */
static void kill_with_children(pid_t pid)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	pid_t child[64];
	size_t n = ctl_children_of(pid, child, sizeof(child) / sizeof(child[0])), alive;
	unsigned grace;

	kill(pid, SIGKILL);
	grace = ctl_signals_hurry() ? CONSUMER_HURRY_MS : ctl_signals_budget_ms(CONSUMER_GRACE_MS);
	for (unsigned waited = 0;; waited += 10) {
		alive = 0;
		for (size_t i = 0; i < n; i++)
			alive += child[i] > 0 && kill(child[i], 0) == 0;
		if (!alive || waited >= grace)
			break;
		nanosleep(&tick, NULL);
	}
	for (size_t i = 0; alive && i < n; i++)
		kill(child[i], SIGKILL);
}

/* How long (ms) a session daemon of ours may take to end after its SIGTERM once a second
 * Ctrl-C said to hurry: one whose session's destruction was left to it was still running
 * 20 s later on a loaded runner (it waits on the consumers' flush). */
#define SESSIOND_HURRY_MS 1000u

static void sessiond_release(struct lt_session *s, bool wait)
{
	if (wait && s->sessiond_pid > 0 && kill(s->sessiond_pid, SIGTERM) == 0) {
		struct timespec tick = { 0, 10 * 1000 * 1000 };
		/* after a Ctrl-C, what is left of the teardown's time: a watch interrupted at
		 * load 12 exited 14.4 s after it (the destroy's 3 s, the drain, then 5 s here) */
		unsigned budget = ctl_signals_budget_ms(5000), ticks;

		/* Poll until it is gone, at most 5 s, then kill it and its consumers (after an
		 * interrupted destroy one still ran 42 min later); after a second Ctrl-C at most
		 * SESSIOND_HURRY_MS. */
		for (unsigned i = 0; !ctl_child_gone(s->sessiond_pid); i++) {
			ticks = (ctl_signals_hurry() && budget > SESSIOND_HURRY_MS ?
				 SESSIOND_HURRY_MS : budget) / 10;
			if (lt__call_given_up()) /* it does not answer: it will not end either */
				ticks = 0;
			if (i >= ticks) {
				kill_with_children(s->sessiond_pid);
				for (unsigned k = 0; k < 100 && !ctl_child_gone(s->sessiond_pid); k++)
					nanosleep(&tick, NULL); /* reaped: SIGKILLed, it ends at once */
				break;
			}
			nanosleep(&tick, NULL);
		}
		/* a command it never answered ends with it: wait for that thread (lt__call) */
		lt__call_settle(1000);
	}
	if (!wait && s->sessiond_pid > 0) {
		if (lt__call_given_up()) { /* it does not answer: a SIGTERM would not end it */
			kill_with_children(s->sessiond_pid);
			lt__call_settle(1000);
		} else { /* it ends with us (its session ended) */
			kill(s->sessiond_pid, SIGTERM);
		}
	}
	if (s->sessiond_pid > 0)
		ctl_signals_disown(s->sessiond_pid);
	s->sessiond_pid = 0;
	if (s->run_mounted) {
		/* Its consumer daemons may still close their files: detach, the tmpfs goes with
		 * the last of them (and with our namespace in any case). */
		umount2("/run/lttng", MNT_DETACH);
		s->run_mounted = false;
	}
	if (s->home[0]) {
		unsetenv("LTTNG_HOME");
		remove_home(s);
	}
}

void lt_sessiond_release(struct lt_session *s)
{
	sessiond_release(s, true);
}

void lt_sessiond_let_go(struct lt_session *s)
{
	sessiond_release(s, false);
}

int lt_snapshot_latest(const char *dir, char *out, size_t outlen)
{
	DIR *d = opendir(dir);
	long best = -1;
	struct dirent *e;

	if (!d)
		return -ENOENT;
	while ((e = readdir(d))) {
		const char *dash = strrchr(e->d_name, '-');
		char *end;
		long n;

		if (e->d_name[0] == '.' || !dash || !dash[1])
			continue;
		n = strtol(dash + 1, &end, 10);
		if (*end || n <= best)
			continue;
		best = n;
		snprintf(out, outlen, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	return best >= 0 ? 0 : -ENOENT;
}
