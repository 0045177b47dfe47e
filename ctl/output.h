/* SPDX-License-Identifier: MIT */
/*
 * Where `proxyscope export -o FILE` writes: resolve FILE (refusing an output that is one of
 * the inputs or inside an input trace), open what is written into, and finish it (flush, fsync,
 * rename the temporary file over FILE, or remove it on a failure). A FILE whose name ends in
 * ".gz" is written gzip-compressed, whatever the format. Never prints: each call returns 0 or
 * -errno with a one-line reason in @err (without "error: ").
 *
 *	struct ctl_output o;
 *	if (!(rc = ctl_output_resolve(&o, "-o value", inputs, n, text, err, len)) &&
 *	    !(rc = ctl_output_open(&o, err, len)))
 *		rc = ctl_output_close(&o, write_into(o.f) == 0, err, len);
 */
#ifndef PROXYSCOPE_CTL_OUTPUT_H
#define PROXYSCOPE_CTL_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "signals.h"

enum ctl_output_kind {
	CTL_OUTPUT_STDOUT,   /* "-", or FILE is our standard output (/dev/stdout) */
	CTL_OUTPUT_STRAIGHT, /* an existing FIFO or character device: written into, never replaced */
	CTL_OUTPUT_REPLACE,  /* a regular file, new or not: a temporary file renamed over it */
	CTL_OUTPUT_NR,
};

const char *ctl_output_kind_str(enum ctl_output_kind k);

struct ctl_output {
	enum ctl_output_kind kind;
	const char *name;           /* -o as given, for messages */
	const char *const *inputs;  /* the inputs it may not be */
	size_t inputs_n;
	bool text;                  /* the one input is babeltrace2 text (else CTF traces) */
	char final[PATH_MAX];       /* CTL_OUTPUT_REPLACE: the file replaced, links resolved */
	char dir[PATH_MAX];         /* its directory */
	mode_t mode;                /* the mode it gets: the old file's, or 0666 & ~umask */
	FILE *f;                    /* once open: what to write into */
	FILE *under;                /* FILE ends in ".gz": the stream @f compresses into, else NULL */
	int fd;
	char tmp[PATH_MAX];         /* CTL_OUTPUT_REPLACE, once open: the temporary file */
	struct ctl_sigunlink sig;   /* CTL_OUTPUT_REPLACE, while open: a signal removes @tmp */
};

/* Decide where -o @name goes. Returns 0 or -errno with @err; -EINVAL only when @name is
 * refused (one of the inputs, or inside an input trace: the command line is wrong). */
int ctl_output_resolve(struct ctl_output *o, const char *name, const char *const *inputs,
		       size_t inputs_n, bool text, char *err, size_t errlen);

/* Open it (o->f). Returns 0 or -errno with @err (nothing left behind). */
int ctl_output_open(struct ctl_output *o, char *err, size_t errlen);

/*
 * Finish it after a write: when @complete, flush, fsync and rename the temporary file over
 * FILE; else remove it (and return 0: the write's failure is the caller's to tell). Standard
 * output is left to main's flush. Returns 0 or -errno with @err.
 */
int ctl_output_close(struct ctl_output *o, bool complete, char *err, size_t errlen);

/* The errno of the first failed write into the output (ENOSPC on /dev/full), 0 if none. */
int ctl_output_write_errno(void);

#endif /* PROXYSCOPE_CTL_OUTPUT_H */
