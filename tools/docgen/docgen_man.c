/* SPDX-License-Identifier: MIT */
/*
 * docgen's man page renderer (docgen.h): man(7) source as lttng(1) and git(1) pages have it -
 * NAME, SYNOPSIS, then the source's sections (DESCRIPTION, OPTIONS, ..., EXIT STATUS,
 * ENVIRONMENT, FILES, EXAMPLES), SEE ALSO.
 *
 * Design choice: the markup is derived, not written: in synopses and option terms a word
 * starting with a dash is bold and a metavariable (an upper-case word such as DIR) italic;
 * in prose the same options and the page's own metavariables are marked, and `code` is bold.
 * Prose goes out one sentence per line, as roff expects, and nothing a source says can start
 * a request line.
 */
#include <ctype.h>
#include <string.h>

#include "docgen.h"

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static bool is_metavar(const char *w, size_t n)
{
	bool upper = false;

	for (size_t i = 0; i < n; i++) {
		if (islower((unsigned char)w[i]) || w[i] == '-' || w[i] == '.')
			return false;
		upper |= isupper((unsigned char)w[i]);
	}
	return upper;
}

/* Text with roff's special characters escaped (a dash is \- when @minus). */
static void esc(struct buf *o, const char *s, size_t n, bool minus)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			buf_puts(o, "\\e");
		else if (s[i] == '-' && minus)
			buf_puts(o, "\\-");
		else
			buf_add(o, &s[i], 1);
	}
}

/* A synopsis or an option term: options bold, metavariables italic, the rest roman. */
static void markup_syntax(struct buf *o, const char *s, unsigned bold_first)
{
	while (*s) {
		size_t n = 0;

		if (is_word_char(*s)) {
			while (s[n] && is_word_char(s[n]))
				n++;
			if (*s == '-' || bold_first) {
				buf_puts(o, "\\fB");
				esc(o, s, n, true);
				buf_puts(o, "\\fR");
			} else if (is_metavar(s, n)) {
				buf_puts(o, "\\fI");
				esc(o, s, n, true);
				buf_puts(o, "\\fR");
			} else {
				esc(o, s, n, false);
			}
			bold_first -= bold_first > 0;
		} else {
			n = 1;
			esc(o, s, 1, false);
		}
		s += n;
	}
}

/* Start a new output line (never one that roff reads as a request). */
static void line_start(struct buf *o)
{
	if (o->len && o->s[o->len - 1] != '\n')
		buf_puts(o, "\n");
}

static void text_out(struct buf *o, const char *s, size_t n, bool minus)
{
	if ((!o->len || o->s[o->len - 1] == '\n') && n && (s[0] == '.' || s[0] == '\''))
		buf_puts(o, "\\&");
	esc(o, s, n, minus);
}

/* Does @w[0..@n) appear as a whole word in @s? */
static bool has_word(const char *s, const char *w, size_t n)
{
	for (const char *p = s; *p; p++)
		if (!strncmp(p, w, n) && (p == s || !is_word_char(p[-1])) && !is_word_char(p[n]))
			return true;
	return false;
}

/* The page's metavariables (from its synopses and option terms) are italic in its prose. */
static bool page_metavar(const struct doc *d, const char *w, size_t n)
{
	const struct section *opts = doc_section(d, "OPTIONS");

	if (!is_metavar(w, n))
		return false;
	for (size_t i = 0; i < d->n_usage; i++)
		if (has_word(d->usage[i], w, n))
			return true;
	for (size_t i = 0; opts && i < opts->n; i++)
		if (opts->b[i].kind == BK_ITEM && has_word(opts->b[i].text, w, n))
			return true;
	return false;
}

static bool sentence_end(const char *w, size_t n, const char *next)
{
	if (!n || !*next || !isupper((unsigned char)*next))
		return false;
	if ((n >= 4 && !strncmp(w + n - 4, "e.g.", 4)) || (n >= 4 && !strncmp(w + n - 4, "i.e.", 4)))
		return false;
	return w[n - 1] == '.' || w[n - 1] == '?' || w[n - 1] == '!' ||
	       (n >= 2 && (w[n - 2] == '.' || w[n - 2] == '?') && (w[n - 1] == ')' || w[n - 1] == '"'));
}

