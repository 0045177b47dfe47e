/* SPDX-License-Identifier: MIT */
/*
 * The one signal policy of proxyscope's orchestration. Every command that starts something
 * takes SIGINT and SIGTERM (and SIGHUP where a terminal may go) the same way:
 *
 *   first Ctrl-C or SIGTERM   acknowledged at once on a line of its own (ctl_signals_say_to),
 *                             then stop cleanly: what runs is asked to end (a command we started
 *                             gets the same Ctrl-C through its process group, a SIGTERM is
 *                             passed on), sessions are ended, the trace so far is kept, hosts
 *                             are torn down; the exit status is 128+N.
 *   second                    hurry (ctl_signals_hurry): the waits that are only slow (the
 *                             consumer's flush, a destruction, a launcher's own teardown, the
 *                             timelines) end now; the trace stays readable.
 *   third                     end at once: the daemons we started are killed, the line
 *                             says what was being done (ctl_signals_phase) and so what is
 *                             incomplete, and the process exits 128+N.
 *
 * Two shapes, the same policy:
 *   - a caught signal (ctl_signals_catch): a handler that only notes the signal; the caller's
 *     loop polls ctl_signals_caught() and stops (record, watch, hosts, run --hosts);
 *   - a signal thread (ctl_sigwait_*): while a workload runs in this process, SIGINT and
 *     SIGTERM are blocked in every thread (the workload's threads inherit the mask) and taken
 *     by one thread with sigwait(), which ends the recording and exits (run).
 * A disposition of SIG_IGN inherited from a shell (a background job of a script ignores
 * SIGINT) is replaced by ours for that time, or the signal `kill -INT` sends would be lost.
 *
 * Processes we start: a daemon gets an empty signal mask (it must take the SIGTERM that stops
 * it, although `run` blocks it in its threads); the helpers of the simulated hosts ignore the
 * terminal's signals (the CLI tears them down; a signal must not race it).
 */
#ifndef PROXYSCOPE_CTL_SIGNALS_H
#define PROXYSCOPE_CTL_SIGNALS_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

/* At the start of main: SIGINT, SIGTERM and SIGSEGV back to their default where a library's
 * constructor set a handler (libinfinipath, pulled in by libfabric, exits 1 on SIGINT and
 * crashes on a second one), so a Ctrl-C before a command takes its signals ends it as a signal
 * does (status 130 in a shell). An inherited SIG_IGN stays. */
void ctl_signals_take_back(void);

/* --- processes we start (between fork and exec) -------------------------------------------- */

/* No signal blocked. */
void ctl_signals_child_reset(void);

/* Around fork(): every signal blocked in the calling thread, the mask before in *@old; then
 * @old back. A signal that comes while the child is between fork() and its own dispositions
 * waits, pending, instead of running our handler there (which took the terminal's Ctrl-C
 * meant for a user's command: the command ran on and `record` waited for it for ever). */
void ctl_signals_block_all(sigset_t *old);
void ctl_signals_set_mask(const sigset_t *mask);

/* Nothing of ours said or done by a signal in the child (every child, first): no
 * acknowledgement, no count, no daemon of ours stopped by its third Ctrl-C. */
void ctl_signals_child_forget(void);

/* In a process of ours (a --procs child started by exec): @sig when the parent dies. */
void ctl_signals_die_with_parent(int sig);

/* A pending SIGINT or SIGQUIT dropped, the dispositions kept (a child that left our group). */
void ctl_signals_drop_terminal(void);

/* A helper of the simulated hosts: SIGINT and SIGQUIT ignored (the CLI tears down on Ctrl-C). */
void ctl_signals_host_helper(void);
/* The sweeper, which must outlive whatever ends us: every terminal signal and SIGPIPE ignored. */
void ctl_signals_sweeper(void);
/* Back to the default dispositions of SIGINT and SIGQUIT (a host's command, after the helper). */
void ctl_signals_host_command(void);

/* --- the count of signals: what the second and third do ------------------------------------ */

/* Where the acknowledgements are written (the CLI: stderr), as a terminal line when @tty (a
 * progress line may be half drawn there). -1, the default: nothing is said. */
void ctl_signals_say_to(int fd, bool tty);
/* The first acknowledgement, a static line without its newline (NULL: the default, "stopping
 * the job and keeping the trace"): a command that records nothing says so. */
