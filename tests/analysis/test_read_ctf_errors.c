/* SPDX-License-Identifier: MIT */
/*
 * test_read_ctf on bad input (read_ctf_fixture.c): not a trace, a stream file cut mid-packet (read
 * up to there when its index says where), corrupt metadata, scribbled stream data, text that is
 * not babeltrace2's - each one clean error line naming the file - and a trace with none of our
 * events.
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <proxyscope/psa_event.h>
#include <proxyscope/psa_integrity.h>
#include <proxyscope/psa_model.h>

#include "read_ctf_fixture.h"

static void expect_error(const char *path, int rc_expected, const char *needle1,
			 const char *needle2)
{
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	struct events e;
	int rc;

	events_init(&e);
	rc = read_ctf1(path, &e, &st, err);
	print_message("%s -> %d: %s\n", path, rc, err);
	assert_int_equal(rc, rc_expected);
	assert_null(strchr(err, '\n'));
	if (needle1 && !strstr(err, needle1))
		fail_msg("'%s' does not name '%s'", err, needle1);
	if (needle2 && !strstr(err, needle2))
		fail_msg("'%s' does not say '%s'", err, needle2);
	events_fini(&e);
}

void test_read_ctf__not_a_trace(void **state)
{
	char plain[PATH_MAX], file[PATH_MAX], missing[PATH_MAX];
	FILE *f;

	path_join(plain, tmp, "plain");
	path_join(file, tmp, "file.txt");
	path_join(missing, tmp, "missing");
	assert_int_equal(mkdir(plain, 0755), 0);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("not a trace\n", f);
	fclose(f);

	expect_error(plain, -EINVAL, plain, "no CTF trace");
	expect_error(file, -ENOTDIR, file, "regular file");
	expect_error(missing, -ENOENT, missing, "No such file");
}

/* A copy of run1 to damage; returns its trace directory in @dir. */
static void copy_trace(const char *name, char *dir)
{
	char dst[PATH_MAX];
	char *argv[] = { "cp", "-r", run1, dst, NULL };

	path_join(dst, tmp, name);
	assert_int_equal(run(argv, NULL, NULL), 0);
	find_trace_dir(dst, dir);
}

/* The largest data stream file of trace directory @dir (channel files: proxyscope_<cpu>). */
static void largest_stream(const char *dir, char *out, off_t *size)
{
	char path[PATH_MAX];
	struct stat st;

	*size = 0;
	for (int cpu = 0; cpu < 1024; cpu++) {
		snprintf(path, sizeof(path), "%s/proxyscope_%d", dir, cpu);
		if (stat(path, &st) == 0 && st.st_size > *size) {
			*size = st.st_size;
			strcpy(out, path);
		}
	}
	assert_true(*size > 0);
}

/* The events read from @path (it must read). */
static size_t events_of(const char *path)
{
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	struct events e;
	size_t n;
	int rc;

	events_init(&e);
	rc = read_ctf1(path, &e, &st, err);
	if (rc)
		fail_msg("'%s' -> %d: %s", path, rc, err);
	n = e.n;
	events_fini(&e);
	return n;
}

/* The one damage psa_integrity_check finds in @dir: of @kind, in stream @stream. */
static void expect_damage(const char *dir, enum psa_integrity_kind kind, const char *stream)
{
	const char *paths[] = { dir };
	struct psa_integrity in;

	assert_int_equal(psa_integrity_check(paths, 1, &in), 0);
	assert_int_equal(in.n, 1);
	assert_int_equal(in.v[0].kind, kind);
	assert_string_equal(in.v[0].stream, strrchr(stream, '/') + 1);
	psa_integrity_fini(&in);
}

/*
 * A stream file that ends inside a packet - a consumer killed mid-write: cut inside a packet its
 * index lists, or holding half a packet after them. Its whole packets are read (babeltrace2
 * refuses the file), the damage is said; without the index to say where the packets end the
 * read fails, with one line naming the file.
 */
