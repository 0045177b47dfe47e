/* SPDX-License-Identifier: MIT */
/*
 * The ring-exchange workload (the simulator, libproxyscope_sim.a; not part of libproxyscope): a
 * harness that drives the real proxy driver the way a runtime does.
 *
 * R ranks run as threads, each with its own simulated device and global comm (K ranks share one
 * proxy worker). For every exec, rank r sends B bytes to (r+1)%R and receives B bytes from
 * (r-1+R)%R (the all-to-all pattern: B bytes to and from every other rank), split over S streams
 * and N basic blocks; then it consumes the network and barrier tasks, checks the received bytes
 * against the sender's pattern and waits for its device. Faults can be armed on devices and on
 * the loop fabric.
 *
 * The ranks may be spread over P processes of this host (the "ofi" backend): every process calls
 * enc_wl_run with the same args but its own @proc, runs its contiguous share of the ranks
 * (enc_wl_proc_ranks), and the processes meet on the bananaphone bus during setup. Their
 * results add up with enc_wl_result_merge.
 *
 * The tests, the benchmarks and `proxyscope run` all use it:
 *
 *	struct enc_wl_args args;
 *	struct enc_wl_result res;
 *	enc_wl_args_default(&args);
 *	args.ranks = 8;
 *	enc_wl_args_add_fault(&args, "device-stall:rank=1,exec=2", err, sizeof(err));
 *	rc = enc_wl_run(&args, &res);     0: the run happened; see enc_wl_result_is_ok(&res)
 */
#ifndef PROXYSCOPE_WORKLOAD_H
#define PROXYSCOPE_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/device.h>
#include <proxyscope/export.h>
#include <proxyscope/net_loop.h>
#include <proxyscope/proxy.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENC_WL_MAX_BLOCKS 64
#define ENC_WL_MAX_FAULTS 16
#define ENC_WL_JOB_MAX 64
#define ENC_WL_ERR_MAX 160

/* What a fault is armed on. */
enum enc_wl_fault_target {
	ENC_WL_FAULT_DEV = 0, /* one rank's simulated device (enc_dev_inject) */
	ENC_WL_FAULT_NET = 1, /* the job's loop fabric (enc_net_loop_inject) */
	ENC_WL_FAULT_KILL = 2, /* the process holding a rank (SIGKILL at an exec's start) */
	ENC_WL_FAULT_PARTITION = 3, /* a host's link (cut as its ranks start an exec) */
	ENC_WL_FAULT_LINK = 4, /* the rate of a host's link (limited as its ranks start an exec) */
	ENC_WL_FAULT_TARGET_NR
};

/* A device fault and the rank whose device it is armed on, or every rank of one process. */
struct enc_wl_dev_fault {
	uint32_t rank;     /* unless whole_proc */
	uint32_t proc;     /* whole_proc: the devices of every rank of this process of the run
			    * (enc_wl_proc_ranks; process 0 of a one-process run: every rank) */
	bool whole_proc;
	struct enc_dev_fault f;
};

/* The process holding @rank kills itself (SIGKILL) as that rank starts exec @exec_id. */
struct enc_wl_kill_fault {
	uint32_t rank;
	uint32_t pad;
	uint64_t exec_id;
};

/* Host @host's link goes down as its processes' ranks start exec @exec_id (across hosts). */
struct enc_wl_partition_fault {
	uint32_t host;
	uint32_t pad;
	uint64_t exec_id;
};

#define ENC_WL_ALL_HOSTS UINT32_MAX
#define ENC_WL_MAX_HOSTS_SLOWED 64 /* a job with a slow-link fault: at most this many hosts */

/* From exec @exec_id on, the traffic between host @host and host @peer (ENC_WL_ALL_HOSTS: every
 * other host) is limited to @kbit kbit/s each way (across hosts); @kbit 0 (net-break): their
 * TCP connections are reset instead, the link left up. */
struct enc_wl_link_fault {
	uint32_t host;
	uint32_t peer;
	uint64_t exec_id;
	uint32_t kbit;
};

/* One parsed --inject spec. @target says which member is valid; a net fault carries its rank. */
struct enc_wl_fault {
	uint32_t target; /* enum enc_wl_fault_target */
	union {
		struct enc_wl_dev_fault dev;
		struct enc_net_loop_fault net;
		struct enc_wl_kill_fault kill;
		struct enc_wl_partition_fault partition;
		struct enc_wl_link_fault link;
	};
};

enum enc_wl_pattern {
	ENC_WL_RING = 0,     /* to the next rank, from the previous one */
	ENC_WL_ALLTOALL = 1, /* to and from every other rank */
	ENC_WL_PATTERN_NR
};

