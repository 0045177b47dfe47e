/* SPDX-License-Identifier: MIT */
/*
 * The output of `proxyscope run` (see run_output.h): text for people, JSON for machines.
 *
 * Design choice: both renderings read the same two structs and print every counter the library
 * gives, so the text and the JSON never disagree; the only derived values are the rates, and a
 * zero wall time gives a rate of 0, never a division by zero.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "run_output.h"

#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static double per_second(uint64_t count, uint64_t ns)
{
	return ns ? (double)count * 1e9 / (double)ns : 0.0;
}

/* One line per failure fact (first failure, counts, missing execs, mismatches). */
void run_print_failures(const struct enc_wl_args *a, const struct enc_wl_result *r)
{
	uint64_t total = (uint64_t)a->ranks * a->ops;

	if (r->has_failure) {
		const struct enc_wl_failure *f = &r->first_failure;

		/* the first consumer to give up, which in a ring is often an innocent neighbour:
		 * named as what it is, never as the stall (the watchdog's verdict names the root) */
		printf("%s: rank %" PRIu32 " exec %" PRIu64 " %s stage", f->status == -ETIMEDOUT
			? "first timeout" : "first failure", f->rank, f->exec_id,
			enc_wl_stage_str((enum enc_wl_stage)f->stage));
		if (f->task_type != PROXY_TASK_UNKNOWN)
			printf(" (%s task)",
			       proxy_task_state_type_str((enum proxy_task_state_type)f->task_type));
		printf(": %s\n", strerror(-f->status));
		printf("failures: %" PRIu32 " of %" PRIu32 " rank%s stopped on an error (%" PRIu32
		       " timeout%s)\n", r->failures, a->ranks, plural(a->ranks), r->timeouts,
		       plural(r->timeouts));
	}
	if (r->execs_completed_total != total)
		printf("incomplete: %" PRIu64 " of %" PRIu64 " execs completed\n",
		       r->execs_completed_total, total);
	if (r->mismatches)
		printf("mismatch: %" PRIu64 " of %" PRIu64 " verified bytes differed from the "
		       "sender's pattern\n", r->mismatches, r->bytes_verified);
}

void run_print_summary(const struct enc_wl_args *a, const struct enc_wl_result *r)
{
	const struct enc_proxy_stats *s = &r->stats;
	char size[32], verified[32], timeout[32], compute[32], spec[96];

	cli_format_size(a->bytes, size, sizeof(size));
	cli_format_size(r->bytes_verified, verified, sizeof(verified));
	cli_format_duration((uint64_t)a->timeout_ms * NS_PER_MS, timeout, sizeof(timeout));
	cli_format_duration((uint64_t)a->compute_us * NS_PER_US, compute, sizeof(compute));
	printf("run:         %" PRIu32 " rank%s (%" PRIu32 " per proxy), %" PRIu64 " exec%s of %s, "
	       "%" PRIu32 " stream%s, %" PRIu32 " block%s, timeout %s, compute %s, device wait %s, "
	       "%s\n", a->ranks, plural(a->ranks), a->ranks_per_proxy, a->ops, plural(a->ops),
	       size, a->streams, plural(a->streams), a->blocks, plural(a->blocks), timeout,
	       compute, a->device_wait ? "on" : "off", a->one_thread_per_core ? "spin" : "yield");
	printf("network:     %s%s%s%s, %s, %" PRIu32 " process%s\n", a->backend ? a->backend : "loop",
	       a->provider ? " (provider " : "", a->provider ? a->provider : "",
	       a->provider ? ")" : "", enc_wl_pattern_str((enum enc_wl_pattern)a->pattern),
	       a->procs ? a->procs : 1, (a->procs ? a->procs : 1) == 1 ? "" : "es");
	for (size_t i = 0; i < a->faults_n; i++) {
		enc_wl_fault_format(&a->faults[i], spec, sizeof(spec));
		printf("inject:      %s\n", spec);
	}
	printf("execs:       %" PRIu64 " / %" PRIu64 " completed\n", r->execs_completed_total,
	       (uint64_t)a->ranks * a->ops);
	printf("verified:    %" PRIu64 " bytes (%s), %" PRIu64 " mismatch%s\n", r->bytes_verified,
	       verified, r->mismatches, r->mismatches == 1 ? "" : "es");
	printf("wall time:   %.3f s\n", (double)r->wall_ns / 1e9);
	printf("throughput:  %.3f GB/s verified, %.0f execs/s\n",
	       per_second(r->bytes_verified, r->wall_ns) / 1e9,
	       per_second(r->execs_completed_total, r->wall_ns));
	printf("driver:      %" PRIu64 " workers started, %" PRIu64 " tasks enqueued, %" PRIu64
	       " recycled, %" PRIu64 " steps\n", s->workers_started, s->tasks_enqueued,
	       s->tasks_recycled, s->steps);
	printf("seam calls:  start %" PRIu64 ", progress %" PRIu64 ", stop %" PRIu64 "\n",
	       s->seam_start, s->seam_progress, s->seam_stop);
	printf("triggers:    %" PRIu64 " reads\n", s->trigger_reads);
	printf("watchdog:    %" PRIu64 " timeout%s\n", s->watchdog_timeouts,
	       plural(s->watchdog_timeouts));
	printf("result:      %s\n", enc_wl_result_is_ok(a, r) ? "ok" : "FAILED");
}

