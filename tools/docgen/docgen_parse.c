/* SPDX-License-Identifier: MIT */
/*
 * docgen's reader (docgen.h): a source is lines of text and @directives (docs/commands/README.md).
 * Text lines make paragraphs (a blank line ends one); @verbatim ... @endverbatim keeps lines
 * as written; @include pastes another source (the TRACE paragraph shared by the reports).
 *
 * Design choice: every mistake in a source (an unknown directive, an option property outside
 * an option, a missing summary) stops the build with the file and line, so a page cannot
 * silently lose a part.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docgen.h"

struct reader {
	struct doc *d;
	const char *dir;
	const char *const *subst;
	struct section *sec; /* the current section; NULL in the header */
	struct buf para;     /* the paragraph being read */
	struct buf verb;     /* the verbatim lines being read */
	bool in_verb;
	long item;           /* index of the current BK_ITEM in sec, -1: none */
	const char *file;
	unsigned line;
	unsigned depth;      /* @include nesting */
};

static void bad(const struct reader *r, const char *what)
{
	die("%s:%u: %s", r->file, r->line, what);
}

static struct block *block_add(struct reader *r, enum block_kind kind, const char *text)
{
	struct section *s = r->sec;
	struct block *b;

	if (!s)
		bad(r, "text before the first @section");
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->b = realloc(s->b, s->cap * sizeof(*s->b));
		if (!s->b)
			die("out of memory");
	}
	b = &s->b[s->n++];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->text = xstrdup(text);
	return b;
}

static void para_flush(struct reader *r)
{
	if (r->para.len)
		block_add(r, BK_PARA, r->para.s);
	r->para.len = 0;
}

static struct block *item_current(struct reader *r, const char *directive)
{
	if (!r->sec || r->item < 0) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s outside an @item", directive);
		bad(r, msg);
	}
	return &r->sec->b[r->item];
}

/* @KEY@ becomes its value (@subst: KEY, value, ..., NULL): where the build installs things. */
static char *expand(const char *line, const char *const *subst)
{
	struct buf b = { 0 };

	buf_puts(&b, line);
	for (size_t i = 0; subst[i]; i += 2) {
		struct buf out = { 0 };
		const char *p, *q = b.s;
		size_t n = strlen(subst[i]);

		while ((p = strstr(q, subst[i]))) {
			buf_add(&out, q, (size_t)(p - q));
			buf_puts(&out, subst[i + 1]);
			q = p + n;
		}
		buf_puts(&out, q);
		buf_fini(&b);
		b = out;
	}
	return b.s;
}

static void read_file(struct reader *r, const char *name);

static void directive(struct reader *r, const char *word, const char *arg)
{
	struct doc *d = r->d;

	if (!strcmp(word, "name")) {
		d->name = xstrdup(strcmp(arg, "proxyscope") ? arg : "");
	} else if (!strcmp(word, "summary")) {
		d->summary = xstrdup(arg);
	} else if (!strcmp(word, "usage")) {
		if (d->n_usage == DOC_USAGE_MAX)
			bad(r, "too many @usage lines");
		d->usage[d->n_usage++] = xstrdup(arg);
	} else if (!strcmp(word, "positional")) {
		d->positional = xstrdup(arg);
	} else if (!strcmp(word, "see")) {
		d->see = xstrdup(arg);
	} else if (!strcmp(word, "commands")) {
		char *copy = xstrdup(arg), *save = NULL;

		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			if (d->n_commands == DOC_COMMANDS_MAX)
				bad(r, "too many commands");
			d->commands[d->n_commands++] = xstrdup(w);
		}
		free(copy);
	} else if (!strcmp(word, "section")) {
		para_flush(r);
		if (d->n_sec == DOC_SECTIONS_MAX)
			bad(r, "too many sections");
		r->sec = &d->sec[d->n_sec++];
		r->sec->name = xstrdup(arg);
		r->item = -1;
	} else if (!strcmp(word, "group")) {
		para_flush(r);
		block_add(r, BK_GROUP, arg);
		r->item = -1;
	} else if (!strcmp(word, "item")) {
		para_flush(r);
		block_add(r, BK_ITEM, arg);
		r->item = (long)r->sec->n - 1;
	} else if (!strcmp(word, "end")) {
		para_flush(r);
		block_add(r, BK_END, "");
		r->item = -1;
	} else if (!strcmp(word, "complete")) {
		item_current(r, "@complete")->complete = xstrdup(arg);
	} else if (!strcmp(word, "values")) {
		item_current(r, "@values")->values = xstrdup(arg);
	} else if (!strcmp(word, "spec")) {
		size_t n = strcspn(arg, " ");
		struct block *b;

		item_current(r, "@spec");
		para_flush(r);
		b = block_add(r, BK_SPEC, "");
		free(b->text);
		b->text = xstrndup(arg, n);
		b->note = xstrdup(arg + n + strspn(arg + n, " "));
	} else if (!strcmp(word, "verbatim")) {
		para_flush(r);
		r->in_verb = true;
	} else if (!strcmp(word, "include")) {
		const char *file = r->file;
		unsigned line = r->line;

		if (r->depth == 4)
			bad(r, "@include nested too deep");
		r->depth++;
		read_file(r, arg);
		r->depth--;
		r->file = file;
		r->line = line;
	} else {
		bad(r, "unknown directive");
	}
}

