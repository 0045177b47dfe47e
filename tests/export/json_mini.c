/*
 * A strict recursive-descent JSON reader for the tests: what it accepts is what any conforming
 * parser (Perfetto's, a browser's JSON.parse) accepts, so "it parses here" means "it parses".
 */
#include "json_mini.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 64

struct jp {
	const char *p, *end, *start;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct jp *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct jp *j, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (j->err && j->errlen)
		snprintf(j->err, j->errlen, "offset %zu: %s", (size_t)(j->p - j->start), msg);
	return -1;
}

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* Append @c to a growing buffer. */
static int put(char **buf, size_t *n, size_t *cap, char c)
{
	if (*n + 1 >= *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		char *b = realloc(*buf, nc);

		if (!b)
			return -1;
		*buf = b;
		*cap = nc;
	}
	(*buf)[(*n)++] = c;
	(*buf)[*n] = '\0';
	return 0;
}

static int put_utf8(char **buf, size_t *n, size_t *cap, uint32_t cp)
{
	if (cp < 0x80)
		return put(buf, n, cap, (char)cp);
	if (cp < 0x800)
		return put(buf, n, cap, (char)(0xC0 | cp >> 6)) ||
		       put(buf, n, cap, (char)(0x80 | (cp & 0x3F)));
	if (cp < 0x10000)
		return put(buf, n, cap, (char)(0xE0 | cp >> 12)) ||
		       put(buf, n, cap, (char)(0x80 | ((cp >> 6) & 0x3F))) ||
		       put(buf, n, cap, (char)(0x80 | (cp & 0x3F)));
	return put(buf, n, cap, (char)(0xF0 | cp >> 18)) ||
	       put(buf, n, cap, (char)(0x80 | ((cp >> 12) & 0x3F))) ||
	       put(buf, n, cap, (char)(0x80 | ((cp >> 6) & 0x3F))) ||
	       put(buf, n, cap, (char)(0x80 | (cp & 0x3F)));
}

static int hex4(struct jp *j, uint32_t *out)
{
	uint32_t v = 0;

	if (j->end - j->p < 4)
		return fail(j, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *j->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return fail(j, "bad hex digit in \\u escape");
	}
	*out = v;
	return 0;
}

/* One valid UTF-8 sequence copied from the input. */
static int utf8_copy(struct jp *j, char **buf, size_t *n, size_t *cap)
{
	const unsigned char *p = (const unsigned char *)j->p;
	size_t len = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : 2;
	uint32_t cp = p[0] & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);

	if (p[0] < 0xC2 || p[0] > 0xF4 || (size_t)(j->end - j->p) < len)
		return fail(j, "invalid UTF-8");
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return fail(j, "invalid UTF-8");
		cp = cp << 6 | (p[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return fail(j, "invalid UTF-8");
	j->p += len;
	return put_utf8(buf, n, cap, cp);
}

static int string(struct jp *j, char **out)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;

	j->p++; /* the opening quote */
	if (put(&buf, &n, &cap, '\0'))
		return fail(j, "out of memory");
	n = 0;
	for (;;) {
		unsigned char c;

		if (j->p >= j->end)
			goto bad_unterminated;
		c = (unsigned char)*j->p;
		if (c == '"') {
			j->p++;
			*out = buf;
			return 0;
		}
		if (c < 0x20) {
			free(buf);
			return fail(j, "control character in a string");
		}
		if (c >= 0x80) {
			if (utf8_copy(j, &buf, &n, &cap))
				goto out_free;
			continue;
		}
		j->p++;
		if (c != '\\') {
			if (put(&buf, &n, &cap, (char)c))
				goto out_free;
			continue;
		}
		if (j->p >= j->end)
			goto bad_unterminated;
		c = (unsigned char)*j->p++;
		switch (c) {
		case '"': case '\\': case '/':
			break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u': {
			uint32_t cp, lo;

			if (hex4(j, &cp))
				goto out_free;
			if (cp >= 0xDC00 && cp <= 0xDFFF) {
				free(buf);
				return fail(j, "lone low surrogate");
			}
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u') {
					free(buf);
					return fail(j, "lone high surrogate");
				}
				j->p += 2;
				if (hex4(j, &lo))
					goto out_free;
				if (lo < 0xDC00 || lo > 0xDFFF) {
					free(buf);
					return fail(j, "bad surrogate pair");
				}
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			}
			if (put_utf8(&buf, &n, &cap, cp))
				goto out_free;
			continue;
		}
		default:
			free(buf);
			return fail(j, "bad escape '\\%c'", c);
		}
		if (put(&buf, &n, &cap, (char)c))
			goto out_free;
	}
