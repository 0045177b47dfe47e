/* SPDX-License-Identifier: MIT */
/*
 * The bus between real processes (bp_rank, forked and exec'd): 2, 4 and 8 local ranks with
 * byte-exact all-gathers and broadcasts, and every bad input turned into its own clear error
 * while the good ranks carry on - a bus that does not exist, a second leader, a size or version
 * mismatch, a rank out of range, one rank claimed twice, a peer of another user, an orderly
 * hang-up, a collective deadline. Every rank checks that it leaked no fd and no mapping, and
 * every test that the bus name is gone afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <proxyscope/bananaphone.h>

#include "bananaphone/bp_internal.h"
#include "bp_test.h"

/* n ranks, peers started before the leader (they must wait for it), all checks byte-exact. */
static void run_check(unsigned n, unsigned size, const char *iters)
{
	struct bp_proc p[BP_MAX_LOCAL];
	char job[64];

	bp_job_name(job, sizeof(job), "check");
	for (unsigned r = n; r-- > 0;)
		bp_spawn(&p[r], "check", job, r, n, size, iters, NULL);
	for (unsigned r = 0; r < n; r++)
		bp_expect(&p[r], 0);
	assert_false(bp_bus_name_exists(job));
}

static void test_bus__2_ranks_allgather_broadcast_barrier_byte_exact(void **state)
{
	run_check(2, 64, "iters=300");
}

static void test_bus__4_ranks_allgather_broadcast_barrier_byte_exact(void **state)
{
	run_check(4, 257, "iters=200"); /* an odd size: records are not line-sized */
}

static void test_bus__8_ranks_allgather_broadcast_barrier_byte_exact(void **state)
{
	run_check(8, 4000, "iters=100");
}

static void test_bus__one_rank_bus_needs_no_peer(void **state)
{
	struct bp_args a = { .job = "solo", .local_nranks = 1, .record_size = 8 };
	char job[64], rec[8] = "12345678", all[8] = { 0 };
	int fds = bp_count_fds();
	struct bp_bus *bus;

	bp_job_name(job, sizeof(job), "solo");
	a.job = job;
	assert_int_equal(bp_create(&a, &bus), 0);
	assert_int_equal(bp_bus_local_nranks(bus), 1);
	assert_int_equal(bp_allgather(bus, rec, all), 0);
	assert_memory_equal(rec, all, 8);
	assert_int_equal(bp_broadcast(bus, rec), 0);
	assert_int_equal(bp_barrier(bus), 0);
	assert_int_equal(bp_bus_failed_rank(bus), -1);
	bp_cleanup(bus);
	assert_int_equal(bp_count_fds(), fds);
	assert_int_equal(bp_count_maps("memfd:bananaphone"), 0);
	assert_false(bp_bus_name_exists(job));
}

static void test_bus__a_bus_that_does_not_exist_is_enoent(void **state)
{
	struct bp_args a = { .local_rank = 1, .local_nranks = 2, .record_size = 8,
			     .join_timeout_ms = 150 };
	int fds = bp_count_fds();
	struct bp_bus *bus = NULL;
	char job[64];
	uint64_t t0;

	bp_job_name(job, sizeof(job), "nobus");
	a.job = job;
	t0 = bp_now_ns();
	assert_int_equal(bp_connect(&a, &bus), -ENOENT);
	assert_true(bp_now_ns() - t0 >= 150000000u);
	assert_null(bus);
	assert_int_equal(bp_count_fds(), fds);
}

static void test_bus__bad_arguments_are_einval(void **state)
{
	struct bp_args ok = { .job = "args", .local_rank = 1, .local_nranks = 2, .record_size = 8,
			      .join_timeout_ms = 1 };
	char long_job[BP_JOB_MAX + 1];
	struct bp_args a;
	struct bp_bus *bus = NULL;

	memset(long_job, 'j', BP_JOB_MAX);
	long_job[BP_JOB_MAX] = '\0';
	assert_int_equal(bp_connect(NULL, &bus), -EINVAL);
	assert_int_equal(bp_connect(&ok, NULL), -EINVAL);
	a = ok, a.job = NULL;
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	a = ok, a.job = "";
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	a = ok, a.job = long_job;
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	a = ok, a.local_nranks = 0;
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	a = ok, a.local_nranks = BP_MAX_LOCAL + 1;
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	a = ok, a.local_rank = 2; /* out of range: ranks are 0 .. local_nranks-1 */
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	a = ok, a.record_size = 0;
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	a = ok, a.record_size = BP_MAX_RECORD + 1;
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	a = ok, a.local_rank = 0; /* rank 0 creates */
	assert_int_equal(bp_connect(&a, &bus), -EINVAL);
	assert_int_equal(bp_create(&ok, &bus), -EINVAL); /* rank 1 connects */
	assert_null(bus);
	assert_int_equal(bp_barrier(NULL), -EINVAL);
	assert_int_equal(bp_allgather(NULL, "", long_job), -EINVAL);
	assert_int_equal(bp_broadcast(NULL, long_job), -EINVAL);
	assert_int_equal(bp_hangup(NULL), -EINVAL);
	bp_cleanup(NULL);
}

