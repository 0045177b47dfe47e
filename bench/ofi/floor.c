/* SPDX-License-Identifier: MIT */
/*
 * The floor of bench_ofi's added latency: what the proxy's thread layout costs with no work at
 * all. Two processes exchange a token through shared memory (ping-pong, one-way = half a round
 * trip), first directly between their main threads (fi_pingpong's shape: one thread a process),
 * then as the proxy does it: the caller hands the token to its process's worker thread, the
 * worker to the other process's worker, that worker to its caller; and back. Every wait is a
 * yield loop - the cheapest wait that shares the CPUs (four spinning threads on two CPUs stall).
 * The difference of the two one-way times is the least a thread-per-process proxy adds on this
 * machine, before any queue, task or provider work. Each process is bound to the CPU bench_ofi
 * binds that rank to (-1: not bound), so the layout is the proxy ping-pong's.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_ofi.h"
#include "enc/time.h"

/* The shared page: one counter per hand-off, each on its own cache line. Counters only grow:
 * the waiter for round i waits until its counter reaches i. */
struct floor_page {
	_Alignas(64) uint64_t to_worker[2]; /* caller of process p -> its worker */
	_Alignas(64) uint64_t to_caller[2]; /* worker of process p -> its caller */
	_Alignas(64) uint64_t wire[2];      /* -> process p (the other process wrote it) */
};

struct floor_run {
	struct floor_page *pg;
	unsigned p;      /* this process: 0 or 1 */
	unsigned rounds;
	int cpu[2];      /* where process p runs, or -1 */
};

static void wait_for(uint64_t *word, uint64_t v)
{
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < v)
		sched_yield();
}

static void post(uint64_t *word, uint64_t v)
{
	__atomic_store_n(word, v, __ATOMIC_RELEASE);
}

/* The worker of process r->p: relays between its caller and the wire. */
static void *worker(void *arg)
{
	struct floor_run *r = arg;
	struct floor_page *pg = r->pg;
	unsigned p = r->p, q = 1 - p;

	for (uint64_t i = 1; i <= r->rounds; i++) {
		if (p == 0) {
			wait_for(&pg->to_worker[0], i);
			post(&pg->wire[q], i);
			wait_for(&pg->wire[p], i);
			post(&pg->to_caller[0], i);
		} else {
			wait_for(&pg->wire[p], i);
			post(&pg->to_caller[1], i);
			wait_for(&pg->to_worker[1], i);
			post(&pg->wire[q], i);
		}
	}
	return NULL;
}

/* One process's side; returns the ns of its rounds (meaningful for process 0). */
static uint64_t side(struct floor_run *r, bool proxied)
{
	struct floor_page *pg = r->pg;
	unsigned p = r->p, q = 1 - p;
	pthread_t th;
	uint64_t t0;

	if (bench_bind_to(r->cpu[p]) || (proxied && pthread_create(&th, NULL, worker, r)))
		return 0;
	t0 = enc_now_ns();
	for (uint64_t i = 1; i <= r->rounds; i++) {
		uint64_t *out = proxied ? &pg->to_worker[p] : &pg->wire[q];
		uint64_t *in = proxied ? &pg->to_caller[p] : &pg->wire[p];

		if (p == 0) {
			post(out, i);
			wait_for(in, i);
		} else {
			wait_for(in, i);
			post(out, i);
		}
	}
	t0 = enc_now_ns() - t0;
	if (proxied)
		pthread_join(th, NULL);
	return t0;
}

/* One ping-pong of @rounds between this process and a child; the one-way time in us. */
static int pingpong(unsigned rounds, bool proxied, const int cpu[2], double *one_way_us)
{
	struct floor_run r = { .rounds = rounds, .cpu = { cpu[0], cpu[1] } };
	cpu_set_t was;
	uint64_t ns;
	int st;
	pid_t pid;

	if (sched_getaffinity(0, sizeof(was), &was))
		return -errno;
	r.pg = mmap(NULL, sizeof(*r.pg), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r.pg == MAP_FAILED)
		return -errno;
	pid = fork();
	if (pid == 0) {
		r.p = 1;
		side(&r, proxied);
		_exit(0);
	}
	if (pid < 0) {
		munmap(r.pg, sizeof(*r.pg));
		return -EAGAIN;
	}
	r.p = 0;
	ns = side(&r, proxied);
	sched_setaffinity(0, sizeof(was), &was); /* side() bound this process */
	waitpid(pid, &st, 0);
	munmap(r.pg, sizeof(*r.pg));
	if (!ns || !WIFEXITED(st) || WEXITSTATUS(st))
		return -EIO;
	*one_way_us = (double)ns / 1000.0 / rounds / 2.0;
	return 0;
}

int bench_handoff_floor(unsigned rounds, const int cpu[2], double *direct_us, double *proxied_us)
{
	int rc = pingpong(rounds, false, cpu, direct_us);

	return rc ? rc : pingpong(rounds, true, cpu, proxied_us);
}
