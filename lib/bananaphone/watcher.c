/* SPDX-License-Identifier: MIT */
/*
 * The watcher: one thread per bus, asleep in poll(2) on every other member's pidfd and join
 * socket (liveness.c) plus a stop eventfd; when a member goes, it fails the bus for everyone
 * (the abort bit in the futex word wakes every waiter, collectives.c) and leaves.
 *
 * Main design choice: death detection on a thread of its own, so that a rank waiting in a
 * collective can sleep in an untimed FUTEX_WAIT. A bounded wait arms and cancels a kernel
 * timer on every sleep, a real share of an oversubscribed barrier whose cost is otherwise one
 * context switch per rank (why: see docs/ARCHITECTURE.md, Decisions measured: bus waiters
 * sleep untimed, deaths are seen by a watcher thread), and a member's death reaches every
 * waiter as soon as the poll returns instead of within BP_DETECT_MS. The thread blocks every
 * signal, touches only shared memory and the atomic failure_seen, and is stopped and joined at
 * hang-up, before the fds it polls are closed. Where it cannot be started, or while a
 * deadline runs, waits stay bounded and the waiter looks at the members itself (futex.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "bananaphone/bp_internal.h"

static void *watch(void *arg)
{
	struct bp_bus *bus = arg;
	struct bp_watcher *w = &bus->watcher;
	struct pollfd *stop = &w->pfd[bus->peers.npfd];
	/* The /proc fallback has nothing to poll: look at it every BP_DETECT_MS. */
	int timeout = bp__peers_by_proc(&bus->peers) ? BP_DETECT_MS : -1, gone;

	for (;;) {
		gone = bp__peers_wait(&bus->peers, w->pfd, timeout);
		if (stop->revents)
			break;
		if (gone < -1) { /* poll failed (-ENOMEM passes): look again a little later */
			struct timespec ts = { 0, BP_DETECT_MS * 1000000L };

			nanosleep(&ts, NULL);
			continue;
		}
		if (gone < 0)
			continue;
		/* Acquire: a bus that failed already (a hang-up, a deadline) needs no report. */
		if (!(__atomic_load_n(&bus->shm->ctrl.gen, __ATOMIC_ACQUIRE) &
		      BP_GEN_ABORT))
			bp__bus_member_gone(bus, (uint32_t)gone);
		break;
	}
	return NULL;
}

int bp__watcher_start(struct bp_bus *bus)
{
	struct bp_watcher *w = &bus->watcher;
	sigset_t all, old;
	int rc;

	if (!bus->peers.n)
		return 0; /* nobody to watch */
	w->pfd = calloc((size_t)bus->peers.npfd + 1, sizeof(*w->pfd));
	if (!w->pfd)
		return -ENOMEM;
	for (uint32_t i = 0; i < bus->peers.npfd; i++)
		w->pfd[i] = (struct pollfd){ .fd = bus->peers.pfd[i].fd, .events = POLLIN };
	w->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (w->stop_fd < 0) {
		rc = -errno;
		goto out_free;
	}
	w->pfd[bus->peers.npfd] = (struct pollfd){ .fd = w->stop_fd, .events = POLLIN };
	/* The thread inherits a full signal mask: the application's signals never land on it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&w->thread, NULL, watch, bus);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		goto out_close;
	pthread_setname_np(w->thread, "bp-watch");
	w->owner = getpid();
	w->running = true;
	return 0;

out_close:
	close(w->stop_fd);
	w->stop_fd = -1;
out_free:
	free(w->pfd);
	w->pfd = NULL;
	return rc;
}

bool bp__watcher_running(const struct bp_bus *bus)
{
	return bus->watcher.running;
}

void bp__watcher_stop(struct bp_bus *bus)
{
	struct bp_watcher *w = &bus->watcher;
	uint64_t one = 1;

	if (!w->running)
		return;
	w->running = false;
	/* A forked child has the fds but not the thread: only its creator joins it. */
	if (w->owner == getpid()) {
		while (write(w->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_join(w->thread, NULL);
	}
	close(w->stop_fd);
	free(w->pfd);
	w->pfd = NULL;
}
