/* SPDX-License-Identifier: MIT */
/*
 * The tail-first read's packet choice (analysis/read/ctf/tail/tail_pick.h) on babeltrace2's own
 * test trace with an index (shared/testdata): the whole window keeps every byte, an empty one
 * keeps each stream's first and last packets, a trace without an index is refused (-ENOENT:
 * read whole), and the shadow directory's stream files hold exactly the bytes chosen, which
 * babeltrace2 reads without an error.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "read/ctf/tail/tail_pick.h"

#define WITH_INDEX BT2_TRACES "/succeed/trace-with-index"
#define NO_INDEX BT2_TRACES "/succeed/wk-heartbeat-u"

static void whole_window(void **state)
{
	struct psa_tail_pick p;
	char err[256];

	(void)state;
	assert_int_equal(psa__tail_pick(WITH_INDEX, UINT64_MAX, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 4);
	assert_true(p.bytes_total > 0);
	assert_true(psa__tail_pick_whole(&p));
	psa__tail_pick_fini(&p);
}

static void empty_window(void **state)
{
	struct psa_tail_pick p;
	char err[256], shadow[PATH_MAX], cmd[PATH_MAX + 64];
	uint64_t on_disk = 0;

	(void)state;
	assert_int_equal(psa__tail_pick(WITH_INDEX, 0, &p, err, sizeof(err)), 0);
	assert_true(p.bytes_kept <= p.bytes_total);
	for (size_t i = 0; i < p.n; i++)
		if (p.s[i].packets > 2)
			assert_true(p.s[i].tail_off > p.s[i].setup_end);
	snprintf(shadow, sizeof(shadow), "%s/tail_pick.%d", P_tmpdir, (int)getpid());
	assert_int_equal(psa__tail_shadow(WITH_INDEX, &p, shadow, err, sizeof(err)), 0);
	for (size_t i = 0; i < p.n; i++) {
		char path[PATH_MAX + 256];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", shadow, p.s[i].name);
		assert_int_equal(stat(path, &st), 0);
		on_disk += (uint64_t)st.st_size;
	}
	assert_int_equal(on_disk, p.bytes_kept);
	snprintf(cmd, sizeof(cmd), "babeltrace2 -o dummy %s >/dev/null 2>&1", shadow);
	assert_int_equal(system(cmd), 0);
	psa__tail_unshadow(shadow, &p);
	assert_int_not_equal(access(shadow, F_OK), 0);
	psa__tail_pick_fini(&p);
}

static void no_index(void **state)
{
	struct psa_tail_pick p;
	char err[256];

	(void)state;
	assert_int_equal(psa__tail_pick(NO_INDEX, 0, &p, err, sizeof(err)), -ENOENT);
	psa__tail_pick_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_window),
		cmocka_unit_test(empty_window),
		cmocka_unit_test(no_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
