/* SPDX-License-Identifier: MIT */
/*
 * Bananaphone internals: the layout of the shared memfd, the per-process bus, and the functions
 * the modules share (bus.c lifecycle, join.c rendezvous, shm.c memfd, ring.c record slots,
 * futex.c waiting, liveness.c peer watching, watcher.c its thread, collectives.c, fail.c the
 * failure every file reports, names.c the enums' names).
 *
 * The memfd, mapped at a different address in every member (so it holds no pointers):
 *
 *	offset 0            struct bp_shm: header (I) + control words (A), one 128-byte line each
 *	members_off         struct bp_shm_member[local_nranks], one line each
 *	slots_off           rank r's ring: BP_RING_SLOTS slots of slot_stride bytes each
 *
 * Field legend, for every struct below:
 *   I: written by the leader before any peer receives the memfd, immutable afterwards
 *   M: written by the member itself before it arrives at the join barrier, read by the others
 *      after it (the barrier orders them), immutable afterwards
 *   A: atomic in shared memory; each access names its ordering and its pair
 *   O: process-local, touched only by the thread calling into the bus (calls on one bus
 *      never run concurrently)
 *   W: written once by create/connect before they return, read-only afterwards
 *
 * Ordering, once, outermost first: a rank's record writes -> its seq commit (release) -> its
 * arrival word (seq_cst store) -> every member's seq_cst loads of the arrival words (which then
 * read the records). Sleeping is a Dekker pair on (arrival words, ctrl.sleepers): a sleeper
 * announces itself (seq_cst RMW) before it looks at the arrivals again, the rank that sees the
 * last arrival looks at sleepers (seq_cst) after it, so one of them sees the other. A failure
 * is published as `failure` (CAS) then the abort bit in `gen` (RMW), so whoever sees the bit
 * sees the reason.
 */
#ifndef BP_INTERNAL_H
#define BP_INTERNAL_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <proxyscope/bananaphone.h>

#include "common/futex.h"
#include "enc/time.h"

/* Shared memory is only sound with lock-free atomics (lock-based ones use a per-process lock). */
_Static_assert(__atomic_always_lock_free(sizeof(uint32_t), 0),
	       "bananaphone needs lock-free 32-bit atomics");
_Static_assert(__atomic_always_lock_free(sizeof(uint64_t), 0),
	       "bananaphone needs lock-free 64-bit atomics");

#define BP_MAGIC 0x454e4f4850414e42ull /* "BNAPHONE" little-endian */
#define BP_LINE 128u                     /* one hot word per line (adjacent-line prefetch) */
#define BP_RING_SLOTS 2u                 /* see ring.c: two slots make reuse safe */
#define BP_GEN_ABORT 1u                  /* folded into the futex word: wakes every waiter */
#define BP_GEN_STEP 2u                   /* a wake-up bump; it wraps without touching the bit */
#define BP_SPIN_NS 20000u                /* time-bounded spin before FUTEX_WAIT */
#define BP_SPIN_RETRY 63u                /* at most this many waits skip the spin after failures */
#define BP_CPU_WORDS 14u                 /* CPUs 0..895 in a member's affinity bitmap */

/* Why a bus failed (the high half of ctrl.failure). */
enum bp_fail_reason {
	BP_FAIL_NONE = 0,
	BP_FAIL_DIED = 1,    /* -ESRCH */
	BP_FAIL_HANGUP = 2,  /* -EPIPE */
	BP_FAIL_TIMEOUT = 3, /* -ETIMEDOUT */
	BP_FAIL_CORRUPT = 4, /* -EBADMSG: a record failed its sequence check */
	BP_FAIL_REASON_NR
};

enum bp_member_state {
	BP_MEMBER_EMPTY = 0,
	BP_MEMBER_JOINED = 1,
	BP_MEMBER_LEFT = 2, /* hung up in order: its exit is not a death */
	BP_MEMBER_STATE_NR
};

struct bp_shm_hdr {
	uint64_t magic;         /* I: BP_MAGIC */
	uint32_t version;       /* I: BP_VERSION of the leader */
	uint32_t local_nranks;  /* I */
	uint32_t record_size;   /* I */
	uint32_t slot_stride;   /* I: bytes per ring slot (a multiple of BP_LINE) */
	uint64_t map_size;      /* I: the memfd's size */
	uint64_t cookie;        /* I: bp__job_cookie(job) */
	uint32_t members_off;   /* I */
	uint32_t slots_off;     /* I */
	int32_t leader_pid;     /* I: in the leader's pid namespace */
	uint32_t pad;
	char job[BP_JOB_MAX];   /* I */
};