void test_read_ctf__truncated_stream(void **state)
{
	char dir[PATH_MAX], stream[PATH_MAX], idx[PATH_MAX];
	char *rm[] = { "rm", "-r", idx, NULL };
	size_t whole = events_of(trace1);
	char half[4096];
	off_t size;
	FILE *f;

	copy_trace("truncated", dir);
	largest_stream(dir, stream, &size);
	assert_int_equal(truncate(stream, size / 2 + 7), 0);
	assert_true(events_of(dir) < whole);
	expect_damage(dir, PSA_STREAM_SHORT, stream);

	copy_trace("partial", dir);
	largest_stream(dir, stream, &size);
	f = fopen(stream, "r+");
	assert_non_null(f);
	assert_int_equal(fread(half, 1, sizeof(half), f), sizeof(half));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	assert_int_equal(fwrite(half, 1, sizeof(half), f), sizeof(half));
	fclose(f);
	assert_int_equal(events_of(dir), whole);
	expect_damage(dir, PSA_STREAM_PARTIAL, stream);

	copy_trace("truncated-noindex", dir);
	largest_stream(dir, stream, &size);
	assert_int_equal(truncate(stream, size / 2 + 7), 0);
	path_join(idx, dir, "index");
	assert_int_equal(run(rm, NULL, NULL), 0);
	expect_error(dir, -EIO, strrchr(stream, '/') + 1, "truncated");
	(void)state;
}

void test_read_ctf__corrupt_metadata(void **state)
{
	char dir[PATH_MAX], meta[PATH_MAX];
	static const char junk[] = "}}garbage{{ typealias ;;";
	FILE *f;

	copy_trace("badmeta", dir);
	path_join(meta, dir, "metadata");
	f = fopen(meta, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 200, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, sizeof(junk) - 1, f), sizeof(junk) - 1);
	fclose(f);
	expect_error(dir, -EIO, meta, "metadata");
}

/* Stream content overwritten in place: babeltrace2 fails while decoding, mid-run. */
void test_read_ctf__scribbled_stream(void **state)
{
	char dir[PATH_MAX], stream[PATH_MAX];
	unsigned char junk[4096];
	uint32_t x = 2463534242u;
	off_t size;
	FILE *f;

	copy_trace("scribbled", dir);
	largest_stream(dir, stream, &size);
	for (size_t i = 0; i < sizeof(junk); i++) { /* xorshift: the same bytes every run */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		junk[i] = (unsigned char)x;
	}
	f = fopen(stream, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 1024, SEEK_SET), 0);
	fwrite(junk, 1, (size_t)size - 1024 < sizeof(junk) ? (size_t)size - 1024 : sizeof(junk), f);
	fclose(f);
	expect_error(dir, -EIO, dir, NULL);
}

void test_read_ctf__text_not_babeltrace2(void **state)
{
	char meta[PATH_MAX], err[PSA_ERR_MAX], prefix[PATH_MAX + 8];
	struct psa_read_stats st;
	struct events e;

	path_join(meta, trace1, "metadata"); /* binary, then CTF's TSDL text */
	events_init(&e);
	assert_int_equal(read_text_file(meta, &e, &st, err), -EINVAL);
	print_message("%s\n", err);
	snprintf(prefix, sizeof(prefix), "%s:1: ", meta);
	assert_memory_equal(err, prefix, strlen(prefix));
	assert_null(strchr(err, '\n'));
	assert_int_equal(e.n, 0);
	events_fini(&e);
}

/*
 * `proxyscope record -- true`: no process loads our probes. With a session daemon that has
 * registered a probe before, LTTng still writes a trace (metadata, empty streams); with a fresh
 * one it may write no metadata at all. Either way the reader says so without failing oddly:
 * 0 with no event of ours (the CLI turns that into an error), or "no CTF trace".
 */
void test_read_ctf__no_events_of_ours(void **state)
{
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	struct events e;
	int rc;

	events_init(&e);
	rc = read_ctf1(empty, &e, &st, err);
	print_message("record -- true: rc %d, %llu events (%llu unknown), %u traces%s%s\n", rc,
		      (unsigned long long)st.events, (unsigned long long)st.unknown_events,
		      st.traces, rc ? ": " : "", rc ? err : "");
	if (rc == 0) {
		assert_int_equal(st.events, st.unknown_events);
		assert_true(st.traces >= 1);
	} else {
		assert_int_equal(rc, -EINVAL);
		assert_non_null(strstr(err, "no CTF trace"));
	}
	events_fini(&e);
}
