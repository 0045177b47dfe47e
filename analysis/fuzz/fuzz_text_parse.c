/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: psa_text_parse_line on arbitrary bytes. The input is copied into a buffer
 * of exactly its size (no NUL after it), so AddressSanitizer catches any read past @len.
 * Also checks the contract: the return value is one of -EINVAL, 0, 1, 2, and an error comes
 * with a NUL-terminated reason.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_event.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size ? size : 1);
	struct psa_event ev;
	struct psa_discard d;
	char err[PSA_ERR_MAX];
	int rc;

	if (!line)
		return 0;
	memcpy(line, data, size);
	err[0] = '\0';
	rc = psa_text_parse_line(line, size, &ev, &d, err, sizeof(err));
	if (rc != -EINVAL && rc != 0 && rc != 1 && rc != 2)
		abort();
	if (rc < 0 && memchr(err, '\0', sizeof(err)) == NULL)
		abort();
	if (rc == 1 && (memchr(ev.host, '\0', sizeof(ev.host)) == NULL ||
			memchr(ev.procname, '\0', sizeof(ev.procname)) == NULL || ev.type >= PSA_EV_NR))
		abort();
	if (rc == 2 && (memchr(d.trace, '\0', sizeof(d.trace)) == NULL ||
			memchr(d.host, '\0', sizeof(d.host)) == NULL))
		abort();
	/* a tiny error buffer must stay terminated too */
	if (rc < 0) {
		char small[3];

		psa_text_parse_line(line, size, &ev, &d, small, sizeof(small));
		if (small[2] != '\0' && memchr(small, '\0', sizeof(small)) == NULL)
			abort();
	}
	free(line);
	return 0;
}
