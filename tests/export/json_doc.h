/* SPDX-License-Identifier: MIT */
/*
 * A JSON document as the export tests walk it: a tree built from json-c's parse (strict, UTF-8
 * validated), whose numbers keep their text as written, so a test can convert decimal
 * microseconds back to exact nanoseconds.
 */
#ifndef PROXYSCOPE_TESTS_JSON_DOC_H
#define PROXYSCOPE_TESTS_JSON_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	bool b;              /* J_BOOL */
	char *s;             /* J_STR: the decoded string (UTF-8); J_NUM: the number's text */
	struct jval *items;  /* J_ARR, J_OBJ: the members */
	char **keys;         /* J_OBJ: the member names */
	size_t n;
};

/*
 * Parse all of @text[0..@len) as one document. Returns 0, or -1 with "offset N: reason" in
 * @err. Refused: what json-c's strict mode refuses (trailing commas, leading zeros, comments,
 * single quotes, invalid UTF-8, text after the document) and a number outside RFC 8259's
 * grammar (json-c takes NaN, Infinity and "1."). json-c keeps the last of duplicate member
 * names, and takes raw control characters and lone surrogate escapes inside strings.
 */
int jparse(const char *text, size_t len, struct jval *out, char *err, size_t errlen);
void jfree(struct jval *v);

/* The member @key of object @obj (the first one), or NULL. */
const struct jval *jget(const struct jval *obj, const char *key);
/* The string member @key, or NULL when absent or not a string. */
const char *jstr(const struct jval *obj, const char *key);
/* The number member @key as int64 (false when absent, not a number or not an integer). */
bool jint(const struct jval *obj, const char *key, int64_t *out);
/* The number member @key, written in microseconds, as exact nanoseconds (false when absent
 * or with more than 3 decimals). */
bool jus_ns(const struct jval *obj, const char *key, int64_t *out);

#endif /* PROXYSCOPE_TESTS_JSON_DOC_H */
