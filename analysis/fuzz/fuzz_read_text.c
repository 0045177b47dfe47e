/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: psa_read_text on arbitrary bytes as a whole stream (several lines, lines
 * cut by interleaved discard warnings, lines without a final newline). Checks the contract:
 * 0 or -EINVAL (or -ENOMEM), a NUL-terminated one-line reason on error, and consistent stats.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_event.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct count {
	uint64_t events, discards;
};

static void on_event(void *arg, const struct psa_event *ev)
{
	struct count *c = arg;

	if (ev->type >= PSA_EV_NR || !memchr(ev->host, '\0', sizeof(ev->host)))
		abort();
	c->events++;
}

static void on_discard(void *arg, const struct psa_discard *d)
{
	struct count *c = arg;

	if (!memchr(d->trace, '\0', sizeof(d->trace)) || d->count > (uint64_t)INT64_MAX)
		abort();
	c->discards++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct count c = { 0, 0 };
	struct psa_sink sink = { on_event, on_discard, &c };
	struct psa_read_stats st;
	char err[PSA_ERR_MAX];
	char *copy;
	FILE *f;
	int rc;

	if (size == 0)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	f = fmemopen(copy, size, "r");
	if (!f) {
		free(copy);
		return 0;
	}
	err[0] = '\0';
	rc = psa_read_text(f, "fuzz", &sink, &st, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL && rc != -ENOMEM)
		abort();
	if (rc && (!memchr(err, '\0', sizeof(err)) || strchr(err, '\n')))
		abort();
	if (st.events != c.events || st.lines > size + 1)
		abort();
	fclose(f);
	free(copy);
	return 0;
}
