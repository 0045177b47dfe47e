/* SPDX-License-Identifier: MIT */
/*
 * The rendezvous: how local ranks that share nothing but a job name join one bus.
 *
 * Main design choice: an abstract unix socket named after the job ("@proxyscope-bp:<job>")
 * carries a one-message handshake each way, and the memfd travels with the leader's answer as
 * SCM_RIGHTS. That is the only way to share an fd that needs no ptrace rights
 * (/proc/<pid>/fd and pidfd_getfd both do), and an abstract name vanishes with its socket, so
 * there is nothing to unlink after a crash. An abstract socket has no permission check of its
 * own: the leader authenticates each peer with SO_PEERCRED (same uid, and the pid it records
 * is the kernel's, not a claim), and each peer checks the leader's uid the same way.
 *
 * The leader answers every peer only once all of them have been admitted, so a bad peer (wrong
 * version, size, rank, user) is turned away with its own error while the good ones keep
 * waiting; a joined peer that dies or gives up before that fails the join for everyone. The
 * connections stay open after the join: they are liveness channels (liveness.c).
 *
 *	peer                                   leader
 *	connect (retry until the deadline)     accept, SO_PEERCRED
 *	HELLO {magic, version, rank, ...} ---> check; reject: REPLY {status} and close
 *	        ... until every rank is admitted ...
 *	REPLY {0} + memfd (SCM_RIGHTS)  <----- to every admitted peer; late comers: -EEXIST
 *	(gives up: BYE {status} ------------->  fails the join with that status)
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bananaphone/bp_internal.h"
#include "common/log.h"

/* One connection the leader holds during the join. */
struct conn {
	int fd;
	int rank;              /* -1 until its HELLO is accepted */
	pid_t pid;             /* SO_PEERCRED */
	uint64_t starttime;
};

static socklen_t bus_addr(const char *job, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] = '\0': the abstract namespace (no file, gone with the socket). */
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "proxyscope-bp:%s", job);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static struct bp_msg msg_make(const struct bp_bus *bus, enum bp_msg_kind kind, int status)
{
	return (struct bp_msg){ .magic = BP_MAGIC, .version = bp__version(), .kind = kind,
				.status = status, .local_rank = bus->local_rank,
				.local_nranks = bus->local_nranks,
				.record_size = bus->record_size, .cookie = bus->cookie };
}

static int msg_send(int fd, const struct bp_msg *m, int pass_fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	if (pass_fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	n = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*m) ? 0 : -EPROTO;
}

/*
 * Receive one message (never blocks). Returns its length (0 = the far end closed), or a
 * negative errno; *got_fd is the first fd that came with it (-1 if none; any other is closed).
 * The message is checked: -EPROTO for another magic, version or length.
 */
static ssize_t msg_recv(int fd, struct bp_msg *m, int *got_fd)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	unsigned char raw[sizeof(*m) + 64];
	struct iovec iov = { .iov_base = raw, .iov_len = sizeof(raw) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	ssize_t n;

	*got_fd = -1;
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < nfd; i++) {
			int x;

			memcpy(&x, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*got_fd < 0)
				*got_fd = x;
			else
				close(x);
		}
	}
	if (n == 0)
		return 0;
	memset(m, 0, sizeof(*m));
	memcpy(m, raw, (size_t)n < sizeof(*m) ? (size_t)n : sizeof(*m));
	if ((size_t)n < offsetof(struct bp_msg, kind) || m->magic != BP_MAGIC ||
	    m->version != bp__version() || (size_t)n != sizeof(*m))
		return -EPROTO;
	return n;
}

static int remaining_ms(uint64_t deadline_ns)
{
	uint64_t now = bp__now_ns();
	uint64_t ms = now >= deadline_ns ? 0 : (deadline_ns - now + 999999u) / 1000000u;

	return ms > INT_MAX ? INT_MAX : (int)ms;
}

int bp__join_listen(const char *job, int *lfd)
{
	struct sockaddr_un sa;
	socklen_t len = bus_addr(job, &sa);
	int fd, rc;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, BP_MAX_LOCAL) < 0) {
		rc = -errno; /* -EADDRINUSE: another leader holds the name */
		close(fd);
		return rc;
	}
	*lfd = fd;
	return 0;
}

/*
 * Leader: may the peer behind @c, which sent @m (@n bytes, or the error reading it), take a
 * rank? 0, or the refusal. Who it is comes first: another user learns nothing else.
 */