struct enc_wl_args {
	uint32_t ranks;           /* R: rank threads (>= 1; no fixed bound: each rank is a thread
				   * and a device thread, see enc_wl_run), default 4 */
	uint32_t ranks_per_proxy; /* K: ranks_per_network_proxy (>= 1), default 2 */
	uint64_t ops;             /* M: execs per rank, default 100 */
	uint64_t bytes;           /* B: bytes each rank sends per exec, default 64 KiB */
	uint32_t streams;         /* 1..ENC_MAX_STREAMS, default 1: one send + one recv per stream */
	uint32_t blocks;          /* basic blocks per exec, 1..ENC_WL_MAX_BLOCKS, default 1 */
	uint32_t timeout_ms;      /* consumer watchdog and device wait (>= 1), default 2000 */
	uint32_t compute_us;      /* simulated device work before the net stage, default 0 */
	bool one_thread_per_core; /* workers busy-spin instead of sched_yield, default false */
	bool device_wait;         /* network tasks wait for the trigger words, default true */
	bool early_completion;    /* network tasks skip INIT -> DONE (no data moves), default false */
	const char *job;          /* the job's name; NULL (default): unique "wl-<pid>-<n>" (one
				   * process only: processes of one job must pass the same name) */
	uint32_t pattern;         /* enum enc_wl_pattern, default ENC_WL_RING */
	const char *backend;      /* the seam backend: NULL (default) = "loop" */
	const char *provider;     /* the ofi backend's provider; NULL = its default */
	uint32_t procs;           /* P: processes of this host running the job, default 1 */
	uint32_t proc;            /* this process's index (0..P-1) = its bus local rank */
	uint32_t local_procs;     /* across hosts: the job's processes on this host (0, the
				   * default: all P are here); its bus local rank is then local_proc */
	uint32_t local_proc;
	uint32_t hosts;           /* across hosts: the job's hosts (0, the default: one host) */
	uint32_t host;            /* across hosts: this process's host, 0..hosts-1 */
	/* The partition fault: take this process's host's link down; called once per process, by
	 * the first of its ranks that starts the exec the fault names, after it recorded the
	 * fault; returns once the link is down (0) or -errno. NULL: partitions cannot be armed. */
	int (*link_cut)(void *arg);
	void *link_cut_arg;
	/* The slow-link fault: limit this process's host's traffic to the hosts @hosts[0..n) to
	 * @kbit kbit/s (0, the net-break fault: reset its TCP connections with them); called once per host, by the first rank of its first process (local_proc
	 * 0) that starts the exec the fault names, after it recorded the fault; returns 0 once the
	 * limit holds, or -errno. NULL: slow links cannot be armed. */
	int (*link_slow)(void *arg, const uint32_t *hosts, size_t n, uint32_t kbit);
	void *link_slow_arg;
	size_t faults_n;
	struct enc_wl_fault faults[ENC_WL_MAX_FAULTS];
};

/* Where a rank's exec loop stopped. */
enum enc_wl_stage {
	ENC_WL_STAGE_SETUP = 0,   /* enc_setup_global_comm */
	ENC_WL_STAGE_SUBMIT = 1,  /* enc_dev_submit */
	ENC_WL_STAGE_ENQUEUE = 2, /* enc_enq_proxy_tasks */
	ENC_WL_STAGE_NETWORK = 3, /* consuming the network task */
	ENC_WL_STAGE_BARRIER = 4, /* consuming the barrier task */
	ENC_WL_STAGE_DEVICE = 5,  /* enc_dev_wait */
	ENC_WL_STAGE_NR
};

struct enc_wl_failure {
	uint32_t rank;
	uint64_t exec_id;
	uint32_t stage;     /* enum enc_wl_stage */
	uint32_t task_type; /* enum proxy_task_state_type; PROXY_TASK_UNKNOWN outside the consumes */
	int status;         /* the negative errno */
};

struct enc_wl_result {
	char job[ENC_WL_JOB_MAX]; /* the job name the run used */
	char err[ENC_WL_ERR_MAX]; /* one-line reason when enc_wl_run returned an error, else "" */
	uint32_t ranks;
	uint32_t ranks_run; /* of those, the ranks this result covers (this process's, or merged) */
	uint32_t first_rank; /* one process's result: the first of its ranks_run ranks */
	uint64_t *execs_completed; /* per rank (ranks entries; those of ranks this result does not
				    * cover are 0): execs that passed every stage. Allocated by
				    * enc_wl_run and enc_wl_result_merge, freed by
				    * enc_wl_result_fini; NULL when the run failed before it */
	uint64_t execs_completed_total;
	uint64_t bytes_verified; /* received bytes compared with the sender's pattern */
	uint64_t mismatches;     /* of those, bytes that differed: 0 on a correct driver */
	uint32_t failures;       /* ranks whose exec loop stopped on an error (timeouts included) */
	uint32_t timeouts;       /* of those, the ones that stopped on -ETIMEDOUT */
	bool has_failure;
	struct enc_wl_failure first_failure; /* valid when has_failure */
	uint64_t wall_ns;                    /* from starting the rank threads to joining the last */
	struct enc_proxy_stats stats;        /* enc_proxy_stats_get() after minus before */
};

