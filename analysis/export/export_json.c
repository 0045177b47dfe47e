/* SPDX-License-Identifier: MIT */
/*
 * JSON text shared by the chrome and html exports: strings that always parse (invalid UTF-8
 * replaced) and that can sit inside an HTML <script> element, and exact decimal microseconds.
 */
#include <inttypes.h>

#include "export_int.h"

/* The length of the valid UTF-8 sequence at @p (at most @n bytes), or 0 when invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2, cp = p[0] & 0x1F;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		len = 3, cp = p[0] & 0x0F;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3F);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

void psa__json_strn(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	while (n < max && p[n])
		n++;
	putc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			i++;
			continue;
		case '\\':
			fputs("\\\\", f);
			i++;
			continue;
		case '\n':
			fputs("\\n", f);
			i++;
			continue;
		case '\t':
			fputs("\\t", f);
			i++;
			continue;
		case '<':
		case '>':
		case '&':
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		default:
			break;
		}
		if (c < 0x20 || c == 0x7F) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		len = utf8_len(p + i, n - i);
		if (!len) {
			fputs("\\ufffd", f);
			i++;
		} else if (len == 3 && p[i] == 0xE2 && p[i + 1] == 0x80 &&
			   (p[i + 2] == 0xA8 || p[i + 2] == 0xA9)) {
			/* U+2028, U+2029: valid JSON, but line breaks to older JavaScript */
			fprintf(f, "\\u%04x", 0x2000 + (p[i + 2] - 0xA8 + 0x28));
			i += 3;
		} else {
			fwrite(p + i, 1, len, f);
			i += len;
		}
	}
	putc('"', f);
}

void psa__json_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}