static void json_u64_member(struct jw *j, const char *key, uint64_t v)
{
	jw_key(j, key);
	jw_u64(j, v);
}

/* Members written as JSON numbers, in the order given. */
struct u64_member {
	const char *key;
	uint64_t v;
};

static void json_u64_members(struct jw *j, const struct u64_member *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_u64_member(j, m[i].key, m[i].v);
}

static void json_args(struct jw *j, const struct enc_wl_args *a)
{
	const struct u64_member m[] = {
		{ "ranks", a->ranks }, { "ranks_per_proxy", a->ranks_per_proxy }, { "ops", a->ops },
		{ "bytes", a->bytes }, { "streams", a->streams }, { "blocks", a->blocks },
		{ "timeout_ms", a->timeout_ms }, { "compute_us", a->compute_us },
	};
	char spec[96];

	jw_key(j, "args");
	jw_begin_object(j);
	json_u64_members(j, m, sizeof(m) / sizeof(m[0]));
	jw_key(j, "backend");
	jw_string(j, a->backend ? a->backend : "loop");
	jw_key(j, "provider");
	if (a->provider)
		jw_string(j, a->provider);
	else
		jw_null(j);
	json_u64_member(j, "procs", a->procs ? a->procs : 1);
	jw_key(j, "pattern");
	jw_string(j, enc_wl_pattern_str((enum enc_wl_pattern)a->pattern));
	jw_key(j, "spin");
	jw_bool(j, a->one_thread_per_core);
	jw_key(j, "device_wait");
	jw_bool(j, a->device_wait);
	jw_key(j, "inject");
	jw_begin_array(j);
	for (size_t i = 0; i < a->faults_n; i++) {
		enc_wl_fault_format(&a->faults[i], spec, sizeof(spec));
		jw_string(j, spec);
	}
	jw_end_array(j);
	jw_end_object(j);
}

static void json_failure(struct jw *j, const struct enc_wl_result *r)
{
	const struct enc_wl_failure *f = &r->first_failure;

	jw_key(j, "first_failure");
	if (!r->has_failure) {
		jw_null(j);
		return;
	}
	jw_begin_object(j);
	json_u64_member(j, "rank", f->rank);
	json_u64_member(j, "exec", f->exec_id);
	jw_key(j, "stage");
	jw_string(j, enc_wl_stage_str((enum enc_wl_stage)f->stage));
	jw_key(j, "task_type");
	jw_string(j, proxy_task_state_type_str((enum proxy_task_state_type)f->task_type));
	jw_key(j, "status");
	jw_i64(j, f->status);
	jw_key(j, "error");
	jw_string(j, strerror(-f->status));
	jw_end_object(j);
}

static void json_result(struct jw *j, const struct enc_wl_args *a,
			const struct enc_wl_result *r)
{
	const struct u64_member counts[] = {
		{ "bytes_verified", r->bytes_verified }, { "mismatches", r->mismatches },
		{ "failures", r->failures }, { "timeouts", r->timeouts }, { "wall_ns", r->wall_ns },
	};

	jw_key(j, "result");
	jw_begin_object(j);
	jw_key(j, "ok");
	jw_bool(j, enc_wl_result_is_ok(a, r));
	jw_key(j, "job");
	jw_string(j, r->job);
	json_u64_member(j, "execs_total", (uint64_t)a->ranks * a->ops);
	json_u64_member(j, "execs_completed", r->execs_completed_total);
	jw_key(j, "execs_completed_per_rank");
	jw_begin_array(j);
	for (uint32_t i = 0; r->execs_completed && i < r->ranks; i++)
		jw_u64(j, r->execs_completed[i]);
	jw_end_array(j);
	json_u64_members(j, counts, sizeof(counts) / sizeof(counts[0]));
	jw_key(j, "throughput_gbps");
	jw_double(j, per_second(r->bytes_verified, r->wall_ns) / 1e9);
	jw_key(j, "execs_per_s");
	jw_double(j, per_second(r->execs_completed_total, r->wall_ns));
	json_failure(j, r);
	jw_end_object(j);
}

static void json_stats(struct jw *j, const struct enc_proxy_stats *s)
{
	const struct u64_member m[] = {
		{ "workers_started", s->workers_started }, { "tasks_enqueued", s->tasks_enqueued },
		{ "tasks_recycled", s->tasks_recycled }, { "steps", s->steps },
		{ "seam_start", s->seam_start }, { "seam_progress", s->seam_progress },
		{ "seam_stop", s->seam_stop }, { "trigger_reads", s->trigger_reads },
		{ "watchdog_timeouts", s->watchdog_timeouts },
	};

	jw_key(j, "stats");
	jw_begin_object(j);
	json_u64_members(j, m, sizeof(m) / sizeof(m[0]));
	jw_end_object(j);
}

void run_json_members(struct jw *j, const struct enc_wl_args *a, const struct enc_wl_result *r)
{
	jw_key(j, "command");
	jw_string(j, "run");
	json_args(j, a);
	json_result(j, a, r);
	json_stats(j, &r->stats);
}
