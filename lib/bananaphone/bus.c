/* SPDX-License-Identifier: MIT */
/*
 * The bus object: bp_create (the local leader), bp_connect (every other local rank),
 * bp_hangup, bp_cleanup, bp_check (the failure itself is fail.c's).
 *
 * Main design choice: create and connect are collective. Each returns only after every local
 * rank has joined, mapped the memfd, put every other member under watch and passed the join
 * barrier (collective number 0), so from the first real collective on, any member's death is
 * seen by every other member. A failure anywhere after the memfd was handed out fails the bus
 * for everyone (the abort bit in the futex word) instead of leaving someone waiting.
 *
 * Teardown is two steps, as in the seed's enc_free_global_comm: bp_hangup announces an orderly
 * leave (the member's state becomes LEFT, so watchers that see it exit do not call it dead, and
 * whoever still waits gets -EPIPE), bp_cleanup releases what this process holds. The memfd
 * has no name: it disappears with the last mapping.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bananaphone/bp_internal.h"
#include "common/log.h"
#include "common/trace.h"

struct bp_test_knobs bp__test;

static int check_args(const struct bp_args *a, struct bp_bus **out)
{
	if (!a || !out || !a->job || !a->job[0] || strnlen(a->job, BP_JOB_MAX) >= BP_JOB_MAX)
		return -EINVAL;
	if (a->local_nranks == 0 || a->local_nranks > BP_MAX_LOCAL ||
	    a->local_rank >= a->local_nranks)
		return -EINVAL;
	if (a->record_size == 0 || a->record_size > BP_MAX_RECORD)
		return -EINVAL;
	return 0;
}

static int bus_alloc(const struct bp_args *a, struct bp_bus **out)
{
	struct bp_bus *bus = calloc(1, sizeof(*bus));
	int rc;

	if (!bus)
		return -ENOMEM;
	bus->local_rank = a->local_rank;
	bus->local_nranks = a->local_nranks;
	bus->record_size = a->record_size;
	snprintf(bus->job, sizeof(bus->job), "%s", a->job);
	bus->cookie = bp__job_cookie(bus->job);
	bus->spin_ns = 0; /* decided after the join (job_cpus) */
	bus->op_timeout_ns = (uint64_t)a->op_timeout_ms * 1000000u;
	rc = bp__peers_init(&bus->peers, a->local_nranks - 1);
	if (rc) {
		free(bus);
		return rc;
	}
	*out = bus;
	return 0;
}

static void bus_free(struct bp_bus *bus)
{
	bp__watcher_stop(bus); /* before the fds it polls are closed */
	bp__peers_fini(&bus->peers);
	bp__shm_unmap(bus);
	free(bus);
}

static uint64_t join_deadline(const struct bp_args *a, uint64_t start)
{
	uint32_t ms = a->join_timeout_ms ? a->join_timeout_ms : BP_JOIN_TIMEOUT_MS;

	return start + (uint64_t)ms * 1000000u;
}

/* Publish the CPUs this process may run on, for job_cpus() in every member. */
static void publish_cpus(struct bp_bus *bus)
{
	struct bp_shm_member *m = &bus->members[bus->local_rank];
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		CPU_ZERO(&set);
		for (long c = 0; c < online && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, &set);
	}
	for (unsigned c = 0; c < BP_CPU_WORDS * 64 && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			m->cpus[c / 64] |= 1ull << (c % 64);
}

/* The CPUs the job's members may run on together (after the join barrier). */
static unsigned job_cpus(const struct bp_bus *bus)
{
	unsigned n = 0;

	for (unsigned w = 0; w < BP_CPU_WORDS; w++) {
		uint64_t any = 0;

		for (uint32_t r = 0; r < bus->local_nranks; r++)
			any |= bus->members[r].cpus[w];
		n += (unsigned)__builtin_popcountll(any);
	}
	return n;
}

/*
 * The join barrier (collective 0), bounded by the join deadline rather than op_timeout_ms.
 * After it every member has published its CPUs: spin only when every rank can have a CPU of
 * its own, otherwise sleep at once. Then the watcher thread starts.
 */
