/* SPDX-License-Identifier: MIT */
/*
 * psa_ctf_trace_facts and the checks psa_read_ctf makes before babeltrace2 reads a trace, on
 * babeltrace2's own test traces (read where they are: shared/testdata beside the source tree)
 * and damaged copies of them in a scratch directory: the facts of a healthy trace, an index that
 * disagrees with its stream (ignored, not an error), an emptied stream, and the refusals (a
 * metadata cut inside a packet, an event context holding a sequence, a FIFO among the streams);
 * and psa_integrity_check on the same facts (an emptied stream of a trace reached through a
 * symbolic link is damaged).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <proxyscope/psa_event.h>
#include <proxyscope/psa_integrity.h>

#include "../common/scratch.h"

static char g_base[SCRATCH_PATH_MAX];

struct seen {
	unsigned n, streams, empty, cut;
	bool ignored, has_uuid;
	uint8_t uuid[16];
};

static void each(void *arg, const struct psa_trace_facts *f)
{
	struct seen *s = arg;

	s->n++;
	s->streams += f->streams;
	s->empty += f->streams_empty;
	s->cut += f->streams_cut;
	s->ignored |= f->index_ignored;
	s->has_uuid = f->has_uuid;
	memcpy(s->uuid, f->uuid, sizeof(s->uuid));
}

static int facts(const char *dir, struct seen *s, char *err)
{
	memset(s, 0, sizeof(*s));
	return psa_ctf_trace_facts(&dir, 1, each, s, err, PSA_ERR_MAX);
}

/* A writable copy of babeltrace2 test trace @name as @dir. */
static void copy(const char *name, const char *as, char *dir)
{
	char cmd[8192];

	snprintf(dir, 4096, "%s/%s", g_base, as);
	snprintf(cmd, sizeof(cmd), "cp -r '%s/%s' '%s' && chmod -R u+w '%s'", BT2_TRACES, name, dir,
		 dir);
	assert_int_equal(system(cmd), 0);
}

static void test_ctf_check__healthy(void **state)
{
	char err[PSA_ERR_MAX], dir[4096];
	struct seen s;

	snprintf(dir, sizeof(dir), "%s/succeed/trace-with-index", BT2_TRACES);
	assert_int_equal(facts(dir, &s, err), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.streams, 4);
	assert_int_equal(s.empty, 0);
	assert_int_equal(s.cut, 0);
	assert_false(s.ignored);
	assert_true(s.has_uuid); /* from its metadata packets' header */
}

/* A text metadata's `uuid = "..."`; two traces with one UUID tell a copy read twice. */
static void test_ctf_check__uuid(void **state)
{
	static const uint8_t want[16] = { 0x2a, 0x6f, 0x3d, 0x11, 0x53, 0x42, 0x4b, 0x2c,
					  0x9e, 0x2f, 0x8a, 0x1d, 0x31, 0x50, 0x77, 0x0e };
	char err[PSA_ERR_MAX], dir[4096], path[4200];
	struct seen s;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/uuid", g_base);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("/* CTF 1.8 */\ntrace {\n\tmajor = 1;\n\tminor = 8;\n"
	      "\tuuid = \"2a6f3d11-5342-4b2c-9e2f-8a1d3150770e\";\n\tbyte_order = le;\n};\n", f);
	fclose(f);
	assert_int_equal(facts(dir, &s, err), 0);
	assert_true(s.has_uuid);
	assert_memory_equal(s.uuid, want, 16);
}

