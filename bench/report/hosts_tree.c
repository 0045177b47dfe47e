/* SPDX-License-Identifier: MIT */
/*
 * A job of many hosts made from one recorded trace: the trace copied N times into
 * TREE/host<i>/..., each copy with a trace UUID and a hostname of its own, as a relay daemon's
 * output tree of N hosts would hold (babeltrace2 merges traces of one UUID into one, and the
 * analysis keeps processes apart by host, so both must differ).
 *
 * Design: no decoding. The metadata's text is taken out of its packets (or used as it is, a
 * text metadata), the trace's UUID string and the env's hostname replaced, its clock's offset
 * moved by a few microseconds per host (or every event would tie), and packetized again
 * with the original packets' header fields and size; in the stream files every packet header
 * begins with the packet magic followed by the trace UUID, so each (magic, old UUID) is
 * replaced by (magic, new UUID); index files hold no UUID and are copied as they are.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_hosts.h"

#define MD_MAGIC 0x75D11D57u
#define MD_HEADER 37 /* magic, uuid[16], checksum, content and packet size, 5 one-byte fields */
#define PKT_MAGIC 0xC1FC1FC1u
#define FILE_MAX (UINT64_C(1) << 31)
/* Host i's clock is i x this many cycles (ns at LTTng's 1 GHz) ahead of the recording's. */
#define CLOCK_SHIFT 1013
#define PATH_BUF (PATH_MAX + 512) /* a directory's path and a name in it */

static uint32_t get32(const unsigned char *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void put32(unsigned char *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? i : 3 - i] = (unsigned char)(v >> (24 - 8 * i));
}

static bool slurp(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	*buf = NULL;
	if (!f || fstat(fileno(f), &st) || (uint64_t)st.st_size > FILE_MAX) {
		if (f)
			fclose(f);
		return false;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len + 1);
	if (!*buf || fread(*buf, 1, *len, f) != *len) {
		fclose(f);
		free(*buf);
		*buf = NULL;
		return false;
	}
	fclose(f);
	(*buf)[*len] = '\0';
	return true;
}

static bool spill(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(buf, 1, len, f) == len;

	if (f && fclose(f))
		ok = false;
	if (!ok)
		fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
	return ok;
}

static void uuid_str(const uint8_t u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
}

/* The text of @md (packetized or not), malloc'ed; the first packet's header in @hdr. */
static char *metadata_text(const unsigned char *md, size_t len, unsigned char hdr[MD_HEADER],
			   bool *packetized, bool *be)
{
	size_t off = 0, out = 0;
	char *text = malloc(len + 1);

	*be = get32(md, true) == MD_MAGIC;
	*packetized = len >= MD_HEADER && get32(md, *be) == MD_MAGIC;
	if (!text)
		return NULL;
	if (!*packetized) {
		memcpy(text, md, len);
		text[len] = '\0';
		return text;
	}
	memcpy(hdr, md, MD_HEADER);
	while (off + MD_HEADER <= len && get32(md + off, *be) == MD_MAGIC) {
		size_t content = get32(md + off + 24, *be) / 8, size = get32(md + off + 28, *be) / 8;

		if (content < MD_HEADER || size < content || off + size > len)
			break;
		memcpy(text + out, md + off + MD_HEADER, content - MD_HEADER);
		out += content - MD_HEADER;
		off += size;
	}
	text[out] = '\0';
	return text;
}

/* @text with the first "@key = \"...\";" after @after given @value (malloc'ed), or NULL. */
static char *replace_value(const char *text, const char *after, const char *key,
			   const char *value)
{
	const char *from = after ? strstr(text, after) : text;
	const char *k, *q1, *q2;
	char pat[64];
	char *out;

	snprintf(pat, sizeof(pat), "%s = \"", key);
	k = from ? strstr(from, pat) : NULL;
	if (!k)
		return NULL;
	q1 = k + strlen(pat);
	q2 = strchr(q1, '"');
	if (!q2)
		return NULL;
	out = malloc(strlen(text) + strlen(value) + 1);
	if (!out)
		return NULL;
	memcpy(out, text, (size_t)(q1 - text));
	strcpy(out + (q1 - text), value);
	strcat(out, q2);
	return out;
}

