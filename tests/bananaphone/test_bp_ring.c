/* SPDX-License-Identifier: MIT */
/*
 * Bananaphone pieces inside one process: the ring slot's sequence word (a committed record
 * reads back, a torn or stale one is refused), the two-slot reuse, the failure word and the
 * errors it maps to, the shared futex, and peer watching (pidfd and the /proc fallback, and a
 * pid that was reused), and the collectives between threads that share one mapping (so
 * ThreadSanitizer checks their ordering). A one-rank bus provides a real mapping to work on.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <proxyscope/bananaphone.h>

#include "bananaphone/bp_internal.h"
#include "bp_test.h"

static int setup_bus(void **state)
{
	static char job[64];
	struct bp_args a = { .job = job, .local_nranks = 1, .record_size = 40 };
	struct bp_bus *bus;

	bp_job_name(job, sizeof(job), "ring");
	if (bp_create(&a, &bus))
		return -1;
	*state = bus;
	return 0;
}

static int teardown_bus(void **state)
{
	bp_cleanup(*state);
	bp__test = (struct bp_test_knobs){ 0 };
	return 0;
}

static void fill(unsigned char *b, size_t n, unsigned char seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(seed + i * 7);
}

static void test_ring__a_committed_record_reads_back_byte_exact(void **state)
{
	struct bp_bus *bus = *state;
	unsigned char in[40], out[40];

	fill(in, sizeof(in), 3);
	bp__ring_publish(bus, 7, in);
	assert_int_equal(bp__ring_read(bus, 0, 7, out), 0);
	assert_memory_equal(in, out, sizeof(in));
	assert_false(bp__ring_is_torn(bus, 0));
}

static void test_ring__a_record_of_another_collective_is_refused(void **state)
{
	struct bp_bus *bus = *state;
	unsigned char in[40], out[40];

	fill(in, sizeof(in), 1);
	bp__ring_publish(bus, 4, in);
	assert_int_equal(bp__ring_read(bus, 0, 6, out), -EBADMSG); /* same slot, later seq */
	assert_int_equal(bp__ring_read(bus, 0, 5, out), -EBADMSG); /* other slot, never written */
	bp__ring_publish(bus, 5, in);
	bp__ring_publish(bus, 6, in); /* reuses seq 4's slot */
	assert_int_equal(bp__ring_read(bus, 0, 4, out), -EBADMSG);
	assert_int_equal(bp__ring_read(bus, 0, 5, out), 0);
	assert_int_equal(bp__ring_read(bus, 0, 6, out), 0);
}

static unsigned char g_half_seen[40];
static struct bp_bus *g_bus;

/* Stands in for a writer killed half way: look at the slot as a reader would. */
static void look_mid_record(enum bp_fault_point point, uint32_t seq)
{
	if (point != BP_FAULT_RECORD_HALF)
		return;
	assert_true(bp__ring_is_torn(g_bus, 0));
	assert_int_equal(bp__ring_read(g_bus, 0, seq, g_half_seen), -EBADMSG);
}

static void test_ring__a_half_written_record_is_torn_and_refused(void **state)
{
	unsigned char in[40], out[40];

	g_bus = *state;
	fill(in, sizeof(in), 9);
	bp__test.fault = look_mid_record;
	bp__ring_publish(g_bus, 11, in);
	bp__test.fault = NULL;
	assert_false(bp__ring_is_torn(g_bus, 0));
	assert_int_equal(bp__ring_read(g_bus, 0, 11, out), 0);
	assert_memory_equal(in, out, sizeof(in));
}

static void test_ring__layout_is_page_sized_with_line_sized_slots(void **state)
{
	uint32_t stride;
	size_t size = bp__shm_size(8, 64, &stride);

	assert_int_equal(stride % BP_LINE, 0);
	assert_true(stride >= sizeof(struct bp_shm_slot) + 64);
	assert_int_equal(size % (size_t)sysconf(_SC_PAGESIZE), 0);
	assert_true(size >= sizeof(struct bp_shm) + 8 * sizeof(struct bp_shm_member) +
			    8 * BP_RING_SLOTS * stride);
	assert_int_equal(sizeof(struct bp_shm_member), BP_LINE);
	assert_int_equal(offsetof(struct bp_shm_ctrl, gen) % BP_LINE, 0);
	/* FNV-1a 64 of "a": the cookie is the same in every process and every build. */
	assert_true(bp__job_cookie("a") == 0xaf63dc4c8601ec8cull);
}