static void line_take(struct reader *r, char *line)
{
	size_t n = strlen(line);
	char *word, *arg;

	while (n && (line[n - 1] == '\n' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	if (r->in_verb) {
		if (!strcmp(line, "@endverbatim")) {
			block_add(r, BK_VERB, r->verb.len ? r->verb.s : "");
			r->verb.len = 0;
			r->in_verb = false;
		} else {
			buf_puts(&r->verb, line);
			buf_puts(&r->verb, "\n");
		}
		return;
	}
	if (line[0] == '#')
		return;
	if (line[0] == '@') {
		word = line + 1;
		arg = word + strcspn(word, " ");
		if (*arg)
			*arg++ = '\0';
		arg += strspn(arg, " ");
		directive(r, word, arg);
		return;
	}
	line += strspn(line, " \t");
	if (!*line) {
		para_flush(r);
		return;
	}
	if (!r->sec)
		bad(r, "text before the first @section");
	if (r->para.len)
		buf_puts(&r->para, " ");
	buf_puts(&r->para, line);
}

static void read_file(struct reader *r, const char *name)
{
	struct buf path = { 0 };
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	buf_printf(&path, "%s/%s", r->dir, name);
	f = fopen(path.s, "r");
	if (!f)
		die("cannot open '%s': %s", path.s, strerror(errno));
	r->file = name;
	r->line = 0;
	while (getline(&line, &cap, f) >= 0) {
		char *x = expand(line, r->subst);

		r->line++;
		line_take(r, x);
		free(x);
	}
	free(line);
	fclose(f);
	buf_fini(&path);
}

void doc_read(struct doc *d, const char *dir, const char *path, const char *const *subst)
{
	struct reader r = { .d = d, .dir = dir, .subst = subst, .item = -1 };
	struct buf page = { 0 };

	memset(d, 0, sizeof(*d));
	read_file(&r, path);
	r.file = path;
	if (r.in_verb)
		bad(&r, "@verbatim without @endverbatim");
	para_flush(&r);
	if (!d->name || !d->summary || !d->n_usage)
		bad(&r, "a page needs @name, @summary and @usage");
	buf_printf(&page, d->name[0] ? "proxyscope-%s" : "proxyscope", d->name);
	d->page = page.s;
	if (!d->positional)
		d->positional = xstrdup("none");
	buf_fini(&r.para);
	buf_fini(&r.verb);
}

void doc_free(struct doc *d)
{
	free(d->name);
	free(d->page);
	free(d->summary);
	free(d->positional);
	free(d->see);
	for (size_t i = 0; i < d->n_usage; i++)
		free(d->usage[i]);
	for (size_t i = 0; i < d->n_commands; i++)
		free(d->commands[i]);
	for (size_t i = 0; i < d->n_sec; i++) {
		for (size_t j = 0; j < d->sec[i].n; j++) {
			free(d->sec[i].b[j].text);
			free(d->sec[i].b[j].note);
			free(d->sec[i].b[j].complete);
			free(d->sec[i].b[j].values);
		}
		free(d->sec[i].b);
		free(d->sec[i].name);
	}
}

const struct section *doc_section(const struct doc *d, const char *name)
{
	for (size_t i = 0; i < d->n_sec; i++)
		if (!strcmp(d->sec[i].name, name))
			return &d->sec[i];
	return NULL;
}

bool section_in_help(const char *name)
{
	static const char *const man_only[] = { "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO" };

	for (size_t i = 0; i < sizeof(man_only) / sizeof(man_only[0]); i++)
		if (!strcmp(name, man_only[i]))
			return false;
	return true;
}

bool term_option_names(const char *term, struct buf *names)
{
	bool value = false;
	char *copy = xstrdup(term), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t n = strlen(w);

		if (w[0] == '-') {
			if (w[n - 1] == ',')
				w[--n] = '\0';
			if (names->len)
				buf_puts(names, " ");
			buf_puts(names, w);
		} else {
			value = true;
		}
	}
	free(copy);
	return value;
}