/*
 * @text with the first clock's "offset = N;" made N + @shift (malloc'ed), or NULL. Hosts'
 * clocks never agree to the nanosecond: copies on one clock would tie at every event.
 */
static char *shift_clock(const char *text, uint64_t shift)
{
	const char *clock = strstr(text, "clock {"), *k, *end;
	unsigned long long v;
	char num[32], *out;
	size_t head;

	k = clock ? strstr(clock, "offset = ") : NULL;
	if (!k)
		return NULL;
	k += strlen("offset = ");
	v = strtoull(k, (char **)&end, 10);
	if (end == k || *end != ';')
		return NULL;
	snprintf(num, sizeof(num), "%llu", v + (unsigned long long)shift);
	head = (size_t)(k - text);
	out = malloc(strlen(text) + sizeof(num));
	if (!out)
		return NULL;
	memcpy(out, text, head);
	strcpy(out + head, num);
	strcat(out, end);
	return out;
}

/* Packetize @text into @path with header @hdr (its UUID replaced by @uuid). */
static bool write_metadata(const char *path, const char *text, const unsigned char *hdr,
			   bool packetized, bool be, const uint8_t uuid[16])
{
	size_t len = strlen(text), psize, room, n, off = 0;
	unsigned char *buf, *p;
	bool ok;

	if (!packetized)
		return spill(path, text, len);
	psize = get32(hdr + 28, be) / 8;
	if (psize <= MD_HEADER)
		psize = 4096;
	room = psize - MD_HEADER;
	n = (len + room - 1) / room;
	buf = calloc(n ? n : 1, psize);
	if (!buf)
		return false;
	for (size_t i = 0; i < n; i++, off += room) {
		size_t chunk = len - off < room ? len - off : room;

		p = buf + i * psize;
		memcpy(p, hdr, MD_HEADER);
		memcpy(p + 4, uuid, 16);
		put32(p + 24, (uint32_t)((MD_HEADER + chunk) * 8), be);
		put32(p + 28, (uint32_t)(psize * 8), be);
		memcpy(p + MD_HEADER, text + off, chunk);
	}
	ok = spill(path, buf, n * psize);
	free(buf);
	return ok;
}

/* Copy stream file @from to @to with each (packet magic, @old) made (packet magic, @uuid). */
static bool copy_stream(const char *from, const char *to, const uint8_t old[16],
			const uint8_t uuid[16], unsigned *packets)
{
	unsigned char *buf;
	size_t len;
	bool ok;

	if (!slurp(from, &buf, &len)) {
		fprintf(stderr, "error: cannot read '%s'\n", from);
		return false;
	}
	for (size_t i = 0; i + 20 <= len; i++) {
		if ((get32(buf + i, true) == PKT_MAGIC || get32(buf + i, false) == PKT_MAGIC) &&
		    !memcmp(buf + i + 4, old, 16)) {
			memcpy(buf + i + 4, uuid, 16);
			(*packets)++;
			i += 19;
		}
	}
	ok = spill(to, buf, len);
	free(buf);
	return ok;
}

/* @a/@b into @out (false when it does not fit). */
static bool join(char *out, size_t outlen, const char *a, const char *b)
{
	int n = snprintf(out, outlen, "%s/%s", a, b);

	return n >= 0 && (size_t)n < outlen;
}

static bool mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	if (strlen(path) >= sizeof(tmp))
		return false;
	strcpy(tmp, path);
	for (char *s = tmp + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return false;
		*s = '/';
	}
	return !mkdir(tmp, 0755) || errno == EEXIST;
}

