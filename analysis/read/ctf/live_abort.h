/* SPDX-License-Identifier: MIT */
/*
 * A live session's reader survives an abort inside babeltrace2 (live_abort.c).
 *
 * babeltrace2 2.0.4's source.ctf.lttng-live aborts the process on a race of its own: a stream
 * the relay daemon reports inactive (a beacon) while the first metadata it decoded declared no
 * stream class yet (emit_inactivity_message: `stream_iter->trace->clock_class` asserted, the
 * trace's clock taken once, from the stream classes of the first decode). Seen once on a busy
 * machine, at a run's start: `run --watch` ended with SIGABRT, its job's result and report lost
 * and its session daemon left running. Each reader thread runs its graph armed: an abort on
 * that thread jumps back to it instead, the graph is abandoned (never touched again: its state
 * is whatever the assertion left), the viewer connection it held is closed (the relay daemon
 * lets one viewer attach a session at a time), and the session is attached anew.
 */
#ifndef PSA_READ_CTF_LIVE_ABORT_H
#define PSA_READ_CTF_LIVE_ABORT_H

#include <setjmp.h>
#include <stdbool.h>

/* Install the SIGABRT handler (once). An abort on a thread that is not armed ends the process
 * as it would have. Returns 0 or -errno. */
int psa__live_abort_init(void);

/* Arm the calling thread: an abort on it comes back to @jb (sigsetjmp'ed, signal mask saved). */
void psa__live_abort_arm(sigjmp_buf *jb);
void psa__live_abort_disarm(void);

/*
 * The viewer connections of one relay daemon are told apart by when they were made: a reader
 * thread holds the connect lock from building its graph until its first run made the
 * connection, then claims the one socket to that relay daemon nobody claimed. The sessions
 * list (live_list.c) holds it while its query runs. Waits at most @wait_ms; false: not held
 * (the claim is then skipped, and an abort can no longer be recovered).
 */
bool psa__live_connect_lock(unsigned wait_ms);
void psa__live_connect_unlock(void);

/* Under the connect lock: the socket connected to @url's relay daemon that nobody claimed, now
 * claimed (-1: none). */
int psa__live_claim(const char *url);
/* Close a claimed socket and forget it (its graph was abandoned). */
void psa__live_release(int fd);
/* Forget a claimed socket its graph closed (destroyed normally): the number may be reused. */
void psa__live_forget(int fd);

#endif /* PSA_READ_CTF_LIVE_ABORT_H */
