/* SPDX-License-Identifier: MIT */
/*
 * A CTF trace directory checked before babeltrace2 reads it, for what babeltrace2 2.0.4 cannot
 * survive (why: see docs/ARCHITECTURE.md, Decisions measured: the guards against what
 * babeltrace2 2.0.4 cannot survive): a metadata stream cut short, an event common
 * context holding a sequence, an index file that disagrees with its stream file, a file in the
 * trace that is not a regular file.
 *
 * The same reading gives the trace's integrity facts (psa_ctf_trace_facts, which
 * psa_integrity_check turns into the watchdog's damage): the UUID in its metadata, and each
 * stream file missing, emptied or shorter than the packets its index lists (an LTTng index has
 * one entry per packet, its offset and size, so this needs no decoding).
 *
 * Here: the metadata and the entry; the index and stream files are check_index.c's.
 *
 * Design: read-only and bounded - every file is opened non-blocking, must be a regular file
 * and is read up to a size limit. A bad index is not an error: the reader hides the index
 * directory from babeltrace2, which then indexes the stream files itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "read/event_internal.h"
#include "read/ctf/bt2_guard/check_int.h"

#define METADATA_MAX (UINT64_C(64) << 20)
#define MD_MAGIC 0x75D11D57u
#define MD_HEADER 37 /* magic, uuid[16], checksum, content and packet size, 5 one-byte fields */

