/*
 * Where `proxyscope export -o FILE` writes: resolve FILE (refusing an output that is one of
 * the inputs or inside an input trace), open what is written into, and finish it (flush, fsync,
 * rename the temporary file over FILE, or remove it on a failure). A FILE whose name ends in
 * ".gz" is written gzip-compressed, whatever the format.
 *
 *	struct export_out o;
 *	if (!(rc = export_out_resolve(&o, "-o value", inputs, n, text)) && !(rc = export_out_open(&o)))
 *		rc = export_out_close(&o, write_into(o.f));
 */
#ifndef PROXYSCOPE_CLI_EXPORT_OUTPUT_H
#define PROXYSCOPE_CLI_EXPORT_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

enum export_out_kind {
	EXPORT_OUT_STDOUT,   /* "-", or FILE is our standard output (/dev/stdout) */
	EXPORT_OUT_STRAIGHT, /* an existing FIFO or character device: written into, never replaced */
	EXPORT_OUT_REPLACE,  /* a regular file, new or not: a temporary file renamed over it */
};

struct export_out {
	enum export_out_kind kind;
	const char *name;           /* -o as given, for messages */
	const char *const *inputs;  /* the inputs it may not be */
	size_t inputs_n;
	bool text;                  /* the one input is babeltrace2 text (else CTF traces) */
	char final[PATH_MAX];       /* EXPORT_OUT_REPLACE: the file replaced, links resolved */
	char dir[PATH_MAX];         /* its directory */
	mode_t mode;                /* the mode it gets: the old file's, or 0666 & ~umask */
	FILE *f;                    /* once open: what to write into */
	FILE *under;                /* FILE ends in ".gz": the stream @f compresses into, else NULL */
	int fd;
};

/* Decide where -o @name goes. Returns 0, or the exit code after an "error:" line. */
int export_out_resolve(struct export_out *o, const char *name, const char *const *inputs,
		       size_t inputs_n, bool text);

/* Open it (o->f). Returns 0 or CLI_EXIT_FAILURE after an "error:" line. */
int export_out_open(struct export_out *o);

/*
 * Finish it after a write that returned @rc (0 or an exit code, its message printed): on 0
 * flush, fsync and rename the temporary file over FILE; else remove it. Standard output is left
 * to main's flush. Returns @rc, or CLI_EXIT_FAILURE after an "error:" line.
 */
int export_out_close(struct export_out *o, int rc);

/* The errno of the first failed write into the output (ENOSPC on /dev/full), 0 if none. */
int export_out_write_errno(void);

#endif /* PROXYSCOPE_CLI_EXPORT_OUTPUT_H */
