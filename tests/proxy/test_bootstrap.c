/* The host bootstrap wired into global-comm setup (seed §1): processes of one job meet on the
 * bananaphone bus inside enc_setup_global_comm, a process's comms of the job share its seat,
 * and the last enc_free_global_comm leaves nothing behind. Real processes (fork). */
#include <dirent.h>
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
		cmocka_unit_test(test_bootstrap__alone_on_the_host_there_is_no_bus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
