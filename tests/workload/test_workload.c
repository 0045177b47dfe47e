/* SPDX-License-Identifier: MIT */
/*
 * The ring-exchange workload: its fault-spec parser, its payload pattern, and runs against the
 * real driver, devices and loop backend: a healthy ring moves every byte intact, at hundreds of
 * ranks too, and a stalled device (or every device of a process) ends the run with a reported
 * timeout instead of a hang.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <proxyscope/log.h>
#include <proxyscope/workload.h>

#include "workload/workload_int.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void parse_ok(const char *spec, struct enc_wl_fault *f)
{
	char err[ENC_WL_ERR_MAX] = "";
	int rc = enc_wl_fault_parse(spec, f, err, sizeof(err));

	if (rc)
		fail_msg("'%s' rejected: %s", spec, err);
}

static void test_workload__fault_parse_accepts_every_kind(void **state)
{
	struct enc_wl_fault f;

	(void)state;
	parse_ok("device-stall:rank=1,exec=2", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_DEV);
	assert_int_equal(f.dev.rank, 1);
	assert_int_equal(f.dev.f.kind, ENC_DEV_FAULT_NEVER_TRIGGER);
	assert_int_equal(f.dev.f.exec_id, 2);
	assert_int_equal(f.dev.f.stream, ENC_DEV_ALL_STREAMS);

	parse_ok("device-stall:exec=7,stream=3,rank=0", &f);
	assert_int_equal(f.dev.rank, 0);
	assert_int_equal(f.dev.f.exec_id, 7);
	assert_int_equal(f.dev.f.stream, 3);

	parse_ok("device-delay:rank=3,exec=4,ms=250", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_DEV);
	assert_int_equal(f.dev.rank, 3);
	assert_int_equal(f.dev.f.kind, ENC_DEV_FAULT_LATE);
	assert_int_equal(f.dev.f.exec_id, 4);
	assert_int_equal(f.dev.f.arg, 250);

	parse_ok("device-delay:rank=3,from=20,to=59,ms=5", &f);
	assert_int_equal(f.dev.f.kind, ENC_DEV_FAULT_LATE);
	assert_int_equal(f.dev.f.exec_id, 20);
	assert_int_equal(f.dev.f.exec_to, 59);
	assert_int_equal(f.dev.f.arg, 5);

	parse_ok("slow-link:host=0,exec=10,kbit=2000,peer=1", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_LINK);
	assert_int_equal(f.link.host, 0);
	assert_int_equal(f.link.peer, 1);
	assert_int_equal(f.link.exec_id, 10);
	assert_int_equal(f.link.kbit, 2000);
	parse_ok("slow-link:host=2,exec=0,kbit=64", &f);
	assert_int_equal(f.link.peer, ENC_WL_ALL_HOSTS);
	parse_ok("net-break:host=1,exec=0", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_LINK);
	assert_int_equal(f.link.host, 1);
	assert_int_equal(f.link.kbit, 0); /* a link fault of rate 0 */

	parse_ok("net-drop:rank=2,exec=9", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_NET);
	assert_int_equal(f.net.kind, ENC_NET_LOOP_FAULT_DROP);
	assert_int_equal(f.net.rank, 2);
	assert_int_equal(f.net.exec_id, 9);

	parse_ok("slow-progress:rank=5,us=100", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_NET);
	assert_int_equal(f.net.kind, ENC_NET_LOOP_FAULT_SLOW);
	assert_int_equal(f.net.rank, 5);
	assert_int_equal(f.net.exec_id, ENC_NET_LOOP_ANY_EXEC);
	assert_int_equal(f.net.exec_to, 0);
	assert_int_equal(f.net.arg, 100);

	/* slow progress that starts mid-run: to the end, or over a stretch */
	parse_ok("slow-progress:rank=1,us=2000,from=20", &f);
	assert_int_equal(f.net.kind, ENC_NET_LOOP_FAULT_SLOW);
	assert_int_equal(f.net.exec_id, 20);
	assert_int_equal(f.net.exec_to, ENC_NET_LOOP_ANY_EXEC);
	assert_int_equal(f.net.arg, 2000);
	parse_ok("slow-progress:from=3,to=8,rank=0,us=7", &f);
	assert_int_equal(f.net.exec_id, 3);
	assert_int_equal(f.net.exec_to, 8);

	parse_ok("kill:rank=3,exec=5", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_KILL);
	assert_int_equal(f.kill.rank, 3);
	assert_int_equal(f.kill.exec_id, 5);

	parse_ok("partition:exec=6,host=2", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_PARTITION);
	assert_int_equal(f.partition.host, 2);
	assert_int_equal(f.partition.exec_id, 6);

	/* every rank of one process; a rank far past the old 128-rank bound */
	parse_ok("device-stall:exec=3,proc=1", &f);
	assert_int_equal(f.target, ENC_WL_FAULT_DEV);
	assert_true(f.dev.whole_proc);
	assert_int_equal(f.dev.proc, 1);
	assert_int_equal(f.dev.f.exec_id, 3);
	parse_ok("device-stall:rank=4095,exec=1", &f);
	assert_false(f.dev.whole_proc);
	assert_int_equal(f.dev.rank, 4095);
}

