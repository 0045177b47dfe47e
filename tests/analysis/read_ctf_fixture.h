/* SPDX-License-Identifier: MIT */
/*
 * The shared part of test_read_ctf: the traces recorded once for the whole run (setup), the
 * event collector, and how the tests run babeltrace2 and the two readers. The tests are in
 * test_read_ctf.c (good traces: babeltrace2's events, the text path, the paths, snapshots) and
 * test_read_ctf_errors.c (bad input and a trace with none of our events).
 */
#ifndef TESTS_ANALYSIS_READ_CTF_FIXTURE_H
#define TESTS_ANALYSIS_READ_CTF_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <proxyscope/psa_event.h>

#ifndef PROXYSCOPE_BIN
#error "PROXYSCOPE_BIN must name the proxyscope binary"
#endif

#define MAX_EVENTS 100000

extern char tmp[PATH_MAX];      /* this run's scratch directory */
extern char good[PATH_MAX];     /* tmp/good: the two good traces */
extern char run1[PATH_MAX];     /* tmp/good/run1: --ranks 2 --ops 3 */
extern char run2[PATH_MAX];     /* tmp/good/run2: --ranks 2 --ops 2 */
extern char empty[PATH_MAX];    /* tmp/empty: `record -- true` */
extern char snap[PATH_MAX];     /* tmp/snap: `record --snapshot`, DIR/snapshot-<n>-<date>/ust/... */
extern char trace1[PATH_MAX];   /* run1's trace directory (the one holding `metadata`) */
extern long run1_pid;           /* the traced `proxyscope run` of run1 */

struct events {
	size_t n;
	struct psa_event *ev;
	size_t discards;
};

void events_init(struct events *e);
void events_fini(struct events *e);
int run(char *const argv[], const char *out_path, const char *err_path);
bool in_path(const char *prog);
void path_join(char *out, const char *a, const char *b);
size_t babeltrace2(const char *dir, const char *opt1, const char *opt2, const char *out);
void find_trace_dir(const char *dir, char *out);
int read_ctf(const char *const *paths, size_t n, struct events *e, struct psa_read_stats *st,
	     char *err);
int read_ctf1(const char *path, struct events *e, struct psa_read_stats *st, char *err);
int read_text_file(const char *path, struct events *e, struct psa_read_stats *st, char *err);
int setup(void **state);
int teardown(void **state);

void test_read_ctf__not_a_trace(void **state);
void test_read_ctf__truncated_stream(void **state);
void test_read_ctf__corrupt_metadata(void **state);
void test_read_ctf__scribbled_stream(void **state);
void test_read_ctf__text_not_babeltrace2(void **state);
void test_read_ctf__no_events_of_ours(void **state);

#endif