/* Fill @args with the defaults above. */
ENC_API void enc_wl_args_default(struct enc_wl_args *args);

/*
 * Parse one CLI fault spec into @out:
 *	device-stall:rank=R,exec=E[,stream=S]   the device of R never triggers (stream S, or all)
 *	device-stall:proc=P,exec=E[,stream=S]   ... the devices of every rank of process P
 *	device-delay:rank=R,exec=E,ms=M         the device of R triggers exec E M ms late
 *	device-delay:rank=R,from=E1,to=E2,ms=M  ... every exec from E1 to E2 (a straggler)
 *	net-drop:rank=R,exec=E                  the sends of R in exec E are lost
 *	slow-progress:rank=R,us=U               every progress call of R takes U us longer
 *	slow-progress:rank=R,us=U,from=E1[,to=E2] ... from exec E1 on (to E2, included)
 *	kill:rank=R,exec=E                      the process holding R dies (SIGKILL) as R starts E
 *	partition:host=H,exec=E                 host H's link goes down as its ranks start E
 *	                                        (across hosts: enc_wl_args.hosts, link_cut)
 *	slow-link:host=H,exec=E,kbit=K[,peer=P] from exec E, H's traffic to P (every other host)
 *	                                        and back limited to K kbit/s (link_slow)
 *	net-break:host=H,exec=E[,peer=P]        as H's ranks start E, the TCP connections between
 *	                                        H and P (every other host) reset (link_slow, 0)
 * Returns 0, or -EINVAL with a one-line reason naming the offending text in @err (may be NULL).
 * The rank is checked against the run's rank count only by enc_wl_run.
 */
ENC_API int enc_wl_fault_parse(const char *spec, struct enc_wl_fault *out, char *err,
			       size_t errlen);

/* Parse @spec and append it to @args. Returns 0, -EINVAL (reason in @err) or -ENOSPC. */
ENC_API int enc_wl_args_add_fault(struct enc_wl_args *args, const char *spec, char *err,
				  size_t errlen);

/* Write @f back in the spec syntax (snprintf semantics: returns the length it needed). */
ENC_API int enc_wl_fault_format(const struct enc_wl_fault *f, char *buf, size_t len);

/* Check @args as enc_wl_run would; returns 0 or -EINVAL with a one-line reason in @err. */
ENC_API int enc_wl_args_check(const struct enc_wl_args *args, char *err, size_t errlen);

/*
 * Run the workload. Returns 0 when the run was carried out, however it went (see @res), or
 * -EINVAL (bad args or a fault on a rank >= R; reason in res->err), -ENOMEM, or the error of
 * creating a device or a thread. Every thread is joined and everything freed before it returns.
 */
ENC_API int enc_wl_run(const struct enc_wl_args *args, struct enc_wl_result *res);

/* The ranks process @proc of @args->procs runs: [*first, *first + *count). */
ENC_API void enc_wl_proc_ranks(const struct enc_wl_args *args, uint32_t proc, uint32_t *first,
			       uint32_t *count);

/*
 * Add the result of another process of the same run into @dst (its ranks, counts, failures);
 * @dst's per-rank array is allocated for dst->ranks (or src->ranks) ranks on the first merge.
 * Returns 0, or -ENOMEM when that array cannot be allocated (the totals are merged anyway).
 */
ENC_API int enc_wl_result_merge(struct enc_wl_result *dst, const struct enc_wl_result *src);

/* Free what @res holds (its per-rank array); @res may then be reused. */
ENC_API void enc_wl_result_fini(struct enc_wl_result *res);

/*
 * One process's result across processes (a pipe, a file): write @res to @fd (the struct, then
 * the counts of its own ranks, 8 bytes each), and read one so written into @res (which then
 * holds an array of its own for every rank; free it with enc_wl_result_fini). Both return 0 or
 * -errno (-EPROTO: short or inconsistent data, -ENOMEM).
 */
ENC_API int enc_wl_result_write(int fd, const struct enc_wl_result *res);
ENC_API int enc_wl_result_read(int fd, struct enc_wl_result *res);

ENC_API const char *enc_wl_pattern_str(enum enc_wl_pattern pattern);
/* Parse "ring" or "alltoall"; returns 0 or -EINVAL. */
ENC_API int enc_wl_pattern_parse(const char *name, enum enc_wl_pattern *out);

/* True when every rank the result covers completed every exec with no mismatch. */
ENC_API bool enc_wl_result_is_ok(const struct enc_wl_args *args, const struct enc_wl_result *res);

ENC_API const char *enc_wl_fault_target_str(enum enc_wl_fault_target target);
ENC_API const char *enc_wl_stage_str(enum enc_wl_stage stage);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_WORKLOAD_H */