static int cut_never(void *arg)
{
	(void)arg;
	return -EPERM;
}

/* A partition needs a job across hosts, a host of it, and a way to cut the link. */
static void test_workload__a_partition_is_checked_against_the_hosts(void **state)
{
	struct enc_wl_args a;
	char err[ENC_WL_ERR_MAX] = "";

	(void)state;
	enc_wl_args_default(&a);
	assert_int_equal(enc_wl_args_add_fault(&a, "partition:host=1,exec=2", err, sizeof(err)), 0);
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "across at least 2 hosts"));
	a.hosts = 2;
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "nothing can cut"));
	a.link_cut = cut_never;
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), 0);
	a.faults[0].partition.host = 2;
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "host 2 out of range (hosts=2)"));
}

static int slow_never(void *arg, const uint32_t *hosts, size_t n, uint32_t kbit)
{
	(void)arg, (void)hosts, (void)n, (void)kbit;
	return -EPERM;
}

/* A slow link or a break needs a job across hosts, hosts of it, two ends, a way to limit it. */
static void test_workload__a_slow_link_is_checked_against_the_hosts(void **state)
{
	struct enc_wl_args a;
	char err[ENC_WL_ERR_MAX] = "";

	(void)state;
	enc_wl_args_default(&a);
	assert_int_equal(enc_wl_args_add_fault(&a, "slow-link:host=0,peer=1,exec=2,kbit=100", err,
					       sizeof(err)), 0);
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "across at least 2 hosts"));
	a.hosts = 2;
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "nothing can limit"));
	a.link_slow = slow_never;
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), 0);
	a.faults[0].link.peer = 2;
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "host 2 out of range (hosts=2)"));
	a.faults[0].link.peer = 0;
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "to itself"));
	a.faults[0].link.peer = ENC_WL_ALL_HOSTS;
	a.faults[0].link.kbit = 0; /* a net-break */
	assert_int_equal(enc_wl_args_check(&a, err, sizeof(err)), 0);
}

