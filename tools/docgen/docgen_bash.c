/* SPDX-License-Identifier: MIT */
/*
 * docgen's bash completion renderer (docgen.h): the template (completion.bash.in here) holds the
 * logic; this fills in what the sources say - the commands, each command's options, how each
 * option takes its value (none, a file, a directory, one of some words, a fault spec with its
 * keys) and what the arguments are.
 *
 * Design choice: the data is bash functions with one case per option, written from the same
 * @item/@values/@complete/@spec lines as the --help text, so an option documented is an option
 * completed; the template never parses help text.
 */
#include <ctype.h>
#include <string.h>

#include "docgen.h"

/* "device-stall:rank=R,exec=E[,stream=S]" -> "device-stall:rank,exec,stream". */
static void spec_keys(struct buf *o, const char *spec)
{
	const char *colon = strchr(spec, ':');
	bool first = true;

	if (!colon)
		die("@spec '%s' has no KIND:", spec);
	buf_add(o, spec, (size_t)(colon - spec) + 1);
	for (const char *p = colon + 1; *p; p++) {
		size_t n = 0;

		if (!isalpha((unsigned char)*p) || (p > colon + 1 && isalnum((unsigned char)p[-1])))
			continue;
		while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '-')
			n++;
		if (p[n] != '=')
			continue;
		if (!first)
			buf_puts(o, ",");
		buf_add(o, p, n);
		first = false;
		p += n;
	}
}

/* Whether the comma-separated @list (@n bytes) holds the key @k (@kn bytes). */
static bool list_has(const char *list, size_t n, const char *k, size_t kn)
{
	for (size_t i = 0; i < n;) {
		size_t e = i;

		while (e < n && list[e] != ',')
			e++;
		if (e - i == kn && !memcmp(list + i, k, kn))
			return true;
		i = e + 1;
	}
	return false;
}

/*
 * Add @spec's "KIND:KEY,KEY" to the space-separated @vals; a KIND already there (device-delay's
 * exec=E and from=E1,to=E2 forms) gets the keys it lacks instead of a second entry, which the
 * completion would offer twice.
 */
static void spec_add(struct buf *vals, const char *spec)
{
	struct buf one = { 0 }, out = { 0 };
	const char *keys, *v = vals->s ? vals->s : "";
	size_t kind_len;
	bool merged = false;

	spec_keys(&one, spec);
	keys = strchr(one.s, ':') + 1;
	kind_len = (size_t)(keys - one.s);
	for (const char *t = v; *t;) {
		size_t n = strcspn(t, " ");

		if (out.len)
			buf_puts(&out, " ");
		buf_add(&out, t, n);
		if (n >= kind_len && !memcmp(t, one.s, kind_len)) {
			for (const char *k = keys; *k;) {
				size_t kn = strcspn(k, ",");

				if (!list_has(t + kind_len, n - kind_len, k, kn)) {
					buf_puts(&out, ",");
					buf_add(&out, k, kn);
				}
				k += kn + (k[kn] == ',');
			}
			merged = true;
		}
		t += n + (t[n] == ' ');
	}
	if (!merged) {
		if (out.len)
			buf_puts(&out, " ");
		buf_puts(&out, one.s);
	}
	buf_fini(vals);
	*vals = out;
	buf_fini(&one);
}

/* The value of @term's option when the term spells it "a|b": "a b". */
static bool term_alternatives(const char *term, struct buf *vals)
{
	const char *last = strrchr(term, ' ');

	if (!last || !strchr(last, '|'))
		return false;
	for (const char *p = last + 1; *p; p++)
		buf_add(vals, *p == '|' ? " " : p, 1);
	return true;
}

static void option_case(struct buf *o, const struct doc *d, const struct section *s, size_t i,
			struct buf *all)
{
	const struct block *b = &s->b[i];
	struct buf names = { 0 }, vals = { 0 };
	const char *how;
	bool value = term_option_names(b->text, &names);

