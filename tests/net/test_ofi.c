/* SPDX-License-Identifier: MIT */
/*
 * The libfabric ("ofi") seam backend through the real driver, devices and workload, on real
 * providers over loopback (tcp;ofi_rxm and shm), with the ranks spread over real processes that
 * meet on the bananaphone bus:
 *   - ring and all-to-all exchanges of patterned buffers, 1, 2 and 4 processes, every byte checked;
 *   - a process killed in the middle of the run: the others fail with -ESRCH naming the dead
 *     peer, well within the watchdog timeout, and exit (no hang);
 *   - a provider that does not exist, and processes that ask for different providers: a clear
 *     error in every process;
 *   - B1's checks (a tag above 40 bits);
 *   - libfabric loaded only by the backend's first use, the process's signal dispositions kept.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <dirent.h>
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <proxyscope/log.h>
#include <proxyscope/net.h>
#include <proxyscope/net_ofi.h>
#include <proxyscope/workload.h>

/* The watchdog timeout: ThreadSanitizer runs 8 ranks x 4 processes many times slower. */
#if defined(__SANITIZE_THREAD__)
#define TIMEOUT_MS 20000
#else
#define TIMEOUT_MS 3000
#endif
/* A healthy exchange's timeout only guards against a hang (nothing here measures it): beside
 * `stress-ng --cpu 4` on 2 CPUs one exec of 1 process x 3 ranks over shm was once starved past
 * 3 s and timed out (status -110). */
#define HEALTHY_TIMEOUT_MS 60000

/* Child exit codes */
enum { CHILD_OK = 0, CHILD_FAILED = 1, CHILD_WRONG = 2 };

/* What a child checks about its own run. */
enum expect {
	EXPECT_OK,        /* every exec of its ranks, every byte intact */
	EXPECT_PEER_DEAD, /* a failure with -ESRCH, a log line naming the dead pid, in time */
	EXPECT_SETUP,     /* a setup failure with child_status */
};

struct child_spec {
	enum expect expect;
	int status;           /* EXPECT_SETUP: the status */
	const char *provider; /* per child (mismatch test) */
};

static pthread_mutex_t g_log_mtx = PTHREAD_MUTEX_INITIALIZER;
static char g_log_hit[256]; /* g_log_mtx: the first library line containing g_log_want */
static const char *g_log_want;

static void capture(enum enc_log_level level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	pthread_mutex_lock(&g_log_mtx);
	if (g_log_want && !g_log_hit[0] && strstr(msg, g_log_want))
		snprintf(g_log_hit, sizeof(g_log_hit), "%s", msg);
	pthread_mutex_unlock(&g_log_mtx);
}

static void args_base(struct enc_wl_args *a, const char *job, uint32_t procs, uint32_t ranks,
		      const char *provider, enum enc_wl_pattern pattern)
{
	enc_wl_args_default(a);
	a->job = job;
	a->backend = "ofi";
	a->provider = provider;
	a->procs = procs;
	a->ranks = ranks;
	a->ranks_per_proxy = 1;
	a->pattern = pattern;
	a->ops = 20;
	a->bytes = 48 * 1024 + 7; /* past rxm's 16 KiB eager limit, not a round size */
	a->streams = 2;
	a->timeout_ms = TIMEOUT_MS;
}

