/* SPDX-License-Identifier: MIT */
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

#include <proxyscope/psa_clock.h>
#include <proxyscope/psa_event.h>
#include <proxyscope/psa_integrity.h>
#include <proxyscope/psa_model.h>
#include <proxyscope/psa_overview.h>
#include <proxyscope/psa_stats.h>
#include <proxyscope/psa_timeline.h>
#include <proxyscope/psa_watchdog.h>

#include "cli_util.h"

/* The TRACE paragraph of every report command's --help. */
#define REPORT_TRACE_HELP                                                                          \
	"TRACE is a CTF trace directory, or any directory above some (every trace found under it\n" \
	"is read, merged by time with the others), or babeltrace2's text output: a file, or '-'\n"   \
	"for stdin (babeltrace2 TRACE | proxyscope report -). A progress line is drawn on stderr\n" \
	"during a long read when stderr is a terminal. The traces of several hosts are merged on\n"  \
	"clocks checked against the messages between them: a host whose clock disagrees by more\n" \
	"than they allow is corrected (CTF: read again), and the clocks section says so.\n"

/* The parts a command asks for (each one is a model observer, fed in the same pass). */
enum report_part {
	REPORT_OVERVIEW = 1u << 0,
	REPORT_STATS = 1u << 1,
	REPORT_TIMELINE = 1u << 2,
	REPORT_WATCHDOG = 1u << 3,
};

struct report_ctx;

struct report_read_opts {
	const uint32_t *only_vpids; /* keep only these processes' events (none: every process) */
	size_t only_vpids_n;
	bool quiet;         /* no progress line */
	bool snapshot;      /* the input is a flight-recorder snapshot (psa_model_set_snapshot);
			       also assumed for a path inside an LTTng snapshot directory */
	bool empty_ok;      /* no proxyscope event is not an error: c->in.empty is set, and the
			       caller says it (a recording command, trace_tally.h) */
	/*
	 * The observers added with report_ctx_add_observer, added again to the new model when
	 * the traces are read a second time on corrected host clocks: 0 or the exit code. Without
	 * it, a context with such observers is not re-read (the clocks say so).
	 */
	int (*reread)(struct report_ctx *c, void *arg);
	void *reread_arg;
};

/* What was read. */
struct report_input {
	bool text;                 /* babeltrace2 text (else CTF) */
	const char *first;         /* the first path given, for messages */
	size_t paths_n;
	struct psa_read_stats rs;  /* the reader's counts */
	uint64_t filtered;         /* events of other processes left out (only_vpids) */
	char desc[160];            /* "1 CTF trace under 'dir'", "babeltrace2 text from '-'" */
	bool empty;                /* no proxyscope event (with empty_ok; nothing was analyzed) */
};