static void test_workload__fault_parse_rejects_with_reason(void **state)
{
	static const struct {
		const char *spec;
		const char *reason; /* must appear in the message */
	} bad[] = {
		{ "disk-fire:rank=1,exec=2", "disk-fire" },       /* unknown kind */
		{ "", "unknown fault kind" },
		{ "device-stall", "rank" },                        /* missing keys */
		{ "device-stall:rank=1", "exec" },
		{ "device-delay:rank=1,exec=2", "ms" },
		{ "device-delay:rank=1,ms=2", "exec" },
		{ "device-delay:rank=1,from=2,ms=2", "'to'" },
		{ "device-delay:rank=1,exec=1,from=2,to=3,ms=2", "not both" },
		{ "device-delay:rank=1,from=3,to=3,ms=2", "below" },
		{ "device-stall:rank=1,from=2,to=3", "'from'" },
		{ "slow-progress:us=5", "rank" },
		{ "slow-progress:rank=1,us=5,to=9", "'from'" },
		{ "slow-link:host=0,exec=1,kbit=0", "net-break" },
		{ "slow-link:host=0,exec=1", "'kbit'" },
		{ "net-break:host=0,exec=1,kbit=5", "'kbit'" },
		{ "slow-progress:rank=1,us=5,from=9,to=9", "below" },
		{ "device-stall:rank=x,exec=2", "'x'" },           /* malformed values */
		{ "device-stall:rank=-1,exec=2", "'-1'" },
		{ "device-stall:rank=1,exec=", "exec" },
		{ "device-stall:rank=1,exec=2z", "'2z'" },
		{ "net-drop:rank=1,exec=99999999999999999999", "99999999999999999999" },
		{ "device-stall:rank=1,exec=2,stream=4", "stream=4" }, /* out of range */
		{ "device-delay:rank=1,exec=2,ms=4294967296", "4294967296" },
		{ "net-drop:rank=4294967295,exec=1", "rank=4294967295" },
		{ "device-stall:rank=1,proc=0,exec=2", "not both" },
		{ "device-stall:proc=x,exec=2", "'x'" },
		{ "net-drop:proc=0,exec=2", "'proc'" },
		{ "net-drop:rank=1,exec=2,color=3", "'color'" },   /* unknown / misplaced keys */
		{ "slow-progress:rank=1,us=2,exec=3", "'exec'" },
		{ "device-stall:rank=1,rank=2,exec=2", "'rank'" }, /* duplicate */
		{ "device-stall:rank=1,,exec=2", "key=value" },
		{ "device-stall:rank=1,exec=2,", "trailing" },
		{ "partition:host=1", "exec" },
		{ "partition:rank=1,exec=2", "'rank'" },
		{ "device-stall:host=1,exec=2", "'host'" },
	};
	struct enc_wl_fault f;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[ENC_WL_ERR_MAX] = "";
		int rc = enc_wl_fault_parse(bad[i].spec, &f, err, sizeof(err));

		if (rc != -EINVAL)
			fail_msg("'%s': rc %d, expected -EINVAL", bad[i].spec, rc);
		if (!strstr(err, bad[i].reason))
			fail_msg("'%s': reason '%s' does not name '%s'", bad[i].spec, err,
				 bad[i].reason);
		if (strchr(err, '\n'))
			fail_msg("'%s': reason '%s' is not one line", bad[i].spec, err);
	}
	/* no error buffer is fine too */
	assert_int_equal(enc_wl_fault_parse("nope", &f, NULL, 0), -EINVAL);
}

static void test_workload__fault_format_round_trips(void **state)
{
	static const char *const specs[] = {
		"device-stall:rank=1,exec=2",
		"device-stall:rank=1,exec=2,stream=3",
		"device-delay:rank=3,exec=4,ms=250",
		"device-delay:rank=3,ms=5,from=20,to=59",
		"net-drop:rank=2,exec=9",
		"slow-link:host=0,exec=10,peer=1,kbit=2000",
		"slow-link:host=2,exec=0,kbit=64",
		"net-break:host=1,exec=0",
		"net-break:host=1,exec=3,peer=0",
		"slow-progress:rank=5,us=100",
		"slow-progress:rank=5,us=100,from=20",
		"slow-progress:rank=5,us=100,from=20,to=30",
		"kill:rank=3,exec=5",
		"partition:host=1,exec=4",
		"device-stall:proc=1,exec=3",
		"device-delay:proc=0,exec=2,ms=5",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct enc_wl_fault f;
		char buf[96];

		parse_ok(specs[i], &f);
		assert_int_equal(enc_wl_fault_format(&f, buf, sizeof(buf)), strlen(specs[i]));
		assert_string_equal(buf, specs[i]);
	}
}