static void test_ring__a_member_publishes_its_cpus_and_spins_only_if_ranks_fit(void **state)
{
	struct bp_bus *bus = *state;
	unsigned n = 0;
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (unsigned w = 0; w < BP_CPU_WORDS; w++)
		n += (unsigned)__builtin_popcountll(bus->members[0].cpus[w]);
	assert_int_equal(n, CPU_COUNT(&set));
	assert_int_equal(bus->spin_ns, BP_SPIN_NS); /* one rank always fits */
}

static void test_ring__a_failure_is_sticky_and_names_its_rank(void **state)
{
	struct bp_bus *bus = *state;
	char rec[40] = { 0 }, all[40];

	assert_int_equal(bp_bus_failed_rank(bus), -1);
	assert_int_equal(bp_barrier(bus), 0);
	bp__bus_fail(bus, BP_FAIL_TIMEOUT, 0);
	bp__bus_fail(bus, BP_FAIL_DIED, 0); /* the first failure wins */
	assert_int_equal(bp_barrier(bus), -ETIMEDOUT);
	assert_int_equal(bp_allgather(bus, rec, all), -ETIMEDOUT);
	assert_int_equal(bp_broadcast(bus, rec), -ETIMEDOUT);
	assert_int_equal(bp_bus_failed_rank(bus), 0);
	assert_int_equal(bp_hangup(bus), 0);
	assert_int_equal(bp_hangup(bus), -ESHUTDOWN);
	assert_int_equal(bp_barrier(bus), -ESHUTDOWN);
	assert_string_equal(bp_strerror(-ESRCH), "a member process died");
	assert_string_equal(bp_strerror(-EPIPE), "a member hung up");
}

static void test_ring__the_shared_futex_times_out_and_sees_a_changed_word(void **state)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t t0;
	pid_t pid;
	int status;

	assert_true(w != MAP_FAILED);
	__atomic_store_n(w, 5, __ATOMIC_SEQ_CST);
	assert_int_equal(bp__futex_wait(w, 4, 1000000), -EAGAIN);
	t0 = bp_now_ns();
	assert_int_equal(bp__futex_wait(w, 5, 20000000), -ETIMEDOUT);
	assert_true(bp_now_ns() - t0 >= 20000000u);
	/* Across processes: a child wakes us through the shared mapping. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bp_sleep_ms(50);
		__atomic_store_n(w, 6, __ATOMIC_SEQ_CST);
		bp__futex_wake_all(w);
		_exit(0);
	}
	t0 = bp_now_ns();
	while (__atomic_load_n(w, __ATOMIC_SEQ_CST) == 5)
		bp__futex_wait(w, 5, 5000000000u);
	assert_true(bp_now_ns() - t0 < 4000000000u); /* woken, not timed out */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	munmap((void *)w, 4096);
}

