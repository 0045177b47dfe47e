/* SPDX-License-Identifier: MIT */
/*
 * Bananaphone: the host-local bootstrap bus.
 *
 * The processes of one job that run on one host ("local ranks" 0 .. local_nranks-1) find each
 * other by the job's name, share one sealed memfd (a ring of record slots per rank plus the
 * control words), and run three collectives on it: all-gather of a fixed-size record, barrier,
 * and broadcast from the leader. Waiting uses shared futexes; every member watches every other
 * one (pidfd, or /proc where pidfd_open is missing, plus the leader's unix sockets), so a member
 * that dies turns every other member's pending and later calls into an error instead of a hang.
 *
 * Typical use, in every local rank of a job:
 *
 *	struct bp_args a = { .job = "job-42", .local_rank = lr, .local_nranks = n,
 *			     .record_size = sizeof(struct my_addr) };
 *	rc = lr == 0 ? bp_create(&a, &bus) : bp_connect(&a, &bus);
 *	rc = bp_allgather(bus, &mine, all);     all: local_nranks records, in rank order
 *	...
 *	bp_hangup(bus);                         optional: announce the orderly leave first
 *	bp_cleanup(bus);                        always: unmaps and closes everything
 *
 * bp_create and bp_connect return only once every local rank has joined (or with an error in
 * every member), so the first collective already has every peer under watch. A bus with
 * local_nranks == 1 needs no peer: its collectives return at once.
 *
 * Errors (0 or a negative errno; every call on a failed bus keeps returning the same error):
 *   -EINVAL      a bad argument in this process (NULL, empty or too long job, local_nranks 0 or
 *                above BP_MAX_LOCAL, local_rank >= local_nranks, record_size 0 or above
 *                BP_MAX_RECORD, bp_create with local_rank != 0, bp_connect with local_rank 0)
 *   -ENOENT      bp_connect: no bus of that name appeared before the join deadline
 *   -EADDRINUSE  bp_create: a bus of that name already exists (a second leader)
 *   -EEXIST      bp_connect: another process already claimed this local rank
 *   -EMSGSIZE    bp_connect: the record size or local rank count differs from the bus's
 *   -EPROTO      create/connect: the other side speaks another bananaphone version, or sent
 *                a malformed message or memory header
 *   -EACCES      bp_connect: the other side runs as another user (both sides check)
 *   -EXDEV       bp_connect: the leader sees this process under another pid (other pid
 *                namespace), so pids cannot be watched
 *   -ETIMEDOUT   create/connect: not every local rank joined before the join deadline (a rank
 *                that died before connecting shows up this way); a collective: some member's
 *                op_timeout_ms expired, which fails the bus for everyone
 *   -ESRCH       a member process died - during the join, or later (bp_bus_failed_rank
 *                names it); the bus is dead
 *   -EPIPE       a member hung up (bp_hangup / bp_cleanup, or gave up after the join): the
 *                pending collective and every later one return it
 *   -ESHUTDOWN   this process already hung up the bus
 *   -EBADMSG     a record failed its sequence check after the barrier (written out of turn,
 *                or half written): the bus is failed for everyone
 *   -ENOMEM, -EMFILE, ...  the kernel refused a resource (memfd, mapping, socket)
 * A member's death is reported to every other member's pending call as soon as the bus's
 * watcher thread sees it (well under a millisecond), and within BP_DETECT_MS plus the time it
 * takes to be scheduled where that thread could not be started (the tests hold every survivor
 * to 100 ms); nothing is left behind on any error path (no fd, no mapping, no name).
 *
 * Threads: calls on one bus must not run concurrently (one bus per thread, like an MPI
 * communicator); different buses are independent. Each bus of more than one rank runs one
 * watcher thread ("bp-watch", every signal blocked) from the end of create/connect until
 * bp_hangup / bp_cleanup; a child forked meanwhile has no watcher and may only bp_cleanup it.
 */