static void test_workload__args_add_fault_bounds_the_list(void **state)
{
	struct enc_wl_args args;
	char err[ENC_WL_ERR_MAX];

	(void)state;
	enc_wl_args_default(&args);
	for (int i = 0; i < ENC_WL_MAX_FAULTS; i++)
		assert_int_equal(enc_wl_args_add_fault(&args, "net-drop:rank=0,exec=1", err,
						       sizeof(err)), 0);
	assert_int_equal(enc_wl_args_add_fault(&args, "net-drop:rank=0,exec=1", err, sizeof(err)),
			 -ENOSPC);
	assert_int_equal(args.faults_n, ENC_WL_MAX_FAULTS);
	enc_wl_args_default(&args);
	assert_int_equal(enc_wl_args_add_fault(&args, "bogus", err, sizeof(err)), -EINVAL);
	assert_int_equal(args.faults_n, 0);
}

static void test_workload__pattern_depends_on_rank_exec_and_offset(void **state)
{
	enum { LEN = 1003 };
	uint8_t *buf = malloc(LEN);

	(void)state;
	assert_non_null(buf);
	enc__wl_pattern_fill(buf, LEN, 3, 7);
	assert_int_equal(enc__wl_pattern_check(buf, LEN, 3, 7), 0);
	assert_true(enc__wl_pattern_check(buf, LEN, 2, 7) > LEN / 2);
	assert_true(enc__wl_pattern_check(buf, LEN, 3, 8) > LEN / 2);
	assert_true(enc__wl_pattern_check(buf + 8, LEN - 8, 3, 7) > (LEN - 8) / 2);
	buf[LEN - 1] ^= 1;
	buf[10] ^= 0x80;
	assert_int_equal(enc__wl_pattern_check(buf, LEN, 3, 7), 2);
	free(buf);
}

static void test_workload__run_rejects_bad_args(void **state)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	char err[ENC_WL_ERR_MAX];

	(void)state;
	enc_wl_args_default(&args);
	args.ranks = 4;
	assert_int_equal(enc_wl_args_add_fault(&args, "device-stall:rank=9,exec=2", err,
					       sizeof(err)), 0);
	assert_int_equal(enc_wl_run(&args, &res), -EINVAL);
	assert_non_null(strstr(res.err, "rank 9"));

	enc_wl_args_default(&args);
	assert_int_equal(enc_wl_args_add_fault(&args, "device-stall:rank=1,exec=2,stream=1", err,
					       sizeof(err)), 0);
	assert_int_equal(enc_wl_run(&args, &res), -EINVAL); /* one stream only */
	assert_non_null(strstr(res.err, "stream 1"));

	enc_wl_args_default(&args);
	args.streams = ENC_MAX_STREAMS + 1;
	assert_int_equal(enc_wl_run(&args, &res), -EINVAL);
	assert_non_null(strstr(res.err, "streams"));

	enc_wl_args_default(&args);
	args.streams = 2;
	args.blocks = 2;
	args.bytes = 3;
	assert_int_equal(enc_wl_run(&args, &res), -EINVAL);
	assert_non_null(strstr(res.err, "bytes=3"));

	enc_wl_args_default(&args);
	assert_int_equal(enc_wl_args_add_fault(&args, "device-stall:proc=1,exec=2", err,
					       sizeof(err)), 0);
	assert_int_equal(enc_wl_run(&args, &res), -EINVAL); /* one process only */
	assert_non_null(strstr(res.err, "process 1 out of range"));
	assert_null(res.execs_completed);
}