/* One paragraph of prose. */
static void prose(struct buf *o, const struct doc *d, const char *text)
{
	bool code = false;
	const char *p = text;

	line_start(o);
	while (*p) {
		size_t n = strcspn(p, " ");
		const char *next = p + n + strspn(p + n, " ");

		for (size_t i = 0; i < n;) {
			const char *w = p + i;
			size_t k = 0;

			if (*w == '`') {
				buf_puts(o, code ? "\\fR" : "\\fB");
				code = !code;
				i++;
				continue;
			}
			if (!is_word_char(*w)) {
				text_out(o, w, 1, false);
				i++;
				continue;
			}
			while (i + k < n && is_word_char(w[k]) && w[k] != '`')
				k++;
			/* a trailing dot ends the sentence, it is not part of the word */
			while (k > 1 && w[k - 1] == '.')
				k--;
			if (!code && w[0] == '-' && k > 1 && (isalpha((unsigned char)w[1]) || w[1] == '-')) {
				buf_puts(o, "\\fB");
				text_out(o, w, k, true);
				buf_puts(o, "\\fR");
			} else if (!code && page_metavar(d, w, k)) {
				buf_puts(o, "\\fI");
				text_out(o, w, k, false);
				buf_puts(o, "\\fR");
			} else {
				text_out(o, w, k, code);
			}
			i += k;
		}
		if (*next)
			buf_puts(o, sentence_end(p, n, next) ? "\n" : " ");
		p = next;
	}
	if (code)
		buf_puts(o, "\\fR");
	buf_puts(o, "\n");
}

static void verbatim(struct buf *o, const char *text)
{
	line_start(o);
	buf_puts(o, ".RS 4\n.nf\n");
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		text_out(o, p, n, true);
		buf_puts(o, "\n");
		p += n + (p[n] == '\n');
	}
	buf_puts(o, ".fi\n.RE\n");
}

static void term(struct buf *o, const struct section *s, const char *t)
{
	line_start(o);
	buf_puts(o, ".TP\n");
	if (!strcmp(s->name, "OPTIONS")) {
		markup_syntax(o, t, 0);
	} else if (!strcmp(s->name, "FILES")) {
		buf_puts(o, "\\fI");
		text_out(o, t, strlen(t), false);
		buf_puts(o, "\\fR");
	} else {
		buf_puts(o, "\\fB");
		text_out(o, t, strlen(t), true);
		buf_puts(o, "\\fR");
	}
	buf_puts(o, "\n");
}

static void section_render(struct buf *o, const struct doc *d, const struct section *s)
{
	bool in_item = false, item_text = false, first = true;

	for (size_t i = 0; i < s->n; i++) {
		const struct block *b = &s->b[i];

		switch (b->kind) {
		case BK_ITEM:
			term(o, s, b->text);
			in_item = true;
			item_text = false;
			break;
		case BK_PARA:
			/* .PP right after .SH, .SS or .TP is redundant: mandoc -Tlint says so */
			if (in_item && item_text)
				buf_puts(o, ".IP\n");
			else if (!in_item && !first)
				buf_puts(o, ".PP\n");
			prose(o, d, b->text);
			item_text = true;
			break;
		case BK_VERB:
			verbatim(o, b->text);
			break;
		case BK_SPEC:
			line_start(o);
			/* .RS alone indents by the list's indent: under the item's text */
			buf_puts(o, ".RS\n");
			for (; i < s->n && s->b[i].kind == BK_SPEC; i++) {
				buf_puts(o, ".TP\n\\fB");
				text_out(o, s->b[i].text, strlen(s->b[i].text), true);
				buf_puts(o, "\\fR\n");
				if (s->b[i].note[0])
					prose(o, d, s->b[i].note);
			}
			i--;
			buf_puts(o, ".RE\n");
			item_text = true;
			break;
		case BK_GROUP:
			line_start(o);
			buf_puts(o, ".SS ");
			text_out(o, b->text, strlen(b->text), false);
			buf_puts(o, "\n");
			in_item = false;
			first = true;
			continue;
		case BK_END:
			in_item = false;
			break;
		}
		first = false;
	}
}