struct bp_shm_ctrl {
	/* A: the futex word every sleeper waits on: a doorbell count (BP_GEN_STEP) | BP_GEN_ABORT.
	 * Bumped (seq_cst fetch_add) by a rank that saw the last arrival while someone sleeps, the
	 * abort bit set by bp__bus_fail (seq_cst fetch_or); loaded seq_cst by sleepers before they
	 * announce themselves, acquire elsewhere. It never moves while nobody sleeps, so spinning
	 * ranks never pull its line. */
	_Alignas(BP_LINE) uint32_t gen;
	/* A: ranks between announcing a FUTEX_WAIT on gen and returning from it. seq_cst with the
	 * arrival words (Dekker): a rank that saw the last arrival and reads 0 here is sure nobody
	 * sleeps on the old gen. */
	uint32_t sleepers;
	/* A: first failure: reason << 16 | (local rank + 1); 0 while healthy. seq_cst CAS from 0
	 * before the abort bit; read after an acquire load of gen shows the bit. */
	_Alignas(BP_LINE) uint32_t failure;
};

struct bp_shm {
	struct bp_shm_hdr hdr;
	struct bp_shm_ctrl ctrl;
};

struct bp_shm_member {
	_Alignas(BP_LINE) int32_t pid; /* I: the member's pid, as the leader sees it */
	/* A: enum bp_member_state. JOINED before the memfd is sent (I); LEFT by the member's own
	 * hangup (seq_cst store before its failure CAS), read by a watcher that saw it exit. */
	uint32_t state;
	uint64_t starttime;            /* I: /proc/<pid>/stat field 22 (0 = unknown) */
	uint64_t cpus[BP_CPU_WORDS];   /* M: the CPUs the member may run on (its affinity) */
};

/*
 * One ring slot: the record of collective n while seq == 2n+2 (seq is odd while being written),
 * and the slot's rank's arrival at collective n while arrival == n+1. Both words share the line
 * with the record's first bytes, so a peer that sees the arrival has the record's line too.
 */
struct bp_shm_slot {
	uint32_t seq;     /* A: release store by the one writer, acquire load by readers */
	uint32_t arrival; /* A: seq_cst store by the slot's rank, seq_cst loads by all */
	unsigned char data[];     /* record_size bytes; written only by the slot's rank */
};

/* One watched member: a pidfd (or /proc fallback) and, where one exists, the join socket. */
struct bp_watch {
	uint32_t rank;       /* W */
	pid_t pid;           /* W */
	uint64_t starttime;  /* W */
	int pidfd;           /* W: -1 = watched through /proc */
	int sock;            /* W: -1 = none (peer to peer); the join connection otherwise */
};

struct bp_peers {
	struct bp_watch *w;  /* W: one per other member */
	uint32_t n;          /* W */
	struct pollfd *pfd;  /* O: pidfds and sockets; the poll scratch */
	uint32_t *pfd_watch; /* W: pfd[i] belongs to w[pfd_watch[i]] */
	uint32_t npfd;       /* W */
};

/* The watcher thread (watcher.c). */
struct bp_watcher {
	bool running;       /* O: started and not yet stopped (false in a zeroed bus) */
	pthread_t thread;   /* W */
	int stop_fd;        /* W: an eventfd; written once to stop the thread */
	pid_t owner;        /* W: the process that started it (a forked child must not join) */
	struct pollfd *pfd; /* W: the thread's own poll set: the peers' fds, then stop_fd */
};

struct bp_bus {
	struct bp_shm *shm;               /* W: the mapping */
	size_t map_size;                  /* W */
	struct bp_shm_member *members;    /* W: inside the mapping */
	unsigned char *slots;             /* W: inside the mapping */
	uint32_t local_rank;              /* W */
	uint32_t local_nranks;            /* W */
	uint32_t record_size;             /* W */
	uint32_t slot_stride;             /* W */
	uint64_t cookie;                  /* W */
	uint64_t spin_ns;                 /* W: 0 = never spin (more ranks than the job's CPUs) */
	uint64_t op_timeout_ns;           /* W: 0 = none */
	char job[BP_JOB_MAX];             /* W */
	struct bp_peers peers;            /* W/O */
	struct bp_watcher watcher;        /* W: started after the join, stopped at hang-up */
	uint32_t seq;                     /* O: collectives started (ring slot and record seq) */
	uint32_t spin_skip;               /* O: waits left that go to sleep without spinning */
	uint32_t spin_fails;              /* O: spins in a row that did not end their wait */
	bool hung_up;                     /* O */
	/* A (process-local): peer_dead already reported in this process; exchanged (relaxed) by
	 * the calling thread and the watcher, so only one of them reports it. */
	bool failure_seen;
};

