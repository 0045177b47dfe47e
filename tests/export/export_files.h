/* SPDX-License-Identifier: MIT */
/*
 * Checks of exported files, shared by the tests that run `proxyscope export` (cmocka asserts:
 * call them from a test). Each returns what the other formats must agree with: the number of
 * state intervals.
 */
#ifndef PROXYSCOPE_TESTS_EXPORT_FILES_H
#define PROXYSCOPE_TESTS_EXPORT_FILES_H

#include <stddef.h>

#include "chrome_check.h"

/* A chrome file: parses, and chrome_check holds. Fills @st. */
void check_chrome_file(const char *path, struct chrome_stats *st);
/* A csv file: the header, 14 columns a row, durations that add up. Returns the rows and, in
 * *@open, the rows of intervals open at the end. */
size_t check_csv_file(const char *path, size_t *open);
/* An html file: self-contained, 2 script elements, its data parses. Returns the intervals. */
size_t check_html_file(const char *path);

#endif /* PROXYSCOPE_TESTS_EXPORT_FILES_H */
