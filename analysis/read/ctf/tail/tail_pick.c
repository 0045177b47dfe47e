/* SPDX-License-Identifier: MIT */
/*
 * The tail-first read's packet choice and its shadow directory (tail_pick.h). An LTTng index
 * entry (big-endian, 1.0 and later) starts with the packet's offset, its size and content size
 * in bits, its first and last timestamps; packets follow each other from byte 0 and in time
 * order within a stream, so the window is a suffix of each stream file.
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

#include "read/ctf/bt2_guard/check_int.h"
#include "read/ctf/tail/tail_pick.h"

#define INDEX_MAX (UINT64_C(64) << 20)
#define IDX_MAGIC 0xC1F1DCC1u
#define IDX_HEADER 16
#define IDX_ENTRY_MIN 40 /* offset, packet size, content size, begin, end */

struct entry {
	uint64_t off, size, begin, end;
	uint64_t discarded, seq; /* cumulative discarded events; sequence number (index 1.1) */
	bool has_discarded, has_seq;
};

/* The entries of index @b (@len bytes), in *@e (malloc'ed): 0, -ENOENT (unusable), -ENOMEM. */
static int parse_index(const unsigned char *b, size_t len, struct entry **e, uint64_t *n)
{
	size_t esz;
	uint64_t next = 0;

	*e = NULL;
	*n = 0;
	if (len < IDX_HEADER || psa__get32(b, true) != IDX_MAGIC ||
	    (esz = psa__get32(b + 12, true)) < IDX_ENTRY_MIN || esz > 4096)
		return -ENOENT;
	*n = (len - IDX_HEADER) / esz;
	if (!*n)
		return -ENOENT;
	if (!(*e = calloc(*n, sizeof(**e))))
		return -ENOMEM;
	for (uint64_t i = 0; i < *n; i++) {
		const unsigned char *p = b + IDX_HEADER + i * esz;
		struct entry *x = &(*e)[i];

		x->off = psa__get64be(p);
		x->size = psa__get64be(p + 8) / 8;
		x->begin = psa__get64be(p + 24);
		x->end = psa__get64be(p + 32);
		if ((x->has_discarded = esz >= 48))
			x->discarded = psa__get64be(p + 40);
		if ((x->has_seq = esz >= 72))
			x->seq = psa__get64be(p + 64);
		/* contiguous from 0 and in time order, else not an index to cut by */
		if (x->off != next || !x->size || x->size > UINT64_MAX - x->off || x->end < x->begin ||
		    (i && x->begin < (*e)[i - 1].begin)) {
			free(*e);
			*e = NULL;
			return -ENOENT;
		}
		next = x->off + x->size;
	}
	return 0;
}