static int check_hello(struct bp_bus *bus, struct conn *c, const struct bp_msg *m, ssize_t n,
		       const struct conn *conns, uint32_t nconn)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (cred.uid != geteuid())
		return -EACCES;
	if (n < 0)
		return (int)n; /* -EPROTO: another version, or not our message at all */
	if (m->kind != BP_MSG_HELLO || m->cookie != bus->cookie)
		return -EPROTO;
	if (m->local_nranks != bus->local_nranks || m->record_size != bus->record_size)
		return -EMSGSIZE;
	if (m->local_rank == 0)
		return -EEXIST; /* the leader's */
	if (m->local_rank >= bus->local_nranks)
		return -EINVAL;
	for (uint32_t i = 0; i < nconn; i++)
		if (conns[i].rank == (int)m->local_rank)
			return -EEXIST;
	c->pid = cred.pid;
	c->starttime = m->starttime;
	return 0;
}

static void conn_drop(struct conn *conns, uint32_t *nconn, uint32_t i)
{
	close(conns[i].fd);
	conns[i] = conns[--*nconn];
}

/* Leader: an event on connection @i. Returns 0, or the status that fails the join. */
static int on_conn(struct bp_bus *bus, struct conn *conns, uint32_t *nconn, uint32_t i,
		   uint32_t *joined)
{
	struct conn *c = &conns[i];
	struct bp_msg m = { 0 }, reply;
	ssize_t n;
	int fd, rc;

	n = msg_recv(c->fd, &m, &fd);
	if (fd >= 0)
		close(fd); /* nobody sends the leader fds */
	if (n == -EAGAIN)
		return 0;
	if (c->rank >= 0) {
		/* An admitted peer spoke or hung up before the answer: it gave up, or died. */
		rc = n > 0 && m.kind == BP_MSG_BYE && m.status < 0 ? m.status : -ESRCH;
		enc_warn("bananaphone %s: local rank %d left during the join (%s: %s)", bus->job,
			 c->rank, n > 0 ? bp__msg_kind_str(m.kind) : "closed", bp_strerror(rc));
		return rc;
	}
	if (n <= 0 && n != -EPROTO) {
		conn_drop(conns, nconn, i); /* closed before saying hello: not a member */
		return 0;
	}
	rc = check_hello(bus, c, &m, n, conns, *nconn);
	if (rc) {
		enc_info("bananaphone %s: refused a peer claiming local rank %u: %s", bus->job,
			 m.local_rank, bp_strerror(rc));
		reply = msg_make(bus, BP_MSG_REPLY, rc);
		msg_send(c->fd, &reply, -1);
		conn_drop(conns, nconn, i);
		return 0;
	}
	c->rank = (int)m.local_rank;
	bus->members[c->rank].pid = c->pid;
	bus->members[c->rank].starttime = c->starttime;
	/* Relaxed: the peers see the table only through the memfd, sent after this. */
	__atomic_store_n(&bus->members[c->rank].state, BP_MEMBER_JOINED, __ATOMIC_RELAXED);
	(*joined)++;
	return 0;
}

/*
 * Leader: answer with @status whatever still waits in the backlog and every connection not
 * admitted; with @all, the admitted ones too (the join failed).
 */
static void refuse_rest(struct bp_bus *bus, int lfd, struct conn *conns, uint32_t *nconn,
			int status, bool all)
{
	struct bp_msg reply = msg_make(bus, BP_MSG_REPLY, status);
	int fd;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		msg_send(fd, &reply, -1);
		close(fd);
	}
	for (uint32_t i = *nconn; i-- > 0;) {
		if (conns[i].rank >= 0 && !all)
			continue;
		msg_send(conns[i].fd, &reply, -1);
		conn_drop(conns, nconn, i);
	}
}

/* Leader: answer every admitted peer with the memfd, then watch it. */
static int admit_all(struct bp_bus *bus, int memfd, struct conn *conns, uint32_t nconn)
{
	struct bp_msg reply = msg_make(bus, BP_MSG_REPLY, 0);
	int rc = 0, failed = -1;

	for (uint32_t i = 0; i < nconn && failed < 0; i++)
		if (msg_send(conns[i].fd, &reply, memfd))
			failed = conns[i].rank;
	if (failed >= 0) {
		/* Some peers may hold the memfd already: fail the bus they are joining. */
		bp__bus_fail(bus, BP_FAIL_DIED, (uint32_t)failed);
		reply.status = -ESRCH;
		for (uint32_t i = 0; i < nconn; i++)
			msg_send(conns[i].fd, &reply, -1);
	}
	/* Every socket moves into the watch list (closed there on error). */
	for (uint32_t i = 0; i < nconn; i++) {
		int pidfd = bp__sock_peer_pidfd(conns[i].fd);
		int err = bp__peers_add(&bus->peers, (uint32_t)conns[i].rank, conns[i].pid,
					conns[i].starttime, pidfd < 0 ? -1 : pidfd, conns[i].fd);

		if (err == -ESRCH)
			bp__bus_member_gone(bus, (uint32_t)conns[i].rank);
		else if (err && !rc)
			rc = err;
	}
	return rc;
}

