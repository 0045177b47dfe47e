/* SPDX-License-Identifier: MIT */
/* The host bootstrap wired into global-comm setup (seed §1): processes of one job meet on the
 * bananaphone bus inside enc_setup_global_comm, a process's comms of the job share its seat,
 * and the last enc_free_global_comm leaves nothing behind. Real processes (fork). */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <proxyscope/bananaphone.h>
#include <proxyscope/proxy.h>

#include "fixture.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* One process: local rank @lr of 2, with comms for the given ranks of 3. Exit code = failures. */
static int member(const char *job, uint32_t lr, const uint32_t *ranks, int n)
{
	struct enc_config cfg;
	struct enc_comm *comms[2] = { NULL, NULL };
	char *mine, *all;
	size_t rsz;
	int fds = count_fds(), bad = 0;

	fx_fake_config(&cfg, 1);
	for (int i = 0; i < n; i++) {
		struct enc_comm_args a = { .job = job, .rank = ranks[i], .nranks = 3, .cfg = &cfg,
					   .local_rank = lr, .local_nranks = 2 };

		if (enc_setup_global_comm(&a, &comms[i]))
			return 10 + i;
	}
	if (n == 2 && enc_comm_bus(comms[0]) != enc_comm_bus(comms[1]))
		bad++; /* one seat per process and job */
	if (!enc_comm_bus(comms[0]))
		return 20;
	rsz = bp_bus_record_size(enc_comm_bus(comms[0])); /* the driver's choice */
	mine = calloc(1, rsz);
	all = calloc(2, rsz);
	if (!mine || !all)
		return 21;
	snprintf(mine, rsz, "process %u", lr);
	if (bp_allgather(enc_comm_bus(comms[0]), mine, all))
		return 22;
	if (strcmp(all, "process 0") || strcmp(all + rsz, "process 1"))
		bad++;
	free(mine);
	free(all);
	for (int i = 0; i < n; i++)
		enc_free_global_comm(comms[i]);
	if (count_fds() != fds)
		bad++; /* the bus's memfd, socket and pidfds are gone */
	return bad;
}

static void test_bootstrap__processes_meet_on_the_bus_during_setup(void **state)
{
	static const uint32_t ranks0[] = { 0, 2 }, ranks1[] = { 1 };
	char job[64];
	pid_t pid[2];

	snprintf(job, sizeof(job), "boot-%d", (int)getpid());
	for (uint32_t lr = 0; lr < 2; lr++) {
		pid[lr] = fork();
		assert_true(pid[lr] >= 0);
		if (pid[lr] == 0)
			_exit(lr == 0 ? member(job, 0, ranks0, 2) : member(job, 1, ranks1, 1));
	}
	for (int i = 0; i < 2; i++) {
		int status;

		assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
}

/* One comm of job @job: set up, rank @lr of 2 (local rank @lr of 2), then signal @started. */
struct job_setup {
	const char *job;
	uint32_t lr;
	int rc;
	struct enc_comm *comm;
	pthread_mutex_t *mtx;
	pthread_cond_t *cv;
	bool started;
};

static void *setup_thread(void *arg)
{
	struct job_setup *js = arg;
	struct enc_config cfg;
	struct enc_comm_args a = { .job = js->job, .rank = js->lr, .nranks = 2, .cfg = &cfg,
				   .local_rank = js->lr, .local_nranks = 2 };

	fx_fake_config(&cfg, 1);
	pthread_mutex_lock(js->mtx);
	js->started = true;
	pthread_cond_signal(js->cv);
	pthread_mutex_unlock(js->mtx);
	js->rc = enc_setup_global_comm(&a, &js->comm);
	return NULL;
}

/*
 * One process, local rank @lr of 2 in jobs @first and @second: the setup of @first starts, and
 * the setup of @second starts in another thread once the first is under way. Exit code =
 * failures.
 */
static int two_jobs_member(uint32_t lr, const char *first, const char *second)
{
	pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	struct job_setup js[2] = {
		{ .job = first, .lr = lr, .mtx = &mtx, .cv = &cv },
		{ .job = second, .lr = lr, .mtx = &mtx, .cv = &cv },
	};
	pthread_t t[2];
	int bad = 0;

	for (int i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, setup_thread, &js[i]))
			return 30;
		pthread_mutex_lock(&mtx);
		while (!js[i].started)
			pthread_cond_wait(&cv, &mtx);
		pthread_mutex_unlock(&mtx);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (js[i].rc)
			bad++;
	}
	if (!bad && enc_comm_bus(js[0].comm) == enc_comm_bus(js[1].comm))
		bad++; /* two jobs, two buses */
	for (int i = 0; i < 2; i++)
		enc_free_global_comm(js[i].rc ? NULL : js[i].comm);
	return bad;
}

/*
 * Two processes set up two jobs in opposite orders, each in two threads. A setup waits for the
 * other process inside the rendezvous; a lock held across it for every job would keep each
 * process from joining the job the other one waits in, until the join deadline failed both.
 */
static void test_bootstrap__two_jobs_set_up_in_opposite_orders_both_meet(void **state)
{
	char x[64], y[64];
	pid_t pid[2];

	snprintf(x, sizeof(x), "boot-x-%d", (int)getpid());
	snprintf(y, sizeof(y), "boot-y-%d", (int)getpid());
	for (uint32_t lr = 0; lr < 2; lr++) {
		pid[lr] = fork();
		assert_true(pid[lr] >= 0);
		if (pid[lr] == 0)
			_exit(lr == 0 ? two_jobs_member(0, x, y) : two_jobs_member(1, y, x));
	}
	for (int i = 0; i < 2; i++) {
		int status;

		assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
}

static void test_bootstrap__alone_on_the_host_there_is_no_bus(void **state)
{
	struct enc_config cfg;
	struct enc_comm_args a = { .job = "boot-alone", .rank = 0, .nranks = 1, .cfg = &cfg };
	struct enc_comm *comm;

	fx_fake_config(&cfg, 1);
	assert_int_equal(enc_setup_global_comm(&a, &comm), 0);
	assert_null(enc_comm_bus(comm));
	enc_free_global_comm(comm);
	a.local_nranks = 2;
	a.local_rank = 2; /* out of range */
	assert_int_equal(enc_setup_global_comm(&a, &comm), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bootstrap__processes_meet_on_the_bus_during_setup),
		cmocka_unit_test(test_bootstrap__two_jobs_set_up_in_opposite_orders_both_meet),
		cmocka_unit_test(test_bootstrap__alone_on_the_host_there_is_no_bus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
