/*
 * What every report command shares: open the inputs (CTF trace directories, found recursively,
 * or one babeltrace2 text file / `-` for stdin), feed ONE model with all the observers the
 * command asked for in ONE pass, with a progress line on stderr for long reads, then finish the
 * model and run the watchdog analysis. Every input problem is one "error: ..." line and exit 2.
 *
 *	struct report_ctx c;
 *	if ((rc = report_ctx_init(&c, REPORT_STATS | REPORT_WATCHDOG, NULL, &wopts)))
 *		return rc;
 *	rc = report_ctx_read(&c, paths, n, NULL);    0, or the exit code (message printed)
 *	... print from c.stats, c.wd, c.m ...
 *	report_ctx_fini(&c);
 */
#ifndef PROXYSCOPE_CLI_REPORT_INPUT_H
#define PROXYSCOPE_CLI_REPORT_INPUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/psa_event.h>
#include <proxyscope/psa_model.h>
#include <proxyscope/psa_overview.h>
#include <proxyscope/psa_stats.h>
#include <proxyscope/psa_timeline.h>
#include <proxyscope/psa_watchdog.h>

/* The TRACE paragraph of every report command's --help. */
#define REPORT_TRACE_HELP                                                                          \
	"TRACE is a CTF trace directory, or any directory above some (every trace found under it\n" \
	"is read, merged by time with the others), or babeltrace2's text output: a file, or '-'\n"   \
	"for stdin (babeltrace2 TRACE | proxyscope report -). A progress line is drawn on stderr\n" \
	"during a long read when stderr is a terminal.\n"

/*
 * Collect the positional arguments of a report command: the TRACE paths, in an array of @argc
 * pointers the caller frees. Returns the array, or NULL when out of memory.
 */
char **report_paths_new(int argc);

/* The parts a command asks for (each one is a model observer, fed in the same pass). */
enum report_part {
	REPORT_OVERVIEW = 1u << 0,
	REPORT_STATS = 1u << 1,
	REPORT_TIMELINE = 1u << 2,
	REPORT_WATCHDOG = 1u << 3,
};

struct report_read_opts {
	uint32_t only_vpid; /* keep only this process's events (0: every process) */
	bool quiet;         /* no progress line */
};

/* What was read. */
struct report_input {
	bool text;                 /* babeltrace2 text (else CTF) */
	const char *first;         /* the first path given, for messages */
	size_t paths_n;
	struct psa_read_stats rs;  /* the reader's counts */
	uint64_t filtered;         /* events of other processes left out (only_vpid) */
	char desc[160];            /* "1 CTF trace under 'dir'", "babeltrace2 text from '-'" */
};

struct report_ctx {
	struct psa_model *m;
	struct psa_overview *overview; /* NULL unless REPORT_OVERVIEW */
	struct psa_stats *stats;       /* NULL unless REPORT_STATS */
	struct psa_timeline *timeline; /* NULL unless REPORT_TIMELINE */
	struct psa_watchdog *wd;       /* NULL unless REPORT_WATCHDOG */
	struct report_input in;
};

/*
 * Create the model and the parts in @parts (@filter for the timeline, @wopts for the watchdog;
 * either may be NULL). Returns 0, or CLI_EXIT_FAILURE after an "error:" line.
 */
int report_ctx_init(struct report_ctx *c, unsigned parts, const struct psa_timeline_filter *filter,
		    const struct psa_watchdog_opts *wopts);

/* Add another observer (an exporter) before reading. Returns 0 or CLI_EXIT_FAILURE. */
int report_ctx_add_observer(struct report_ctx *c, const struct psa_observer *obs);

/*
 * Read @paths (@n >= 1) into the model in one pass, finish it, run the watchdog analysis, and
 * warn on stderr about lost events. Returns 0, CLI_EXIT_USAGE after an "error:" line for every
 * input problem (missing path, not a trace, corrupt trace, not babeltrace2 text, no proxyscope
 * event, mixed inputs), or CLI_EXIT_FAILURE (out of memory).
 */
int report_ctx_read(struct report_ctx *c, char *const *paths, size_t n,
		    const struct report_read_opts *opts);

void report_ctx_fini(struct report_ctx *c);

/* "warning: the tracer lost ..." on stderr when events or packets were discarded. */
void report_warn_discards(const struct psa_model *m);

#endif /* PROXYSCOPE_CLI_REPORT_INPUT_H */
