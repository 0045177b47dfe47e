/* SPDX-License-Identifier: MIT */
/*
 * The gzip layer of the `.gz` outputs (util/gz_stream.c): what goes in comes out of zlib's
 * inflate unchanged, in gzip framing; memory does not grow with the output (256 MiB written
 * through it move the peak RSS by less than 16 MiB); a failing stream under it makes the
 * write or the close fail, never a silent short file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

#include <cmocka.h>

#include "gz_stream.h"

/* A line of an export-like text that changes from line to line (not trivially compressible). */
static int line_make(char *buf, size_t n, uint64_t i)
{
	return snprintf(buf, n, "{\"name\":\"task %llu\",\"ph\":\"X\",\"ts\":%llu,\"dur\":%llu},\n",
			(unsigned long long)i, (unsigned long long)(i * 7919 % 1000003),
			(unsigned long long)(i * 104729 % 65537));
}

static void test_gz_stream__round_trip(void **state)
{
	char *buf = NULL, line[128];
	size_t len = 0, plain_len = 0;
	FILE *mem = open_memstream(&buf, &len);
	FILE *gz;
	char *plain = malloc(1 << 22), *back = malloc(1 << 22);
	z_stream z;
	uLong got;

	(void)state;
	assert_non_null(mem);
	assert_non_null(plain);
	assert_non_null(back);
	gz = gz_stream_create(mem);
	assert_non_null(gz);
	for (uint64_t i = 0; plain_len < (1 << 21); i++) {
		int n = line_make(line, sizeof(line), i);

		memcpy(plain + plain_len, line, (size_t)n);
		plain_len += (size_t)n;
		assert_int_equal(fwrite(line, 1, (size_t)n, gz), (size_t)n);
	}
	assert_int_equal(fclose(gz), 0);
	assert_int_equal(fclose(mem), 0);
	assert_true(len > 18 && len < plain_len / 2);
	assert_int_equal((unsigned char)buf[0], 0x1f); /* the gzip magic */
	assert_int_equal((unsigned char)buf[1], 0x8b);

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK); /* gzip framing only */
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)back;
	z.avail_out = 1 << 22;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	got = z.total_out;
	assert_int_equal(z.avail_in, 0); /* one member, nothing after it */
	inflateEnd(&z);
	assert_int_equal(got, plain_len);
	assert_memory_equal(back, plain, plain_len);
	free(buf);
	free(plain);
	free(back);
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

static void test_gz_stream__memory_does_not_grow(void **state)
{
	FILE *null = fopen("/dev/null", "w");
	FILE *gz;
	char line[128];
	uint64_t written = 0;
	long before, after;

	(void)state;
	assert_non_null(null);
	gz = gz_stream_create(null);
	assert_non_null(gz);
	before = peak_rss_kib();
	for (uint64_t i = 0; written < (UINT64_C(256) << 20); i++) {
		int n = line_make(line, sizeof(line), i);

		assert_int_equal(fwrite(line, 1, (size_t)n, gz), (size_t)n);
		written += (uint64_t)n;
	}
	assert_int_equal(fclose(gz), 0);
	after = peak_rss_kib();
	fclose(null);
	print_message("256 MiB through the gzip layer: peak RSS %ld -> %ld KiB\n", before, after);
	assert_true(after - before < 16 * 1024);
}

static void test_gz_stream__failing_stream_fails(void **state)
{
	FILE *full = fopen("/dev/full", "w");
	FILE *gz;
	char line[128];
	int failed = 0;

	(void)state;
	if (!full)
		skip();
	setvbuf(full, NULL, _IONBF, 0);
	gz = gz_stream_create(full);
	assert_non_null(gz);
	for (uint64_t i = 0; i < 200000 && !failed; i++) {
		int n = line_make(line, sizeof(line), i);

		failed = fwrite(line, 1, (size_t)n, gz) != (size_t)n;
	}
	failed |= fclose(gz) != 0;
	assert_true(failed);
	fclose(full);
}

static void test_gz_stream__names(void **state)
{
	(void)state;
	assert_true(gz_stream_name_is_gz("timeline.json.gz"));
	assert_true(gz_stream_name_is_gz("dir/x.gz"));
	assert_false(gz_stream_name_is_gz(".gz"));
	assert_false(gz_stream_name_is_gz("timeline.json"));
	assert_false(gz_stream_name_is_gz("x.tgz.txt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gz_stream__round_trip),
		cmocka_unit_test(test_gz_stream__memory_does_not_grow),
		cmocka_unit_test(test_gz_stream__failing_stream_fails),
		cmocka_unit_test(test_gz_stream__names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