static int child_main(struct enc_wl_args *a, uint32_t proc, const struct child_spec *cs)
{
	struct enc_wl_result res;
	char err[256];
	int rc;

	a->proc = proc;
	if (cs->provider)
		a->provider = cs->provider;
	/*
	 * The backend loads libfabric at its first use (0.2 s, more on a loaded machine: the
	 * constructor of libinfinipath), which linking used to do before main: load it here, so
	 * that the wall time checked below is the run's and not the load's. Its outcome does not
	 * matter (a provider that does not exist still loads libfabric).
	 */
	(void)enc_net_check("ofi", a->provider, err, sizeof(err));
	enc_log_set_hook(capture, NULL, ENC_LOG_WARN);
	rc = enc_wl_run(a, &res);
	if (rc) {
		fprintf(stderr, "process %u: enc_wl_run: %d %s\n", proc, rc, res.err);
		return CHILD_WRONG;
	}
	enc_wl_result_fini(&res); /* the checks below read the totals only */
	switch (cs->expect) {
	case EXPECT_OK:
		if (!enc_wl_result_is_ok(a, &res) || res.mismatches ||
		    res.bytes_verified != res.execs_completed_total * a->bytes *
						  (a->pattern == ENC_WL_ALLTOALL ? a->ranks - 1 : 1)) {
			fprintf(stderr, "process %u: %llu execs, %llu bytes verified, %llu bad; first "
				"failure: rank %u exec %llu %s status %d\n", proc,
				(unsigned long long)res.execs_completed_total,
				(unsigned long long)res.bytes_verified,
				(unsigned long long)res.mismatches, res.first_failure.rank,
				(unsigned long long)res.first_failure.exec_id,
				enc_wl_stage_str(res.first_failure.stage), res.first_failure.status);
			return CHILD_FAILED;
		}
		return CHILD_OK;
	case EXPECT_PEER_DEAD:
		pthread_mutex_lock(&g_log_mtx); /* every rank thread is joined: for tsan's sake */
		pthread_mutex_unlock(&g_log_mtx);
		/* In time: the death failed every rank before any consumer's watchdog fired (no
		 * timeout among the failures). Not the run's wall time against the watchdog's: it
		 * holds the set-up too, which took over 3 s at load 20 with the death seen at once. */
		if (!res.has_failure || res.first_failure.status != -ESRCH || res.timeouts ||
		    !g_log_hit[0]) {
			fprintf(stderr, "process %u: failure %d (rank %u exec %llu %s) status %d, %llu "
				"failures, %llu timeouts, wall %llu ms, log '%s'\n", proc,
				res.has_failure, res.first_failure.rank,
				(unsigned long long)res.first_failure.exec_id,
				enc_wl_stage_str(res.first_failure.stage), res.first_failure.status,
				(unsigned long long)res.failures, (unsigned long long)res.timeouts,
				(unsigned long long)(res.wall_ns / 1000000u), g_log_hit);
			return CHILD_FAILED;
		}
		return CHILD_OK;
	case EXPECT_SETUP:
		if (!res.has_failure || res.first_failure.stage != ENC_WL_STAGE_SETUP ||
		    res.first_failure.status != cs->status) {
			fprintf(stderr, "process %u: failure %d stage %u status %d\n", proc,
				res.has_failure, res.first_failure.stage, res.first_failure.status);
			return CHILD_FAILED;
		}
		return CHILD_OK;
	}
	return CHILD_WRONG;
}

/*
 * Fork one child per process of @a, each running its share; @specs[p] says what child p checks
 * (NULL: all EXPECT_OK). Returns the wait statuses in @status.
 */
static pid_t g_pids[8]; /* the children of the last run_procs */

static void run_procs(struct enc_wl_args *a, const struct child_spec *specs, int *status)
{
	static const struct child_spec ok = { .expect = EXPECT_OK };
	pid_t pid[8];

	assert_true(a->procs <= 8);
	fflush(NULL);
	for (uint32_t p = 0; p < a->procs; p++) {
		pid[p] = fork();
		assert_true(pid[p] >= 0);
		if (pid[p] == 0)
			exit(child_main(a, p, specs ? &specs[p] : &ok)); /* exit: leak checks run */
	}
	for (uint32_t p = 0; p < a->procs; p++) {
		assert_int_equal(waitpid(pid[p], &status[p], 0), pid[p]);
		g_pids[p] = pid[p];
	}
}

/* The shm regions /dev/shm holds for process @pid (the ofi backend names them
 * "proxyscope-<pid>-..."). */
static int shm_regions_of(pid_t pid)
{
	char prefix[48];
	struct dirent *d;
	DIR *dir = opendir("/dev/shm");
	int n = 0;

	snprintf(prefix, sizeof(prefix), "proxyscope-%d-", (int)pid);
	while (dir && (d = readdir(dir)))
		n += !strncmp(d->d_name, prefix, strlen(prefix));
	if (dir)
		closedir(dir);
	return n;
}

static void job_name(char *buf, size_t len, const char *what)
{
	static unsigned n;

	snprintf(buf, len, "ofi-%s-%d-%u", what, (int)getpid(), n++);
}

static void exchange(uint32_t procs, uint32_t ranks, const char *provider,
		     enum enc_wl_pattern pattern)
{
	struct enc_wl_args a;
	char job[64];
	int status[8];

