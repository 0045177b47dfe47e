/* SPDX-License-Identifier: MIT */
/*
 * psa_read_ctf without libbabeltrace2 (-DWITH_ANALYSIS=OFF): the text reader still works
 * (`babeltrace2 TRACE | proxyscope report -`), reading CTF says why it cannot.
 */
#include <errno.h>
#include <stdlib.h>

#include <proxyscope/psa_clock.h>
#include <proxyscope/psa_live.h>

#include "read/event_internal.h"
#include "read/ctf/set.h"

int psa_read_ctf(const char *const *paths, size_t paths_n, const struct psa_sink *sink,
		 struct psa_read_stats *stats, void (*progress)(uint64_t events, void *arg),
		 void *progress_arg, char *err, size_t errlen)
{
	if (stats)
		*stats = (struct psa_read_stats){ 0 };
	psa__errf(err, errlen, "built without babeltrace2 (-DWITH_ANALYSIS=OFF)");
	return -ENOTSUP;
}

int psa_read_ctf_clocked(const char *const *paths, size_t paths_n, const struct psa_clock_fix *fix,
			 size_t fix_n, const struct psa_sink *sink, struct psa_read_stats *stats,
			 void (*progress)(uint64_t events, void *arg), void *progress_arg,
			 char *err, size_t errlen)
{
	(void)fix, (void)fix_n;
	return psa_read_ctf(paths, paths_n, sink, stats, progress, progress_arg, err, errlen);
}

int psa_live_open(const char *url, struct psa_live **out, char *err, size_t errlen)
{
	(void)url;
	*out = NULL;
	psa__errf(err, errlen, "built without babeltrace2 (-DWITH_ANALYSIS=OFF)");
	return -ENOTSUP;
}

int psa_live_open_many(const char *const *urls, size_t n, struct psa_live **out, char *err,
		       size_t errlen)
{
	(void)urls;
	(void)n;
	*out = NULL;
	psa__errf(err, errlen, "built without babeltrace2 (-DWITH_ANALYSIS=OFF)");
	return -ENOTSUP;
}

int psa_live_poll(struct psa_live *l, const struct psa_sink *sink, unsigned wait_ms, char *err,
		  size_t errlen)
{
	(void)l, (void)sink, (void)wait_ms;
	psa__errf(err, errlen, "built without babeltrace2 (-DWITH_ANALYSIS=OFF)");
	return -ENOTSUP;
}

void psa_live_status(struct psa_live *l, struct psa_live_status *st)
{
	(void)l;
	*st = (struct psa_live_status){ 0 };
}

void psa_live_set_silence(struct psa_live *l, uint64_t silent_ns)
{
	(void)l, (void)silent_ns;
}

size_t psa_live_silent(const struct psa_live *l, struct psa_live_silent *out, size_t max)
{
	(void)l, (void)out, (void)max;
	return 0;
}

bool psa_live_close(struct psa_live *l, unsigned wait_ms)
{
	(void)l, (void)wait_ms;
	return true;
}

int psa_live_list(const char *relay_url, struct psa_live_session *out, size_t max, size_t *n,
		  unsigned timeout_ms, char *err, size_t errlen)
{
	(void)relay_url, (void)out, (void)max, (void)timeout_ms;
	*n = 0;
	psa__errf(err, errlen, "built without babeltrace2 (-DWITH_ANALYSIS=OFF)");
	return -ENOTSUP;
}

int psa_ctf_find(const char *path, void (*each)(void *arg, const char *dir), void *arg, char *err,
		 size_t errlen)
{
	psa__errf(err, errlen, "cannot read '%s' as CTF: built without babeltrace2 "
		  "(-DWITH_ANALYSIS=OFF)", path);
	return -ENOTSUP;
}

int psa_ctf_trace_facts(const char *const *paths, size_t paths_n,
			void (*each)(void *arg, const struct psa_trace_facts *f), void *arg,
			char *err, size_t errlen)
{
	psa__errf(err, errlen, "built without babeltrace2 (-DWITH_ANALYSIS=OFF)");
	return -ENOTSUP;
}

/* The set of traces (set.h): found as psa_ctf_find finds them (it says why it cannot). */
struct psa_ctf_set {
	int unused;
};

int psa__ctf_set_create(struct psa_ctf_set **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void psa__ctf_set_destroy(struct psa_ctf_set *s)
{
	free(s);
}

int psa__ctf_set_add(struct psa_ctf_set *s, const char *path, size_t *found, char *err,
		     size_t errlen)
{
	(void)s;
	*found = 0;
	return psa_ctf_find(path, NULL, NULL, err, errlen);
}

int psa__ctf_set_check(struct psa_ctf_set *s, char *err, size_t errlen)
{
	(void)s;
	psa__errf(err, errlen, "built without babeltrace2 (-DWITH_ANALYSIS=OFF)");
	return -ENOTSUP;
}

void psa__ctf_set_tail(struct psa_ctf_set *s, uint64_t window_ns, uint64_t inner_ns)
{
	(void)s, (void)window_ns, (void)inner_ns;
}

int psa__ctf_set_read(struct psa_ctf_set *s, const struct psa_clock_fix *fix, size_t fix_n,
		      const struct psa_sink *sink, struct psa_read_stats *stats,
		      void (*progress)(uint64_t events, void *arg), void *progress_arg, char *err,
		      size_t errlen)
{
	(void)s, (void)fix, (void)fix_n;
	return psa_read_ctf(NULL, 0, sink, stats, progress, progress_arg, err, errlen);
}

int psa__ctf_set_facts(struct psa_ctf_set *s,
		       void (*each)(void *arg, const struct psa_trace_facts *f), void *arg,
		       char *err, size_t errlen)
{
	(void)each, (void)arg;
	return psa__ctf_set_check(s, err, errlen);
}
