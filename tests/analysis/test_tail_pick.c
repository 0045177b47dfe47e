/* SPDX-License-Identifier: MIT */
/*
 * The tail-first read's packet choice (analysis/read/ctf/tail/tail_pick.h) on babeltrace2's own
 * test trace with an index (shared/testdata): the whole window keeps every byte, an empty one
 * keeps each stream's first and last packets, a trace without an index is refused (-ENOENT:
 * read whole), and the shadow directory's stream files hold exactly the bytes chosen, which
 * babeltrace2 reads without an error; and on an index written here (index 1.1, four packets),
 * the losses in the skipped packets as babeltrace2 reports them: lost packets from the previous
 * packet's end to the next one's beginning, discarded events to its end.
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

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

/* A trace directory with stream "s" of 4 packets of 4096 bytes and its index 1.1 (72 B entries). */
static void write_indexed(const char *dir)
{
	static const uint64_t seq[4] = { 0, 1, 5, 6 }, disc[4] = { 0, 10, 10, 25 };
	unsigned char idx[16 + 4 * 72] = { 0xC1, 0xF1, 0xDC, 0xC1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 72 };
	char path[PATH_MAX + 64];
	FILE *f;

	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/index", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	for (int i = 0; i < 4; i++) {
		unsigned char *e = idx + 16 + i * 72;

		put64(e, (uint64_t)i * 4096);
		put64(e + 8, 4096 * 8);
		put64(e + 16, 4096 * 8);
		put64(e + 24, 1000 + (uint64_t)i * 100);
		put64(e + 32, 1050 + (uint64_t)i * 100);
		put64(e + 40, disc[i]);
		put64(e + 64, seq[i]);
	}
	snprintf(path, sizeof(path), "%s/index/s.idx", dir);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(idx, sizeof(idx), 1, f), 1);
	fclose(f);
	snprintf(path, sizeof(path), "%s/s", dir);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(ftruncate(fileno(f), 4 * 4096), 0);
	fclose(f);
}

static void skipped_losses(void **state)
{
	struct psa_tail_pick p;
	char err[256], dir[PATH_MAX], path[PATH_MAX + 64];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tail_losses.%d", P_tmpdir, (int)getpid());
	write_indexed(dir);
	/* end 1350: a window of 10 keeps the last packet; packets 1 and 2 are skipped */
	assert_int_equal(psa__tail_pick(dir, 10, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.s[0].setup_end, 4096);
	assert_int_equal(p.s[0].tail_off, 3 * 4096);
	assert_int_equal(p.bytes_kept, 2 * 4096);
	assert_int_equal(p.s[0].loss_n, 3);
	/* packet 1: 10 events discarded since packet 0 */
	assert_false(p.s[0].loss[0].packets);
	assert_int_equal(p.s[0].loss[0].count, 10);
	assert_int_equal(p.s[0].loss[0].begin, 1050);
	assert_int_equal(p.s[0].loss[0].end, 1150);
	/* packet 2: 3 packets lost before it */
	assert_true(p.s[0].loss[1].packets);
	assert_int_equal(p.s[0].loss[1].count, 3);
	assert_int_equal(p.s[0].loss[1].begin, 1150);
	assert_int_equal(p.s[0].loss[1].end, 1200);
	/* packet 3, the window's first: 15 events */
	assert_int_equal(p.s[0].loss[2].count, 15);
	assert_int_equal(p.s[0].loss[2].end, 1350);
	/* the window asked for began at 1340; every event after the skipped packets' end (1250) is
	 * read, so the window is rounded out to there */
	assert_int_equal(p.cut, 1251);
	psa__tail_pick_fini(&p);
	/* a window of 150 (from 1200) keeps packets 2 and 3: it begins after packet 1's end */
	assert_int_equal(psa__tail_pick(dir, 150, &p, err, sizeof(err)), 0);
	assert_int_equal(p.s[0].tail_off, 2 * 4096);
	assert_int_equal(p.cut, 1151);
	psa__tail_pick_fini(&p);
	snprintf(path, sizeof(path), "%s/index/s.idx", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/index", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/s", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_window),
		cmocka_unit_test(empty_window),
		cmocka_unit_test(no_index),
		cmocka_unit_test(skipped_losses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