	if (names.len) {
		if (all->len)
			buf_puts(all, " ");
		buf_puts(all, names.s);
	}
	/* the item's text runs to the next item, group or end of list */
	for (size_t j = i + 1; j < s->n && s->b[j].kind != BK_ITEM && s->b[j].kind != BK_GROUP &&
			       s->b[j].kind != BK_END; j++) {
		if (s->b[j].kind == BK_SPEC)
			spec_add(&vals, s->b[j].text);
	}
	if (vals.len) {
		how = "spec";
	} else if (b->values) {
		how = "values";
		buf_puts(&vals, b->values);
	} else if (b->complete) {
		how = b->complete;
	} else if (value && term_alternatives(b->text, &vals)) {
		how = "values";
	} else {
		how = value ? "none" : "flag";
	}
	if (strcmp(how, "flag") && names.len) {
		const char *p = names.s;

		buf_puts(o, "\t");
		while (*p) {
			size_t n = strcspn(p, " ");

			buf_printf(o, "'%s %.*s'", d->name, (int)n, p);
			p += n;
			p += strspn(p, " ");
			buf_puts(o, *p ? "|" : ")");
		}
		buf_printf(o, " REPLY=%s _proxyscope_vals='%s' ;;\n", how, vals.s ? vals.s : "");
	}
	buf_fini(&names);
	buf_fini(&vals);
}

static void data_render(const struct docgen_env *env, struct buf *o)
{
	struct buf opts = { 0 }, args = { 0 }, pos = { 0 };

	for (size_t c = 0; c <= env->n_cmds; c++) {
		const struct doc *d = c < env->n_cmds ? env->cmds[c] : env->top;
		const struct section *s = doc_section(d, "OPTIONS");
		struct buf all = { 0 };

		for (size_t i = 0; s && i < s->n; i++)
			if (s->b[i].kind == BK_ITEM)
				option_case(&args, d, s, i, &all);
		buf_printf(&opts, "\t'%s') REPLY='%s' ;;\n", d->name, all.s ? all.s : "");
		/* proxyscope's own arguments are `help`'s: a command */
		buf_printf(&pos, "\t'%s') REPLY=%s ;;\n", d->name[0] ? d->name : "help", d->positional);
		buf_fini(&all);
	}
	buf_puts(o, "# The options of command $1 ('' for proxyscope itself), into REPLY.\n"
		    "_proxyscope_opts()\n{\n\tcase $1 in\n");
	buf_puts(o, opts.s);
	buf_puts(o, "\t*) REPLY='' ;;\n\tesac\n}\n\n");
	buf_puts(o, "# How option $2 of command $1 takes its value, into REPLY: flag (it takes none),\n"
		    "# none (nothing to offer), file, dir, command, values or spec (KIND:KEY,KEY...);\n"
		    "# the values or specs into _proxyscope_vals.\n"
		    "_proxyscope_optarg()\n{\n\tcase \"$1 $2\" in\n");
	buf_puts(o, args.s ? args.s : "");
	buf_puts(o, "\t*) REPLY=flag _proxyscope_vals='' ;;\n\tesac\n}\n\n");
	buf_puts(o, "# What the arguments of command $1 are, into REPLY: file, dir, commands or none.\n"
		    "_proxyscope_positional()\n{\n\tcase $1 in\n");
	buf_puts(o, pos.s);
	buf_puts(o, "\t*) REPLY=none ;;\n\tesac\n}\n");
	buf_fini(&opts);
	buf_fini(&args);
	buf_fini(&pos);
}

void bash_render(const struct docgen_env *env, const char *t, struct buf *o)
{
	static const char cmds_key[] = "@PROXYSCOPE_COMMANDS@", data_key[] = "@PROXYSCOPE_DATA@";

	while (*t) {
		const char *c = strstr(t, cmds_key), *d = strstr(t, data_key);
		const char *next = c && (!d || c < d) ? c : d;

		if (!next) {
			buf_puts(o, t);
			break;
		}
		buf_add(o, t, (size_t)(next - t));
		if (next == c) {
			for (size_t i = 0; i < env->n_cmds; i++)
				buf_printf(o, "%s%s", i ? " " : "", env->cmds[i]->name);
			t = next + sizeof(cmds_key) - 1;
		} else {
			data_render(env, o);
			t = next + sizeof(data_key) - 1;
			t += *t == '\n';
		}
	}
}
