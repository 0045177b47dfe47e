/* SPDX-License-Identifier: MIT */
/*
 * A CTF trace's index and stream files checked before babeltrace2 2.0.4 reads them (the rest of
 * bt2_guard/check.c): every data stream file must be a regular file, and every index file must
 * agree with its stream file (2.0.4 aborts on one that does not; the reader then hides the
 * index). The same reading counts each stream file missing, emptied or shorter than the
 * packets its index lists - the trace's integrity facts - with no decoding: an LTTng index has
 * one entry per packet, its offset and size.
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

#include "read/event_internal.h"
#include "read/ctf/bt2_guard/check_int.h"

#define INDEX_MAX (UINT64_C(64) << 20)
#define IDX_MAGIC 0xC1F1DCC1u
#define IDX_HEADER 16
#define IDX_ENTRY_MIN 56 /* index 1.0: offset, sizes, begin, end, discarded, stream id */
#define PKT_MAGIC 0xC1FC1FC1u

static bool packet_magic_at(int fd, uint64_t off, bool be)
{
	unsigned char m[4];

	return pread(fd, m, 4, (off_t)off) == 4 && psa__get32(m, be) == PKT_MAGIC;
}

/*
 * The packets index @b (@len bytes) lists and the bytes they span, when they follow each other
 * from byte 0: false otherwise - a corrupt index (the reader ignores it) is no evidence that its
 * stream stops early. A partial last entry is left out.
 */
static bool index_extent(const unsigned char *b, size_t len, uint64_t *packets, uint64_t *bytes)
{
	size_t entry;

	*packets = *bytes = 0;
	if (len < IDX_HEADER || psa__get32(b, true) != IDX_MAGIC || (entry = psa__get32(b + 12, true)) < 24 ||
	    entry > 4096)
		return false;
	for (size_t i = 0; i < (len - IDX_HEADER) / entry; i++) {
		const unsigned char *e = b + IDX_HEADER + i * entry;
		uint64_t off = psa__get64be(e), size = psa__get64be(e + 8) / 8; /* offset, size in bits */

		if (off != *bytes || !size || size > UINT64_MAX - off)
			return false;
		(*packets)++;
		*bytes = off + size;
	}
	return true;
}

/*
 * Does index @b (@len bytes, of file @idx) agree with stream file @stream (@fd, @size bytes)?
 * Its packets must tile the stream file from byte 0 to its end, each one's content within it,
 * its times in order, every packet starting with the packet magic when the first one does. The
 * disagreement in @why.
 */
static bool index_agrees(const char *idx, const unsigned char *b, size_t len, const char *stream,
			 int fd, uint64_t size, bool *cut, char *why, size_t whylen)
{
	size_t entry;
	uint64_t off = 0, stream_id = 0;
	bool magic_be = false, magic = false;

	if (len < IDX_HEADER || psa__get32(b, true) != IDX_MAGIC || psa__get32(b + 4, true) != 1 ||
	    (entry = psa__get32(b + 12, true)) < IDX_ENTRY_MIN || entry > 4096 ||
	    (len - IDX_HEADER) % entry) {
		psa__errf(why, whylen, "'%s' is not an LTTng index file", idx);
		return false;
	}
	if (size >= 4 && packet_magic_at(fd, 0, true)) {
		magic = magic_be = true;
	} else if (size >= 4 && packet_magic_at(fd, 0, false)) {
		magic = true;
	}
	for (size_t i = 0; i < (len - IDX_HEADER) / entry; i++) {
		const unsigned char *e = b + IDX_HEADER + i * entry;
		uint64_t p_off = psa__get64be(e), p_size = psa__get64be(e + 8), c_size = psa__get64be(e + 16);
		uint64_t t_begin = psa__get64be(e + 24), t_end = psa__get64be(e + 32);

		if (i == 0)
			stream_id = psa__get64be(e + 48);
		if (p_off == off && p_size && p_size / 8 > size - off)
			*cut = true; /* the stream file ends before this packet does */
		if (p_off != off || !p_size || p_size % 8 || c_size > p_size || p_size / 8 > size - off ||
		    t_begin > t_end || psa__get64be(e + 48) != stream_id ||
		    (magic && !packet_magic_at(fd, off, magic_be))) {
			psa__errf(why, whylen, "index '%s' disagrees with '%s' at its packet %zu", idx,
				  stream, i);
			return false;
		}
		off += p_size / 8;
	}
	if (off != size) {
		psa__errf(why, whylen, "index '%s' covers %llu of the %llu bytes of '%s'", idx,
			  (unsigned long long)off, (unsigned long long)size, stream);
		return false;
	}
	return true;
}