static void see_also(struct buf *o, const char *see)
{
	const char *p = see;

	while (*p) {
		size_t n = strcspn(p, " ");
		const char *paren = memchr(p, '(', n);

		if (!paren)
			die("@see '%.*s' is not page(section)", (int)n, p);
		buf_puts(o, ".BR ");
		esc(o, p, (size_t)(paren - p), true);
		buf_puts(o, " ");
		buf_add(o, paren, (size_t)(p + n - paren));
		p += n;
		p += strspn(p, " ");
		buf_puts(o, *p ? ",\n" : "\n");
	}
}

/*
 * Break the text lines of @in longer than 80 bytes at a space (roff fills them again), never
 * inside .nf blocks and never after a word ending with a period (roff would take the line end
 * for a sentence end).
 */
static void wrap_lines(const char *in, struct buf *o)
{
	bool nofill = false;

	while (*in) {
		size_t n = strcspn(in, "\n");
		const char *line = in;

		in += n + (in[n] == '\n');
		if (line[0] == '.') {
			if (!strncmp(line, ".nf", 3))
				nofill = true;
			else if (!strncmp(line, ".fi", 3))
				nofill = false;
		}
		while (!nofill && line[0] != '.' && n > 80) {
			size_t cut = 0;

			for (size_t i = 1; i < 78; i++)
				if (line[i] == ' ' && !strchr(".?!", line[i - 1]))
					cut = i;
			if (!cut)
				break;
			buf_add(o, line, cut);
			buf_puts(o, "\n");
			line += cut + 1;
			n -= cut + 1;
			if (line[0] == '.' || line[0] == '\'')
				buf_puts(o, "\\&");
		}
		buf_add(o, line, n);
		buf_puts(o, "\n");
	}
}

void man_render(const struct docgen_env *env, const struct doc *d, struct buf *out)
{
	struct buf page = { 0 }, *o = &page;

	buf_printf(o, ".\\\" Generated by tools/docgen from docs/commands/%s.txt: do not edit.\n",
		   d->page);
	buf_puts(o, ".TH \"");
	for (const char *p = d->page; *p; p++)
		buf_printf(o, *p == '-' ? "\\-" : "%c", toupper((unsigned char)*p));
	buf_printf(o, "\" \"1\" \"%s\" \"proxyscope %s\" \"Proxyscope Manual\"\n", env->date,
		   env->version);
	/* no hyphenation, ragged right: option names and paths stay whole, as git's pages do */
	buf_puts(o, ".nh\n.ad l\n.SH NAME\n");
	esc(o, d->page, strlen(d->page), true);
	buf_puts(o, " \\- ");
	esc(o, d->summary, strlen(d->summary), false);
	buf_puts(o, "\n.SH SYNOPSIS\n");
	for (size_t i = 0; i < d->n_usage; i++) {
		if (i)
			buf_puts(o, ".br\n");
		/* "proxyscope" and the command's name are bold, the rest is syntax */
		markup_syntax(o, d->usage[i], d->name[0] ? 2 : 1);
		buf_puts(o, "\n");
	}
	for (size_t i = 0; i < d->n_sec; i++) {
		const struct section *s = &d->sec[i];

		buf_puts(o, ".SH ");
		text_out(o, s->name, strlen(s->name), false);
		buf_puts(o, "\n");
		if (!strcmp(s->name, "COMMANDS")) {
			for (size_t c = 0; c < env->n_cmds; c++) {
				buf_printf(o, ".TP\n.BR proxyscope\\-%s (1)\n", env->cmds[c]->name);
				esc(o, env->cmds[c]->summary, strlen(env->cmds[c]->summary), false);
				buf_puts(o, "\n");
			}
		}
		section_render(o, d, s);
	}
	if (d->see) {
		buf_puts(o, ".SH SEE ALSO\n");
		see_also(o, d->see);
	}
	wrap_lines(page.s, out);
	buf_fini(&page);
}
