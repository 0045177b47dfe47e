/* SPDX-License-Identifier: MIT */
/*
 * The shared part of test_export: a model, a watchdog and an export in one format fed
 * synthetic events (struct fx), and the scenario most tests export: two processes sharing a
 * vpid on two hosts, one with an invalid UTF-8 name, a failed task, a stuck one and one never
 * drained. The tests are in test_export.c (format names, the chrome file and its checker, write
 * errors) and test_export_csv_html.c (the csv and the html page).
 */
#ifndef TESTS_EXPORT_EXPORT_FIXTURE_H
#define TESTS_EXPORT_EXPORT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_export.h>
#include <proxyscope/psa_model.h>

#include "event_builder.h"
#include "json_doc.h"

#define T0 1700000000123456789ull /* ns since the epoch: rebasing must keep every ns */
#define NET PSA_KIND_NETWORK
#define BAR PSA_KIND_BARRIER
#define HOST_B "host,B"
#define PROC_B "app\xff<x>"

struct fx {
	struct psa_model *m;
	struct psa_export *e;
	struct psa_watchdog *wd; /* the verdict the export carries */
	uint64_t now;
	const char *host;
	const char *procname;
	uint32_t vpid;
	size_t intervals, open, live_max; /* from the counting observer */
	char *buf;
	size_t len;
	FILE *out;
	bool external; /* f->out is the caller's */
};

void fx_init_out(struct fx *f, enum psa_export_format fmt, FILE *out);
void fx_init(struct fx *f, enum psa_export_format fmt);
int fx_finish(struct fx *f);
void fx_fini(struct fx *f);
void ev(struct fx *f, uint64_t dt_ns, enum psa_ev_type type, uint32_t vtid, ...);

#define TASK(id, rank, exec, kind) EVB_TASK(id, rank, (rank) / 2, exec, kind)
#define RANK_TID(rank) (10 + (rank))
#define WORKER_TID(rank) (100 + (rank) / 2)

void state(struct fx *f, uint64_t dt, uint64_t id, uint32_t rank, uint64_t exec, int kind,
	   int from, int to, int status);
void enqueue_drain(struct fx *f, uint64_t id, uint32_t rank, uint64_t exec, int kind);
void scenario(struct fx *f);
struct jval parse(const char *text, size_t len);

void test_export__csv_has_one_row_per_interval(void **state_);
void test_export__html_is_self_contained_and_escaped(void **state_);
void test_export__html_caps_a_huge_trace_and_says_so(void **state_);
void test_export__html_keeps_the_root_window_and_the_end(void **state_);

#endif