static void test_bus__a_second_leader_is_eaddrinuse(void **state)
{
	struct bp_args a = { .local_nranks = 2, .record_size = 16, .join_timeout_ms = 100 };
	struct bp_proc leader, peer;
	struct bp_bus *bus = NULL;
	char job[64];
	int fds;

	bp_job_name(job, sizeof(job), "twoleaders");
	a.job = job;
	bp_spawn(&leader, "join", job, 0, 2, 16, NULL);
	bp_wait_name(job, 5000);
	fds = bp_count_fds();
	assert_int_equal(bp_create(&a, &bus), -EADDRINUSE);
	assert_int_equal(bp_count_fds(), fds);
	assert_int_equal(bp_count_maps("memfd:bananaphone"), 0);
	bp_spawn(&peer, "join", job, 1, 2, 16, NULL); /* the first leader's bus is unharmed */
	bp_expect(&leader, 0);
	bp_expect(&peer, 0);
}

/* A leader of 2 ranks x 64 bytes refuses @bad (its own error), then admits a good rank 1. */
static void refuse_then_admit(const char *tag, unsigned bad_rank, unsigned bad_nranks,
			      unsigned bad_size, const char *bad_opt, int want)
{
	struct bp_proc leader, bad, good;
	char job[64];

	bp_job_name(job, sizeof(job), tag);
	bp_spawn(&leader, "join", job, 0, 2, 64, NULL);
	bp_spawn(&bad, "join", job, bad_rank, bad_nranks, bad_size, bad_opt, NULL);
	bp_expect(&bad, want);
	bp_spawn(&good, "join", job, 1, 2, 64, NULL);
	bp_expect(&leader, 0);
	bp_expect(&good, 0);
	assert_false(bp_bus_name_exists(job));
}

static void test_bus__a_record_size_mismatch_is_emsgsize(void **state)
{
	refuse_then_admit("size", 1, 2, 32, NULL, -EMSGSIZE);
}

static void test_bus__a_rank_count_mismatch_is_emsgsize(void **state)
{
	refuse_then_admit("nranks", 2, 3, 64, NULL, -EMSGSIZE); /* rank 2 is beyond this bus */
}

static void test_bus__a_version_mismatch_is_eproto(void **state)
{
	refuse_then_admit("version", 1, 2, 64, "version=99", -EPROTO);
}

static void test_bus__one_rank_claimed_twice_is_eexist(void **state)
{
	struct bp_proc leader, a, b, last;
	struct bp_proc *const claimers[2] = { &a, &b };
	int refused;
	char job[64];

	bp_job_name(job, sizeof(job), "twice");
	bp_spawn(&leader, "join", job, 0, 3, 64, NULL);
	bp_spawn(&a, "join", job, 1, 3, 64, NULL);
	bp_spawn(&b, "join", job, 1, 3, 64, NULL);
	/* Whichever is admitted first keeps rank 1 and waits; the other is refused at once. */
	refused = bp_proc_wait_first(claimers, 2, BP_WAIT_MS);
	assert_true(refused >= 0);
	bp_expect(claimers[refused], -EEXIST);
	bp_spawn(&last, "join", job, 2, 3, 64, NULL);
	bp_expect(&leader, 0);
	bp_expect(claimers[!refused], 0);
	bp_expect(&last, 0);
}