struct report_ctx {
	struct psa_model *m;
	struct psa_overview *overview; /* NULL unless REPORT_OVERVIEW */
	struct psa_stats *stats;       /* NULL unless REPORT_STATS */
	struct psa_timeline *timeline; /* NULL unless REPORT_TIMELINE */
	struct psa_watchdog *wd;       /* NULL unless REPORT_WATCHDOG */
	struct psa_integrity integrity; /* damaged streams, copied traces (CTF input) */
	struct psa_clock *clock;        /* the hosts' clocks, estimated in the first pass */
	bool clock_applied;             /* the traces were read again on corrected clocks */
	bool snapshot;                  /* read as a flight-recorder snapshot */
	struct report_input in;
	/* what report_ctx_init was given, to make the parts again for a second pass */
	unsigned parts;
	const struct psa_timeline_filter *filter;
	struct psa_watchdog_opts wopts;
	unsigned extra_observers;       /* added with report_ctx_add_observer */
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
 * warn on stderr about lost events. The hosts' clocks are estimated in the same pass (psa_clock.h);
 * when a host's clock disagrees by more than the evidence allows, CTF traces are read a second
 * time, into new parts, on the corrected clocks (traces whose clocks agree are read once).
 * Returns 0, CLI_EXIT_USAGE after an "error:" line for every
 * input problem (missing path, not a trace, corrupt trace, not babeltrace2 text, no proxyscope
 * event, mixed inputs), or CLI_EXIT_FAILURE (out of memory).
 */
int report_ctx_read(struct report_ctx *c, char *const *paths, size_t n,
		    const struct report_read_opts *opts);

void report_ctx_fini(struct report_ctx *c);

/* The "clocks:" section and a blank line (nothing for a trace of one host). */
void report_print_clocks(const struct report_ctx *c, FILE *out);

/*
 * Open babeltrace2 text file @path for reading: a regular file only (opened without blocking on
 * a FIFO). NULL with the one-line reason in @err.
 */
FILE *report_open_text(const char *path, char *err, size_t errlen);

/* --- a report command's arguments ------------------------------------------------------------ */

/* The options of the commands that run the watchdog (report, watchdog): --threshold, --json, -h. */
extern const struct cli_opt report_watchdog_opts[];

/* Their --help after the description: the options, the TRACE paragraph and the exit status. */
#define REPORT_WATCHDOG_HELP                                                                        \
	"    --threshold DURATION  also report finished tasks that spent longer than DURATION in one\n" \
	"                          state (a number and a unit: us, ms, s or m)\n"                   \
	"    --json                print one JSON object on stdout (docs/json-schema.md)\n"         \
	"    -h, --help            show this help\n"                                                \
	"\n" REPORT_TRACE_HELP                                                                      \
	"\n"                                                                                        \
	"Exit status: 0 no stall, 1 a stall or failure the trace shows, 2 usage error or\n"   \
	"unreadable input, 3 inconclusive: no stall is shown but the trace cannot rule one out\n" \
	"(the fate of some tasks rests on events the tracer lost, or its level records no\n"      \
	"event a stall would leave).\n"

/* The option ids report_cmd_parse handles; a command's own options take ids from REPORT_OPT_OWN. */
enum report_opt {
	REPORT_OPT_JSON = 1,  /* --json */
	REPORT_OPT_HELP,      /* -h, --help: print the usage, exit 0 */
	REPORT_OPT_THRESHOLD, /* --threshold DURATION, into the watchdog's options */
	REPORT_OPT_OWN,
};

/* A report command, as its argument parsing sees it. */
struct report_cmd {
	const char *name;           /* for the messages: "See 'proxyscope <name> --help'." */
	const char *usage;          /* the --help text */
	const struct cli_opt *opts; /* REPORT_OPT_* ids and the command's own */
	/*
	 * The command's own option @id as spelled @name, with its @value (NULL when it takes
	 * none): 0, or the exit code after a message. NULL when the command has none.
	 */
	int (*option)(void *arg, int id, const char *name, const char *value);
};

/* What the arguments said. */
struct report_args {
	char **paths;                   /* the TRACE arguments, in order */
	size_t n;                       /* >= 1 */
	bool json;                      /* --json */
	struct psa_watchdog_opts wopts; /* --threshold */
};

/*
 * Parse @argv (argv[0] is the command's name), handing @cmd's own options to cmd->option(@arg).
 * Returns true with @a filled, or false with *@rc the exit code: CLI_EXIT_OK after --help,
 * CLI_EXIT_USAGE after a usage error (no TRACE included), CLI_EXIT_FAILURE when out of memory.
 */
bool report_cmd_parse(const struct report_cmd *cmd, int argc, char **argv, void *arg,
		      struct report_args *a, int *rc);

/*
 * report_ctx_init(@c, @parts, @filter, the --threshold options) then report_ctx_read of the
 * paths. Returns 0 or the exit code (message printed); report_cmd_done(@a, @c) either way.
 */
int report_cmd_read(const struct report_args *a, struct report_ctx *c, unsigned parts,
		    const struct psa_timeline_filter *filter);

/* report_ctx_fini(@c) and free the paths. */
void report_cmd_done(struct report_args *a, struct report_ctx *c);

/* The exit status the watchdog's verdict decides (see REPORT_WATCHDOG_HELP). */
static inline int report_exit_status(const struct psa_watchdog *w)
{
	switch (psa_watchdog_verdict(w)) {
	case PSA_VERDICT_STALL:
		return CLI_EXIT_FAILURE;
	case PSA_VERDICT_INCONCLUSIVE:
		return CLI_EXIT_INCONCLUSIVE;
	default:
		return CLI_EXIT_OK;
	}
}

/* "warning: NAME:LINE: N events earlier than ..." on stderr when text went back in time. */
void report_warn_text(const char *name, const struct psa_read_stats *rs);

/* "warning: the tracer lost ..." on stderr when events or packets were discarded. */
void report_warn_discards(const struct psa_model *m);

#endif /* PROXYSCOPE_CLI_REPORT_INPUT_H */