/* One trace directory @src (holding `metadata`) copied to @dst as host @host. */
static bool copy_trace(const char *src, const char *dst, unsigned host)
{
	char path[PATH_BUF], to[PATH_BUF], old_s[37], new_s[37], name[32];
	unsigned char hdr[MD_HEADER] = { 0 }, *md = NULL;
	char *text = NULL, *t1 = NULL, *t2 = NULL, *t3 = NULL;
	uint8_t old[16], uuid[16];
	unsigned packets = 0;
	bool packetized, be, ok = false;
	size_t len;
	DIR *d;
	struct dirent *de;

	if (!join(path, sizeof(path), src, "metadata") || !slurp(path, &md, &len) ||
	    !(text = metadata_text(md, len, hdr, &packetized, &be)))
		goto out;
	if (!packetized) {
		fprintf(stderr, "error: '%s' is a text metadata: its UUID is only in the text\n",
			path);
		goto out;
	}
	memcpy(old, hdr + 4, 16);
	memcpy(uuid, old, 16);
	/* a version 4 UUID stays one: the host's number in the last bytes */
	uuid[13] ^= (uint8_t)((host + 1) >> 16);
	uuid[14] ^= (uint8_t)((host + 1) >> 8);
	uuid[15] ^= (uint8_t)(host + 1);
	uuid_str(old, old_s);
	uuid_str(uuid, new_s);
	snprintf(name, sizeof(name), "host%03u", host);
	t1 = replace_value(text, "trace {", "uuid", new_s);
	t2 = t1 ? replace_value(t1, "env {", "hostname", name) : NULL;
	t3 = t2 ? shift_clock(t2, (uint64_t)host * CLOCK_SHIFT) : NULL;
	if (!t3 || !strstr(text, old_s)) {
		fprintf(stderr, "error: '%s': no trace UUID %s, env hostname or clock offset in "
			"its text\n", path, old_s);
		goto out;
	}
	if (!mkdir_p(dst))
		goto out;
	if (!join(to, sizeof(to), dst, "metadata") || !write_metadata(to, t3, hdr, packetized, be, uuid))
		goto out;
	d = opendir(src);
	if (!d)
		goto out;
	ok = true;
	while (ok && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (!join(path, sizeof(path), src, de->d_name) ||
		    !join(to, sizeof(to), dst, de->d_name) || stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && !strcmp(de->d_name, "index"))
			ok = bh_copy_dir(path, to);
		else if (S_ISREG(st.st_mode))
			ok = copy_stream(path, to, old, uuid, &packets);
	}
	closedir(d);
	if (ok && !packets) {
		fprintf(stderr, "error: no packet of '%s' names its UUID %s\n", src, old_s);
		ok = false;
	}
out:
	free(md);
	free(text);
	free(t1);
	free(t2);
	free(t3);
	return ok;
}

bool bh_copy_dir(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *de;
	bool ok = d && mkdir_p(dst);

	while (ok && (de = readdir(d))) {
		char from[PATH_BUF], to[PATH_BUF];
		unsigned char *buf = NULL;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		ok = join(from, sizeof(from), src, de->d_name) &&
		     join(to, sizeof(to), dst, de->d_name) && slurp(from, &buf, &len) && spill(to, buf, len);
		free(buf);
	}
	if (d)
		closedir(d);
	return ok;
}

/* The trace directories (those holding `metadata`) under the recorded trace. */
static char *g_dirs[64];
static unsigned g_dirs_n;

static int find_trace(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	if (flag == FTW_F && !strcmp(path + ftw->base, "metadata") && g_dirs_n < 64)
		g_dirs[g_dirs_n++] = strndup(path, (size_t)ftw->base - 1);
	return 0;
}

bool bh_make_tree(const char *trace, const char *tree, unsigned hosts)
{
	size_t root = strlen(trace);
	bool ok = true;

	g_dirs_n = 0;
	nftw(trace, find_trace, 16, FTW_PHYS);
	if (!g_dirs_n) {
		fprintf(stderr, "error: no trace under '%s'\n", trace);
		return false;
	}
	for (unsigned h = 0; h < hosts && ok; h++) {
		for (unsigned i = 0; i < g_dirs_n && ok; i++) {
			char dst[PATH_BUF];

			int len = snprintf(dst, sizeof(dst), "%s/host%03u%s", tree, h,
					   g_dirs[i] + root);

			ok = len > 0 && (size_t)len < sizeof(dst) && copy_trace(g_dirs[i], dst, h);
		}
	}
	for (unsigned i = 0; i < g_dirs_n; i++)
		free(g_dirs[i]);
	return ok;
}