	job_name(job, sizeof(job), provider);
	args_base(&a, job, procs, ranks, provider, pattern);
	a.timeout_ms = HEALTHY_TIMEOUT_MS;
	run_procs(&a, NULL, status);
	for (uint32_t p = 0; p < procs; p++) {
		if (!WIFEXITED(status[p]) || WEXITSTATUS(status[p]) != CHILD_OK)
			fail_msg("%u procs x %u ranks, %s, %s: process %u ended with status 0x%x",
				 procs, ranks, provider, enc_wl_pattern_str(pattern), p, status[p]);
	}
}

static void test_ofi__ring_and_alltoall_over_tcp_in_1_2_and_4_processes(void **state)
{
	(void)state;
	exchange(1, 3, "tcp", ENC_WL_RING);
	exchange(2, 4, "tcp", ENC_WL_RING);
	exchange(4, 8, "tcp", ENC_WL_RING);
	exchange(2, 4, "tcp", ENC_WL_ALLTOALL);
	exchange(4, 4, "tcp", ENC_WL_ALLTOALL);
}

static void test_ofi__ring_and_alltoall_over_shm_in_1_2_and_4_processes(void **state)
{
	(void)state;
	exchange(1, 3, "shm", ENC_WL_RING);
	exchange(2, 4, "shm", ENC_WL_RING);
	exchange(4, 8, "shm", ENC_WL_RING);
	exchange(2, 4, "shm", ENC_WL_ALLTOALL);
	exchange(4, 4, NULL, ENC_WL_ALLTOALL); /* the default provider */
}

/*
 * @procs processes of 2 ranks each in a ring; the last process dies as its last rank starts
 * exec 7. Every other process must fail with -ESRCH within the watchdog: with 3 processes the
 * middle one's ranks trade only with live ranks, so their ops fail because the job lost a
 * process, not because their peer died.
 */
static void killed_process(const char *provider, uint32_t procs)
{
	struct child_spec specs[4];
	struct enc_wl_args a;
	char job[64], fault[48], err[ENC_WL_ERR_MAX];
	int status[4];
	int shm_left = 0;

	assert_true(procs >= 2 && procs <= 4);
	for (uint32_t p = 0; p < procs; p++)
		specs[p] = (struct child_spec){ .expect = p + 1 < procs ? EXPECT_PEER_DEAD : EXPECT_OK };
	job_name(job, sizeof(job), "kill");
	args_base(&a, job, procs, 2 * procs, provider, ENC_WL_RING);
	snprintf(fault, sizeof(fault), "kill:rank=%u,exec=7", 2 * procs - 1);
	assert_int_equal(enc_wl_args_add_fault(&a, fault, err, sizeof(err)), 0);
	pthread_mutex_lock(&g_log_mtx);
	g_log_want = "process (pid"; /* "rank 3's process (pid N) died", "... lost rank 5's ..." */
	pthread_mutex_unlock(&g_log_mtx);
	run_procs(&a, specs, status);
	for (uint32_t p = 0; p + 1 < procs; p++)
		if (!WIFEXITED(status[p]) || WEXITSTATUS(status[p]) != CHILD_OK)
			fail_msg("%s, %u processes: survivor %u ended with status 0x%x", provider,
				 procs, p, status[p]);
	assert_true(WIFSIGNALED(status[procs - 1]));
	assert_int_equal(WTERMSIG(status[procs - 1]), SIGKILL);
	/* nothing left behind: the survivors removed the dead process's shm regions */
	for (uint32_t p = 0; p < procs; p++)
		shm_left += shm_regions_of(g_pids[p]);
	assert_int_equal(shm_left, 0);
}

static void test_ofi__a_killed_process_fails_the_others_with_esrch_in_time(void **state)
{
	(void)state;
	killed_process("tcp", 2);
	killed_process("shm", 2);
	killed_process("tcp", 3);
	killed_process("shm", 3);
}

static void test_ofi__a_provider_that_does_not_exist_fails_the_setup(void **state)
{
	struct child_spec specs[2] = { { .expect = EXPECT_SETUP, .status = -ENODATA },
				       { .expect = EXPECT_SETUP, .status = -ENODATA } };
	struct enc_wl_args a;
	char job[64];
	int status[2];

	(void)state;
	job_name(job, sizeof(job), "nope");
	args_base(&a, job, 2, 2, "no-such-provider", ENC_WL_RING);
	run_procs(&a, specs, status);
	for (int p = 0; p < 2; p++)
		assert_int_equal(status[p], 0);
}