static void run_ok(struct enc_wl_args *args, struct enc_wl_result *res)
{
	int rc;

	/* A healthy run has no stall at all: the default 2 s watchdog fired on one (rank 1 exec 5)
	 * under the asan preset at load 20, with nothing wrong. */
	args->timeout_ms = 30000;
	rc = enc_wl_run(args, res);

	if (rc)
		fail_msg("enc_wl_run: %d (%s)", rc, res->err);
	if (res->has_failure)
		fail_msg("rank %u exec %llu: %s failed, status %d", res->first_failure.rank,
			 (unsigned long long)res->first_failure.exec_id,
			 enc_wl_stage_str((enum enc_wl_stage)res->first_failure.stage),
			 res->first_failure.status);
	assert_int_equal(res->mismatches, 0);
	assert_true(enc_wl_result_is_ok(args, res));
	for (uint32_t r = 0; r < args->ranks; r++)
		assert_int_equal(res->execs_completed[r], args->ops);
	assert_int_equal(res->bytes_verified,
			 (uint64_t)args->ranks * args->ops * args->bytes * enc__wl_peers(args));
	assert_int_equal(res->stats.tasks_enqueued, 2ull * args->ranks * args->ops);
	assert_int_equal(res->stats.watchdog_timeouts, 0);
	enc_wl_result_fini(res);
}

static void test_workload__healthy_ring_moves_every_byte(void **state)
{
	struct enc_wl_args args;
	struct enc_wl_result res;

	(void)state;
	enc_wl_args_default(&args);
	args.ranks = 8;
	args.ranks_per_proxy = 2;
	args.ops = 20;
	args.bytes = 64 * 1024;
	run_ok(&args, &res);
	assert_int_equal(res.stats.workers_started, 4); /* one per gid, not one per comm */
	assert_non_null(strstr(res.job, "wl-"));
}

/* No fixed rank bound: 4 times the old limit of 128 in a ring, past it all-to-all. */
static void test_workload__hundreds_of_ranks_run_in_one_process(void **state)
{
	struct enc_wl_args args;
	struct enc_wl_result res;

	(void)state;
	enc_wl_args_default(&args);
	args.ranks = 512;
	args.ranks_per_proxy = 16;
	args.ops = 3;
	args.bytes = 1024;
	args.timeout_ms = 60000; /* bounds a hang only: 1024 threads on a busy machine */
	run_ok(&args, &res);
	assert_int_equal(res.stats.workers_started, 32);

	enc_wl_args_default(&args);
	args.ranks = 160;
	args.ranks_per_proxy = 16;
	args.ops = 2;
	args.bytes = 64;
	args.pattern = ENC_WL_ALLTOALL;
	args.timeout_ms = 60000;
	run_ok(&args, &res);
}

static void test_workload__streams_and_blocks_split_the_bytes(void **state)
{
	struct enc_wl_args args;
	struct enc_wl_result res;

	(void)state;
	enc_wl_args_default(&args);
	args.ranks = 4;
	args.ranks_per_proxy = 4;
	args.ops = 10;
	args.streams = 3;
	args.blocks = 3;
	args.bytes = 100003; /* not a multiple of 9: chunks of unequal length */
	run_ok(&args, &res);
	assert_int_equal(res.stats.workers_started, 1);
}

static void test_workload__late_trigger_and_slow_progress_still_complete(void **state)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	char err[ENC_WL_ERR_MAX];

	(void)state;
	enc_wl_args_default(&args);
	args.ops = 5;
	args.bytes = 40000;
	assert_int_equal(enc_wl_args_add_fault(&args, "device-delay:rank=2,exec=1,ms=100", err,
					       sizeof(err)), 0);
	assert_int_equal(enc_wl_args_add_fault(&args, "slow-progress:rank=0,us=200", err,
					       sizeof(err)), 0);
	run_ok(&args, &res);
}