/* The join handshake (join.c): one message kind each way, magic and version first. */
enum bp_msg_kind {
	BP_MSG_NONE = 0,
	BP_MSG_HELLO = 1, /* peer -> leader: who I am */
	BP_MSG_REPLY = 2, /* leader -> peer: admitted (status 0, with the memfd) or refused */
	BP_MSG_BYE = 3,   /* peer -> leader: I give up (status) */
	BP_MSG_KIND_NR
};

struct bp_msg {
	uint64_t magic;
	uint32_t version;
	uint32_t kind;         /* enum bp_msg_kind */
	int32_t status;        /* REPLY, BYE: 0 or a negative errno */
	uint32_t local_rank;
	uint32_t local_nranks;
	uint32_t record_size;
	uint64_t cookie;
	uint64_t starttime;    /* HELLO: the sender's /proc start time */
};

/* ---- test-only knobs (tests link the static library); all zero in production ---------------- */
enum bp_fault_point {
	BP_FAULT_RECORD_HALF = 0, /* half of this rank's record is in its slot (seq odd) */
	BP_FAULT_PUBLISHED = 1,   /* the record is committed, the rank has not arrived yet */
	BP_FAULT_ARRIVED = 2,     /* the rank's arrival is visible; it is about to wait, or, if
				   * it came last, to wake whoever sleeps */
	BP_FAULT_REQUESTED = 3,   /* a peer sent its HELLO and waits for the leader's answer */
	BP_FAULT_POINT_NR
};

struct bp_test_knobs {
	void (*fault)(enum bp_fault_point point, uint32_t seq); /* called at each fault point */
	uint32_t version;   /* nonzero: speak this version instead of BP_VERSION */
	bool no_pidfd;      /* watch peers through /proc, as where pidfd_open is missing */
};
extern struct bp_test_knobs bp__test;

static inline void bp__fault(enum bp_fault_point point, uint32_t seq)
{
	if (__builtin_expect(bp__test.fault != NULL, 0))
		bp__test.fault(point, seq);
}

static inline uint32_t bp__version(void)
{
	return bp__test.version ? bp__test.version : BP_VERSION;
}

/* What an allgather_begin/end tracepoint is about (bp_broadcast reuses the all-gather events). */
enum bp_gather_op {
	BP_OP_ALLGATHER = 0,
	BP_OP_BROADCAST = 1,
	BP_GATHER_OP_NR
};

/* ---- names.c (a leaf) ------------------------------------------------------------------ */
/* table[i], or "?" out of range or unnamed. */
#define BP_STR(table, i) \
	((unsigned)(i) < sizeof(table) / sizeof(table[0]) && table[i] ? table[i] : "?")

const char *bp__member_state_str(enum bp_member_state state);
const char *bp__msg_kind_str(enum bp_msg_kind kind);
const char *bp__fault_point_str(enum bp_fault_point point);
const char *bp__gather_op_str(enum bp_gather_op op);
uint64_t bp__job_cookie(const char *job);

static inline uint64_t bp__now_ns(void)
{
	return enc_now_ns();
}

/* ---- fail.c (a leaf: calls only ring.c and names.c) ------------------------------------- */
const char *bp__fail_reason_str(enum bp_fail_reason reason);
/* Fail the bus for every member: record the first reason, set the abort bit, wake everyone. */
void bp__bus_fail(struct bp_bus *bus, enum bp_fail_reason reason, uint32_t rank);
/* A watcher found @rank gone: fail the bus (died, or hung up if it left in order). */
void bp__bus_member_gone(struct bp_bus *bus, uint32_t rank);
/* The bus's error after a failure became visible (abort bit or hangup); fires peer_dead once. */
int bp__bus_error(struct bp_bus *bus);

/* ---- shm.c ----------------------------------------------------------------------------- */
size_t bp__shm_size(uint32_t local_nranks, uint32_t record_size, uint32_t *slot_stride);
/* Leader: create, size, seal and map the memfd, write the header and member 0. */
int bp__shm_create(struct bp_bus *bus, int *memfd);
/* Peer: check the received memfd (size, seals), map it and check the header. */
int bp__shm_attach(struct bp_bus *bus, int memfd);
void bp__shm_unmap(struct bp_bus *bus);

