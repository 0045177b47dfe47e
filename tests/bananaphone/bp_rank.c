/* SPDX-License-Identifier: MIT */
/*
 * bp_rank: one local rank of a bananaphone bus, as a separate program the tests fork and exec,
 * so every rank is a real process with its own address space (the memfd lands at a different
 * address in each) and nothing is inherited but the job name.
 *
 *	bp_rank <scenario> <job> <local_rank> <local_nranks> <record_size> [key=value ...]
 *
 * Scenarios:
 *   check    join; `iters` rounds of all-gather + broadcast + barrier, every record checked
 *            byte for byte; then `barriers` barriers in a row; hang up; clean up
 *   loop     join; `op` (barrier | allgather) up to `iters` times or until one fails
 *   join     join, then clean up at once (bad-input cases)
 *   hangup   join; sleep `sleep_ms`; hang up; then a barrier must return -ESHUTDOWN
 *   sleep    join; sleep `sleep_ms`; then a barrier (a late rank)
 *   poll     join; print every member's pid; bp_check every millisecond, up to `iters` times
 *            or until it fails (iter = the checks that returned 0)
 *   die      exit by SIGKILL before calling create/connect at all
 * Options: join_ms, op_ms, iters, barriers, op, sleep_ms, version (speak another version),
 *   no_pidfd=1 (the /proc fallback), die=<point>:<seq> (SIGKILL itself at a fault point:
 *   half (mid-record), published, arrived; seq = the collective number; requested:0 = right
 *   after its HELLO went out).
 *
 * Output (stdout, one write per line, so a SIGKILL loses nothing): "requested ns=<t>" once a
 * peer's HELLO is sent, "joined ns=<t>" once create/connect returned 0, "members pid0=<pid>
 * ... beyond=<bp_bus_member_pid of local_nranks>" (poll), "dying ns=<t>" just
 * before a planned death, and one "result rc=<n> iter=<i> joined_ns=<t> err_ns=<t> fd_leak=<n>
 * map_leak=<n> torn=<0|1> failed_rank=<r>" line at the end (times: CLOCK_MONOTONIC, the same
 * clock in every process; joined = create/connect returned, err = the failing call returned).
 * The exit status is 0 unless the program itself broke (bad usage: 2, a record mismatch: 3).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/bananaphone.h>

#include "bananaphone/bp_internal.h"
#include "bp_harness.h"

struct opts {
	const char *scenario;
	struct bp_args args;
	unsigned iters;
	unsigned barriers;
	unsigned sleep_ms;
	const char *op;
	int die_point;      /* -1: none */
	uint32_t die_seq;
};

static struct opts g;

static void die_now(void)
{
	dprintf(1, "dying ns=%llu\n", (unsigned long long)bp__now_ns());
	raise(SIGKILL);
}

static void fault(enum bp_fault_point point, uint32_t seq)
{
	if (point == BP_FAULT_REQUESTED)
		dprintf(1, "requested ns=%llu\n", (unsigned long long)bp__now_ns());
	if ((int)point == g.die_point && seq == g.die_seq)
		die_now();
}

static int parse_die(const char *v)
{
	const char *colon = strchr(v, ':');

	if (!colon)
		return -1;
	for (int i = 0; i < BP_FAULT_POINT_NR; i++) {
		const char *name = bp__fault_point_str((enum bp_fault_point)i);

		if (strlen(name) == (size_t)(colon - v) && !strncmp(v, name, (size_t)(colon - v))) {
			g.die_point = i;
			g.die_seq = (uint32_t)strtoul(colon + 1, NULL, 10);
			return 0;
		}
	}
	return -1;
}