/* Run a fault that must stop the ring; check it ends soon, joined and freed, with a timeout. */
static void run_stalled(const char *spec, uint32_t faulty_rank, uint64_t faulty_exec)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	char err[ENC_WL_ERR_MAX];
	uint64_t t0, ms;

	enc_wl_args_default(&args);
	args.ranks = 4;
	args.ranks_per_proxy = 2;
	args.ops = 10;
	args.bytes = 16 * 1024;
	args.timeout_ms = 500;
	assert_int_equal(enc_wl_args_add_fault(&args, spec, err, sizeof(err)), 0);

	t0 = now_ms();
	assert_int_equal(enc_wl_run(&args, &res), 0);
	ms = now_ms() - t0;

	if (ms > 5000)
		fail_msg("'%s': the run took %llu ms", spec, (unsigned long long)ms);
	assert_false(enc_wl_result_is_ok(&args, &res));
	assert_true(res.has_failure);
	assert_true(res.timeouts >= 1);
	assert_true(res.failures >= res.timeouts);
	assert_true(res.stats.watchdog_timeouts >= 1);
	assert_int_equal(res.mismatches, 0);
	/* the execs before the fault are untouched; the faulty rank stops at its exec */
	for (uint32_t r = 0; r < args.ranks; r++)
		assert_true(res.execs_completed[r] >= faulty_exec);
	assert_int_equal(res.execs_completed[faulty_rank], faulty_exec);
	assert_true(res.first_failure.exec_id >= faulty_exec);
	assert_int_equal(res.first_failure.status, -ETIMEDOUT);
	enc_wl_result_fini(&res);
}

/* proc=0 of a one-process run: every rank's device stalls at the exec, none gets past it. */
static void test_workload__a_process_stall_stops_every_rank(void **state)
{
	struct enc_wl_args args;
	struct enc_wl_result res;
	char err[ENC_WL_ERR_MAX];
	bool one_reached = false;

	(void)state;
	enc_wl_args_default(&args);
	args.ranks = 6;
	args.ops = 4;
	args.bytes = 4096;
	args.timeout_ms = 2000; /* ends the stalled exec; the ones before have it to finish */
	assert_int_equal(enc_wl_args_add_fault(&args, "device-stall:proc=0,exec=1", err,
					       sizeof(err)), 0);
	assert_int_equal(enc_wl_run(&args, &res), 0);
	assert_int_equal(res.failures, args.ranks);
	for (uint32_t r = 0; r < args.ranks; r++) {
		assert_true(res.execs_completed[r] <= 1);
		one_reached |= res.execs_completed[r] == 1;
	}
	assert_true(one_reached); /* exec 0 passed: it is exec 1 that stopped them */
	enc_wl_result_fini(&res);
}

static void test_workload__device_stall_ends_with_a_timeout(void **state)
{
	(void)state;
	run_stalled("device-stall:rank=1,exec=2", 1, 2);
}

static void test_workload__net_drop_ends_with_a_timeout(void **state)
{
	(void)state;
	/* rank 0's sends of exec 1 are lost: rank 1 never receives them */
	run_stalled("net-drop:rank=0,exec=1", 1, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workload__fault_parse_accepts_every_kind),
		cmocka_unit_test(test_workload__fault_parse_rejects_with_reason),
		cmocka_unit_test(test_workload__fault_format_round_trips),
		cmocka_unit_test(test_workload__a_partition_is_checked_against_the_hosts),
		cmocka_unit_test(test_workload__a_slow_link_is_checked_against_the_hosts),
		cmocka_unit_test(test_workload__args_add_fault_bounds_the_list),
		cmocka_unit_test(test_workload__pattern_depends_on_rank_exec_and_offset),
		cmocka_unit_test(test_workload__run_rejects_bad_args),
		cmocka_unit_test(test_workload__healthy_ring_moves_every_byte),
		cmocka_unit_test(test_workload__hundreds_of_ranks_run_in_one_process),
		cmocka_unit_test(test_workload__streams_and_blocks_split_the_bytes),
		cmocka_unit_test(test_workload__late_trigger_and_slow_progress_still_complete),
		cmocka_unit_test(test_workload__device_stall_ends_with_a_timeout),
		cmocka_unit_test(test_workload__net_drop_ends_with_a_timeout),
		cmocka_unit_test(test_workload__a_process_stall_stops_every_rank),
	};

	if (getenv("PROXYSCOPE_TEST_VERBOSE"))
		enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_DEBUG);
	else
		enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