#ifndef PROXYSCOPE_BANANAPHONE_H
#define PROXYSCOPE_BANANAPHONE_H

#include <stdint.h>

#include <proxyscope/export.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BP_VERSION 2          /* the shared-memory and wire format; both sides must agree */
#define BP_JOB_MAX 64         /* bytes of a job name, with its NUL */
#define BP_MAX_LOCAL 64       /* local ranks per bus */
#define BP_MAX_RECORD 65536   /* bytes of one all-gather record */
#define BP_DETECT_MS 10       /* without the watcher, a blocked call looks this often */
#define BP_JOIN_TIMEOUT_MS 30000 /* default join deadline */

struct bp_bus;

struct bp_args {
	const char *job;         /* names the bus: every local rank of the job passes the same */
	uint32_t local_rank;     /* 0 = the leader (bp_create), others bp_connect */
	uint32_t local_nranks;
	uint32_t record_size;    /* bytes of one rank's all-gather / broadcast record */
	uint32_t join_timeout_ms; /* create/connect deadline; 0 = BP_JOIN_TIMEOUT_MS */
	uint32_t op_timeout_ms;  /* collective deadline; 0 = wait as long as every member lives */
};

/*
 * The local leader (local_rank 0): create the sealed memfd, name the bus (an abstract unix
 * socket derived from @args->job), admit each other local rank after checking its credentials
 * and geometry, hand it the memfd (SCM_RIGHTS), and return once all have joined.
 */
ENC_API int bp_create(const struct bp_args *args, struct bp_bus **out);

/*
 * A local peer: connect to the bus named by @args->job (retrying until the join deadline while
 * the leader is not there yet), receive and map the memfd, and return once all have joined.
 */
ENC_API int bp_connect(const struct bp_args *args, struct bp_bus **out);

/* Wait until every local rank has called bp_barrier the same number of times. */
ENC_API int bp_barrier(struct bp_bus *bus);

/*
 * Every rank contributes @mine (record_size bytes); on return @all holds local_nranks records
 * in local-rank order (byte-exact). @all may not overlap @mine.
 */
ENC_API int bp_allgather(struct bp_bus *bus, const void *mine, void *all);

/* The leader's @buf (record_size bytes) is copied into every other rank's @buf. */
ENC_API int bp_broadcast(struct bp_bus *bus, void *buf);

/*
 * Leave the bus in order: members blocked in (or later entering) a collective get -EPIPE.
 * Call it once every collective this process takes part in has returned. Returns 0, or
 * -ESHUTDOWN when the bus was hung up already.
 */
ENC_API int bp_hangup(struct bp_bus *bus);

/* Hang up if not done yet, then unmap and close everything and free @bus (NULL is a no-op). */
ENC_API void bp_cleanup(struct bp_bus *bus);

/*
 * Look for dead members now, without waiting (one poll(2) with a zero timeout): returns 0 while
 * every member lives, else the bus's error (-ESRCH: bp_bus_failed_rank names who died). For a
 * caller that polls other work and wants to notice a lost peer; it is a call on the bus, so it
 * must not run concurrently with another call on the same bus.
 */
ENC_API int bp_check(struct bp_bus *bus);
/* The pid of local rank @local_rank, as the leader saw it at the join; -1 when out of range. */
ENC_API int bp_bus_member_pid(const struct bp_bus *bus, uint32_t local_rank);
ENC_API uint32_t bp_bus_local_rank(const struct bp_bus *bus);
ENC_API uint32_t bp_bus_local_nranks(const struct bp_bus *bus);
ENC_API uint32_t bp_bus_record_size(const struct bp_bus *bus);

/* The local rank that failed the bus (died, hung up, timed out), or -1 while it is healthy. */
ENC_API int bp_bus_failed_rank(const struct bp_bus *bus);

/* "ESRCH: a member died" style text for the errors above (a static string). */
ENC_API const char *bp_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_BANANAPHONE_H */