static void test_ctf_check__bad_index_is_ignored(void **state)
{
	char err[PSA_ERR_MAX], dir[4096], idx[4200];
	struct seen s;
	int fd;

	copy("succeed/trace-with-index", "flip", dir);
	snprintf(idx, sizeof(idx), "%s/index/ust_channel_1.idx", dir);
	fd = open(idx, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\377\377\377\377", 4, 16), 4); /* packet 0's offset */
	close(fd);
	assert_int_equal(facts(dir, &s, err), 0);
	assert_true(s.ignored);
}

static void test_ctf_check__emptied_stream(void **state)
{
	char err[PSA_ERR_MAX], dir[4096], stream[4200];
	struct seen s;

	copy("succeed/trace-with-index", "empty", dir);
	snprintf(stream, sizeof(stream), "%s/ust_channel_2", dir);
	assert_int_equal(truncate(stream, 0), 0);
	assert_int_equal(facts(dir, &s, err), 0);
	assert_int_equal(s.empty, 1);
	assert_int_equal(s.cut, 1);
	assert_true(s.ignored); /* its index now covers bytes the stream no longer has */
}

/*
 * The damage psa_integrity_check reports rests on the same facts: an emptied stream of a trace
 * reached through a symbolic link below the path given (the reader follows it) is damaged, and
 * named by the trace's real directory, with its packets and bytes from the index.
 */
static void test_ctf_check__damage_through_symlink(void **state)
{
	char dir[4096], holder[4200], link[4300], stream[4200], line[1400], real[PATH_MAX];
	char cmd[8400];
	const char *path = holder;
	struct psa_integrity in;

	copy("succeed/trace-with-index", "linked-empty", dir);
	snprintf(stream, sizeof(stream), "%s/ust_channel_2", dir);
	assert_int_equal(truncate(stream, 0), 0);
	snprintf(holder, sizeof(holder), "%s/holder", g_base);
	assert_int_equal(mkdir(holder, 0700), 0);
	snprintf(link, sizeof(link), "%s/trace", holder);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(psa_integrity_check(&path, 1, &in), 0);
	assert_int_equal(in.n, 1);
	assert_int_equal(in.damaged, 1);
	assert_int_equal(in.duplicates, 0);
	assert_int_equal(in.v[0].kind, PSA_STREAM_EMPTY);
	assert_string_equal(in.v[0].stream, "ust_channel_2");
	assert_non_null(realpath(dir, real));
	assert_string_equal(in.v[0].trace, real);
	assert_true(in.v[0].packets > 0);
	assert_true(in.v[0].bytes_expected > 0);
	psa_integrity_issue_str(&in.v[0], line, sizeof(line));
	assert_non_null(strstr(line, "stream ust_channel_2 of '"));
	assert_non_null(strstr(line, "' is empty (its index lists "));
	psa_integrity_fini(&in);

	/* and a copy of it beside the link: one trace UUID under two directories */
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s/copy'", dir, holder);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(psa_integrity_check(&path, 1, &in), 0);
	assert_int_equal(in.damaged, 2);
	assert_int_equal(in.duplicates, 1);
	psa_integrity_fini(&in);
}

static void test_ctf_check__refusals(void **state)
{
	char err[PSA_ERR_MAX], dir[4096], path[4200], cmd[8600];
	struct seen s;

	copy("succeed/trace-with-index", "cut", dir);
	snprintf(cmd, sizeof(cmd), "head -c 5000 '%s/%s/metadata' > '%s/metadata'", BT2_TRACES,
		 "succeed/trace-with-index", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(facts(dir, &s, err), -EIO);
	assert_non_null(strstr(err, "metadata packet 1 at byte 4096 is cut short"));
	assert_int_equal(s.n, 0);

	snprintf(dir, sizeof(dir), "%s/succeed/meta-ctx-sequence", BT2_TRACES);
	assert_int_equal(facts(dir, &s, err), -ENOTSUP);
	assert_non_null(strstr(err, "event context holds a sequence"));

	copy("succeed/trace-with-index", "fifo", dir);
	snprintf(path, sizeof(path), "%s/ust_channel_9", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(facts(dir, &s, err), -EINVAL);
	assert_non_null(strstr(err, "'ust_channel_9' in it is not a regular file"));
	assert_null(strchr(err, '\n'));
}

static int setup(void **state)
{
	return scratch_create("psa-ctf-check", g_base) ? -1 : 0;
}

static int teardown(void **state)
{
	scratch_remove(g_base);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctf_check__healthy),
		cmocka_unit_test(test_ctf_check__uuid),
		cmocka_unit_test(test_ctf_check__bad_index_is_ignored),
		cmocka_unit_test(test_ctf_check__emptied_stream),
		cmocka_unit_test(test_ctf_check__damage_through_symlink),
		cmocka_unit_test(test_ctf_check__refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