/* check_int.h */
int psa__check_open_regular(const char *path, uint64_t *size, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		int rc = -errno;

		psa__errf(err, errlen, "cannot open '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		psa__errf(err, errlen, "cannot read trace file '%s': not a regular file", path);
		return -EINVAL;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

/* check_int.h */
int psa__check_slurp(const char *path, uint64_t max, unsigned char **buf, size_t *len, char *err,
		     size_t errlen)
{
	uint64_t size;
	size_t got = 0;
	int fd = psa__check_open_regular(path, &size, err, errlen);

	*buf = NULL;
	if (fd < 0)
		return fd;
	if (size > max) {
		close(fd);
		psa__errf(err, errlen, "cannot read '%s': %llu bytes, more than the %llu MiB a CTF "
			  "metadata or index file may have", path, (unsigned long long)size,
			  (unsigned long long)(max >> 20));
		return -EFBIG;
	}
	*buf = malloc(size ? size : 1);
	if (!*buf) {
		close(fd);
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (got < size) {
		ssize_t n = read(fd, *buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int rc = n < 0 ? -errno : -EIO;

			close(fd);
			free(*buf);
			*buf = NULL;
			psa__errf(err, errlen, "cannot read '%s': %s", path, strerror(-rc));
			return rc;
		}
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return 0;
}

/*
 * The text of a packetized metadata stream (the packets' contents, concatenated), every packet
 * whole: babeltrace2 2.0.4 loops forever on a packet the file ends inside.
 */

static int depacketize(const char *path, const unsigned char *md, size_t len, char **text,
		       size_t *text_len, char *err, size_t errlen)
{
	bool be = psa__get32(md, true) == MD_MAGIC;
	size_t off = 0, out = 0;
	unsigned pkt = 0;

	*text = malloc(len + 1);
	if (!*text) {
		psa__errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (; off < len; pkt++) {
		uint32_t content, size;

		if (len - off < MD_HEADER || psa__get32(md + off, be) != MD_MAGIC) {
			psa__errf(err, errlen, "cannot read trace metadata '%s': metadata packet %u at "
				  "byte %zu %s", path, pkt, off, len - off < MD_HEADER ?
				  "is cut short inside its header" : "has no packet magic");
			goto out_bad;
		}
		content = psa__get32(md + off + 24, be);
		size = psa__get32(md + off + 28, be);
		if (size % 8 || content % 8 || size / 8 < MD_HEADER || content > size ||
		    content / 8 < MD_HEADER) {
			psa__errf(err, errlen, "cannot read trace metadata '%s': metadata packet %u at "
				  "byte %zu has impossible sizes (content %u bits, packet %u bits)",
				  path, pkt, off, content, size);
			goto out_bad;
		}
		if (size / 8 > len - off) {
			psa__errf(err, errlen, "cannot read trace metadata '%s': metadata packet %u at "
				  "byte %zu is cut short (it says %u bytes, the file has %zu after it)",
				  path, pkt, off, size / 8, len - off);
			goto out_bad;
		}
		memcpy(*text + out, md + off + MD_HEADER, content / 8 - MD_HEADER);
		out += content / 8 - MD_HEADER;
		off += size / 8;
	}
	(*text)[out] = '\0';
	*text_len = out;
	return 0;

out_bad:
	free(*text);
	*text = NULL;
	return -EIO;
}

/* --- a little TSDL lexer: enough to see where declarations end and what a context holds ---- */

struct lex {
	const char *s;
	size_t len, pos;
	char tok[64];     /* the current token: an identifier/number (truncated), or one character */
	bool ident;       /* tok is an identifier */
	bool unterminated; /* the text ended inside a comment or a string */
};

static bool is_id(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

/* The next token into l->tok; false at the end of the text. */
static bool lex_next(struct lex *l)
{
	const char *s = l->s;

	for (;;) {
		while (l->pos < l->len && (s[l->pos] == ' ' || s[l->pos] == '\t' || s[l->pos] == '\n' ||
					   s[l->pos] == '\r' || s[l->pos] == '\f' || s[l->pos] == '\v' ||
					   s[l->pos] == '\0'))
			l->pos++;
		if (l->pos + 1 < l->len && s[l->pos] == '/' && s[l->pos + 1] == '*') {
			const char *end = memmem(s + l->pos + 2, l->len - l->pos - 2, "*/", 2);

			if (!end) {
				l->unterminated = true;
				l->pos = l->len;
				return false;
			}
			l->pos = (size_t)(end - s) + 2;
			continue;
		}
		if (l->pos + 1 < l->len && s[l->pos] == '/' && s[l->pos + 1] == '/') {
			while (l->pos < l->len && s[l->pos] != '\n')
				l->pos++;
			continue;
		}
		break;
	}
	if (l->pos >= l->len)
		return false;
	l->ident = false;
	if (s[l->pos] == '"' || s[l->pos] == '\'') {
		char q = s[l->pos++];

		while (l->pos < l->len && s[l->pos] != q)
			l->pos += s[l->pos] == '\\' ? 2 : 1;
		if (l->pos >= l->len) {
			l->unterminated = true;
			return false;
		}
		l->pos++;
		strcpy(l->tok, "\"");
		return true;
	}
	if (is_id(s[l->pos], false)) {
		size_t b = l->pos;

		l->ident = is_id(s[b], true);
		while (l->pos < l->len && is_id(s[l->pos], false))
			l->pos++;
		psa__copy_str(l->tok, sizeof(l->tok), s + b, l->pos - b);
		return true;
	}
	l->tok[0] = s[l->pos++];
	l->tok[1] = '\0';
	return true;
}

/*
 * Whether the struct body starting after the current '{' declares a sequence: a declarator
 * `name[length_field]` whose length is a field, not a number. Leaves the lexer after the
 * matching '}'.
 */
static bool body_has_sequence(struct lex *l)
{
	unsigned depth = 1;
	bool seq = false;

	while (depth && lex_next(l)) {
		if (!strcmp(l->tok, "{"))
			depth++;
		else if (!strcmp(l->tok, "}"))
			depth--;
		else if (!strcmp(l->tok, "[") && lex_next(l) && l->ident)
			seq = true;
	}
	return seq;
}

#define HIST 8

/* Whether the tokens before the current '{' (@h[0] the latest) are `event.context := struct [name]`. */
static bool is_event_context(char h[HIST][64])
{
	static const char *const want[] = { "struct", "=", ":", "context", ".", "event" };
	unsigned k = strcmp(h[0], "struct") ? 1 : 0; /* skip a struct name */

	for (unsigned i = 0; i < 6; i++)
		if (strcmp(h[k + i], want[i]))
			return false;
	return true;
}

/*
 * Check the metadata text: it must end where a declaration does (at depth 0, after a ';',
 * outside any comment or string), and no stream's event common context (`event.context`)
 * may hold a sequence.
 */
static int check_text(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	struct lex l = { .s = text, .len = len };
	char hist[HIST][64];
	long depth = 0;
	bool any = false, ends = false;

	memset(hist, 0, sizeof(hist));
	while (lex_next(&l)) {
		any = true;
		ends = depth == 0 && !strcmp(l.tok, ";");
		if (!strcmp(l.tok, "{")) {
			if (!is_event_context(hist)) {
				depth++;
			} else if (body_has_sequence(&l)) { /* read up to the matching '}' */
				psa__errf(err, errlen, "cannot read trace metadata '%s': its event "
					  "context holds a sequence, which babeltrace2 2.0.4 cannot read "
					  "(fixed in 2.0.5)", path);
				return -ENOTSUP;
			}
		} else if (!strcmp(l.tok, "}")) {
			depth--;
		}
		memmove(hist[1], hist[0], sizeof(hist[0]) * (HIST - 1));
		psa__copy_str(hist[0], sizeof(hist[0]), l.tok, strlen(l.tok));
	}
	if (l.unterminated || depth != 0 || (any && !ends)) {
		psa__errf(err, errlen, "cannot read trace metadata '%s': it is cut short (it ends "
			  "inside %s)", path, l.unterminated ? "a comment or a string" :
			  depth > 0 ? "a block" : "a declaration");
		return -EIO;
	}
	if (!any) {
		psa__errf(err, errlen, "cannot read trace metadata '%s': it declares nothing", path);
		return -EIO;
	}
	return 0;
}

static int hex(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
	       ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* `uuid = "8-4-4-4-12 hex digits"` in a text metadata (the trace block's): into @c. */
static void text_uuid(const char *text, size_t len, struct psa_ctf_check *c)
{
	const char *p = memmem(text, len, "uuid", 4);

	while (p) {
		const char *q = p + 4, *end = text + len;
		unsigned n = 0;

		while (q < end && (*q == ' ' || *q == '\t' || *q == '='))
			q++;
		if (q < end && *q == '"') {
			for (q++; q + 1 < end && n < 16; q++) {
				if (*q == '-')
					continue;
				if (hex(q[0]) < 0 || hex(q[1]) < 0)
					break;
				c->uuid[n++] = (uint8_t)(hex(q[0]) << 4 | hex(q[1]));
				q++;
			}
			if (n == 16 && q < end && *q == '"') {
				c->has_uuid = true;
				return;
			}
		}
		p = memmem(p + 4, (size_t)(end - p - 4), "uuid", 4);
	}
}

/* The environment's `hostname = "NAME";` in the metadata's text: into @c (a text metadata is
 * searched as it is; a packetized one after depacketizing). */
static void text_hostname(const char *text, size_t len, struct psa_ctf_check *c)
{
	static const char key[] = "hostname";
	const char *p = memmem(text, len, key, sizeof(key) - 1), *end = text + len;

	for (; p; p = memmem(p + 1, (size_t)(end - p - 1), key, sizeof(key) - 1)) {
		const char *q = p + sizeof(key) - 1, *e;

		while (q < end && (*q == ' ' || *q == '\t' || *q == '='))
			q++;
		if (q >= end || *q != '"' || !(e = memchr(q + 1, '"', (size_t)(end - q - 1))))
			continue;
		if ((size_t)(e - q - 1) < sizeof(c->hostname)) {
			memcpy(c->hostname, q + 1, (size_t)(e - q - 1));
			c->hostname[e - q - 1] = '\0';
		}
		return;
	}
}

/*
 * CTF 2 (LTTng 2.15's default): its metadata is a JSON text sequence (RFC 7464: each record
 * starts with the RS byte 0x1E), which babeltrace2 2.0.4 cannot read - it would say only that
 * the metadata does not parse. One line with the two ways out instead.
 */
static int ctf2_check(const char *path, const unsigned char *text, size_t len, char *err,
		      size_t errlen)
{
	size_t i = 0;

	while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
		i++;
	if (i >= len || text[i] != 0x1E)
		return 0;
	psa__errf(err, errlen, "cannot read trace metadata '%s': it is CTF 2 (a JSON text sequence), "
		  "which babeltrace2 %u.%u.%u cannot read: record with `lttng create "
		  "--trace-format=ctf-1.8`, or read it with babeltrace2 >= 2.1", path,
		  bt_version_get_major(), bt_version_get_minor(), bt_version_get_patch());
	return -EPROTONOSUPPORT;
}

static int check_metadata(const char *dir, struct psa_ctf_check *c, char *err, size_t errlen)
{
	char path[PATH_MAX];
	unsigned char *md;
	char *text = NULL;
	size_t len, text_len = 0;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/metadata", dir) >= sizeof(path)) {
		psa__errf(err, errlen, "cannot open '%s/metadata': %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	rc = psa__check_slurp(path, METADATA_MAX, &md, &len, err, errlen);
	if (rc)
		return rc;
	if (len >= 4 && (psa__get32(md, true) == MD_MAGIC || psa__get32(md, false) == MD_MAGIC)) {
		rc = depacketize(path, md, len, &text, &text_len, err, errlen);
		if (!rc)
			rc = ctf2_check(path, (const unsigned char *)text, text_len, err, errlen);
		if (!rc)
			rc = check_text(path, text, text_len, err, errlen);
		if (!rc)
			text_hostname(text, text_len, c);
		if (!rc && len >= 20) { /* the packets' header names the trace */
			memcpy(c->uuid, md + 4, sizeof(c->uuid));
			c->has_uuid = true;
		}
		free(text);
	} else {
		rc = ctf2_check(path, md, len, err, errlen);
		if (!rc)
			rc = check_text(path, (const char *)md, len, err, errlen);
		if (!rc) {
			text_uuid((const char *)md, len, c);
			text_hostname((const char *)md, len, c);
		}
	}
	free(md);
	return rc;
}

/* Whether the packet at @off of stream file @fd starts with the CTF packet magic. */
int psa__ctf_check_trace(const char *dir, struct psa_ctf_check *c, char *err, size_t errlen)
{
	int rc;

	memset(c, 0, sizeof(*c));
	rc = check_metadata(dir, c, err, errlen);
	if (!rc)
		rc = psa__ctf_check_streams(dir, c, err, errlen);
	if (!rc)
		rc = psa__ctf_check_index(dir, c, err, errlen);
	if (rc)
		psa__ctf_check_fini(c);
	return rc;
}

void psa__ctf_check_fini(struct psa_ctf_check *c)
{
	free(c->damage);
	c->damage = NULL;
	c->damage_n = 0;
}