static void test_ofi__processes_asking_for_different_providers_fail_the_setup(void **state)
{
	struct child_spec specs[2] = {
		{ .expect = EXPECT_SETUP, .status = -EPROTO, .provider = "tcp" },
		{ .expect = EXPECT_SETUP, .status = -EPROTO, .provider = "shm" },
	};
	struct enc_wl_args a;
	char job[64];
	int status[2];

	(void)state;
	job_name(job, sizeof(job), "mismatch");
	args_base(&a, job, 2, 2, NULL, ENC_WL_RING);
	run_procs(&a, specs, status);
	for (int p = 0; p < 2; p++)
		assert_int_equal(status[p], 0);
}

static void test_ofi__start_rejects_a_tag_above_40_bits(void **state)
{
	struct enc_net_open_args oa = { .job = "ofi-tag", .rank = 0, .nranks = 1,
					.options = "shm" };
	struct enc_net_op op = { .kind = ENC_NET_OP_SEND, .peer = 0, .bytes = 8,
				 .tag = UINT64_C(1) << 40 };
	char buf[8] = { 0 };
	void *src[1] = { buf };
	struct enc_net_block blk = { .ops = &op, .src_addr = src, .ops_n = 1 };
	struct enc_net_comm *nc;
	struct enc_net_req *req;

	(void)state;
	assert_int_equal(enc_net_ofi_ops.open(&oa, &nc), 0);
	assert_int_equal(enc_net_ofi_ops.start(nc, &blk, &req), -EINVAL);
	op.tag = (UINT64_C(1) << 40) - 1;
	assert_int_equal(enc_net_ofi_ops.start(nc, &blk, &req), 0);
	assert_int_equal(enc_net_ofi_ops.stop(nc, req), 0);
	enc_net_ofi_ops.close(nc);
}

static void on_signal(int sig)
{
	(void)sig;
}

/* In a child, so that this process never initializes libfabric (the exchanges fork). */
static int load_check_child(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGILL, SIGABRT };
	struct sigaction ours = { .sa_handler = on_signal }, now;
	char err[256];

	if (dlopen("libfabric.so.1", RTLD_LAZY | RTLD_NOLOAD))
		return 10; /* loaded before any use */
	for (size_t i = 0; i < 6; i++)
		if (sigaction(sigs[i], &ours, NULL))
			return 11;
	if (enc_net_check("ofi", "tcp", err, sizeof(err))) {
		fprintf(stderr, "enc_net_check: %s\n", err);
		return 12;
	}
	if (!dlopen("libfabric.so.1", RTLD_LAZY | RTLD_NOLOAD))
		return 13; /* not loaded by the check */
	for (size_t i = 0; i < 6; i++)
		if (sigaction(sigs[i], NULL, &now) || now.sa_handler != on_signal ||
		    (now.sa_flags & SA_SIGINFO))
			return 20 + (int)i; /* the load replaced our handler of sigs[i] */
	return 0;
}

/*
 * Nothing in this process has used the backend: libfabric is not loaded until a first use, and
 * libinfinipath's constructor (loaded with it) sets handlers for these six signals, which the
 * load must leave as the process had them.
 */
static void test_ofi__libfabric_is_loaded_by_the_first_use_and_keeps_our_handlers(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(load_check_child());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st))
		fail_msg("the load check failed with %d (10: loaded at start, 13: not by the first "
			 "use, 20+i: signal i of the six replaced)", WEXITSTATUS(st));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ofi__libfabric_is_loaded_by_the_first_use_and_keeps_our_handlers),
		cmocka_unit_test(test_ofi__ring_and_alltoall_over_tcp_in_1_2_and_4_processes),
		cmocka_unit_test(test_ofi__ring_and_alltoall_over_shm_in_1_2_and_4_processes),
		cmocka_unit_test(test_ofi__a_killed_process_fails_the_others_with_esrch_in_time),
		cmocka_unit_test(test_ofi__a_provider_that_does_not_exist_fails_the_setup),
		cmocka_unit_test(test_ofi__processes_asking_for_different_providers_fail_the_setup),
		cmocka_unit_test(test_ofi__start_rejects_a_tag_above_40_bits),
	};

	enc_log_set_hook(NULL, NULL, ENC_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