static int join_barrier(struct bp_bus *bus, uint64_t deadline_ns)
{
	uint64_t op_timeout = bus->op_timeout_ns, now = bp__now_ns();
	int rc;

	publish_cpus(bus);
	bus->op_timeout_ns = deadline_ns > now ? deadline_ns - now : 1;
	rc = bp__sync(bus, 0);
	bus->op_timeout_ns = op_timeout;
	bus->seq = 1;
	if (rc)
		return rc;
	bus->spin_ns = bus->local_nranks <= job_cpus(bus) ? BP_SPIN_NS : 0;
	/* Without the watcher the waits stay bounded: slower, but just as safe. */
	if (bp__watcher_start(bus))
		enc_info("bananaphone %s: no watcher thread, waits look at the members themselves",
			 bus->job);
	return 0;
}

/* Leave a bus we mapped but cannot use: the others get -EPIPE, not a hang. */
static void leave(struct bp_bus *bus)
{
	if (bus->hung_up)
		return;
	bus->hung_up = true;
	bp__watcher_stop(bus); /* no more collectives: nothing to watch for */
	/* Ensure LEFT is visible before the failure it explains (seq_cst store, then the CAS in
	 * bp__bus_fail): a watcher that sees us exit reads LEFT and reports a hang-up. */
	__atomic_store_n(&bus->members[bus->local_rank].state, BP_MEMBER_LEFT,
			      __ATOMIC_SEQ_CST);
	bp__bus_fail(bus, BP_FAIL_HANGUP, bus->local_rank);
}

int bp_create(const struct bp_args *args, struct bp_bus **out)
{
	uint64_t start = bp__now_ns();
	struct bp_bus *bus = NULL;
	int memfd = -1, lfd = -1, rc;

	rc = check_args(args, out);
	if (!rc && args->local_rank != 0)
		rc = -EINVAL; /* the leader is local rank 0 */
	if (rc)
		goto out;
	rc = bus_alloc(args, &bus);
	if (rc)
		goto out;
	rc = bp__shm_create(bus, &memfd);
	if (rc)
		goto out_free_bus;
	rc = bp__join_listen(bus->job, &lfd);
	if (rc)
		goto out_close_memfd;
	rc = bp__join_admit(bus, lfd, memfd, join_deadline(args, start));
	/* The name is released now: the bus is complete (or failed). */
	close(lfd);
	close(memfd); /* the mapping keeps the memory; the peers have their own fds */
	memfd = -1;
	if (!rc)
		rc = join_barrier(bus, join_deadline(args, start));
	if (rc)
		goto out_leave;
	*out = bus;
	goto out;

out_leave:
	leave(bus); /* peers may hold the memfd already */
out_close_memfd:
	if (memfd >= 0)
		close(memfd);
out_free_bus:
	bus_free(bus);
out:
	enc_tp(bananaphone, create, args && args->job ? args->job : "",
	       args && args->job ? bp__job_cookie(args->job) : 0, args ? args->local_nranks : 0,
	       args ? args->record_size : 0, rc, bp__now_ns() - start);
	return rc;
}

/* Peer: watch the leader (through its socket too) and every other member. */
static int watch_members(struct bp_bus *bus, int sock, pid_t leader_pid)
{
	int rc, pidfd = bp__sock_peer_pidfd(sock);

	rc = bp__peers_add(&bus->peers, 0, leader_pid, bus->members[0].starttime,
			   pidfd < 0 ? -1 : pidfd, sock);
	if (rc == -ESRCH)
		bp__bus_member_gone(bus, 0); /* the join barrier reports it */
	else if (rc)
		return rc;
	for (uint32_t r = 1; r < bus->local_nranks; r++) {
		if (r == bus->local_rank)
			continue;
		rc = bp__peers_add(&bus->peers, r, bus->members[r].pid, bus->members[r].starttime,
				   -1, -1);
		if (rc == -ESRCH)
			bp__bus_member_gone(bus, r);
		else if (rc)
			return rc;
	}
	return 0;
}