static bool is_stream(const char *dir, const struct dirent *de)
{
	char path[PATH_MAX];
	struct stat st;

	if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
		return false;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Stream @name's index entries: 0, -ENOENT, -ENOMEM. */
static int load(const char *dir, const char *name, struct entry **e, uint64_t *n, char *err,
		size_t errlen)
{
	char path[PATH_MAX];
	unsigned char *b = NULL;
	size_t len = 0;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/index/%s.idx", dir, name) >= sizeof(path))
		return -ENOENT;
	if (access(path, F_OK) != 0)
		return -ENOENT;
	rc = psa__check_slurp(path, INDEX_MAX, &b, &len, err, errlen);
	if (rc)
		return rc == -ENOMEM ? rc : -ENOENT;
	rc = parse_index(b, len, e, n);
	free(b);
	return rc;
}

struct loaded {
	struct entry *e;
	uint64_t n;
};

static int collect(const char *dir, struct psa_tail_pick *p, struct loaded **lp, char *err,
		   size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	int rc = 0;

	if (!d)
		return -ENOENT;
	while (!rc && (de = readdir(d)) != NULL) {
		struct loaded l;

		if (!is_stream(dir, de))
			continue;
		if ((rc = load(dir, de->d_name, &l.e, &l.n, err, errlen)))
			break;
		if (p->n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			void *ns = realloc(p->s, nc * sizeof(*p->s)), *nl;

			if (ns)
				p->s = ns;
			nl = ns ? realloc(*lp, nc * sizeof(**lp)) : NULL;
			if (!ns || !nl) {
				free(l.e);
				rc = -ENOMEM;
				break;
			}
			*lp = nl;
			cap = nc;
		}
		memset(&p->s[p->n], 0, sizeof(p->s[p->n]));
		if (!(p->s[p->n].name = strdup(de->d_name))) {
			free(l.e);
			rc = -ENOMEM;
			break;
		}
		(*lp)[p->n++] = l;
	}
	closedir(d);
	if (!rc && !p->n)
		rc = -ENOENT;
	return rc;
}

static int add_loss(struct psa_tail_stream *s, uint64_t begin, uint64_t end, uint64_t count,
		    int packets)
{
	void *n = realloc(s->loss, (s->loss_n + 1) * sizeof(*s->loss));

	if (!n)
		return -ENOMEM;
	s->loss = n;
	s->loss[s->loss_n++] = (struct psa_tail_loss){ begin, end, count, packets };
	return 0;
}

/*
 * The losses in packets 1..@k of @e (@k: the first packet of the window), each against the packet
 * before it as babeltrace2 2.0.4 reports them: lost packets from the previous packet's end to
 * this one's beginning, discarded events from the previous packet's end to this one's end.
 */
static int skipped_losses(const struct entry *e, uint64_t k, struct psa_tail_stream *s)
{
	int rc = 0;

	for (uint64_t i = 1; !rc && i <= k; i++) {
		if (e[i].has_seq && e[i].seq > e[i - 1].seq + 1)
			rc = add_loss(s, e[i - 1].end, e[i].begin, e[i].seq - e[i - 1].seq - 1, 1);
		if (!rc && e[i].has_discarded && e[i].discarded != e[i - 1].discarded)
			rc = add_loss(s, e[i - 1].end, e[i].end, e[i].discarded - e[i - 1].discarded, 0);
	}
	return rc;
}

int psa__tail_pick(const char *dir, uint64_t window, struct psa_tail_pick *p, char *err,
		   size_t errlen)
{
	struct loaded *l = NULL;
	uint64_t cut;
	int rc;

	memset(p, 0, sizeof(*p));
	p->begin = UINT64_MAX;
	rc = collect(dir, p, &l, err, errlen);
	for (size_t i = 0; !rc && i < p->n; i++) {
		const struct entry *last = &l[i].e[l[i].n - 1];

		if (l[i].e[0].begin < p->begin)
			p->begin = l[i].e[0].begin;
		if (last->end > p->end)
			p->end = last->end;
	}
	cut = window >= p->end ? 0 : p->end - window;
	for (size_t i = 0; !rc && i < p->n; i++) {
		struct psa_tail_stream *s = &p->s[i];
		uint64_t k = 0;

		s->packets = l[i].n;
		s->setup_end = l[i].e[0].size;
		s->seam_ts = l[i].e[0].end;
		s->size = l[i].e[l[i].n - 1].off + l[i].e[l[i].n - 1].size;
		/* the first packet ending inside the window; a stream quiet in it keeps its last */
		while (k + 1 < l[i].n && l[i].e[k].end < cut)
			k++;
		s->tail_off = l[i].e[k].off;
		if (s->tail_off <= s->setup_end)
			s->tail_off = s->setup_end = 0; /* all of it */
		if (s->tail_off && (rc = skipped_losses(l[i].e, k, s)))
			break;
		/* the stream is read whole after the latest end of the packets it skips (a later
		 * event is in a kept packet, one at that end may be in a skipped one): the window
		 * is where every stream is whole, so it grows to the packets read, never shrinks */
		for (uint64_t j = 0; s->tail_off && j < k; j++)
			if (l[i].e[j].end + 1 > p->cut)
				p->cut = l[i].e[j].end + 1;
		p->bytes_total += s->size;
		p->bytes_kept += s->setup_end + (s->size - s->tail_off);
	}
	for (size_t i = 0; l && i < p->n; i++)
		free(l[i].e);
	free(l);
	return rc;
}

void psa__tail_pick_fini(struct psa_tail_pick *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->s[i].name);
		free(p->s[i].loss);
	}
	free(p->s);
	memset(p, 0, sizeof(*p));
}

int psa__tail_pick_whole(const struct psa_tail_pick *p)
{
	return p->bytes_kept == p->bytes_total;
}

static int shadow_stream(const char *dir, const struct psa_tail_stream *s, const char *shadow)
{
	char from[PATH_MAX], to[PATH_MAX];
	int in, out, rc;

	if ((size_t)snprintf(from, sizeof(from), "%s/%s", dir, s->name) >= sizeof(from) ||
	    (size_t)snprintf(to, sizeof(to), "%s/%s", shadow, s->name) >= sizeof(to))
		return -ENAMETOOLONG;
	if (!s->setup_end && !s->tail_off) /* whole: a link is enough */
		return symlink(from, to) ? -errno : 0;
	if ((in = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return -errno;
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	rc = psa__copy_range(in, out, 0, s->setup_end);
	if (!rc)
		rc = psa__copy_range(in, out, s->tail_off, s->size - s->tail_off);
	close(in);
	if (close(out) && !rc)
		rc = -errno;
	return rc;
}

int psa__tail_shadow(const char *rel, const struct psa_tail_pick *p, const char *shadow,
		     char *err, size_t errlen)
{
	char dir[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	int rc = 0;

	if (!realpath(rel, dir)) { /* the links must hold wherever the shadow is */
		rc = -errno;
		snprintf(err, errlen, "%s: %s", rel, strerror(-rc));
		return rc;
	}

	if (mkdir(shadow, 0700)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", shadow, strerror(-rc));
		return rc;
	}
	if ((size_t)snprintf(from, sizeof(from), "%s/metadata", dir) >= sizeof(from) ||
	    (size_t)snprintf(to, sizeof(to), "%s/metadata", shadow) >= sizeof(to))
		rc = -ENAMETOOLONG;
	else if (symlink(from, to))
		rc = -errno;
	for (size_t i = 0; !rc && i < p->n; i++)
		rc = shadow_stream(dir, &p->s[i], shadow);
	if (rc)
		snprintf(err, errlen, "%s: the tail's shadow directory: %s", dir, strerror(-rc));
	return rc;
}

void psa__tail_unshadow(const char *shadow, const struct psa_tail_pick *p)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < p->n; i++)
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", shadow, p->s[i].name) < sizeof(path))
			unlink(path);
	if ((size_t)snprintf(path, sizeof(path), "%s/metadata", shadow) < sizeof(path))
		unlink(path);
	rmdir(shadow);
}
