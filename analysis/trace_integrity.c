/*
 * Damaged traces (psa_integrity.h): LTTng writes, beside each stream file, an index with one
 * entry per packet (its offset and size, big-endian), so a stream file that is missing, empty
 * or shorter than its last packet is found without decoding it. A trace's UUID is in the header
 * of its packetized metadata (or in the `uuid = "..."` of plain-text metadata); two trace
 * directories with one UUID are one trace copied.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <proxyscope/psa_integrity.h>

#define INDEX_MAGIC 0xC1F1DCC1u
#define METADATA_MAGIC 0x75D11D57u
#define UUID_LEN 16

struct seen_trace {
	char dir[512];
	unsigned char uuid[UUID_LEN];
};

struct walk {
	struct psa_integrity *out;
	struct seen_trace *traces;
	size_t traces_n, traces_cap;
	int err;
};

/* nftw has no argument pointer: one walk at a time (the analysis is single-threaded). */
static struct walk *g_walk;

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int issue_add(struct walk *w, enum psa_integrity_kind kind, const char *trace,
		     const char *stream, uint64_t packets, uint64_t expected, uint64_t found)
{
	struct psa_integrity *o = w->out;
	struct psa_integrity_issue *v = realloc(o->v, (o->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	o->v = v;
	v = &o->v[o->n++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	snprintf(v->trace, sizeof(v->trace), "%s", trace);
	snprintf(v->stream, sizeof(v->stream), "%s", stream);
	v->packets = packets;
	v->bytes_expected = expected;
	v->bytes_found = found;
	if (kind == PSA_TRACE_DUPLICATE)
		o->duplicates++;
	else
		o->damaged++;
	return 0;
}

/*
 * The packets an index lists, and the bytes they span. False when it is not an index: not a
 * regular file (a FIFO would block the open), or packets that do not follow each other from
 * byte 0 - a corrupt index, which the reader ignores (babeltrace2 re-indexes the stream), is
 * no evidence that its stream stops early.
 */
static bool index_extent(const char *path, uint64_t *packets, uint64_t *bytes)
{
	unsigned char head[16], entry[128];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	uint32_t len;
	bool ok = false;
	FILE *f;

	*packets = *bytes = 0;
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "rb"))) {
		close(fd);
		return false;
	}
	if (fread(head, 1, sizeof(head), f) != sizeof(head) || be32(head) != INDEX_MAGIC)
		goto out;
	len = be32(head + 12);
	if (len < 24 || len > sizeof(entry))
		goto out;
	while (fread(entry, 1, len, f) == len) {
		uint64_t off = be64(entry), size = be64(entry + 8) / 8; /* offset, size in bits */

		if (off != *bytes || !size || size > UINT64_MAX - off)
			goto out;
		(*packets)++;
		*bytes = off + size;
	}
	ok = true;
out:
	fclose(f);
	return ok;
}

static int check_streams(struct walk *w, const char *trace)
{
	char idxdir[1024], path[1200];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(idxdir, sizeof(idxdir), "%s/index", trace);
	if (!(d = opendir(idxdir)))
		return 0;
	while (!rc && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		uint64_t packets, bytes;
		char stream[128];
		struct stat st;

		if (n < 5 || strcmp(de->d_name + n - 4, ".idx") || n - 4 >= sizeof(stream))
			continue;
		snprintf(path, sizeof(path), "%s/%s", idxdir, de->d_name);
		if (!index_extent(path, &packets, &bytes) || !packets)
			continue;
		memcpy(stream, de->d_name, n - 4);
		stream[n - 4] = '\0';
		snprintf(path, sizeof(path), "%s/%s", trace, stream);
		if (stat(path, &st))
			rc = issue_add(w, PSA_STREAM_MISSING, trace, stream, packets, bytes, 0);
		else if (st.st_size == 0)
			rc = issue_add(w, PSA_STREAM_EMPTY, trace, stream, packets, bytes, 0);
		else if ((uint64_t)st.st_size < bytes)
			rc = issue_add(w, PSA_STREAM_SHORT, trace, stream, packets, bytes,
				       (uint64_t)st.st_size);
	}
	closedir(d);
	return rc;
}

