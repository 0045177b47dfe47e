/* SPDX-License-Identifier: MIT */
/*
 * docgen's --help renderer (docgen.h): the usage lines, then every section a user needs at the
 * terminal (description, options, notes, exit status) as plain text filled to 80 columns;
 * the reference sections (environment, files, examples, see also) are the man page's.
 *
 * Design choice: a list's terms share one column per section, as git's and lttng's option
 * lists do; a term too wide for it puts its text on the next line instead of pushing the
 * column out for every other term.
 */
#include <string.h>

#include "docgen.h"

#define WIDTH 80
#define INDENT 4
#define TERM_MAX 22 /* a wider term puts its text on the next line */

static void spaces(struct buf *o, size_t n)
{
	while (n--)
		buf_add(o, " ", 1);
}

/* Fill the words of @text from column @col (already there), continuing lines at @indent. */
static void fill(struct buf *o, const char *text, size_t col, size_t indent)
{
	const char *p = text;
	bool first = true;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (n) {
			if (!first && col + 1 + n > WIDTH) {
				buf_puts(o, "\n");
				spaces(o, indent);
				col = indent;
			} else if (!first) {
				buf_puts(o, " ");
				col++;
			}
			buf_add(o, p, n);
			col += n;
			first = false;
		}
		p += n;
		p += strspn(p, " ");
	}
	buf_puts(o, "\n");
}

static void verbatim(struct buf *o, const char *text, size_t indent)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n)
			spaces(o, indent);
		buf_add(o, p, n);
		buf_puts(o, "\n");
		p += n + (p[n] == '\n');
	}
}

static size_t term_column(const struct section *s)
{
	size_t w = 0;

	for (size_t i = 0; i < s->n; i++) {
		size_t n = strlen(s->b[i].text);

		if (s->b[i].kind == BK_ITEM && n <= TERM_MAX && n > w)
			w = n;
	}
	return INDENT + w + 2;
}

#define SPEC_NOTE_COL_MAX 56 /* past it, a spec's note goes under its form */

/* The fault specs from @i on, aligned: "form   note", or the note on the next line when the
 * forms are too wide. Returns the index after them. */
static size_t specs(struct buf *o, const struct section *s, size_t i, size_t indent)
{
	size_t w = 0, end = i;

	while (end < s->n && s->b[end].kind == BK_SPEC) {
		if (strlen(s->b[end].text) > w)
			w = strlen(s->b[end].text);
		end++;
	}
	for (; i < end; i++) {
		spaces(o, indent);
		buf_puts(o, s->b[i].text);
		if (s->b[i].note[0] && indent + w + 2 > SPEC_NOTE_COL_MAX) {
			/* forms this wide would leave the notes a column of a word or two */
			buf_puts(o, "\n");
			spaces(o, indent + 4);
			fill(o, s->b[i].note, indent + 4, indent + 4);
		} else if (s->b[i].note[0]) {
			spaces(o, w + 2 - strlen(s->b[i].text));
			fill(o, s->b[i].note, indent + w + 2, indent + w + 2);
		} else {
			buf_puts(o, "\n");
		}
	}
	return end;
}

static void section_render(struct buf *o, const struct section *s)
{
	size_t col = term_column(s), term_len = 0;
	bool pending = false; /* an item's term is printed, its text not yet started */
	bool in_item = false, no_blank = false;

	for (size_t i = 0; i < s->n; i++) {
		const struct block *b = &s->b[i];

		if (pending && b->kind != BK_PARA) {
			buf_puts(o, "\n");
			pending = false;
		}
		switch (b->kind) {
		case BK_ITEM:
			if (!in_item && !no_blank)
				buf_puts(o, "\n");
			spaces(o, INDENT);
			buf_puts(o, b->text);
			term_len = strlen(b->text);
			pending = true;
			in_item = true;
			no_blank = false;
			break;
		case BK_PARA:
			if (pending && INDENT + term_len + 2 <= col) {
				spaces(o, col - INDENT - term_len);
				fill(o, b->text, col, col);
			} else if (in_item) {
				if (pending)
					buf_puts(o, "\n");
				spaces(o, col);
				fill(o, b->text, col, col);
			} else {
				if (!no_blank)
					buf_puts(o, "\n");
				fill(o, b->text, 0, 0);
			}
			pending = false;
			no_blank = false;
			break;
		case BK_VERB:
			if (!in_item && !no_blank)
				buf_puts(o, "\n");
			verbatim(o, b->text, in_item ? col + 2 : INDENT);
			no_blank = false;
			break;
		case BK_SPEC:
			i = specs(o, s, i, col + 2) - 1;
			break;
		case BK_GROUP:
			buf_puts(o, "\n");
			buf_puts(o, b->text);
			buf_puts(o, ":\n");
			in_item = false;
			no_blank = true;
			break;
		case BK_END:
			in_item = false;
			no_blank = false;
			break;
		}
	}
	if (pending)
		buf_puts(o, "\n");
}

/*
 * A synopsis line, filled to the width with its continuation lines under the first option
 * (as git does), never breaking inside a bracket: "[--loglevel LEVEL]" stays whole.
 */
static void usage(struct buf *o, const char *lead, const char *text, const char *name)
{
	size_t col, indent;
	const char *p = text;

	buf_puts(o, lead);
	/* "proxyscope" and the command's name */
	for (int words = name[0] ? 2 : 1; words-- && *p;) {
		size_t n = strcspn(p, " ");

		buf_add(o, p, n);
		p += n;
		if (*p)
			buf_add(o, p++, 1);
	}
	col = indent = strlen(lead) + (size_t)(p - text);
	while (*p) {
		size_t n = 0;
		int depth = 0;

		while (p[n] && (p[n] != ' ' || depth > 0)) {
			depth += p[n] == '[';
			depth -= p[n] == ']';
			n++;
		}
		if (col > indent && col + 1 + n > WIDTH) {
			buf_puts(o, "\n");
			spaces(o, indent);
			col = indent;
		} else if (col > indent) {
			buf_puts(o, " ");
			col++;
		}
		buf_add(o, p, n);
		col += n;
		p += n;
		p += strspn(p, " ");
	}
	buf_puts(o, "\n");
}

void help_render(const struct docgen_env *env, const struct doc *d, struct buf *o)
{
	for (size_t i = 0; i < d->n_usage; i++)
		usage(o, i ? "   or: " : "usage: ", d->usage[i], d->name);
	for (size_t i = 0; i < d->n_sec; i++) {
		const struct section *s = &d->sec[i];

		if (!section_in_help(s->name))
			continue;
		if (!strcmp(s->name, "COMMANDS")) {
			buf_puts(o, "\nCommands:\n");
			for (size_t c = 0; c < env->n_cmds; c++)
				buf_printf(o, "   %-10s %s\n", env->cmds[c]->name, env->cmds[c]->summary);
			continue;
		}
		if (!strcmp(s->name, "EXIT STATUS")) {
			buf_puts(o, "\nExit status:");
			section_render(o, s);
			continue;
		}
		section_render(o, s);
	}
	buf_printf(o, "\nThe environment, the files and examples: 'man %s'.\n", d->page);
}
