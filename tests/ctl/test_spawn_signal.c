/* SPDX-License-Identifier: MIT */
/*
 * The terminal's Ctrl-C sent while `record` starts CMD (ctl_command_start): the signal goes to
 * the whole process group, and the one that reaches the child between fork() and exec() must
 * be the child's, not our handler's. Before ctl_spawn blocked signals around fork(), the child
 * ran our handler there - it said "interrupted" a second time and swallowed the signal, CMD
 * ran on, and `record` waited for it for ever (CI: test_field_sigint record-setup, hung).
 *
 * Each round starts `sleep 30` while another thread sends SIGINT to our group after a delay
 * that moves across the fork; the window is microseconds wide, so the rounds are many. A round
 * passes when exactly one acknowledgement was written (ours) and the child either died by
 * SIGINT or was forked after the signal had been taken (then it is killed here).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "command.h"
#include "signals.h"

#define ROUNDS 600
#define ACK "ack"

struct killer {
	pthread_barrier_t go;
	unsigned delay_ns;
};

static void spin_ns(unsigned ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((unsigned long long)(b.tv_sec - a.tv_sec) * 1000000000ull + b.tv_nsec - a.tv_nsec <
	       ns);
}

static void *killer_main(void *arg)
{
	struct killer *k = arg;

	pthread_barrier_wait(&k->go);
	spin_ns(k->delay_ns);
	killpg(getpgrp(), SIGINT);
	return NULL;
}

/* Lines written to @fd so far (non-blocking read of what is there). */
static int lines_in(int fd)
{
	char buf[4096];
	int n = 0;
	ssize_t r;

	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	return n;
}

/* The child's end: its wait status, or -1 when it still runs after @ms. */
static int wait_ms(pid_t pid, int ms)
{
	int st;

	for (int i = 0; i < ms; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(1000);
	}
	return -1;
}

static void test_ctrl_c_during_spawn(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	int p[2], died = 0, before = 0;
	unsigned fork_ns;
	struct timespec a, b;

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	/* How long one spawn takes here: the delays sweep 0 to twice that. */
	for (int i = 0; i < 2; i++) { /* the second: the first pays for page faults */
		struct ctl_command c;

		clock_gettime(CLOCK_MONOTONIC, &a);
		assert_int_equal(ctl_command_start(&c, argv, NULL), 0);
		clock_gettime(CLOCK_MONOTONIC, &b);
		kill(c.pid, SIGKILL);
		waitpid(c.pid, NULL, 0);
	}
	fork_ns = (unsigned)((b.tv_sec - a.tv_sec) * 1000000000ll + b.tv_nsec - a.tv_nsec);
	for (int round = 0; round < ROUNDS; round++) {
		struct killer k = { .delay_ns = (unsigned)((2ull * fork_ns * round) / ROUNDS) };
		struct ctl_sigcatch sigs;
		struct ctl_command c;
		pthread_t t;
		int st, said, taken;

		ctl_signals_catch(&sigs, false);
		ctl_signals_ack(ACK);
		ctl_signals_say_to(p[1], false);
		pthread_barrier_init(&k.go, NULL, 2);
		assert_int_equal(pthread_create(&t, NULL, killer_main, &k), 0);
		pthread_barrier_wait(&k.go);
		taken = ctl_signals_count();
		assert_int_equal(ctl_command_start(&c, argv, &sigs), 0);
		pthread_join(t, NULL);
		pthread_barrier_destroy(&k.go);
		/* taken: the signal came before the fork for sure, the child never had it */
		st = wait_ms(c.pid, taken ? 0 : 3000);
		if (st < 0) {
			/* Alive: only right when the signal was taken before the fork, so the child
			 * never had it - and then ours was the only acknowledgement. */
			kill(c.pid, SIGKILL);
			waitpid(c.pid, NULL, 0);
			before++;
		} else {
			assert_true(WIFSIGNALED(st));
			assert_int_equal(WTERMSIG(st), SIGINT);
			died++;
		}
		said = lines_in(p[0]);
		if (said != 1)
			fail_msg("round %d (delay %u ns): %d acknowledgements, the child ran our "
				 "handler", round, k.delay_ns, said);
		/* The next round starts with no signal counted (a third would exit). */
		ctl_signals_restore(&sigs);
		ctl_signals_child_forget();
	}
	print_message("spawn %u ns; %d children ended by the Ctrl-C, %d forked after it\n",
		      fork_ns, died, before);
	assert_true(died > 0);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_ctrl_c_during_spawn) };

	/* Our own group: the signals this test sends must not reach the runner. */
	if (setpgid(0, 0) < 0 && getpgrp() != getpid())
		return 77;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
