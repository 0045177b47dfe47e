/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 output the tests of test_text_parse read (text_parse_lines.c): real lines of
 * a `proxyscope run --ranks 2 --ops 3` trace in each clock format, of a run where a process
 * died, and a discard warning from babeltrace2's stderr.
 */
#ifndef TESTS_ANALYSIS_TEXT_PARSE_LINES_H
#define TESTS_ANALYSIS_TEXT_PARSE_LINES_H

#include <stdint.h>

#define NS_PER_S UINT64_C(1000000000)
#define TOD(h, m, s, ns) ((((uint64_t)(h) * 60 + (m)) * 60 + (s)) * NS_PER_S + (ns))

extern const char line_registry[];
extern const char line_state[];
extern const char line_seam[];
extern const char line_complete[];
extern const char line_trigger[];
extern const char line_seconds[];
extern const char line_date[];
extern const char line_peer_dead[];
extern const char line_net_error[];
extern const char line_discard[];

void test_text_parse__read_text(void **state);
void test_text_parse__warnings_inside_lines(void **state);
void test_text_parse__long_line(void **state);

#endif
