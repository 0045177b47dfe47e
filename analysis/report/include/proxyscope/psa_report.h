/* SPDX-License-Identifier: MIT */
/*
 * A report: ONE model with the parts a command asks for (overview, statistics, timeline,
 * watchdog - each a model observer, fed in the same pass), read from the inputs (psa_input.h:
 * each trace directory found and checked once, read again on corrected host clocks when they
 * disagree), finished, and analyzed by the watchdog. Nothing here prints: every problem is a
 * negative errno and one line, which the caller turns into its message and exit code.
 *
 *	struct psa_report r;
 *	if ((rc = psa_report_init(&r, PSA_REPORT_STATS | PSA_REPORT_WATCHDOG, NULL, &wopts)))
 *		... out of memory ...
 *	rc = psa_report_read(&r, paths, n, &opts, err, sizeof(err));
 *	... print from r.stats, r.wd, r.m ...
 *	psa_report_fini(&r);
 */
#ifndef PROXYSCOPE_PSA_REPORT_H
#define PROXYSCOPE_PSA_REPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_clock.h>
#include <proxyscope/psa_event.h>
#include <proxyscope/psa_integrity.h>
#include <proxyscope/psa_model.h>
#include <proxyscope/psa_overview.h>
#include <proxyscope/psa_stats.h>
#include <proxyscope/psa_timeline.h>
#include <proxyscope/psa_watchdog.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The parts a command asks for (each one is a model observer, fed in the same pass). */
enum psa_report_part {
	PSA_REPORT_OVERVIEW = 1u << 0,
	PSA_REPORT_STATS = 1u << 1,
	PSA_REPORT_TIMELINE = 1u << 2,
	PSA_REPORT_WATCHDOG = 1u << 3,
};

/* What was read. */
struct psa_report_input {
	bool text;                 /* babeltrace2 text (else CTF) */
	const char *first;         /* the first path given, for messages */
	size_t paths_n;
	struct psa_read_stats rs;  /* the reader's counts */
	uint64_t filtered;         /* events of other processes left out (only_vpids) */
	char desc[160];            /* "1 CTF trace under 'dir'", "babeltrace2 text from '-'" */
	bool empty;                /* no proxyscope event (nothing was analyzed) */
	bool unreadable;           /* no proxyscope event could be read and a stream is damaged,
				      for a caller giving a verdict (psa_report_read_opts.verdict):
				      analyzed, the verdict inconclusive */
	char note[1024];           /* what the input chose, to say (psa_input_note), or "" */
	unsigned tail_reads;       /* reads of a tail-first verdict, the window doubled each time
				      (0: read whole at once; rs says how much the last one read) */
};

struct psa_report {
	struct psa_model *m;
	struct psa_overview *overview; /* NULL unless PSA_REPORT_OVERVIEW */
	struct psa_stats *stats;       /* NULL unless PSA_REPORT_STATS */
	struct psa_timeline *timeline; /* NULL unless PSA_REPORT_TIMELINE */
	struct psa_watchdog *wd;       /* NULL unless PSA_REPORT_WATCHDOG */
	struct psa_integrity integrity; /* damaged streams, copied traces (CTF input) */
	struct psa_clock *clock;        /* the hosts' clocks, estimated in the first pass */
	bool clock_applied;             /* the traces were read again on corrected clocks */
	bool snapshot;                  /* read as a flight-recorder snapshot */
	struct psa_report_input in;
	/* what psa_report_init was given, to make the parts again for a second pass */
	unsigned parts;
	const struct psa_timeline_filter *filter;
	struct psa_watchdog_opts wopts;
	unsigned extra_observers;       /* added with psa_report_add_observer */
	bool verdict;                   /* psa_report_read_opts.verdict, for the analysis */
};

/*
 * Create the model and the parts in @parts (@filter for the timeline, @wopts for the watchdog;
 * either may be NULL). Returns 0 or -ENOMEM (@r is then empty: psa_report_fini is harmless).
 */
int psa_report_init(struct psa_report *r, unsigned parts, const struct psa_timeline_filter *filter,
		    const struct psa_watchdog_opts *wopts);

/* Add another observer (an exporter) before reading. 0 or -ENOMEM. */
int psa_report_add_observer(struct psa_report *r, const struct psa_observer *obs);

void psa_report_fini(struct psa_report *r);

struct psa_report_read_opts {
	const uint32_t *only_vpids; /* keep only these processes' events (none: every process) */
	size_t only_vpids_n;
	bool snapshot;      /* the input is a flight-recorder snapshot (psa_model_set_snapshot);
			       also assumed for a path inside an LTTng snapshot directory */
	/*
	 * The observers added with psa_report_add_observer, added again to the new model when
	 * the traces are read a second time on corrected host clocks: 0 or a positive value
	 * psa_report_read returns as it is. Without it, a report with such observers is not read
	 * again (the clocks say so).
	 */
	int (*reread)(struct psa_report *r, void *arg);
	void *reread_arg;
	/* Around each pass (psa_input_read_opts: a progress line); either may be NULL. */
	void (*pass_begin)(void *arg, unsigned pass, _Atomic uint64_t *events);
	void (*pass_end)(void *arg, unsigned pass);
	void *pass_arg;
	/*
	 * The verdict from the tail first (the watchdog alone, CTF of one host, no threshold):
	 * each stream's set-up packets and a final window, doubled backwards until the verdict
	 * is the full read's (read/ctf/tail/).
	 */
	bool tail;
	/*
	 * The caller gives a verdict (report, watchdog, run): a trace of which not one proxyscope
	 * event could be read while a stream of it is damaged is analyzed - r->in.unreadable set,
	 * the verdict inconclusive - rather than -ENODATA, for the damage, not the recording,
	 * explains the absence: what the damaged stream held is lost.
	 */
	bool verdict;
};

/*
 * Read @paths (@n >= 1) into the model (psa_input.h), finish it, and run the watchdog analysis.
 * Returns 0; -ENODATA when the inputs hold no proxyscope event (r->in.empty set, the model
 * finished, nothing analyzed; @err says why, naming the first damage found when one explains
 * it) - unless opts->verdict and a stream is damaged (then 0, r->in.unreadable set); -ENOMEM; another negative errno for the input's problem (a missing path, not a trace,
 * a corrupt trace, not babeltrace2 text, mixed inputs) with the one-line reason in @err; or
 * the positive value opts->reread returned.
 */
int psa_report_read(struct psa_report *r, char *const *paths, size_t n,
		    const struct psa_report_read_opts *opts, char *err, size_t errlen);

/*
 * A slow link between two hosts (psa_clock_link_slow, either way), named once per pair: the
 * ranks on its hosts wait on it, so it is the link that is slow, not a rank. With the slow-link
 * fault each end recorded (encdev:fault SLOW_LINK), said as injected.
 */
struct psa_slow_link {
	char a[PSA_HOST_MAX], b[PSA_HOST_MAX]; /* a -> b is its first slow way by name */
	double transit_ns;  /* a -> b's median time in flight */
	double others_ns;   /* the median of the other links' medians */
	bool injected;      /* both hosts recorded a slow-link fault */
	uint64_t exec_id;   /* then: the first exec it held from, */
	uint32_t kbit;      /* and its rate */
};

/* After the read: the slow links (slow_links.c). 0 or -ENOMEM; free(*@out). */
int psa_report_slow_links(const struct psa_report *r, struct psa_slow_link **out, size_t *n);
/* "slow link: A <-> B: ..." for each (nothing when no link is slow). */
void psa_report_slow_links_print(const struct psa_report *r, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_REPORT_H */