/*
 * Where a packet of LTTng's stream files keeps its content and packet sizes (bits): after the
 * packet header (magic, uuid, stream id, instance id: 32 bytes), past the two timestamps. Used
 * only once the stream's first packet, read there, agrees with its index's first entry.
 */
#define PKT_CONTENT_AT 48
#define PKT_SIZE_AT 56

static uint64_t get64(const unsigned char *p, bool be)
{
	return be ? psa__get64be(p) : (uint64_t)psa__get32(p + 4, false) << 32 | psa__get32(p, false);
}

/* Packet @off's content and packet sizes (bits), read from its own context. */
static bool packet_sizes_at(int fd, uint64_t off, bool be, uint64_t *content, uint64_t *packet)
{
	unsigned char b[PKT_SIZE_AT + 8];

	if (pread(fd, b, sizeof(b), (off_t)off) != (ssize_t)sizeof(b) ||
	    psa__get32(b, be) != PKT_MAGIC)
		return false;
	*content = get64(b + PKT_CONTENT_AT, be);
	*packet = get64(b + PKT_SIZE_AT, be);
	return true;
}

/* check_int.h */
uint64_t psa__stream_whole_bytes(int fd, uint64_t size, const unsigned char *b, size_t len)
{
	uint64_t whole = 0, content, packet;
	size_t entry;
	bool be;

	if (len < IDX_HEADER || psa__get32(b, true) != IDX_MAGIC ||
	    (entry = psa__get32(b + 12, true)) < IDX_ENTRY_MIN || entry > 4096 ||
	    len - IDX_HEADER < entry)
		return size; /* no index entry to stand on: no claim */
	if (packet_magic_at(fd, 0, true))
		be = true;
	else if (packet_magic_at(fd, 0, false))
		be = false;
	else
		return size;
	for (size_t i = 0; i < (len - IDX_HEADER) / entry; i++) {
		const unsigned char *e = b + IDX_HEADER + i * entry;
		uint64_t p_off = psa__get64be(e), p_size = psa__get64be(e + 8);

		if (p_off != whole || !p_size || p_size % 8)
			return size; /* an index that does not tile: no claim */
		if (p_size / 8 > size - whole)
			return whole; /* the file ends inside this packet */
		whole += p_size / 8;
	}
	/* Past what the index lists (it lags its stream: a packet written, its entry not yet), by
	 * the packets' own sizes - where the first packet's agree with its entry. */
	if (!packet_sizes_at(fd, 0, be, &content, &packet) ||
	    packet != psa__get64be(b + IDX_HEADER + 8) || content != psa__get64be(b + IDX_HEADER + 16))
		return whole == size ? size : whole;
	while (whole < size && packet_sizes_at(fd, whole, be, &content, &packet) && packet &&
	       packet % 8 == 0 && content <= packet && packet / 8 >= PKT_SIZE_AT + 8 &&
	       packet / 8 <= size - whole)
		whole += packet / 8;
	return whole;
}

int psa__stream_whole_file(const char *dir, const char *name, uint64_t *size, uint64_t *whole)
{
	char idx[PATH_MAX], stream[PATH_MAX];
	unsigned char *b;
	size_t len;
	int fd;

	*size = *whole = 0;
	if ((size_t)snprintf(idx, sizeof(idx), "%s/index/%s.idx", dir, name) >= sizeof(idx) ||
	    (size_t)snprintf(stream, sizeof(stream), "%s/%s", dir, name) >= sizeof(stream))
		return -ENAMETOOLONG;
	if ((fd = psa__check_open_regular(stream, size, NULL, 0)) < 0)
		return fd;
	*whole = *size;
	if (!psa__check_slurp(idx, INDEX_MAX, &b, &len, NULL, 0)) {
		*whole = psa__stream_whole_bytes(fd, *size, b, len);
		free(b);
	}
	close(fd);
	return 0;
}

/* Of the packets index @b (@len bytes) lists, from byte 0, those that end within @size bytes. */
static uint64_t index_whole(const unsigned char *b, size_t len, uint64_t size)
{
	uint64_t packets, bytes, whole = 0;
	size_t entry = psa__get32(b + 12, true);

	if (!index_extent(b, len, &packets, &bytes))
		return 0;
	for (uint64_t i = 0; i < packets; i++) {
		const unsigned char *e = b + IDX_HEADER + i * entry;

		if (psa__get64be(e) + psa__get64be(e + 8) / 8 > size)
			break;
		whole++;
	}
	return whole;
}

/* Stream @name of @c damaged: @kind, against the @packets / @bytes its index lists, @whole of
 * those packets whole in the @found bytes of its file. */
