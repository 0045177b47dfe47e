/* SPDX-License-Identifier: MIT */
/*
 * bench_bananaphone_mpi: the Open MPI baseline of bench_bananaphone. Run under mpirun on one
 * host (shared memory: --mca btl self,vader); times MPI_Barrier and a 64-byte-per-rank
 * MPI_Allgather exactly as the driver times bananaphone, reduces the samples to the slowest
 * rank per iteration (MPI_Reduce with MPI_MAX, after the timed loop) and prints one BENCH line
 * per collective from rank 0.
 *
 *	bench_bananaphone_mpi <iters> <load-label>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_bp.h"

static void report(const char *op, int nranks, const char *load, unsigned iters,
		   const uint64_t *lat, int rank)
{
	uint64_t *slowest = rank == 0 ? malloc(iters * sizeof(*slowest)) : NULL;
	struct bench_bp_stats s;

	MPI_Reduce(lat, slowest, (int)iters, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank != 0)
		return;
	s = bench_bp_percentiles(slowest, iters);
	printf("BENCH %s impl=openmpi ranks=%d load=%s iters=%u p50_us=%.2f p99_us=%.2f "
	       "max_us=%.1f\n", op, nranks, load, iters, s.p50_us, s.p99_us, s.max_us);
	fflush(stdout);
	free(slowest);
}

int main(int argc, char **argv)
{
	unsigned iters = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 10000;
	const char *load = argc > 2 ? argv[2] : "idle";
	unsigned char mine[BENCH_BP_RECORD], *all;
	uint64_t *lat, t0;
	int rank, nranks, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	lat = calloc(iters, sizeof(*lat));
	all = malloc((size_t)nranks * BENCH_BP_RECORD);
	if (!lat || !all)
		MPI_Abort(MPI_COMM_WORLD, 1);

	for (unsigned i = 0; i < BENCH_BP_WARMUP; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	for (unsigned i = 0; i < iters; i++) {
		t0 = bench_bp_now_ns();
		MPI_Barrier(MPI_COMM_WORLD);
		lat[i] = bench_bp_now_ns() - t0;
	}
	report("bp_barrier", nranks, load, iters, lat, rank);

	for (unsigned i = 0; i < BENCH_BP_WARMUP + iters; i++) {
		bench_bp_record(mine, (unsigned)rank, i);
		t0 = bench_bp_now_ns();
		MPI_Allgather(mine, BENCH_BP_RECORD, MPI_BYTE, all, BENCH_BP_RECORD, MPI_BYTE,
			      MPI_COMM_WORLD);
		if (i >= BENCH_BP_WARMUP)
			lat[i - BENCH_BP_WARMUP] = bench_bp_now_ns() - t0;
		for (int r = 0; r < nranks; r++)
			bad |= bench_bp_record_check(all + (size_t)r * BENCH_BP_RECORD, (unsigned)r, i);
	}
	report("bp_allgather64", nranks, load, iters, lat, rank);
	if (bad)
		fprintf(stderr, "error: rank %d: MPI_Allgather returned wrong records\n", rank);
	free(lat);
	free(all);
	MPI_Finalize();
	return bad;
}