void ctl_signals_ack(const char *line);
/* How many SIGINT/SIGTERM were taken so far (0: none). */
int ctl_signals_count(void);
/* When the first of them came, in ns since the epoch (CLOCK_REALTIME, as a trace's cut marker
 * says it); 0 when none came. */
uint64_t ctl_signals_first_ns(void);
/*
 * How long a teardown step may wait for what it would wait @normal_ms for: @normal_ms until a
 * signal came; then what is left of CTL_TEARDOWN_MS after the first one, at least
 * CTL_TEARDOWN_STEP_MIN_MS. The first Ctrl-C promises an exit within a few seconds; each step's
 * own bound (a daemon's 5 s, the destroy's 3 s) added up past it on a busy machine.
 */
#define CTL_TEARDOWN_MS 4000u
#define CTL_TEARDOWN_STEP_MIN_MS 200u
unsigned ctl_signals_budget_ms(unsigned normal_ms);
/* Whether the slow parts of a teardown are to be skipped (a second signal). */
bool ctl_signals_hurry(void);
/* What the teardown is doing, said if a third signal ends it: a static sentence of what is
 * then incomplete ("the session was not ended: its last events may be missing"); NULL: none. */
void ctl_signals_phase(const char *incomplete);
/* A daemon we started (not our child) that a third signal must not leave behind; -ENOSPC when
 * CTL_SIGNALS_OWNED_MAX are held already. */
#define CTL_SIGNALS_OWNED_MAX 16
int ctl_signals_own(pid_t pid);
void ctl_signals_disown(pid_t pid);
/* An empty directory of ours (a private daemon's home under TMPDIR) that a third signal removes
 * (rmdir: only if still empty); @path must stay valid until disowned. One at a time. */
void ctl_signals_own_dir(const char *path);
void ctl_signals_disown_dir(const char *path);

/* --- a caught signal ------------------------------------------------------------------------- */

struct ctl_sigcatch {
	struct sigaction old_int, old_term, old_hup;
	bool hup;
};

/* Note SIGINT and SIGTERM (and SIGHUP with @hup) from now on; the old dispositions in @c. */
void ctl_signals_catch(struct ctl_sigcatch *c, bool hup);
/* The dispositions as they were before ctl_signals_catch. */
void ctl_signals_restore(const struct ctl_sigcatch *c);
/* The last signal caught, 0 when none. */
int ctl_signals_caught(void);

/* --- a file removed on a signal ------------------------------------------------------------ */

/* While a file is made beside its target (ctl/output.c): SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * remove the file set by ctl_signals_unlink_set, then take their default action (the exit
 * status 128+N), so a Ctrl-C leaves nothing behind. */
struct ctl_sigunlink {
	struct sigaction old[4];
};

/* From now on (nothing is removed until a path is set); the old dispositions in @u. */
void ctl_signals_unlink_catch(struct ctl_sigunlink *u);
/* The file a signal removes (copied; at most PATH_MAX bytes), NULL for none. */
void ctl_signals_unlink_set(const char *path);
/* No file; the dispositions as they were before ctl_signals_unlink_catch. */
void ctl_signals_unlink_restore(const struct ctl_sigunlink *u);

/* --- a signal thread ------------------------------------------------------------------------- */

struct ctl_sigwait {
	/* set by the caller */
	void (*on_signal)(void *arg, int sig); /* in the signal thread; _exit(128+sig) follows */
	void *arg;
	/* private */
	pthread_t thread;
	bool started;
	atomic_bool stopping;                  /* ctl_sigwait_stop's; release, acquire in the thread */
	int first;                             /* the signal whose teardown runs (0: none yet) */
	sigset_t old_mask;
	struct sigaction old_int, old_term;
};

/* Block SIGINT and SIGTERM here (and in every thread started from now on) and start the
 * thread that takes them. Returns 0 or -errno (nothing changed). */
int ctl_sigwait_start(struct ctl_sigwait *w);
/* Join the thread; the dispositions and the mask as they were (a pending Ctrl-C lands now, as
 * it would have without us). A no-op when not started. */
void ctl_sigwait_stop(struct ctl_sigwait *w);

#endif /* PROXYSCOPE_CTL_SIGNALS_H */