/* A process running as nobody: connect through the library, then speak the wire by hand. */
static void as_nobody(const char *job, int result_fd)
{
	struct bp_args a = { .job = job, .local_rank = 1, .local_nranks = 2, .record_size = 64,
			     .join_timeout_ms = 2000 };
	struct bp_msg hello = { .magic = BP_MAGIC, .version = BP_VERSION, .kind = BP_MSG_HELLO,
				.local_rank = 1, .local_nranks = 2, .record_size = 64,
				.cookie = bp__job_cookie(job) }, reply = { 0 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct bp_bus *bus = NULL;
	int rc[2], fd;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		_exit(10);
	rc[0] = bp_connect(&a, &bus); /* the peer refuses a leader of another user */
	/* A hand-made HELLO skips that check: the leader must refuse it on its own. */
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "proxyscope-bp:%s", job);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1))))
		_exit(11);
	if (send(fd, &hello, sizeof(hello), 0) != sizeof(hello) ||
	    recv(fd, &reply, sizeof(reply), 0) != sizeof(reply))
		_exit(12);
	rc[1] = reply.status;
	if (write(result_fd, rc, sizeof(rc)) != sizeof(rc))
		_exit(13);
	_exit(0);
}

static void test_bus__a_peer_of_another_user_is_eacces(void **state)
{
	struct bp_proc leader, good;
	int pipefd[2], rc[2] = { 0, 0 }, status;
	char job[64];
	pid_t pid;

	if (geteuid() != 0)
		skip(); /* needs root to become nobody */
	bp_job_name(job, sizeof(job), "nobody");
	bp_spawn(&leader, "join", job, 0, 2, 64, NULL);
	bp_wait_name(job, 5000);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		as_nobody(job, pipefd[1]);
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], rc, sizeof(rc)), sizeof(rc));
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(rc[0], -EACCES);
	assert_int_equal(rc[1], -EACCES);
	bp_spawn(&good, "join", job, 1, 2, 64, NULL);
	bp_expect(&leader, 0);
	bp_expect(&good, 0);
}

static void test_bus__a_hang_up_gives_epipe_to_the_others(void **state)
{
	struct bp_proc p0, p1;
	char job[64];

	bp_job_name(job, sizeof(job), "hangup");
	bp_spawn(&p0, "sleep", job, 0, 2, 8, "sleep_ms=0", NULL);
	bp_spawn(&p1, "hangup", job, 1, 2, 8, "sleep_ms=100", NULL);
	bp_expect(&p0, -EPIPE); /* its barrier waited for a member that left */
	bp_expect(&p1, 0);     /* and its own calls after the hang-up are -ESHUTDOWN */
	assert_int_equal(bp_proc_field(&p0, "result", "failed_rank", 9), 1);
}

static void test_bus__a_collective_deadline_fails_the_bus_for_all(void **state)
{
	struct bp_proc p0, p1;
	uint64_t waited;
	char job[64];

	bp_job_name(job, sizeof(job), "optimeout");
	bp_spawn(&p0, "loop", job, 0, 2, 8, "iters=1", "op_ms=200", NULL);
	/* Far longer than any scheduling stall: the barrier can only end by the deadline. */
	bp_spawn(&p1, "sleep", job, 1, 2, 8, "sleep_ms=5000", NULL);
	bp_expect(&p0, -ETIMEDOUT);
	/* The deadline ended the barrier (about 200 ms after the join), not the late rank. */
	waited = (uint64_t)(bp_proc_field(&p0, "result", "err_ns", 0) -
			    bp_proc_field(&p0, "result", "joined_ns", 0));
	assert_true(waited >= 200000000u && waited < 4000000000u);
	bp_expect(&p1, -ETIMEDOUT); /* the late rank finds the bus failed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bus__2_ranks_allgather_broadcast_barrier_byte_exact),
		cmocka_unit_test(test_bus__4_ranks_allgather_broadcast_barrier_byte_exact),
		cmocka_unit_test(test_bus__8_ranks_allgather_broadcast_barrier_byte_exact),
		cmocka_unit_test(test_bus__one_rank_bus_needs_no_peer),
		cmocka_unit_test(test_bus__a_bus_that_does_not_exist_is_enoent),
		cmocka_unit_test(test_bus__bad_arguments_are_einval),
		cmocka_unit_test(test_bus__a_second_leader_is_eaddrinuse),
		cmocka_unit_test(test_bus__a_record_size_mismatch_is_emsgsize),
		cmocka_unit_test(test_bus__a_rank_count_mismatch_is_emsgsize),
		cmocka_unit_test(test_bus__a_version_mismatch_is_eproto),
		cmocka_unit_test(test_bus__one_rank_claimed_twice_is_eexist),
		cmocka_unit_test(test_bus__a_peer_of_another_user_is_eacces),
		cmocka_unit_test(test_bus__a_hang_up_gives_epipe_to_the_others),
		cmocka_unit_test(test_bus__a_collective_deadline_fails_the_bus_for_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