/* A child that waits for a byte on @fd, then exits. */
static pid_t child_until_byte(int *wfd)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static void watch_a_child_exit(bool no_pidfd)
{
	struct bp_peers peers;
	int fds = bp_count_fds(), wfd, status;
	pid_t pid;

	bp__test.no_pidfd = no_pidfd;
	pid = child_until_byte(&wfd);
	assert_int_equal(bp__peers_init(&peers, 1), 0);
	assert_int_equal(bp__peers_add(&peers, 3, pid, bp__proc_starttime(pid), -1, -1), 0);
	assert_int_equal(peers.w[0].pidfd < 0, no_pidfd);
	assert_int_equal(bp__peers_check(&peers), -1);
	assert_int_equal(write(wfd, "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(bp__peers_check(&peers), 3);
	bp__peers_fini(&peers);
	close(wfd);
	bp__test.no_pidfd = false;
	assert_int_equal(bp_count_fds(), fds);
}

static void test_ring__a_pidfd_sees_a_member_exit(void **state)
{
	watch_a_child_exit(false);
}

static void test_ring__proc_sees_a_member_exit_where_pidfd_is_missing(void **state)
{
	watch_a_child_exit(true);
}

static void test_ring__a_reused_pid_is_not_the_member(void **state)
{
	struct bp_peers peers;
	int fds = bp_count_fds(), wfd, status;
	pid_t pid = child_until_byte(&wfd);

	/* Same pid, another start time: the member it stood for is gone. */
	assert_int_equal(bp__peers_init(&peers, 1), 0);
	assert_int_equal(bp__peers_add(&peers, 1, pid, bp__proc_starttime(pid) + 1, -1, -1), -ESRCH);
	bp__peers_fini(&peers);
	assert_int_equal(write(wfd, "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(wfd);
	assert_int_equal(bp_count_fds(), fds);
}

#define THREAD_RANKS 4
#define THREAD_ROUNDS 3000

/* One rank of a bus whose ranks are threads sharing one mapping (ThreadSanitizer can follow
 * that, unlike ranks in separate processes): all-gather, check, barrier, again. */
static void *thread_rank(void *arg)
{
	struct bp_bus *bus = arg;
	unsigned char mine[48], all[THREAD_RANKS * 48], want[48];
	intptr_t bad = 0;

	for (unsigned i = 0; i < THREAD_ROUNDS && !bad; i++) {
		fill(mine, sizeof(mine), (unsigned char)(bus->local_rank * 40 + i));
		bad |= bp_allgather(bus, mine, all) != 0;
		for (uint32_t r = 0; r < THREAD_RANKS && !bad; r++) {
			fill(want, sizeof(want), (unsigned char)(r * 40 + i));
			bad |= memcmp(all + r * 48, want, 48) != 0;
		}
		if (!bad && i % 3 == 0)
			bad |= bp_barrier(bus) != 0;
	}
	return (void *)bad;
}

static void test_ring__threads_sharing_one_mapping_see_every_record(void **state)
{
	struct bp_bus base = { .local_nranks = THREAD_RANKS, .record_size = 48, .cookie = 1 };
	struct bp_bus buses[THREAD_RANKS];
	pthread_t t[THREAD_RANKS];
	int memfd;

	snprintf(base.job, sizeof(base.job), "threads");
	assert_int_equal(bp__shm_create(&base, &memfd), 0);
	close(memfd);
	for (uint32_t r = 0; r < THREAD_RANKS; r++) {
		buses[r] = base;
		buses[r].local_rank = r;
		buses[r].spin_ns = r % 2 ? BP_SPIN_NS : 0; /* spinners and sleepers together */
		assert_int_equal(pthread_create(&t[r], NULL, thread_rank, &buses[r]), 0);
	}
	for (uint32_t r = 0; r < THREAD_RANKS; r++) {
		void *bad;

		assert_int_equal(pthread_join(t[r], &bad), 0);
		assert_null(bad);
	}
	bp__shm_unmap(&base);
}

static void test_ring__every_enum_has_names(void **state)
{
	for (int i = 0; i < BP_FAIL_REASON_NR; i++)
		assert_string_not_equal(bp__fail_reason_str((enum bp_fail_reason)i), "?");
	for (int i = 0; i < BP_MEMBER_STATE_NR; i++)
		assert_string_not_equal(bp__member_state_str((enum bp_member_state)i), "?");
	for (int i = 0; i < BP_MSG_KIND_NR; i++)
		assert_string_not_equal(bp__msg_kind_str((enum bp_msg_kind)i), "?");
	for (int i = 0; i < BP_FAULT_POINT_NR; i++)
		assert_string_not_equal(bp__fault_point_str((enum bp_fault_point)i), "?");
	for (int i = 0; i < BP_GATHER_OP_NR; i++)
		assert_string_not_equal(bp__gather_op_str((enum bp_gather_op)i), "?");
	assert_string_equal(bp__fail_reason_str(BP_FAIL_REASON_NR), "?");
	assert_string_equal(bp__gather_op_str(BP_GATHER_OP_NR), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ring__a_committed_record_reads_back_byte_exact,
						setup_bus, teardown_bus),
		cmocka_unit_test_setup_teardown(test_ring__a_record_of_another_collective_is_refused,
						setup_bus, teardown_bus),
		cmocka_unit_test_setup_teardown(test_ring__a_half_written_record_is_torn_and_refused,
						setup_bus, teardown_bus),
		cmocka_unit_test(test_ring__layout_is_page_sized_with_line_sized_slots),
		cmocka_unit_test_setup_teardown(
			test_ring__a_member_publishes_its_cpus_and_spins_only_if_ranks_fit, setup_bus,
			teardown_bus),
		cmocka_unit_test_setup_teardown(test_ring__a_failure_is_sticky_and_names_its_rank,
						setup_bus, teardown_bus),
		cmocka_unit_test(test_ring__the_shared_futex_times_out_and_sees_a_changed_word),
		cmocka_unit_test(test_ring__a_pidfd_sees_a_member_exit),
		cmocka_unit_test(test_ring__proc_sees_a_member_exit_where_pidfd_is_missing),
		cmocka_unit_test(test_ring__a_reused_pid_is_not_the_member),
		cmocka_unit_test(test_ring__threads_sharing_one_mapping_see_every_record),
		cmocka_unit_test(test_ring__every_enum_has_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
