/* SPDX-License-Identifier: MIT */
/* Checks of exported files (see export_files.h). */
#include "export_files.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_doc.h"

void check_chrome_file(const char *path, struct chrome_stats *st)
{
	char err[512];
	struct jval doc;
	size_t len;
	char *text = file_slurp(path, &len);

	if (!text)
		fail_msg("cannot read '%s'", path);
	if (jparse(text, len, &doc, err, sizeof(err)))
		fail_msg("'%s' is not JSON: %s", path, err);
	if (chrome_check(&doc, st, err, sizeof(err)))
		fail_msg("'%s': %s", path, err);
	assert_true(st->min_ts >= 0 && st->min_ts < 1000000000); /* rebased: near the start */
	jfree(&doc);
	free(text);
}

size_t check_csv_file(const char *path, size_t *open)
{
	static const char header[] = "host,vpid,rank,gid,exec_id,task_id,kind,state,begin_ns,end_ns,"
				     "duration_ns,open,begin_abs_ns,end_abs_ns\n";
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t rows = 0;

	if (!f)
		fail_msg("cannot read '%s'", path);
	*open = 0;
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, header);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long b, e, d, o, babs, eabs;
		const char *p = line;
		int commas = 0;

		for (const char *c = line; *c; c++)
			commas += *c == ',';
		assert_int_equal(commas, 13); /* hosts in these traces have no comma */
		for (int i = 0; i < 8; i++)
			p = strchr(p, ',') + 1;
		assert_int_equal(sscanf(p, "%llu,%llu,%llu,%llu,%llu,%llu", &b, &e, &d, &o, &babs, &eabs),
				 6);
		assert_int_equal(e - b, d);
		assert_int_equal(eabs - babs, d);
		*open += o == 1;
		rows++;
	}
	fclose(f);
	return rows;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strcasestr(p, needle)); p++)
		n++;
	return n;
}

size_t check_html_file(const char *path)
{
	static const char open_tag[] = "<script id=\"psdata\" type=\"application/json\">";
	const struct jval *evs;
	size_t len, ivs = 0;
	char *text = file_slurp(path, &len), *b, *e, err[256];
	struct jval doc;

	if (!text)
		fail_msg("cannot read '%s'", path);
	assert_null(strstr(text, "http://"));
	assert_null(strstr(text, "https://"));
	assert_int_equal(count(text, "<script"), 2);
	assert_int_equal(count(text, "</script"), 2);
	b = strstr(text, open_tag);
	assert_non_null(b);
	b += strlen(open_tag);
	e = strstr(b, "</script>");
	assert_non_null(e);
	if (jparse(b, (size_t)(e - b), &doc, err, sizeof(err)))
		fail_msg("the data of '%s' is not JSON: %s", path, err);
	evs = jget(&doc, "ev");
	assert_non_null(evs);
	for (size_t i = 0; i < evs->n; i++)
		ivs += evs->items[i].items[0].s[0] == 'I';
	jfree(&doc);
	free(text);
	return ivs;
}