static int parse(int argc, char **argv)
{
	if (argc < 6)
		return -1;
	g = (struct opts){ .scenario = argv[1], .iters = 100, .op = "barrier", .die_point = -1 };
	g.args.job = argv[2];
	g.args.local_rank = (uint32_t)strtoul(argv[3], NULL, 10);
	g.args.local_nranks = (uint32_t)strtoul(argv[4], NULL, 10);
	g.args.record_size = (uint32_t)strtoul(argv[5], NULL, 10);
	g.args.join_timeout_ms = 10000;
	for (int i = 6; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *v = eq ? eq + 1 : "";

		if (!eq)
			return -1;
		*eq = '\0';
		if (!strcmp(argv[i], "join_ms"))
			g.args.join_timeout_ms = (uint32_t)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "op_ms"))
			g.args.op_timeout_ms = (uint32_t)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "iters"))
			g.iters = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "barriers"))
			g.barriers = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "sleep_ms"))
			g.sleep_ms = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "op"))
			g.op = v;
		else if (!strcmp(argv[i], "version"))
			bp__test.version = (uint32_t)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "no_pidfd"))
			bp__test.no_pidfd = atoi(v) != 0;
		else if (!strcmp(argv[i], "die")) {
			if (parse_die(v))
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

/* Rank @r's record of round @i: every byte depends on both. */
static void pattern(unsigned char *buf, uint32_t size, uint32_t r, unsigned i)
{
	uint32_t x = 0x9e3779b9u * (r + 1) ^ (i * 0x85ebca6bu);

	for (uint32_t b = 0; b < size; b++) {
		x = x * 1664525u + 1013904223u;
		buf[b] = (unsigned char)(x >> 24);
	}
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The check scenario's rounds; 0, a bus error, or 3 (a record came back wrong). */
static int run_check(struct bp_bus *bus, unsigned *iter)
{
	uint32_t n = g.args.local_nranks, size = g.args.record_size, me = g.args.local_rank;
	unsigned char *mine = malloc(size), *all = malloc((size_t)size * n), *want = malloc(size);
	int rc = 0;

	for (unsigned i = 0; !rc && i < g.iters; i++, (*iter)++) {
		pattern(mine, size, me, i);
		rc = bp_allgather(bus, mine, all);
		for (uint32_t r = 0; !rc && r < n; r++) {
			pattern(want, size, r, i);
			if (memcmp(all + (size_t)r * size, want, size))
				rc = 3;
		}
		if (!rc) {
			pattern(mine, size, me == 0 ? 1000 : me, i); /* peers' input is overwritten */
			rc = bp_broadcast(bus, mine);
			pattern(want, size, 1000, i);
			if (!rc && memcmp(mine, want, size))
				rc = 3;
		}
		if (!rc)
			rc = bp_barrier(bus);
	}
	for (unsigned i = 0; !rc && i < g.barriers; i++, (*iter)++)
		rc = bp_barrier(bus);
	free(mine);
	free(all);
	free(want);
	return rc;
}

static int run_loop(struct bp_bus *bus, unsigned *iter)
{
	uint32_t size = g.args.record_size;
	unsigned char *mine = calloc(1, size), *all = calloc(g.args.local_nranks, size);
	bool gather = !strcmp(g.op, "allgather");
	int rc = 0;

	for (; !rc && *iter < g.iters; (*iter)++)
		rc = gather ? bp_allgather(bus, mine, all) : bp_barrier(bus);
	free(mine);
	free(all);
	return rc;
}

/* The poll scenario: every member's pid as the bus knows it, then bp_check until it fails. */
static int run_poll(struct bp_bus *bus, unsigned *iter)
{
	char line[512];
	int len = snprintf(line, sizeof(line), "members");
	int rc = 0;

	for (uint32_t r = 0; r < g.args.local_nranks && len < (int)sizeof(line) - 32; r++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, " pid%u=%d", r,
				bp_bus_member_pid(bus, r));
	dprintf(1, "%s beyond=%d\n", line, bp_bus_member_pid(bus, g.args.local_nranks));
	for (; *iter < g.iters; (*iter)++) {
		rc = bp_check(bus);
		if (rc)
			break;
		sleep_ms(1);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct bp_bus *bus = NULL;
	unsigned iter = 0;
	uint64_t err_ns = 0, joined_ns;
	int fds_before, rc, torn = 0, failed = -1;

	if (parse(argc, argv)) {
		fprintf(stderr, "usage: bp_rank <scenario> <job> <rank> <nranks> <size> [k=v...]\n");
		return 2;
	}
	if (!strcmp(g.scenario, "die"))
		die_now();
	bp__test.fault = fault;
	fds_before = bp_count_fds();
	rc = g.args.local_rank == 0 ? bp_create(&g.args, &bus) : bp_connect(&g.args, &bus);
	joined_ns = bp__now_ns();
	if (!rc)
		dprintf(1, "joined ns=%llu\n", (unsigned long long)joined_ns);
	if (!rc && !strcmp(g.scenario, "check")) {
		rc = run_check(bus, &iter);
		if (!rc)
			rc = bp_hangup(bus);
	} else if (!rc && !strcmp(g.scenario, "loop")) {
		rc = run_loop(bus, &iter);
	} else if (!rc && !strcmp(g.scenario, "hangup")) {
		sleep_ms(g.sleep_ms);
		rc = bp_hangup(bus);
		if (!rc)
			rc = bp_barrier(bus) == -ESHUTDOWN && bp_hangup(bus) == -ESHUTDOWN ? 0 : 3;
	} else if (!rc && !strcmp(g.scenario, "poll")) {
		rc = run_poll(bus, &iter);
	} else if (!rc && !strcmp(g.scenario, "sleep")) {
		sleep_ms(g.sleep_ms);
		rc = bp_barrier(bus);
	}
	if (rc)
		err_ns = bp__now_ns();
	if (bus) {
		/* Was the failure a member that stopped half way through its record? */
		failed = bp_bus_failed_rank(bus);
		if (failed >= 0 && (uint32_t)failed < g.args.local_nranks)
			torn = bp__ring_is_torn(bus, (uint32_t)failed);
		bp_cleanup(bus);
	}
	dprintf(1, "result rc=%d iter=%u joined_ns=%llu err_ns=%llu fd_leak=%d map_leak=%d torn=%d "
		"failed_rank=%d\n", rc, iter, (unsigned long long)joined_ns,
		(unsigned long long)err_ns, bp_count_fds() - fds_before,
		bp_count_maps("memfd:bananaphone"), torn, failed);
	return rc == 3 ? 3 : 0;
}