/* ---- ring.c ---------------------------------------------------------------------------- */
/* Write @data as this rank's record of collective @seq and commit it. */
void bp__ring_publish(struct bp_bus *bus, uint32_t seq, const void *data);
/* Announce this rank's arrival at collective @seq (after its record, if any, is committed). */
void bp__ring_arrive(struct bp_bus *bus, uint32_t seq);
/* True once every rank arrived at collective @seq; *@from (0 at first) skips the ranks seen. */
bool bp__ring_all_arrived(struct bp_bus *bus, uint32_t seq, uint32_t *from);
/* Copy @rank's record of collective @seq into @out: 0, or -EBADMSG (torn or not committed). */
int bp__ring_read(struct bp_bus *bus, uint32_t rank, uint32_t seq, void *out);
/* True when @rank's latest slot write never finished (its writer stopped mid-record). */
bool bp__ring_is_torn(struct bp_bus *bus, uint32_t rank);

/* ---- futex.c --------------------------------------------------------------------------- */
/* FUTEX_WAIT while *@word == @expect, at most @timeout_ns (0: no bound). */
/* Shared futexes: the word lives in a MAP_SHARED memfd mapping. */
static inline int bp__futex_wait(uint32_t *word, uint32_t expect, uint64_t timeout_ns)
{
	return enc_futex_wait(word, expect, timeout_ns, true);
}

static inline void bp__futex_wake_all(uint32_t *word)
{
	enc_futex_wake_all(word, true);
}
/* Spin (bounded by time) then FUTEX_WAIT until every rank arrived at @seq (@from: the first
 * rank not seen yet); watches the members meanwhile. */
int bp__wait_all(struct bp_bus *bus, uint32_t seq, uint32_t from);
/* The last arrival at a collective was seen: ring the doorbell if anyone sleeps. */
void bp__wake_sleepers(struct bp_shm_ctrl *ctrl);

/* ---- liveness.c ------------------------------------------------------------------------ */
int bp__peers_init(struct bp_peers *p, uint32_t capacity);
/* Watch @rank (@pid): takes @pidfd (or opens one; -1 = open it) and @sock (-1 = none). On an
 * error both fds are closed. -ESRCH: the process is already gone (or its pid was reused). */
int bp__peers_add(struct bp_peers *p, uint32_t rank, pid_t pid, uint64_t starttime, int pidfd,
		  int sock);
/* The local rank of a member that is gone (exited, or its socket closed), or -1. */
int bp__peers_check(struct bp_peers *p);
/* Wait up to @timeout_ms (-1: forever) for a member to go, polling @pfd: a copy of p->pfd
 * plus one entry of the caller's at the end (its revents tell whether it fired). Returns the
 * rank gone, -1, or another negative errno when poll failed. */
int bp__peers_wait(struct bp_peers *p, struct pollfd *pfd, int timeout_ms);
/* True when some member has no pidfd (the /proc fallback): it must be looked at, not polled. */
bool bp__peers_by_proc(const struct bp_peers *p);
void bp__peers_fini(struct bp_peers *p);
uint64_t bp__proc_starttime(pid_t pid);
/* True while @pid runs (exists and is no zombie), read from /proc. */
bool bp__pid_alive(pid_t pid);
int bp__pidfd_open(pid_t pid);
/* The peer's pidfd from a connected unix socket (SO_PEERPIDFD), or a negative errno. */
int bp__sock_peer_pidfd(int sock);

/* ---- watcher.c ------------------------------------------------------------------------- */
/* Start the watcher thread (a no-op without peers): 0, or -errno (waits then stay bounded). */
int bp__watcher_start(struct bp_bus *bus);
bool bp__watcher_running(const struct bp_bus *bus);
/* Stop and join it (a no-op when it is not running). */
void bp__watcher_stop(struct bp_bus *bus);

/* ---- join.c ---------------------------------------------------------------------------- */
/* Leader: admit local_nranks-1 peers through @lfd, hand them @memfd; watches go to bus->peers. */
int bp__join_admit(struct bp_bus *bus, int lfd, int memfd, uint64_t deadline_ns);
/* Leader: bind and listen on the bus's name. */
int bp__join_listen(const char *job, int *lfd);
/* Peer: connect, introduce itself, receive the memfd; returns the connected socket too. */
int bp__join_request(struct bp_bus *bus, uint64_t deadline_ns, int *memfd, int *sock,
		     pid_t *leader_pid);
/* Peer: tell the leader why it gives up (best effort), so it does not count it as dead. */
void bp__join_bye(int sock, int status);

/* ---- collectives.c --------------------------------------------------------------------- */
/* The barrier every collective ends with (also the join barrier). */
int bp__sync(struct bp_bus *bus, uint32_t seq);

#endif /* BP_INTERNAL_H */