/* The trace UUID from @trace/metadata; false when it has none we can read. */
static bool trace_uuid(const char *trace, unsigned char uuid[UUID_LEN])
{
	char path[1024], text[4096];
	unsigned char head[4 + UUID_LEN];
	FILE *f;
	size_t n;
	char *p;
	bool ok = false;

	snprintf(path, sizeof(path), "%s/metadata", trace);
	if (!(f = fopen(path, "rb")))
		return false;
	if (fread(head, 1, sizeof(head), f) == sizeof(head)) {
		uint32_t magic = (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 |
				 (uint32_t)head[3] << 24;

		if (magic == METADATA_MAGIC || be32(head) == METADATA_MAGIC) {
			memcpy(uuid, head + 4, UUID_LEN);
			ok = true;
		}
	}
	if (!ok) {
		rewind(f);
		n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = '\0';
		if ((p = strstr(text, "uuid = \"")) && strlen(p) >= 8 + 36) {
			memset(uuid, 0, UUID_LEN);
			for (int i = 0, k = 0; i < 36 && k < 2 * UUID_LEN; i++) {
				char c = p[8 + i];
				int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

				if (v < 0)
					continue;
				uuid[k / 2] |= (unsigned char)(k % 2 ? v : v << 4);
				k++;
			}
			ok = true;
		}
	}
	fclose(f);
	return ok;
}

static int check_trace(struct walk *w, const char *trace)
{
	unsigned char uuid[UUID_LEN];
	struct seen_trace *t;
	int rc = check_streams(w, trace);

	if (rc || !trace_uuid(trace, uuid))
		return rc;
	for (size_t i = 0; i < w->traces_n; i++)
		if (!memcmp(w->traces[i].uuid, uuid, UUID_LEN) && strcmp(w->traces[i].dir, trace))
			return issue_add(w, PSA_TRACE_DUPLICATE, trace, w->traces[i].dir, 0, 0, 0);
	if (w->traces_n == w->traces_cap) {
		size_t cap = w->traces_cap ? 2 * w->traces_cap : 8;

		t = realloc(w->traces, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		w->traces = t;
		w->traces_cap = cap;
	}
	t = &w->traces[w->traces_n++];
	snprintf(t->dir, sizeof(t->dir), "%s", trace);
	memcpy(t->uuid, uuid, UUID_LEN);
	return 0;
}

static int on_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char dir[512];

	/* a regular file only: opening a FIFO called metadata would block */
	if (type != FTW_F || !S_ISREG(st->st_mode) || strcmp(path + ftw->base, "metadata") ||
	    (size_t)ftw->base >= sizeof(dir))
		return 0;
	memcpy(dir, path, (size_t)ftw->base);
	dir[ftw->base ? ftw->base - 1 : 0] = '\0';
	g_walk->err = check_trace(g_walk, ftw->base ? dir : ".");
	return g_walk->err ? 1 : 0;
}

int psa_integrity_check(const char *const *paths, size_t n, struct psa_integrity *out)
{
	struct walk w = { .out = out };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	g_walk = &w;
	for (size_t i = 0; i < n && !rc; i++) {
		char real[512];

		/* the same directory given twice is read once by the reader */
		if (!realpath(paths[i], real))
			continue;
		nftw(real, on_file, 16, FTW_PHYS);
		rc = w.err;
	}
	g_walk = NULL;
	free(w.traces);
	return rc;
}

void psa_integrity_fini(struct psa_integrity *in)
{
	free(in->v);
	memset(in, 0, sizeof(*in));
}

void psa_integrity_issue_str(const struct psa_integrity_issue *i, char *buf, size_t len)
{
	switch (i->kind) {
	case PSA_STREAM_MISSING:
		snprintf(buf, len, "stream %s of '%s' is missing (its index lists %llu packet%s)",
			 i->stream, i->trace, (unsigned long long)i->packets, i->packets == 1 ? "" : "s");
		break;
	case PSA_STREAM_EMPTY:
		snprintf(buf, len, "stream %s of '%s' is empty (its index lists %llu packet%s, %llu bytes)",
			 i->stream, i->trace, (unsigned long long)i->packets, i->packets == 1 ? "" : "s",
			 (unsigned long long)i->bytes_expected);
		break;
	case PSA_STREAM_SHORT:
		snprintf(buf, len, "stream %s of '%s' stops early: %llu of the %llu bytes its %llu "
			 "packets take", i->stream, i->trace, (unsigned long long)i->bytes_found,
			 (unsigned long long)i->bytes_expected, (unsigned long long)i->packets);
		break;
	case PSA_TRACE_DUPLICATE:
		snprintf(buf, len, "'%s' is the same trace as '%s' (one trace UUID): its events are "
			 "counted once", i->trace, i->stream);
		break;
	}
}
