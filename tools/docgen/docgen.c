/*
 * docgen's entry point (docgen.h): read proxyscope.txt and the source of every command it
 * lists, then write the --help header, the man pages and the bash completion.
 *
 * Design choice: a small C program built before the CLI rather than a script, so the build
 * needs nothing beyond the compiler and CMake; an output is rewritten only when its text
 * changes, so editing one page does not rebuild every command.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docgen.h"

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("docgen: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p)
			die("out of memory");
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	char small[512], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		die("bad format");
	if ((size_t)n < sizeof(small)) {
		buf_add(b, small, (size_t)n);
		return;
	}
	big = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf_add(b, big, (size_t)n);
	free(big);
}

void buf_fini(struct buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

static char *file_slurp(const char *path)
{
	struct buf b = { 0 };
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	if (!b.s)
		buf_puts(&b, "");
	return b.s;
}

/* Write @text to @path unless it already holds exactly that. */
static void file_update(const char *path, const char *text)
{
	char *old = file_slurp(path);
	FILE *f;

	if (old && !strcmp(old, text)) {
		free(old);
		return;
	}
	free(old);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f) != 0)
		die("cannot write '%s': %s", path, strerror(errno));
}

/* A C string literal of @text, one source line per text line. */
static void c_string(struct buf *out, const char *text)
{
	buf_puts(out, "\t\"");
	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			buf_puts(out, p[1] ? "\\n\" \\\n\t\"" : "\\n");
			continue;
		}
		if (*p == '"' || *p == '\\')
			buf_add(out, "\\", 1);
		buf_add(out, p, 1);
	}
	buf_puts(out, "\"\n");
}

static void macro_name(struct buf *out, const char *prefix, const char *name)
{
	buf_puts(out, prefix);
	for (const char *p = name[0] ? name : "proxyscope"; *p; p++)
		buf_printf(out, "%c", *p == '-' ? '_' : toupper((unsigned char)*p));
}

static void header_add(struct buf *h, const struct docgen_env *env, const struct doc *d)
{
	struct buf help = { 0 };

	help_render(env, d, &help);
	buf_puts(h, "#define ");
	macro_name(h, "CLI_SUMMARY_", d->name);
	buf_puts(h, " \\\n");
	c_string(h, d->summary);
	buf_puts(h, "#define ");
	macro_name(h, "CLI_HELP_", d->name);
	buf_puts(h, " \\\n");
	c_string(h, help.s);
	buf_puts(h, "\n");
	buf_fini(&help);
}

static void man_write(const struct docgen_env *env, const struct doc *d, const char *mandir)
{
	struct buf page = { 0 }, path = { 0 };

	man_render(env, d, &page);
	buf_printf(&path, "%s/%s.1", mandir, d->page);
	file_update(path.s, page.s);
	buf_fini(&page);
	buf_fini(&path);
}

static const char *arg_of(int argc, char **argv, const char *name)
{
	for (int i = 1; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], name))
			return argv[i + 1];
	die("missing %s (usage: docgen --src DIR --version V --date D --docdir DIR --datadir DIR --header FILE "
	    "--mandir DIR --bash-template FILE --bash FILE)", name);
}

int main(int argc, char **argv)
{
	const char *src = arg_of(argc, argv, "--src");
	const char *mandir = arg_of(argc, argv, "--mandir");
	struct docgen_env env = {
		.version = arg_of(argc, argv, "--version"),
		.date = arg_of(argc, argv, "--date"),
		.subst = { "@DOCDIR@", arg_of(argc, argv, "--docdir"), "@DATADIR@",
			   arg_of(argc, argv, "--datadir"), NULL },
	};
	struct buf h = { 0 }, path = { 0 }, bash = { 0 };
	char *tmpl;

	env.top = xmalloc(sizeof(*env.top));
	doc_read(env.top, src, "proxyscope.txt", env.subst);
	for (size_t i = 0; i < env.top->n_commands; i++) {
		buf_printf(&path, "proxyscope-%s.txt", env.top->commands[i]);
		env.cmds[i] = xmalloc(sizeof(*env.cmds[i]));
		doc_read(env.cmds[i], src, path.s, env.subst);
		if (strcmp(env.cmds[i]->name, env.top->commands[i]))
			die("%s names the command '%s'", path.s, env.cmds[i]->name);
		path.len = 0;
	}
	env.n_cmds = env.top->n_commands;

	buf_puts(&h, "/* Generated by tools/docgen from docs/commands/: do not edit. */\n"
		     "#ifndef PROXYSCOPE_CLI_HELP_H\n#define PROXYSCOPE_CLI_HELP_H\n\n");
	header_add(&h, &env, env.top);
	man_write(&env, env.top, mandir);
	for (size_t i = 0; i < env.n_cmds; i++) {
		header_add(&h, &env, env.cmds[i]);
		man_write(&env, env.cmds[i], mandir);
	}
	buf_puts(&h, "#endif /* PROXYSCOPE_CLI_HELP_H */\n");
	file_update(arg_of(argc, argv, "--header"), h.s);

	tmpl = file_slurp(arg_of(argc, argv, "--bash-template"));
	if (!tmpl)
		die("cannot read the completion template: %s", strerror(errno));
	bash_render(&env, tmpl, &bash);
	file_update(arg_of(argc, argv, "--bash"), bash.s);

	free(tmpl);
	buf_fini(&bash);
	buf_fini(&h);
	buf_fini(&path);
	for (size_t i = 0; i < env.n_cmds; i++) {
		doc_free(env.cmds[i]);
		free(env.cmds[i]);
	}
	doc_free(env.top);
	free(env.top);
	return 0;
}