bad_unterminated:
	free(buf);
	return fail(j, "unterminated string");
out_free:
	free(buf);
	return -1;
}

static int number(struct jp *j, struct jval *v)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end)
		return fail(j, "bad number");
	if (*j->p == '0') {
		j->p++;
	} else if (*j->p >= '1' && *j->p <= '9') {
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	} else {
		return fail(j, "bad number");
	}
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return fail(j, "bad fraction");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return fail(j, "bad exponent");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	v->type = J_NUM;
	v->s = strndup(s, (size_t)(j->p - s));
	return v->s ? 0 : fail(j, "out of memory");
}

static int value(struct jp *j, struct jval *v);

static int push(struct jval *v, size_t *cap, char *key)
{
	if (v->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		struct jval *items = realloc(v->items, nc * sizeof(*items));

		if (!items)
			return -1;
		v->items = items;
		if (v->type == J_OBJ) {
			char **keys = realloc(v->keys, nc * sizeof(*keys));

			if (!keys)
				return -1;
			v->keys = keys;
		}
		*cap = nc;
	}
	memset(&v->items[v->n], 0, sizeof(v->items[v->n]));
	if (v->type == J_OBJ)
		v->keys[v->n] = key;
	v->n++;
	return 0;
}

static int container(struct jp *j, struct jval *v, bool obj)
{
	size_t cap = 0;

	if (++j->depth > DEPTH_MAX)
		return fail(j, "nested too deep");
	v->type = obj ? J_OBJ : J_ARR;
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		ws(j);
		if (obj) {
			if (j->p >= j->end || *j->p != '"')
				return fail(j, "expected a member name");
			if (string(j, &key))
				return -1;
			ws(j);
			if (j->p >= j->end || *j->p != ':') {
				free(key);
				return fail(j, "expected ':'");
			}
			j->p++;
		}
		if (push(v, &cap, key)) {
			free(key);
			return fail(j, "out of memory");
		}
		if (value(j, &v->items[v->n - 1]))
			return -1;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
			j->p++;
			j->depth--;
			return 0;
		}
		return fail(j, "expected ',' or '%c'", obj ? '}' : ']');
	}
}

static int literal(struct jp *j, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return fail(j, "unexpected character '%c'", *j->p);
	j->p += n;
	return 0;
}

static int value(struct jp *j, struct jval *v)
{
	ws(j);
	if (j->p >= j->end)
		return fail(j, "unexpected end");
	switch (*j->p) {
	case '{':
		return container(j, v, true);
	case '[':
		return container(j, v, false);
	case '"':
		v->type = J_STR;
		return string(j, &v->s);
	case 't':
		v->type = J_BOOL;
		v->b = true;
		return literal(j, "true");
	case 'f':
		v->type = J_BOOL;
		return literal(j, "false");
	case 'n':
		v->type = J_NULL;
		return literal(j, "null");
	default:
		return number(j, v);
	}
}

int jparse(const char *text, size_t len, struct jval *out, char *err, size_t errlen)
{
	struct jp j = { .p = text, .end = text + len, .start = text, .err = err, .errlen = errlen };

	memset(out, 0, sizeof(*out));
	if (value(&j, out)) {
		jfree(out);
		return -1;
	}
	ws(&j);
	if (j.p != j.end) {
		jfree(out);
		return fail(&j, "trailing text after the document");
	}
	return 0;
}

void jfree(struct jval *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

const struct jval *jget(const struct jval *obj, const char *key)
{
	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const char *jstr(const struct jval *obj, const char *key)
{
	const struct jval *v = jget(obj, key);

	return v && v->type == J_STR ? v->s : NULL;
}

bool jint(const struct jval *obj, const char *key, int64_t *out)
{
	const struct jval *v = jget(obj, key);
	char *end;

	if (!v || v->type != J_NUM)
		return false;
	errno = 0;
	*out = strtoll(v->s, &end, 10);
	return !errno && *end == '\0';
}

bool jus_ns(const struct jval *obj, const char *key, int64_t *out)
{
	const struct jval *v = jget(obj, key);
	const char *dot;
	int64_t us, frac = 0;
	size_t nf;

	if (!v || v->type != J_NUM || strpbrk(v->s, "eE-"))
		return false;
	dot = strchr(v->s, '.');
	us = strtoll(v->s, NULL, 10);
	if (dot) {
		nf = strlen(dot + 1);
		if (nf > 3)
			return false;
		frac = strtoll(dot + 1, NULL, 10);
		for (size_t i = nf; i < 3; i++)
			frac *= 10;
	}
	*out = us * 1000 + frac;
	return true;
}
