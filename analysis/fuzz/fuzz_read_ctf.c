/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: psa_read_ctf on a one-stream CTF trace made of mutated bytes - its
 * metadata, one data stream file and that stream's index file - written into a scratch trace
 * directory for each input. The input is three parts, each a 4-byte little-endian length and
 * its bytes (metadata, index, then the stream: the rest of the input); the seeds in
 * analysis/fuzz/corpus_ctf/ are real proxyscope traces cut that way (docs/fuzzing.md).
 *
 * Checks the contract besides not crashing: 0 or a negative errno, an error reason that is one
 * NUL-terminated line, no sanitizer report from the reader's child process (quoted in the
 * reason when the child dies), strings in the events terminated, and every read ending within
 * the open timeout (PROXYSCOPE_OPEN_TIMEOUT, set to FUZZ_OPEN_TIMEOUT_S here) plus a margin:
 * no hang beyond the bound. Coverage guidance comes from what runs in this process (finding,
 * the checks before babeltrace2, the watch over the child); the child's decoding runs on the
 * inputs that guidance grows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/psa_event.h>

#define FUZZ_OPEN_TIMEOUT_S 5
/* a hang is killed FUZZ_OPEN_TIMEOUT_S after the child's last step; the rest is a loaded machine */
#define FUZZ_BOUND_MS ((FUZZ_OPEN_TIMEOUT_S + 55) * 1000)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[256];

static void cleanup(void)
{
	static const char *const files[] = { "metadata", "stream_0", "index/stream_0.idx", "index" };
	char path[400];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", g_dir, files[i]);
		if (unlink(path))
			rmdir(path);
	}
	rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char idx[300];
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	setenv("PROXYSCOPE_OPEN_TIMEOUT", "5", 1); /* FUZZ_OPEN_TIMEOUT_S */
	snprintf(g_dir, sizeof(g_dir), "%s/fuzz-ctf-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(g_dir))
		abort();
	snprintf(idx, sizeof(idx), "%s/index", g_dir);
	if (mkdir(idx, 0700))
		abort();
	atexit(cleanup);
	return 0;
}

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[400];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n))
		abort();
	close(fd);
}

/* The next part: a 4-byte length, then that many bytes (clipped to what is left). */
static const uint8_t *part(const uint8_t **p, size_t *left, size_t *n)
{
	const uint8_t *b;
	uint32_t len;

	if (*left < 4) {
		*n = 0;
		return *p;
	}
	len = (uint32_t)(*p)[0] | (uint32_t)(*p)[1] << 8 | (uint32_t)(*p)[2] << 16 |
	      (uint32_t)(*p)[3] << 24;
	*p += 4;
	*left -= 4;
	*n = len < *left ? len : *left;
	b = *p;
	*p += *n;
	*left -= *n;
	return b;
}

static void on_event(void *arg, const struct psa_event *ev)
{
	(void)arg;
	if (ev->type >= PSA_EV_NR || !memchr(ev->host, '\0', sizeof(ev->host)) ||
	    !memchr(ev->procname, '\0', sizeof(ev->procname)) ||
	    !memchr(ev->text, '\0', sizeof(ev->text)))
		abort();
}

static void on_discard(void *arg, const struct psa_discard *d)
{
	(void)arg;
	if (!memchr(d->trace, '\0', sizeof(d->trace)) || !memchr(d->host, '\0', sizeof(d->host)))
		abort();
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psa_sink sink = { on_event, on_discard, NULL };
	const char *path = g_dir;
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	size_t left = size, n;
	const uint8_t *p = data, *b;
	uint64_t t0;
	int rc;

	b = part(&p, &left, &n);
	put("metadata", b, n);
	b = part(&p, &left, &n);
	put("index/stream_0.idx", b, n);
	put("stream_0", p, left);

	t0 = now_ms();
	rc = psa_read_ctf(&path, 1, &sink, &st, NULL, NULL, err, sizeof(err));
	if (now_ms() - t0 > FUZZ_BOUND_MS)
		abort(); /* a hang beyond the bound */
	if (rc > 0)
		abort();
	if (rc && (!memchr(err, '\0', sizeof(err)) || strchr(err, '\n') || !err[0]))
		abort();
	/* the child's sanitizers report into its stderr, which the reason quotes */
	if (rc && (strstr(err, "runtime error") ||
		   (strstr(err, "Sanitizer") && !strstr(err, "SEGV"))))
		abort();
	return 0;
}