static int damage_add(struct psa_ctf_check *c, enum psa_integrity_kind kind, const char *name,
		      size_t name_len, uint64_t packets, uint64_t whole, uint64_t bytes,
		      uint64_t found)
{
	struct psa_integrity_issue *v = realloc(c->damage, (c->damage_n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->damage = v;
	v = &c->damage[c->damage_n++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	psa__copy_str(v->stream, sizeof(v->stream), name, name_len);
	v->packets = packets;
	v->packets_whole = whole;
	v->bytes_expected = bytes;
	v->bytes_found = found;
	return 0;
}

/*
 * Index file @idx of stream file @stream (named @name, @name_len bytes) in @c: whether
 * babeltrace2 may read it (else hide_index, the first reason in index_why), whether the stream
 * is cut, and the damage its index shows (missing, emptied or cut short). 0 or -ENOMEM.
 */
static int check_one_index(const char *idx, const char *stream, const char *name,
			   size_t name_len, struct psa_ctf_check *c)
{
	char *why = c->hide_index ? NULL : c->index_why;
	size_t whylen = c->hide_index ? 0 : sizeof(c->index_why);
	uint64_t size = 0, packets, bytes, whole;
	bool cut = false, tiles;
	unsigned char *b;
	struct stat st;
	size_t len;
	int fd, rc = 0;

	if (stat(stream, &st) != 0) {
		/* babeltrace2 only reads the index of a stream file it has */
		if (!psa__check_slurp(idx, INDEX_MAX, &b, &len, NULL, 0)) {
			if (index_extent(b, len, &packets, &bytes) && packets)
				rc = damage_add(c, PSA_STREAM_MISSING, name, name_len, packets, 0, bytes,
					       0);
			free(b);
		}
		return rc;
	}
	if ((fd = psa__check_open_regular(stream, &size, why, whylen)) < 0) {
		c->hide_index = true;
		return 0;
	}
	if (psa__check_slurp(idx, INDEX_MAX, &b, &len, why, whylen)) {
		close(fd);
		c->hide_index = true;
		return 0;
	}
	if (!index_agrees(idx, b, len, stream, fd, size, &cut, why, whylen))
		c->hide_index = true;
	c->streams_cut += cut;
	tiles = index_extent(b, len, &packets, &bytes) && packets;
	if (tiles && size == 0)
		rc = damage_add(c, PSA_STREAM_EMPTY, name, name_len, packets, 0, bytes, 0);
	else if (tiles && size < bytes)
		rc = damage_add(c, PSA_STREAM_SHORT, name, name_len, packets,
				index_whole(b, len, size), bytes, size);
	else if (tiles && (whole = psa__stream_whole_bytes(fd, size, b, len)) < size)
		rc = damage_add(c, PSA_STREAM_PARTIAL, name, name_len, packets, packets, whole,
				size);
	free(b);
	close(fd);
	return rc;
}

/* Every index file of @dir against its stream file (check_one_index). 0 or -ENOMEM. */
int psa__ctf_check_index(const char *dir, struct psa_ctf_check *c, char *err, size_t errlen)
{
	char idir[PATH_MAX], idx[PATH_MAX], stream[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((size_t)snprintf(idir, sizeof(idir), "%s/index", dir) >= sizeof(idir) ||
	    !(d = opendir(idir)))
		return 0;
	while (!rc && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] == '.' || n <= 4 || strcmp(de->d_name + n - 4, ".idx"))
			continue;
		if ((size_t)snprintf(idx, sizeof(idx), "%s/%s", idir, de->d_name) >= sizeof(idx) ||
		    (size_t)snprintf(stream, sizeof(stream), "%s/%.*s", dir, (int)(n - 4),
				     de->d_name) >= sizeof(stream))
			continue;
		rc = check_one_index(idx, stream, de->d_name, n - 4, c);
	}
	closedir(d);
	if (rc)
		psa__errf(err, errlen, "out of memory");
	return rc;
}

/* The data stream files of @dir: regular files only (what babeltrace2 would open). */
int psa__ctf_check_streams(const char *dir, struct psa_ctf_check *c, char *err, size_t errlen)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d) {
		rc = -errno;
		psa__errf(err, errlen, "cannot open '%s': %s", dir, strerror(-rc));
		return rc;
	}
	while (!rc && (de = readdir(d)) != NULL) {
		struct stat st;

		/* babeltrace2 skips hidden files and the metadata; it opens everything else */
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			continue;
		if (!S_ISREG(st.st_mode)) {
			psa__errf(err, errlen, "cannot read trace '%s': '%s' in it is not a regular file",
				  dir, de->d_name);
			rc = -EINVAL;
			break;
		}
		c->streams++;
		c->streams_empty += st.st_size == 0;
		c->stream_bytes += (uint64_t)st.st_size;
	}
	closedir(d);
	return rc;
}

