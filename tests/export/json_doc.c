/* SPDX-License-Identifier: MIT */
/*
 * The export tests' JSON documents: json-c (Debian libjson-c-dev) parses, and the tree it
 * returns is copied into struct jval, the shape the checks walk. The copy keeps each number's
 * text as written (json-c keeps a parsed double's source text), which is what lets a check turn
 * decimal microseconds back into exact nanoseconds.
 */
#include "json_doc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define DEPTH_MAX 64

/* RFC 8259's number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool is_json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (isdigit((unsigned char)*s))
			s++;
	else
		return false;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		if (*++s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

/* Copy @o into @v. Returns 0, or -ENOMEM, or -EINVAL for a number outside the grammar. */
static int copy(struct json_object *o, struct jval *v)
{
	size_t i = 0;

	memset(v, 0, sizeof(*v));
	switch (json_object_get_type(o)) {
	case json_type_null:
		v->type = J_NULL;
		return 0;
	case json_type_boolean:
		v->type = J_BOOL;
		v->b = json_object_get_boolean(o);
		return 0;
	case json_type_int:
	case json_type_double:
		v->type = J_NUM;
		v->s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		if (!v->s)
			return -ENOMEM;
		return is_json_number(v->s) ? 0 : -EINVAL;
	case json_type_string:
		v->type = J_STR;
		v->s = strndup(json_object_get_string(o), (size_t)json_object_get_string_len(o));
		return v->s ? 0 : -ENOMEM;
	case json_type_array:
		v->type = J_ARR;
		v->n = json_object_array_length(o);
		v->items = calloc(v->n ? v->n : 1, sizeof(*v->items));
		if (!v->items)
			return -ENOMEM;
		for (i = 0; i < v->n; i++) {
			int rc = copy(json_object_array_get_idx(o, i), &v->items[i]);

			if (rc)
				return rc;
		}
		return 0;
	case json_type_object:
		v->type = J_OBJ;
		v->n = (size_t)json_object_object_length(o);
		v->items = calloc(v->n ? v->n : 1, sizeof(*v->items));
		v->keys = calloc(v->n ? v->n : 1, sizeof(*v->keys));
		if (!v->items || !v->keys)
			return -ENOMEM;
		json_object_object_foreach(o, key, val) { /* in the document's order */
			int rc;

			v->keys[i] = strdup(key);
			if (!v->keys[i])
				return -ENOMEM;
			rc = copy(val, &v->items[i++]);
			if (rc)
				return rc;
		}
		return 0;
	}
	return -EINVAL;
}

int jparse(const char *text, size_t len, struct jval *out, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(DEPTH_MAX);
	struct json_object *o = NULL;
	enum json_tokener_error e;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!tok || len > (size_t)INT32_MAX) {
		snprintf(err, errlen, "offset 0: %s", tok ? "document too large" : "out of memory");
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	if (e != json_tokener_success || json_tokener_get_parse_end(tok) < len) {
		snprintf(err, errlen, "offset %zu: %s", json_tokener_get_parse_end(tok),
			 e == json_tokener_continue ? "the text ends inside the document" :
			 e != json_tokener_success ? json_tokener_error_desc(e) :
			 "text after the document");
		json_object_put(o);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_free(tok);
	rc = copy(o, out);
	json_object_put(o);
	if (rc) {
		snprintf(err, errlen, "offset 0: %s", rc == -EINVAL ? "a number that is not JSON's" :
			 "out of memory");
		jfree(out);
		return -1;
	}
	return 0;
}

void jfree(struct jval *v)
{
	for (size_t i = 0; i < v->n; i++) {
		if (v->items)
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
