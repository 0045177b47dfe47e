/* SPDX-License-Identifier: MIT */
/*
 * docgen: the build-time generator of the CLI's documentation. One source per command
 * (docs/commands/proxyscope-<command>.txt, format in docs/commands/README.md) gives its --help
 * text (a C header the commands include), its man page and its part of the bash completion,
 * so the three cannot disagree.
 *
 * A source is read into a flat list of blocks per section (paragraph, verbatim lines, list
 * item, option group, fault spec); each renderer walks the same list.
 */
#ifndef PROXYSCOPE_DOCGEN_H
#define PROXYSCOPE_DOCGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum block_kind {
	BK_PARA,  /* prose, words joined by single spaces: the renderers fill it */
	BK_VERB,  /* lines kept as written (examples, tables) */
	BK_ITEM,  /* a list item's term; the blocks up to the next item or BK_END are its text */
	BK_GROUP, /* a heading inside a section ("Recording") */
	BK_END,   /* the end of a list: what follows is the section's text again */
	BK_SPEC,  /* a value form of the item's option ("device-stall:rank=R,exec=E"), note */
};

struct block {
	enum block_kind kind;
	char *text;
	char *note;     /* BK_SPEC: what the form is for ("" when nothing) */
	char *complete; /* BK_ITEM of an option: file, dir, command, none (NULL: from the term) */
	char *values;   /* BK_ITEM of an option: the words its value can be, space-separated */
};

struct section {
	char *name; /* "DESCRIPTION", "OPTIONS", "EXIT STATUS", ... as the man page heads it */
	struct block *b;
	size_t n, cap;
};

#define DOC_USAGE_MAX 8
#define DOC_SECTIONS_MAX 16
#define DOC_COMMANDS_MAX 32

struct doc {
	char *name;    /* "run"; "" for proxyscope itself */
	char *page;    /* "proxyscope-run" */
	char *summary; /* one line */
	char *usage[DOC_USAGE_MAX];
	size_t n_usage;
	char *positional; /* what the arguments are, for the completion: file, dir, none */
	char *see;        /* "proxyscope(1) lttng(1)" */
	char *commands[DOC_COMMANDS_MAX]; /* proxyscope itself: the commands, in --help order */
	size_t n_commands;
	struct section sec[DOC_SECTIONS_MAX];
	size_t n_sec;
};

/* What the renderers need to know of the build. */
struct docgen_env {
	const char *version;
	const char *date;   /* the pages' date, YYYY-MM-DD */
	const char *subst[5]; /* @DOCDIR@ (docs/ installed), @DATADIR@, NULL */
	struct doc *top;    /* proxyscope itself */
	struct doc *cmds[DOC_COMMANDS_MAX];
	size_t n_cmds;
};

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
};

void buf_add(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_fini(struct buf *b);

/* Allocation that exits on failure (a build tool: nothing to recover). */
void *xmalloc(size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Read @path (with its @include files, relative to @dir) into @d, replacing each @KEY@ of
 * @subst (KEY, value, ..., NULL); exits on a syntax error.
 */
void doc_read(struct doc *d, const char *dir, const char *path, const char *const *subst);
void doc_free(struct doc *d);
/* The section called @name, or NULL. */
const struct section *doc_section(const struct doc *d, const char *name);
/* Whether a section appears in --help (the reference sections are the man page's only). */
bool section_in_help(const char *name);

/* Does an option term ("-o, --output DIR") take a value? Its names go to @names (space-sep). */
bool term_option_names(const char *term, struct buf *names);

/* The --help text of @d. */
void help_render(const struct docgen_env *env, const struct doc *d, struct buf *out);
/* The man page of @d. */
void man_render(const struct docgen_env *env, const struct doc *d, struct buf *out);
/* The completion's data: fills the placeholders of the template. */
void bash_render(const struct docgen_env *env, const char *template_text, struct buf *out);

#endif /* PROXYSCOPE_DOCGEN_H */