int bp__join_admit(struct bp_bus *bus, int lfd, int memfd, uint64_t deadline_ns)
{
	uint32_t need = bus->local_nranks - 1, cap = 2 * need + 8, nconn = 0, joined = 0;
	struct conn *conns = calloc(cap, sizeof(*conns));
	struct pollfd *pfd = calloc(cap + 1, sizeof(*pfd));
	int rc = 0, n, fd;

	if (!conns || !pfd) {
		rc = -ENOMEM;
		goto out_free;
	}
	while (joined < need) {
		if (bp__now_ns() >= deadline_ns) {
			rc = -ETIMEDOUT;
			break;
		}
		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (uint32_t i = 0; i < nconn; i++)
			pfd[1 + i] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
		n = poll(pfd, 1 + nconn, remaining_ms(deadline_ns));
		if (n < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		/* Backwards: a dropped connection is replaced by the last one, already seen. */
		for (uint32_t i = nconn; n > 0 && rc == 0 && i-- > 0;)
			if (pfd[1 + i].revents)
				rc = on_conn(bus, conns, &nconn, i, &joined);
		if (rc)
			break;
		while (n > 0 && (pfd[0].revents & POLLIN) &&
		       (fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
			if (nconn == cap) {
				struct bp_msg busy = msg_make(bus, BP_MSG_REPLY, -EEXIST);

				msg_send(fd, &busy, -1); /* more peers than ranks: surplus */
				close(fd);
				continue;
			}
			conns[nconn++] = (struct conn){ .fd = fd, .rank = -1 };
		}
	}
	/* Late comers find every rank taken; on a failure everyone learns why. */
	refuse_rest(bus, lfd, conns, &nconn, rc ? rc : -EEXIST, rc != 0);
	if (!rc)
		rc = admit_all(bus, memfd, conns, nconn);
out_free:
	free(pfd);
	free(conns);
	return rc;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Peer: connect to the bus's name, retrying while nobody listens yet. */
static int connect_retry(const char *job, uint64_t deadline_ns, int *out)
{
	struct sockaddr_un sa;
	socklen_t len = bus_addr(job, &sa);
	uint64_t backoff = 1;
	int fd, err;

	for (;;) {
		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&sa, len) == 0) {
			*out = fd;
			return 0;
		}
		err = errno;
		close(fd);
		if (err != ECONNREFUSED && err != ENOENT && err != EAGAIN)
			return -err;
		if (remaining_ms(deadline_ns) == 0)
			return -ENOENT; /* nobody created the bus in time */
		sleep_ms(backoff < (uint64_t)remaining_ms(deadline_ns) ? backoff
								       : (uint64_t)remaining_ms(deadline_ns));
		backoff = backoff < 32 ? 2 * backoff : 32;
	}
}

void bp__join_bye(int sock, int status)
{
	struct bp_msg bye = { .magic = BP_MAGIC, .version = bp__version(), .kind = BP_MSG_BYE,
			      .status = status };

	msg_send(sock, &bye, -1);
}

int bp__join_request(struct bp_bus *bus, uint64_t deadline_ns, int *memfd, int *sock,
		     pid_t *leader_pid)
{
	struct bp_msg hello = msg_make(bus, BP_MSG_HELLO, 0), reply;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct pollfd pfd;
	int fd = -1, rfd = -1, rc;
	ssize_t n;

	rc = connect_retry(bus->job, deadline_ns, &fd);
	if (rc)
		return rc;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		rc = -errno;
		goto out_close_sock;
	}
	if (cred.uid != geteuid()) {
		rc = -EACCES; /* a bus of another user: do not hand it our records */
		goto out_close_sock;
	}
	hello.starttime = bp__proc_starttime(getpid());
	msg_send(fd, &hello, -1); /* on failure the leader's answer (or EOF) still tells why */
	bp__fault(BP_FAULT_REQUESTED, 0);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	do
		rc = poll(&pfd, 1, remaining_ms(deadline_ns));
	while (rc < 0 && errno == EINTR);
	if (rc == 0) {
		bp__join_bye(fd, -ETIMEDOUT); /* so the leader does not count us as dead */
		rc = -ETIMEDOUT;
		goto out_close_sock;
	}
	rc = 0;
	n = msg_recv(fd, &reply, &rfd);
	if (n == 0) /* closed without an answer: the bus completed just now, or its leader died */
		rc = bp__pid_alive(cred.pid) ? -EEXIST : -ESRCH;
	else if (n < 0)
		rc = (int)n;
	else if (reply.kind != BP_MSG_REPLY)
		rc = -EPROTO;
	else if (reply.status)
		rc = reply.status < 0 ? reply.status : -EPROTO;
	else if (rfd < 0)
		rc = -EPROTO;
	if (rc)
		goto out_close_memfd;
	*memfd = rfd;
	*sock = fd;
	*leader_pid = cred.pid;
	return 0;

out_close_memfd:
	if (rfd >= 0)
		close(rfd);
out_close_sock:
	close(fd);
	return rc;
}