int bp_connect(const struct bp_args *args, struct bp_bus **out)
{
	uint64_t start = bp__now_ns();
	struct bp_bus *bus = NULL;
	int memfd = -1, sock = -1, rc;
	pid_t leader_pid;

	rc = check_args(args, out);
	if (!rc && args->local_rank == 0)
		rc = -EINVAL; /* rank 0 creates the bus */
	if (rc)
		goto out;
	rc = bus_alloc(args, &bus);
	if (rc)
		goto out;
	rc = bp__join_request(bus, join_deadline(args, start), &memfd, &sock, &leader_pid);
	if (rc)
		goto out_free_bus;
	rc = bp__shm_attach(bus, memfd);
	close(memfd);
	if (rc)
		goto out_close_sock;
	/* Pids are compared across processes: only sound inside one pid namespace. */
	if (bus->members[bus->local_rank].pid != getpid() ||
	    bus->shm->hdr.leader_pid != leader_pid) {
		rc = -EXDEV;
		goto out_close_sock;
	}
	rc = watch_members(bus, sock, leader_pid); /* the socket belongs to the watch list now */
	sock = -1;
	if (!rc)
		rc = join_barrier(bus, join_deadline(args, start));
	if (rc)
		goto out_leave;
	*out = bus;
	goto out;

out_close_sock:
	if (sock >= 0)
		close(sock);
out_leave:
	if (bus->shm)
		leave(bus);
out_free_bus:
	bus_free(bus);
out:
	enc_tp(bananaphone, connect, args && args->job ? args->job : "",
	       args && args->job ? bp__job_cookie(args->job) : 0, args ? args->local_rank : 0,
	       args ? args->local_nranks : 0, args ? args->record_size : 0, rc,
	       bp__now_ns() - start);
	return rc;
}

int bp_hangup(struct bp_bus *bus)
{
	if (!bus)
		return -EINVAL;
	if (bus->hung_up)
		return -ESHUTDOWN;
	leave(bus);
	enc_tp(bananaphone, hangup, bus->cookie, bus->local_rank, bus->seq);
	return 0;
}

void bp_cleanup(struct bp_bus *bus)
{
	if (!bus)
		return;
	bp_hangup(bus);
	enc_tp(bananaphone, cleanup, bus->cookie, bus->local_rank);
	bus_free(bus);
}

int bp_check(struct bp_bus *bus)
{
	uint32_t f;
	int gone;

	if (!bus)
		return -EINVAL;
	if (bus->hung_up)
		return -ESHUTDOWN;
	/* Acquire: pairs with the CAS in bp__bus_fail. */
	f = __atomic_load_n(&bus->shm->ctrl.failure, __ATOMIC_ACQUIRE);
	if (!f) {
		gone = bp__peers_check(&bus->peers);
		if (gone >= 0)
			bp__bus_member_gone(bus, (uint32_t)gone);
		f = __atomic_load_n(&bus->shm->ctrl.failure, __ATOMIC_ACQUIRE);
	}
	return f ? bp__bus_error(bus) : 0;
}

int bp_bus_member_pid(const struct bp_bus *bus, uint32_t local_rank)
{
	if (!bus || local_rank >= bus->local_nranks)
		return -1;
	return (int)bus->members[local_rank].pid;
}

uint32_t bp_bus_local_rank(const struct bp_bus *bus)
{
	return bus->local_rank;
}

uint32_t bp_bus_local_nranks(const struct bp_bus *bus)
{
	return bus->local_nranks;
}

uint32_t bp_bus_record_size(const struct bp_bus *bus)
{
	return bus->record_size;
}

int bp_bus_failed_rank(const struct bp_bus *bus)
{
	/* Acquire: pairs with the CAS in bp__bus_fail. */
	uint32_t f = __atomic_load_n(&bus->shm->ctrl.failure, __ATOMIC_ACQUIRE);

	return f ? (int)(f & 0xffffu) - 1 : -1;
}

